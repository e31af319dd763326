"""On SQLite, readers never wait for writers, and writers queue behind each other.

A slow reader (another thread inside a read transaction) must not delay a turn page; a
writer holding the write lock must make a second writer wait, not fail.
"""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import text

from pbem.db import READS, WriteInRead, check_synchronous, for_reads, make_engine
from pbem.runtime import build_runtime
from pbem.web import create_app
from tests.web.conftest import overrides, pig_game


def hold(db, seconds: float, ready: threading.Event, *, write: bool) -> threading.Thread:
    """A thread that opens a transaction (a read of the events, or the write lock) and
    keeps it open for ``seconds``."""

    def run():
        engine = db if write else for_reads(db)
        with engine.begin() as connection:
            connection.execute(text("SELECT count(*) FROM events")).scalar()
            ready.set()
            time.sleep(seconds)

    thread = threading.Thread(target=run)
    thread.start()
    assert ready.wait(5)
    return thread


@pytest.fixture
def runtime(sqlite_db, tmp_path):
    return build_runtime(overrides(tmp_path), db=sqlite_db)


def turn_page_seconds(client, token: str) -> float:
    start = time.perf_counter()
    response = client.get(f"/play/{token}")
    elapsed = time.perf_counter() - start
    assert response.status_code == 200
    return elapsed


def test_a_turn_page_does_not_wait_for_a_slow_reader(runtime):
    created = pig_game(runtime)
    client = create_app(runtime=runtime).test_client()
    turn_page_seconds(client, created.tokens[1])  # templates compiled, caches warm
    reader = hold(runtime.db, 1.5, threading.Event(), write=False)
    try:
        elapsed = turn_page_seconds(client, created.tokens[0])
        # A move (a writer) goes through while the reader still reads.
        start = time.perf_counter()
        runtime.service.submit_move(created.game_id, 0, {"type": "roll"}, 0)
        moved = time.perf_counter() - start
        assert reader.is_alive()
    finally:
        reader.join()
    assert elapsed < 0.1, f"the turn page took {elapsed * 1000:.0f} ms behind a slow reader"
    assert moved < 0.5, f"a move took {moved * 1000:.0f} ms behind a slow reader"


def test_a_turn_page_does_not_wait_for_a_writer(runtime):
    created = pig_game(runtime)
    client = create_app(runtime=runtime).test_client()
    # The first view of a seat's link records, once, that its player took the seat (the
    # mail budget's one write); every later view only reads.
    turn_page_seconds(client, created.tokens[0])
    writer = hold(runtime.db, 1.5, threading.Event(), write=True)
    try:
        elapsed = turn_page_seconds(client, created.tokens[0])
        assert writer.is_alive()
    finally:
        writer.join()
    assert elapsed < 0.1, f"the turn page took {elapsed * 1000:.0f} ms behind a writer"


def test_a_writer_waits_for_a_writer_instead_of_failing(runtime):
    created = pig_game(runtime)
    writer = hold(runtime.db, 0.5, threading.Event(), write=True)
    start = time.perf_counter()
    try:
        outcome = runtime.service.submit_move(created.game_id, 0, {"type": "roll"}, 0)
    finally:
        writer.join()
    assert outcome.seq == 1
    assert time.perf_counter() - start >= 0.4  # it queued behind the lock, then went on


def test_a_read_transaction_may_not_write(sqlite_db):
    with pytest.raises(WriteInRead), for_reads(sqlite_db).begin() as connection:
        connection.execute(text("DELETE FROM events"))
    assert for_reads(sqlite_db).get_execution_options()[READS] is True
    assert sqlite_db.get_execution_options().get(READS) is None


def test_reads_begin_deferred_and_writes_immediate(sqlite_db):
    seen = []
    from sqlalchemy import event

    @event.listens_for(sqlite_db, "before_cursor_execute")
    def record(_conn, _cursor, statement, *_):
        seen.append(statement)

    with for_reads(sqlite_db).begin() as connection:
        connection.execute(text("SELECT 1"))
    with sqlite_db.begin() as connection:
        connection.execute(text("SELECT 1"))
    assert [s for s in seen if s.startswith("BEGIN")] == ["BEGIN", "BEGIN IMMEDIATE"]


@pytest.mark.parametrize(("configured", "expected"), [(None, 2), ("NORMAL", 1), ("off", 0)])
def test_sqlite_synchronous_is_full_unless_configured(tmp_path, configured, expected):
    kwargs = {} if configured is None else {"synchronous": configured}
    db = make_engine(f"sqlite:///{tmp_path / 's.sqlite3'}", **kwargs)
    with db.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA synchronous").scalar() == expected
    db.dispose()


def test_the_runtime_takes_synchronous_from_the_config(tmp_path):
    config = overrides(tmp_path)
    config["database"] = {
        "url": f"sqlite:///{tmp_path / 'r.sqlite3'}",
        "sqlite_synchronous": "NORMAL",
    }
    runtime = build_runtime(config)
    with runtime.db.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA synchronous").scalar() == 1
    runtime.db.dispose()


def test_a_bad_synchronous_setting_is_refused():
    with pytest.raises(ValueError, match="sqlite_synchronous"):
        check_synchronous("sometimes")


@pytest.mark.postgres
def test_reads_on_postgres_hold_no_transaction_between_statements(postgres_schema):
    """On PostgreSQL each statement of a read runs as its own transaction (what READ
    COMMITTED gives a statement anyway): no BEGIN before it, no ROLLBACK after it (which
    would make psycopg forget its prepared statements), no snapshot held open while a
    page renders. It sees a write committed between two of its statements, as before,
    and the pooled connection goes back transactional for the writers."""
    import psycopg
    from sqlmodel import Session

    from pbem.games.service import GameService, SeatSpec
    from pbem.models import Game
    from tests.databases import reset_postgres

    url, connect_args, schema = postgres_schema
    db = make_engine(url, connect_args=connect_args, pool_size=1, max_overflow=0)
    reset_postgres(db, schema)
    try:
        service = GameService(db)
        game_id = service.create_game("pig", [SeatSpec("A"), SeatSpec("B")], {}).game_id
        with service.reading() as session:
            assert session.get(Game, game_id).title == "Pig (test fixture)"
            driver = session.connection().connection.dbapi_connection
            assert driver.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
            other = make_engine(url, connect_args=connect_args)
            with other.begin() as connection:
                connection.execute(
                    text("UPDATE games SET title = 'Renamed' WHERE id = :id"), {"id": game_id}
                )
            other.dispose()
            session.expire_all()
            assert session.get(Game, game_id).title == "Renamed"
            assert driver.info.transaction_status == psycopg.pq.TransactionStatus.IDLE
        with Session(db) as session:  # the same pooled connection, for a writer
            session.get(Game, game_id)
            driver = session.connection().connection.dbapi_connection
            assert driver.autocommit is False
            assert driver.info.transaction_status == psycopg.pq.TransactionStatus.INTRANS
    finally:
        db.dispose()
