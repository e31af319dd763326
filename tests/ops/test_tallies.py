"""The tallies behind /metrics and /healthz stay exact through everything that writes
events and mails: moves, a game's end, mail sent and failed, rows deleted, the
revision's back-fill, and (PostgreSQL) the gathering of closed connections' rows."""

from __future__ import annotations

import re

import pytest
from alembic import command
from sqlalchemy import text
from sqlmodel import Session, select

from pbem.db import make_engine
from pbem.games import tallies
from pbem.games.service import SeatSpec
from pbem.mail.dispatch import FAILURE_REASONS
from pbem.mail.models import Mail
from pbem.migrations import alembic_config
from pbem.models import Tally
from pbem.runtime import build_runtime
from pbem.scheduler import dispatch
from pbem.web import create_app
from pbem.web.ops import MAIL_STATUSES
from tests.databases import reset_postgres


@pytest.fixture
def runtime(db, tmp_path):
    return build_runtime(
        {
            "security": {"secret_key": "k"},
            "paths": {"var": str(tmp_path / "var")},
            "mail": {"host": "", "quiet_minutes": 0},
        },
        db=db,
    )


def metric(page: str, name: str) -> int:
    return int(re.search(rf"^{re.escape(name)} (\d+)$", page, re.M).group(1))


def real_counts(db) -> tuple[int, dict[str, int], dict[str, int]]:
    """Events, mails by status and failed mails by reason, counted row by row."""
    with Session(db) as session:
        events = session.exec(text("SELECT count(*) FROM events")).scalar_one()
        mails = session.exec(select(Mail.status, Mail.last_error)).all()
    statuses = {status: 0 for status in MAIL_STATUSES}
    reasons = {name.replace(" ", "_"): 0 for name in FAILURE_REASONS} | {"other": 0}
    for status, error in mails:
        statuses[status] = statuses.get(status, 0) + 1
        if status == "failed":
            reason = next((r for r in FAILURE_REASONS if error.startswith(f"{r}:")), "other")
            reasons[reason.replace(" ", "_")] += 1
    return events, statuses, reasons


def assert_exact(runtime) -> str:
    page = create_app(runtime=runtime).test_client().get("/metrics").get_data(as_text=True)
    events, statuses, reasons = real_counts(runtime.db)
    assert metric(page, "pbem_events_appended_total") == events
    for status, count in statuses.items():
        assert metric(page, f'pbem_mails{{status="{status}"}}') == count, status
    for reason, count in reasons.items():
        assert metric(page, f'pbem_mails_failed{{reason="{reason}"}}') == count, reason
    return page


def play(runtime, target: int) -> str:
    service = runtime.service
    seats = [SeatSpec("Ann", "ann@example.org"), SeatSpec("Bob", "bob@example.org")]
    game_id = service.create_game("pig", seats, {"target": target}).game_id
    for turn in range(60 if target < 10 else 6):
        head = service.head(game_id)
        if service.game(game_id).status != "active":
            break
        seat = min(head.engine.to_move(head.state))
        kind = "stop" if turn % 2 else "roll"
        service.submit_move(game_id, seat, {"type": kind}, head.seq)
    return game_id


