"""Engine versions that coexist: a game plays to its end on the version it was made with;
an operator moves it to a newer one only when its log replays identically there."""

from __future__ import annotations

import json

import pytest
from sqlmodel import select

from engines import REGISTRY, bot_levels_of, get_engine, versions_of
from engines.api import IllegalMove
from pbem.errors import BadInput, Rejected
from pbem.eventlog.verify import verify_export
from pbem.games.service import GameService, SeatSpec
from pbem.models import Event, Seat, Snapshot
from tests.fixture_engine import Pig


class PigTwo(Pig):
    """Pig, version 2: stopping with an empty pot is no longer allowed."""

    version = 2
    versions = (1, 2)

    def at_version(self, version):
        if version == 1:
            return Pig()
        if version == 2:
            return self
        raise KeyError(f"{self.title} has no version {version}.")

    def apply(self, state, seat, move, chance):
        if move.get("type") == "stop" and state["pot"] == 0 and not state["over"]:
            raise IllegalMove("There is nothing to bank yet.")
        return super().apply(state, seat, move, chance)


def humans(count=2):
    return [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(count)]


def moves(service, game_id, made):
    for move in made:
        head = service.head(game_id)
        seat = min(head.engine.to_move(head.state))
        service.submit_move(game_id, seat, move, head.seq)


ROLL, STOP = {"type": "roll"}, {"type": "stop"}


@pytest.fixture
def two(monkeypatch):
    monkeypatch.setitem(REGISTRY, "pig", PigTwo())


def test_get_engine_resolves_slug_and_version(two):
    assert get_engine("pig").version == 2
    assert get_engine("pig", 1).version == 1 and type(get_engine("pig", 1)) is Pig
    assert versions_of(get_engine("pig")) == (1, 2)
    with pytest.raises(KeyError, match="no version 3"):
        get_engine("pig", 3)
    with pytest.raises(KeyError, match="No game called 'nope'"):
        get_engine("nope", 1)


def test_a_game_made_on_v1_keeps_playing_v1_after_v2_ships(service, monkeypatch):
    created = service.create_game("pig", humans(), {"target": 10})
    moves(service, created.game_id, [ROLL])
    monkeypatch.setitem(REGISTRY, "pig", PigTwo())
    fresh = service.create_game("pig", humans(), {"target": 10})
    assert service.game(fresh.game_id).engine_version == 2
    head = service.head(fresh.game_id)
    with pytest.raises(Rejected, match="nothing to bank"):
        service.submit_move(fresh.game_id, 0, STOP, head.seq)
    # the old game: v1 rules, so a stop with an empty pot is still a move
    moves(service, created.game_id, [STOP, STOP])
    assert service.game(created.game_id).engine_version == 1
    assert service.head(created.game_id).engine.version == 1
    report = {entry["game_id"]: entry for entry in service.check_engines()}
    assert report[created.game_id]["ok"] and report[created.game_id]["running"] == 1
    assert report[fresh.game_id]["ok"] and report[fresh.game_id]["running"] == 2
    assert service.verify_game(created.game_id).ok


def test_create_on_an_unknown_version_is_refused(service, two):
    with pytest.raises(BadInput, match="no version 7"):
        service.create_game("pig", humans(), version=7)
    assert service.games() == []


def diverging_game(service):
    created = service.create_game("pig", humans(), {"target": 50})
    moves(service, created.game_id, [STOP, ROLL])  # seat 0 banks an empty pot
    return created.game_id


def test_upgrade_refuses_a_log_that_diverges_and_changes_nothing(service, monkeypatch):
    game_id = diverging_game(service)
    monkeypatch.setitem(REGISTRY, "pig", PigTwo())
    before = service.events(game_id)
    check = service.upgrade_engine(game_id)
    assert not check.ok and check.first_bad_seq == 1
    assert "event 1" in check.message and "nothing to bank" in check.message
    assert service.events(game_id) == before
    assert service.game(game_id).engine_version == 1


def test_upgrade_accepts_an_identical_log_and_records_it(db, monkeypatch):
    service = GameService(db, snapshot_every=3)
    created = service.create_game("pig", humans(), {"target": 100})
    game_id = created.game_id
    moves(service, game_id, [ROLL] * 4)
    monkeypatch.setitem(REGISTRY, "pig", PigTwo())
    assert not service.upgrade_engine(game_id, to=1).ok  # not newer
    assert not service.upgrade_engine(game_id, to=5).ok  # not played
    check = service.upgrade_engine(game_id)
    assert check.ok, check.message
    event = service.events(game_id)[-1]
    assert event["kind"] == "engine_upgraded" and event["payload"] == {"from": 1, "to": 2}
    assert service.game(game_id).engine_version == 2
    # the game now plays version 2: an empty-pot stop is refused
    moves(service, game_id, [ROLL] * 3)
    head = service.head(game_id)
    assert head.engine.version == 2
    while service.head(game_id).state["pot"] != 0:
        moves(service, game_id, [ROLL])
    head = service.head(game_id)
    with pytest.raises(Rejected, match="nothing to bank"):
        service.submit_move(game_id, min(head.engine.to_move(head.state)), STOP, head.seq)
    # replay, snapshots on both sides of the upgrade, and verification honour the event
    assert service.verify_game(game_id).ok
    with service.session() as session:
        versions = {row.engine_version for row in session.exec(select(Snapshot))}
        cached = service.store.head(session, game_id, use_cache=True)
        replayed = service.store.head(session, game_id, use_cache=False)
        scratch = service.store.state_at(
            session, cached.game, cached.engine, cached.seq, use_snapshots=False
        )
    assert versions == {1, 2}
    assert cached.state == replayed.state == scratch
    assert service.check_engines()[0]["ok"]
    export = service.export_game(game_id, full=True)
    assert verify_export(json.loads(json.dumps(export))).ok


