"""A full disk or a lost database connection: the move that meets it answers 503, the
next one that can succeed does, and /healthz tells the truth in every web worker.

A full disk shows itself at commit on SQLite's WAL (the pages go to the journal then)
and on PostgreSQL (the WAL is flushed then): the driver's commit fails with the error a
full disk gives. A full database file fails earlier, at the insert: SQLite's
``max_page_count`` lowered to the file's size does that for real.
"""

from __future__ import annotations

import sqlite3
import time

import pytest
from sqlalchemy import event, text
from sqlmodel import Session

from pbem.db import KeptConnections
from pbem.mail.models import Heartbeat
from pbem.runtime import build_runtime
from pbem.web import create_app, hardening
from pbem.zones import utc
from tests.web.conftest import overrides, pig_game


@pytest.fixture
def served(db, tmp_path):
    """A runtime with a fresh worker heartbeat, and two web workers' clients on it."""
    runtime = build_runtime(overrides(tmp_path), db=db)
    with Session(runtime.db) as session:
        now = utc(runtime.clock())
        session.merge(Heartbeat(name="w", pid=1, started_at=now, beat_at=now))
        session.commit()
    hardening.forget_database_failures()
    clients = []
    for _ in range(2):
        app = create_app(runtime=runtime)
        app.config["TESTING"] = True
        clients.append(app.test_client())
    yield runtime, clients
    hardening.forget_database_failures()


def contribute_first(runtime, created):
    """Both seats' dice contributions, given now: a seat's first move would add its own
    as an event first, and a first roll of 1 hands the turn on, so the sequence numbers
    the tests expect would depend on the dice."""
    for seat in (0, 1):
        if runtime.service.needs_contribution(created.game_id, seat):
            runtime.service.contribute(created.game_id, seat)


def _move(client, runtime, created):
    head = runtime.service.head(created.game_id)
    (seat,) = head.engine.to_move(head.state)
    return client.post(
        f"/api/play/{created.tokens[seat]}/moves",
        json={"move": {"type": "roll"}, "expected_seq": head.game.head_seq},
    )


class FullDisk:
    """Writes fail as they do when the disk is full, while switched on: on SQLite the
    driver's COMMIT (where WAL pages are written), on PostgreSQL each statement that
    writes (a move's write commits as it runs there)."""

    def __init__(self, db):
        self.db, self.on = db, False
        self.real = db.dialect.do_commit
        if db.dialect.name == "sqlite":
            self.error = sqlite3.OperationalError("database or disk is full")
            db.dialect.do_commit = self.commit
        else:
            import psycopg

            self.error = psycopg.errors.DiskFull(
                'could not extend file "base/16384/2619": No space left on device'
            )
            event.listen(db, "before_cursor_execute", self.statement)

    def commit(self, dbapi_connection):
        if self.on:
            raise self.error
        return self.real(dbapi_connection)

    def statement(self, _connection, _cursor, sql, *_args):
        if self.on and sql.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE", "WITH")):
            raise self.error


def test_a_full_disk_at_commit_fails_each_move_cleanly_and_the_first_after_it_succeeds(served):
    runtime, (client, other) = served
    created = pig_game(runtime, target=1000)
    assert _move(client, runtime, created).status_code == 200  # a connection is kept
    contribute_first(runtime, created)
    seq = runtime.service.head(created.game_id).seq
    disk = FullDisk(runtime.db)
    disk.on = True
    for _ in range(3):
        answer = _move(client, runtime, created)
        assert answer.status_code == 503, answer.json
        assert "database" in answer.json["error"]["message"]
    assert runtime.service.head(created.game_id).seq == seq
    # Every worker says so, not only the one that met the failure.
    hardening.forget_database_failures()
    health = other.get("/healthz")
    assert health.status_code == 503 and "disk full" in health.json["database"]
    disk.on = False
    after = _move(client, runtime, created)
    assert after.status_code == 200, after.json
    assert after.json["seq"] == seq + 1
    health = client.get("/healthz")
    assert health.status_code == 200 and health.json["database"] == "ok", health.json


def test_a_full_database_file_fails_the_move_and_the_next_one_works_once_space_returns(
    sqlite_db, tmp_path
):
    runtime = build_runtime(overrides(tmp_path), db=sqlite_db)
    app = create_app(runtime=runtime)
    app.config["TESTING"] = True
    client = app.test_client()
    cap = {"pages": None}

    @event.listens_for(sqlite_db, "begin")
    def limit(connection):  # SQLite's page limit is each connection's own
        pages = cap["pages"] or 1073741823
        connection.connection.dbapi_connection.execute(f"PRAGMA max_page_count={pages}")

    created = pig_game(runtime, target=10_000)
    contribute_first(runtime, created)
    with sqlite_db.connect() as connection:
        cap["pages"] = connection.execute(text("PRAGMA page_count")).scalar_one()
    for _ in range(200):
        answer = _move(client, runtime, created)
        if answer.status_code != 200:
            break
    assert answer.status_code == 503 and "database" in answer.json["error"]["message"]
    seq = runtime.service.head(created.game_id).seq
    assert _move(client, runtime, created).status_code == 503
    cap["pages"] = None
    after = _move(client, runtime, created)
    assert after.status_code == 200 and after.json["seq"] == seq + 1
    hardening.forget_database_failures()


@pytest.mark.postgres
def test_killed_kept_connections_fail_one_move_and_the_next_reconnects(postgres_schema, tmp_path):
    from pbem.db import make_engine
    from tests.databases import reset_postgres

    url, connect_args, schema = postgres_schema
    engine = make_engine(url, connect_args=connect_args)
    reset_postgres(engine, schema)
    admin = make_engine(url, isolation_level="AUTOCOMMIT")
    try:
        runtime = build_runtime(overrides(tmp_path), db=engine)
        app = create_app(runtime=runtime)
        app.config["TESTING"] = True
        client = app.test_client()
        created = pig_game(runtime, target=1000)
        contribute_first(runtime, created)
        seq = runtime.service.head(created.game_id).seq
        assert _move(client, runtime, created).status_code == 200
        kept = KeptConnections.of(engine).idle
        pids = [c.connection.dbapi_connection.info.backend_pid for c in kept]
        assert pids
        with admin.connect() as connection:
            for pid in pids:
                connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
            # The signal is delivered on its own time: on a busy machine a backend could
            # still serve the next move's first statements. Wait until none is left.
            for _ in range(200):
                alive = connection.execute(
                    text("SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(:pids)"),
                    {"pids": pids},
                ).scalar()
                if not alive:
                    break
                time.sleep(0.01)
            assert not alive
        assert _move(client, runtime, created).status_code == 503
        after = _move(client, runtime, created)
        assert after.status_code == 200 and after.json["seq"] == seq + 2
        assert client.get("/healthz").json["database"] == "ok"
    finally:
        hardening.forget_database_failures()
        engine.dispose()
        admin.dispose()
