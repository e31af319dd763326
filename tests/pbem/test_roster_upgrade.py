"""Upgrading a database of the first released schema: every running game's log gains
one ``roster`` event recorded from the old tables, and the game goes on with it."""

from __future__ import annotations

import random
import re
import shutil

import pytest
from sqlmodel import Session, select

from pbem.db import make_engine
from pbem.eventlog import roster as roster_mod
from pbem.games.service import GameService
from pbem.games.tables import SeatOffer
from pbem.migrations import migrate, record_rosters
from pbem.runtime import build_runtime
from pbem.web import create_app
from tests.pbem.test_upgrade import FIXTURES

EVENT_LINE = re.compile(r'<p class="message" id="event-line"[^>]*>(.*?)</p>', re.S)


@pytest.fixture
def upgraded(tmp_path):
    path = tmp_path / "schema_v1.sqlite3"
    shutil.copy(FIXTURES / "schema_v1.sqlite3", path)
    db = make_engine(f"sqlite:///{path}")
    with db.connect() as connection:
        heads = dict(connection.exec_driver_sql("SELECT id, head_seq FROM games").all())
    migrate(db)
    yield db, heads
    db.dispose()


def test_every_running_game_gains_one_roster_event_from_the_old_tables(upgraded):
    db, heads = upgraded
    service = GameService(db)
    games = service.games()
    assert {game.status for game in games} == {"active", "finished"}
    for game in games:
        events = service.events(game.id)
        recorded = [row for row in events if row["kind"] == "roster"]
        if game.status == "finished":
            assert recorded == [] and game.head_seq == heads[game.id]
            report = service.verify_game(game.id)
            assert report.ok and not report.roster_in_chain
            continue
        assert len(recorded) == 1 and recorded[0]["seq"] == heads[game.id] + 1
        assert recorded[0]["actor"] == "migration" and recorded[0]["seat"] is None
        with Session(db) as session:
            offers = [
                offer.seat
                for offer in session.exec(select(SeatOffer).where(SeatOffer.game_id == game.id))
            ]
        expected = roster_mod.from_seats(
            service.seats(game.id), game.creator_seat, game.policy, open_seats=offers
        )
        assert roster_mod.fold(events) == expected
        assert expected.names == [seat.name for seat in service.seats(game.id)]
        report = service.verify_game(game.id)
        assert report.ok and report.roster_in_chain


def test_a_second_migrate_adds_nothing(upgraded):
    db, _ = upgraded
    service = GameService(db)
    before = {game.id: game.head_seq for game in service.games()}
    migrate(db)
    assert record_rosters(db) == []
    assert {game.id: game.head_seq for game in service.games()} == before


def test_an_upgraded_game_goes_on_verifies_and_its_history_names_the_holders(upgraded, tmp_path):
    db, heads = upgraded
    runtime = build_runtime(
        {
            "security": {"secret_key": "upgrade-key"},
            "paths": {"var": str(tmp_path / "var")},
            "server": {"demo": False, "base_url": "http://localhost"},
            "mail": {"host": ""},
        },
        db=db,
        create_schema=False,
    )
    service = runtime.service
    running = [game for game in service.games() if game.status == "active"]
    assert running
    for game in running:
        head = service.head(game.id)
        seat = min(head.engine.to_move(head.state))
        legal = head.engine.legal_moves(head.state, seat)
        move = head.engine.bot_move(head.engine.view(head.state, seat), legal, random.Random(1))
        outcome = service.submit_move(game.id, seat, move, head.seq)
        report = service.verify_game(game.id)
        assert report.ok and report.roster_in_chain
        names = [row.name for row in service.seats(game.id)]
        assert report.roster.names == names
        exported = service.export_game(game.id, full=True)
        assert exported["game"]["seat_names"] == names
        client = create_app({"TESTING": True}, runtime=runtime).test_client()
        page = client.get(f"/games/{game.id}/history?at={outcome.events[0]['seq']}")
        assert page.status_code == 200
        line = EVENT_LINE.search(page.text).group(1)
        assert f"<strong>{names[seat]}" in line
        # An event from before the roster was logged is named by today's seats.
        first = next(row for row in service.events(game.id) if row["kind"] in ("move", "auto_move"))
        page = client.get(f"/games/{game.id}/history?at={first['seq']}")
        assert f"<strong>{names[first['seat']]}" in EVENT_LINE.search(page.text).group(1)
        recorded = client.get(f"/games/{game.id}/history?at={heads[game.id] + 1}").text
        assert "The log records who holds the seats: " in recorded


def _rosters(db) -> dict[str, int]:
    with db.connect() as connection:
        return dict(
            connection.exec_driver_sql(
                "SELECT g.id, count(e.seq) FROM games g LEFT JOIN events e "
                "ON e.game_id = g.id AND e.kind = 'roster' "
                "WHERE g.status = 'active' GROUP BY g.id"
            ).all()
        )


def test_a_start_on_a_current_schema_leaves_the_back_fill_to_pbem_migrate(tmp_path, monkeypatch):
    """A game the upgrade could not give its roster (its seed sealed under another key
    than the one the upgrade had) is left alone by every start, however many times, and
    gets its roster from ``pbem migrate`` with the right key."""
    from pbem import migrations
    from pbem.cli import main
    from pbem.migrations import seal_plain_seeds

    path = tmp_path / "schema_v1.sqlite3"
    shutil.copy(FIXTURES / "schema_v1.sqlite3", path)
    db = make_engine(f"sqlite:///{path}")
    seal_plain_seeds(db, "the-right-key")
    migrate(db, secret_key="another-key")  # the upgrade: every seed is sealed under the other
    assert set(_rosters(db).values()) == {0}
    calls = []
    original = migrations.record_rosters
    monkeypatch.setattr(
        migrations, "record_rosters", lambda *a, **k: calls.append(a) or original(*a, **k)
    )
    overrides = {
        "security": {"secret_key": "the-right-key"},
        "paths": {"var": str(tmp_path / "var")},
        "server": {"demo": False},
    }
    for _ in range(2):
        build_runtime(overrides, db=db)
    assert calls == []
    assert set(_rosters(db).values()) == {0}
    monkeypatch.setenv("PBEM_SECURITY_SECRET_KEY", "the-right-key")
    monkeypatch.setenv("PBEM_PATHS_VAR", str(tmp_path / "var"))
    assert main(["--database", f"sqlite:///{path}", "migrate"]) == 0
    assert len(calls) == 1
    assert set(_rosters(db).values()) == {1}
    db.dispose()