def test_an_upgraded_game_imports_on_its_new_version(service, monkeypatch, tmp_path):
    from tests.databases import sqlite_engine

    created = service.create_game("pig", humans(), {"target": 100})
    moves(service, created.game_id, [ROLL, ROLL])
    monkeypatch.setitem(REGISTRY, "pig", PigTwo())
    assert service.upgrade_engine(created.game_id).ok
    export = json.loads(json.dumps(service.export_game(created.game_id, full=True)))
    elsewhere = sqlite_engine(tmp_path / "elsewhere.sqlite3")
    other = GameService(elsewhere, snapshot_every=2)
    other.import_game(export)
    assert other.game(created.game_id).engine_version == 2
    assert other.head(created.game_id).engine.version == 2
    assert other.head(created.game_id).state == service.head(created.game_id).state
    elsewhere.dispose()


def test_upgrade_needs_its_own_events_to_verify_first(service, monkeypatch):
    created = service.create_game("pig", humans(), {"target": 100})
    moves(service, created.game_id, [ROLL])
    monkeypatch.setitem(REGISTRY, "pig", PigTwo())
    with service.session() as session:
        row = session.get(Event, (created.game_id, 1))
        row.payload = {"move": {"type": "roll", "dice": 3}}
        session.add(row)
        session.commit()
    check = service.upgrade_check(created.game_id)
    assert not check.ok and "does not replay on its own version" in check.message


def test_a_bot_seat_plays_at_its_level(service, monkeypatch):
    asked = []

    class Spy(Pig):
        def bot_move(self, view, legal_moves, rng, level="normal"):
            asked.append(level)
            return super().bot_move(view, legal_moves, rng, level)

    monkeypatch.setitem(REGISTRY, "pig", Spy())
    seats = [SeatSpec("Bot", is_bot=True, bot_level="easy"), *humans(1)]
    created = service.create_game("pig", seats, {"target": 10})
    service.play_bots(created.game_id)
    assert asked and set(asked) == {"easy"}
    assert [seat.bot_level for seat in service.seats(created.game_id)] == ["easy", "normal"]
    with pytest.raises(BadInput, match="easy, normal"):
        service.create_game("pig", [SeatSpec("B", is_bot=True, bot_level="hard"), *humans(1)])
    assert bot_levels_of(Spy()) == ("easy", "normal")
    with service.session() as session:
        assert len(session.exec(select(Seat)).all()) == 2


def test_an_option_the_setup_refuses_is_bad_input_and_creates_nothing(service):
    with pytest.raises(BadInput, match="from 1 to 2"):
        service.create_game("mercatores", humans(2), {"first_player": "4"})
    with pytest.raises(BadInput, match="no option 'first_player'"):
        service.create_game("mercatores", humans(2), {"first_player": "2"}, version=1)
    assert service.games() == []
    created = service.create_game("mercatores", humans(2), {"first_player": "2"})
    assert service.head(created.game_id).state.turn == 1


def test_the_first_schema_gains_the_bot_level_column(tmp_path):
    import shutil
    from pathlib import Path

    from pbem.db import make_engine
    from pbem.migrations import head_revision, migrate

    fixture = Path(__file__).resolve().parent / "fixtures" / "schema_v1.sqlite3"
    path = tmp_path / "v1.sqlite3"
    shutil.copy(fixture, path)
    db = make_engine(f"sqlite:///{path}")
    assert migrate(db) == ("0001_schema_v1", head_revision())
    service = GameService(db)
    with service.session() as session:
        levels = {row.bot_level for row in session.exec(select(Seat))}
    assert levels == {"normal"}
    created = service.create_game(
        "mercatores", [SeatSpec("Bot", is_bot=True, bot_level="easy"), *humans(1)]
    )
    assert service.seats(created.game_id)[0].bot_level == "easy"
    db.dispose()


def test_bot_levels_travel_with_an_export(service, tmp_path):
    from tests.databases import sqlite_engine

    seats = [SeatSpec("Easy", is_bot=True, bot_level="easy"), SeatSpec("Bot", is_bot=True)]
    created = service.create_game("pig", [*seats, *humans(1)], {"target": 200})
    moves(service, created.game_id, [ROLL])
    export = json.loads(json.dumps(service.export_game(created.game_id, full=True)))
    assert export["game"]["bot_levels"] == {"0": "easy", "1": "normal"}
    elsewhere = sqlite_engine(tmp_path / "levels.sqlite3")
    other = GameService(elsewhere)
    other.import_game(export)
    assert [seat.bot_level for seat in other.seats(created.game_id)][:2] == ["easy", "normal"]
    elsewhere.dispose()