def test_tallies_follow_moves_mail_sent_failed_and_deleted(runtime):
    assert_exact(runtime)
    running = play(runtime, 10**6)
    ended = play(runtime, 1)
    assert runtime.service.game(ended).status == "finished"
    assert runtime.service.game(running).status == "active"
    page = assert_exact(runtime)
    assert metric(page, 'pbem_mails{status="pending"}') > 0
    with Session(runtime.db) as session:
        ids = session.exec(select(Mail.id).order_by(Mail.id)).all()
        # One mail that cannot be built, one refused and one that gave up (as the
        # dispatcher words them), one failed some other way, one bouncing.
        broken = session.get(Mail, ids[0])
        broken.recipient = "not an address"
        session.add(broken)
        for mail_id, status, error in (
            (ids[1], "failed", "refused: 550 no such user"),
            (ids[2], "failed", "gave up: timed out"),
            (ids[3], "failed", "something else"),
            (ids[4], "bouncing", "bouncing: address bounces"),
        ):
            mail = session.get(Mail, mail_id)
            mail.status, mail.last_error = status, error
            session.add(mail)
        session.commit()
    assert_exact(runtime)
    report = dispatch(runtime)
    assert report.claimed and report.sent
    page = assert_exact(runtime)
    assert metric(page, 'pbem_mails{status="sent"}') > 0
    assert metric(page, 'pbem_mails_failed{reason="unbuildable"}') == 1
    # A failed mail whose error changes moves between reasons; a retry empties it.
    with Session(runtime.db) as session:
        mail = session.get(Mail, ids[3])
        mail.last_error = "refused: 554 go away"
        session.add(mail)
        session.commit()
    page = assert_exact(runtime)
    assert metric(page, 'pbem_mails_failed{reason="refused"}') == 2
    # Rows deleted (a game removed by hand, old mail pruned): the tallies follow.
    with runtime.db.begin() as connection:
        connection.execute(text("DELETE FROM events WHERE game_id = :g"), {"g": ended})
        connection.execute(
            text("DELETE FROM mail_outbox WHERE id IN (:a, :b)"), {"a": ids[1], "b": ids[5]}
        )
    page = assert_exact(runtime)
    assert metric(page, "pbem_events_appended_total") == len(runtime.service.events(running))


def test_health_reads_the_backlog_from_the_tallies(runtime):
    play(runtime, 10**6)
    _, statuses, _ = real_counts(runtime.db)
    answer = create_app(runtime=runtime).test_client().get("/healthz").get_json()
    assert answer["outbox_backlog"] == statuses["pending"] + statuses["sending"] > 0


def test_the_revision_counts_the_rows_already_there(runtime):
    play(runtime, 10**6)
    play(runtime, 1)
    with runtime.db.begin() as connection:
        connection.execute(
            text(
                "UPDATE mail_outbox SET status = 'failed', last_error = 'unbuildable: x' "
                "WHERE id = (SELECT min(id) FROM mail_outbox)"
            )
        )
    expected = real_counts(runtime.db)
    with runtime.db.begin() as connection:
        config = alembic_config(connection)
        command.downgrade(config, "0017_offer_expiry")
        command.upgrade(config, "head")
    assert real_counts(runtime.db) == expected
    assert_exact(runtime)


@pytest.fixture
def pg_runtime(request, tmp_path):
    url, connect_args, schema = request.getfixturevalue("postgres_schema")
    engine = make_engine(url, connect_args=connect_args)
    reset_postgres(engine, schema)
    yield build_runtime(
        {"security": {"secret_key": "k"}, "paths": {"var": str(tmp_path / "var")}}, db=engine
    )
    engine.dispose()


def _live_shards(db) -> tuple[list[int], set[int]]:
    with Session(db) as session:
        shards = session.exec(select(Tally.shard).where(Tally.shard != 0)).all()
        alive = set(session.exec(text("SELECT pid FROM pg_stat_activity")).scalars())
    return shards, alive


@pytest.mark.postgres
def test_rows_of_closed_connections_are_gathered_without_changing_a_count(pg_runtime):
    db = pg_runtime.db
    play(pg_runtime, 10**6)
    db.dispose()  # every connection that wrote is closed: their rows are gathered
    with Session(db) as session:
        before = tallies.counts(session)
    shards, _ = _live_shards(db)
    assert shards
    assert tallies.fold(db) >= 1
    with Session(db) as session:
        assert tallies.counts(session) == before
    shards, alive = _live_shards(db)
    assert set(shards) <= alive  # only a live connection keeps a row of its own
    # A connection still open keeps its row while it lives.
    with db.connect() as open_connection:
        pid = open_connection.execute(text("SELECT pg_backend_pid()")).scalar_one()
        open_connection.execute(
            text("INSERT INTO tallies (name, shard, count) VALUES ('events', :pid, 0)"),
            {"pid": pid},
        )
        open_connection.commit()
        tallies.fold(db)
        assert pid in _live_shards(db)[0]
    assert_exact(pg_runtime)
