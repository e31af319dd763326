"""The move's lean statements (:class:`pbem.db.Prepared`, :class:`pbem.db.Batch`) store and
read values exactly as the ORM does, pass the engine's statement listeners, fail as
SQLAlchemy's errors, and keep a move all or nothing on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import event, func, select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from pbem.db import BATCH, Batch, Prepared, write
from pbem.errors import Conflict
from pbem.games.tables import SeatClock
from pbem.mail.models import Mail
from pbem.models import Event, Game
from tests.mail.conftest import Clock, make_runtime, new_game

CLOCKS = SeatClock.__table__
CLOCK_INSERT = Prepared(CLOCKS.insert(), [column.key for column in CLOCKS.columns])
CLOCK_READ = Prepared(
    select(CLOCKS.c.seat, CLOCKS.c.turn_since, CLOCKS.c.remind_at, CLOCKS.c.reminders)
    .where(CLOCKS.c.game_id == "g1")
    .order_by(CLOCKS.c.seat)
)
GAME_READ = Prepared(
    select(Game.__table__.c.policy, Game.__table__.c.to_move, Game.__table__.c.private).where(
        Game.__table__.c.id == func.lower("G1")
    )
)
WHEN = datetime(2026, 5, 1, 12, 30, 15, 123456, tzinfo=UTC)


def clock_row(seat: int, **values) -> dict:
    return {
        "game_id": "g1",
        "seat": seat,
        "turn_since": WHEN,
        "remind_at": None,
        "deadline_at": None,
        "reminders": 2,
        "paused_until": None,
        "vacation_days_used": 0.5,
        **values,
    }


def counted(db) -> list[str]:
    statements: list[str] = []

    @event.listens_for(db, "before_cursor_execute")
    def count(_conn, _cursor, statement, *_):
        statements.append(statement.split()[0].upper())

    return statements


def test_prepared_values_read_back_as_the_orm_reads_them(db):
    with db.connect() as connection:
        connection.begin()
        CLOCK_INSERT.run(connection, [clock_row(0), clock_row(1, turn_since=None)])
        connection.commit()
        found = CLOCK_READ.rows(connection, {})
        connection.rollback()
    with Session(db) as session:
        stored = session.get(SeatClock, ("g1", 0))
        assert stored.turn_since == WHEN and stored.reminders == 2
        assert stored.vacation_days_used == 0.5
        assert session.get(SeatClock, ("g1", 1)).turn_since is None
    assert [list(row) for row in found] == [[0, WHEN, None, 2], [1, None, None, 2]]


def test_prepared_json_and_flags_read_back_as_the_orm_reads_them(db):
    now = datetime(2026, 5, 1, tzinfo=UTC)
    with Session(db) as session:
        session.add(
            Game(
                id="g1",
                engine="pig",
                engine_version=1,
                seat_count=2,
                commitment="c" * 64,
                head_seq=0,
                head_hash="h" * 64,
                policy={"deadline_after_days": 3, "names": ["Å", None]},
                to_move=[1, 0],
                private=True,
                created_at=now,
                updated_at=now,
            )
        )
        session.commit()
    with db.connect() as connection:
        found = GAME_READ.rows(connection, {})
    assert [list(row) for row in found] == [
        [{"deadline_after_days": 3, "names": ["Å", None]}, [1, 0], True]
    ]


def test_prepared_statements_pass_the_listeners_and_fail_as_sqlalchemy_errors(db):
    statements = counted(db)
    with db.connect() as connection:
        connection.begin()
        CLOCK_INSERT.run(connection, clock_row(0))
        assert statements[-1] == "INSERT"
        with pytest.raises(IntegrityError):
            CLOCK_INSERT.run(connection, clock_row(0))
        connection.rollback()
        # The connection goes on after the error, in a fresh transaction.
        assert CLOCK_READ.rows(connection, {}) == []
        assert statements[-1] == "SELECT"
        connection.rollback()


def test_a_batch_is_one_statement_on_postgres_and_all_or_nothing(db):
    statements = counted(db)
    with db.connect() as connection:
        connection.begin()
        batch = Batch(connection)
        before = len(statements)
        batch.add(CLOCK_INSERT, [clock_row(0), clock_row(1)])
        batch.add(CLOCK_INSERT, clock_row(2))
        batch.flush()
        mine = statements[before:]
        if db.dialect.name == "postgresql":
            assert mine == ["WITH"]  # three rows, one round trip
        else:
            assert mine == ["INSERT", "INSERT"]  # run at once, one by one
        connection.commit()
        batch = Batch(connection)
        batch.add(CLOCK_INSERT, clock_row(3))
        with pytest.raises(IntegrityError):
            batch.add(CLOCK_INSERT, clock_row(1))  # taken: on SQLite it fails here
            batch.flush()  # on PostgreSQL, here
        connection.rollback()
    with Session(db) as session:
        seats = session.exec(select(SeatClock.seat).order_by(SeatClock.seat)).all()
    assert [row[0] for row in seats] == [0, 1, 2]  # seat 3 went with the failed batch


def test_write_goes_to_the_sessions_batch_or_runs_at_once(db):
    with db.connect() as connection:
        connection.begin()
        session = Session(bind=connection)
        write(session, CLOCK_INSERT, clock_row(0))  # no batch: at once
        batch = session.info[BATCH] = Batch(connection)
        write(session, CLOCK_INSERT, clock_row(1))
        held = db.dialect.name == "postgresql"
        assert len(batch.parts) == (1 if held else 0)
        batch.flush()
        assert [row[0] for row in CLOCK_READ.rows(connection, {})] == [0, 1]
        connection.rollback()


def test_a_move_whose_mail_collides_writes_nothing(db, tmp_path):
    """The turn mail's key taken (a lost race on the outbox): the whole move is refused
    as a conflict, its event, head, seats, clocks and mail all undone."""
    runtime = make_runtime(db, tmp_path, Clock())
    created = new_game(runtime, seats=2, target=10**6)
    service = runtime.service
    head = service.head(created.game_id)
    seat = min(head.engine.to_move(head.state))
    taken = f"your_turn:{created.game_id}:{1 - seat}:{head.seq + 1}"
    with Session(db) as session:
        session.add(
            Mail(
                key=taken,
                kind="your_turn",
                game_id=created.game_id,
                seat=1 - seat,
                recipient="x@example.org",
                subject="s",
                body_text="t",
                body_html="",
                message_id="<m@x>",
                next_attempt_at=WHEN,
                created_at=WHEN,
            )
        )
        session.commit()
        mails = session.exec(select(func.count()).select_from(Mail)).one()
        seats_before = [
            (s.seat, s.due, s.due_since, s.last_move_seq) for s in service.seats(created.game_id)
        ]
    with pytest.raises(Conflict):
        service.submit_move(created.game_id, seat, {"type": "stop"}, head.seq)
    after = service.head(created.game_id)
    assert (after.seq, after.hash, after.game.to_move) == (
        head.seq,
        head.hash,
        head.game.to_move,
    )
    with Session(db) as session:
        assert session.get(Event, (created.game_id, head.seq + 1)) is None
        assert session.exec(select(func.count()).select_from(Mail)).one() == mails
    seats_after = [
        (s.seat, s.due, s.due_since, s.last_move_seq) for s in service.seats(created.game_id)
    ]
    assert seats_after == seats_before
    # With the key free again the same move goes through.
    with Session(db) as session:
        session.delete(session.scalars(select(Mail).where(Mail.key == taken)).one())
        session.commit()
    outcome = service.submit_move(created.game_id, seat, {"type": "stop"}, head.seq)
    assert outcome.seq == head.seq + 1
    assert service.verify_game(created.game_id).ok


@pytest.mark.postgres
def test_a_move_on_postgres_leaves_its_connection_transactional(postgres_schema):
    """The move's read and its one write run as their own transactions (autocommit);
    the pooled connection comes back transactional after a move, a refused stale move
    and a lost race alike, so the next user's statements are atomic again."""
    from pbem.db import make_engine
    from pbem.games.service import GameService, SeatSpec
    from tests.databases import reset_postgres

    url, connect_args, schema = postgres_schema
    engine = make_engine(url, connect_args=connect_args, pool_size=1, max_overflow=0)
    reset_postgres(engine, schema)
    service = GameService(engine)

    def transactional() -> bool:
        with engine.connect() as connection:
            driver = connection.connection.dbapi_connection
            return driver.autocommit is False

    try:
        created = service.create_game("pig", [SeatSpec("A"), SeatSpec("B")], {"target": 10**6})
        assert service.submit_move(created.game_id, 0, {"type": "roll"}, 0).seq == 1
        assert transactional()
        with pytest.raises(Conflict):
            service.submit_move(created.game_id, 0, {"type": "stop"}, 0)
        assert transactional()
        with Session(engine) as session:  # the next event taken behind the service's back
            session.add(
                Event(
                    game_id=created.game_id,
                    seq=2,
                    kind="note",
                    payload={},
                    chance=[],
                    state_hash="s" * 64,
                    prev_hash="p" * 64,
                    hash="h" * 64,
                    created_at="2026-05-01T00:00:00.000000Z",
                )
            )
            session.commit()
        head = service.head(created.game_id)
        due = min(head.engine.to_move(head.state))  # the first roll may have ended a turn
        with pytest.raises(Conflict):
            service.submit_move(created.game_id, due, {"type": "roll"}, head.seq)
        assert transactional()
        assert service.head(created.game_id).seq == 1
    finally:
        engine.dispose()


def test_fast_sqlite_date_times_store_and_read_as_sqlalchemy_does():
    """The move's one-step date-time conversions on SQLite write the text SQLAlchemy's
    chain (sqlmodel's UTCDateTime over SQLite's DATETIME) writes, and read it back the
    same, offsets and early years included; a naive value is refused as before."""
    from datetime import timedelta, timezone

    from sqlalchemy.dialects import sqlite
    from sqlmodel.sql.sqltypes import UTCDateTime

    from pbem.db import _fast_bind, _fast_result

    dialect, kind = sqlite.dialect(), UTCDateTime()
    chain = kind.dialect_impl(dialect)
    store, load = _fast_bind(kind, dialect), _fast_result(kind, dialect)
    slow_store, slow_load = chain.bind_processor(dialect), chain.result_processor(dialect, None)
    values = [
        WHEN,
        datetime(2026, 1, 1, tzinfo=UTC),
        datetime(999, 12, 31, 23, 59, 59, 1, tzinfo=UTC),
        datetime(2026, 3, 29, 1, 30, tzinfo=timezone(timedelta(hours=-5, minutes=-30))),
        None,
    ]
    for value in values:
        assert store(value) == slow_store(value)
        assert load(store(value)) == slow_load(slow_store(value))
    for text in ("2026-05-01 12:30:15", "2026-05-01 12:30:15.5", "2026-05-01"):
        assert load(text) == slow_load(text) and load(text).tzinfo is not None
    with pytest.raises(ValueError):
        store(datetime(2026, 1, 1))


def test_moves_keep_their_connection_clean_between_them(tmp_path):
    """On SQLite a move's connection waits open for the next move: never inside a
    transaction (after a move, a refused move and a lost race alike), at most
    ``keep`` of them for the engine whatever the number of services on it, and closed
    when the engine is disposed."""
    import threading

    from pbem.db import make_engine
    from pbem.errors import Rejected
    from pbem.games.service import GameService, SeatSpec
    from tests.databases import sqlite_engine

    path = tmp_path / "kept.sqlite3"
    db = sqlite_engine(path)
    service = GameService(db)
    # Another writer that gives up at once if a lock were left held.
    other = make_engine(f"sqlite:///{path}", connect_args={"timeout": 0.2})

    def write_elsewhere():
        with other.begin() as connection:
            connection.exec_driver_sql("UPDATE games SET title = title")

    game = service.create_game("pig", [SeatSpec("A"), SeatSpec("B")], {"target": 10**6}).game_id
    head = service.head(game)
    seat = min(head.engine.to_move(head.state))
    service.submit_move(game, seat, {"type": "roll"}, head.seq)
    kept = list(service.connections.idle)
    assert len(kept) == 1 and not kept[0].in_transaction()
    write_elsewhere()
    head = service.head(game)
    with pytest.raises(Rejected):
        service.submit_move(
            game, 1 - min(head.engine.to_move(head.state)), {"type": "roll"}, head.seq
        )
    with pytest.raises(Conflict):
        service.submit_move(
            game, min(head.engine.to_move(head.state)), {"type": "stop"}, head.seq - 1
        )
    assert list(service.connections.idle) == kept and not kept[0].in_transaction()
    write_elsewhere()

    games = [
        service.create_game("pig", [SeatSpec("A"), SeatSpec("B")], {"target": 10**6}).game_id
        for _ in range(4)
    ]
    start = threading.Barrier(len(games))

    def play(game_id):
        start.wait()
        service = GameService(db)  # a service of its own: the engine's connections
        for _ in range(20):
            head = service.head(game_id)
            seat = min(head.engine.to_move(head.state))
            move = {"type": "stop"} if head.state["pot"] >= 6 else {"type": "roll"}
            service.submit_move(game_id, seat, move, head.seq)

    threads = [threading.Thread(target=play, args=(game_id,)) for game_id in games]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(service.head(game_id).seq == 20 for game_id in games)
    assert GameService(db).connections is service.connections
    idle = list(service.connections.idle)
    assert 1 <= len(idle) <= service.connections.keep == 2
    assert db.pool.checkedout() == len(idle)
    assert not any(connection.in_transaction() for connection in idle)
    write_elsewhere()
    db.dispose()
    assert not service.connections.idle and all(connection.closed for connection in idle)
    other.dispose()


def test_json_columns_read_back_as_json_loads_reads_them():
    """:func:`pbem.db.json_value` gives what ``json.loads`` gives, type for type and key
    order too: on the states and views of seeded games of every engine (as stored by
    :func:`pbem.db.json_text`), and on the texts orjson reads otherwise or refuses."""
    import json
    import random

    from engines import REGISTRY
    from engines.api import SeededChance
    from pbem.db import json_text, json_value

    def same(text):
        for form in (text, text.encode()):
            assert repr(json_value(form)) == repr(json.loads(form)), text[:200]

    for slug, engine in sorted(REGISTRY.items()):
        rng = random.Random(slug)
        state = engine.setup(3, {}, SeededChance(7))
        for _ in range(150):
            same(json_text(engine.dump(state)))
            due = engine.to_move(state)
            if not due:
                break
            seat = min(due)
            same(json_text(engine.view(state, seat)))
            move = rng.choice(engine.legal_moves(state, seat))
            state = engine.apply(state, seat, move, SeededChance(rng.randrange(1 << 30)))
    edges = [
        "123456789012345678901234567890",  # past 64 bits: a float for orjson
        "-9223372036854775809",
        "18446744073709551616",
        "[9223372036854775807, -9223372036854775808, 999999999999999999]",
        '{"n": 1234567890123456789012}',
        "0.1000000000000000055511151231257827021181583404541015625",
        "1e400",
        "[NaN, Infinity, -Infinity]",
        '"\\ud800"',
        '{"a": 1, "a": 2}',
        "-0",
        "[-0.0, 1E5, 1e-7, 2.5e-3]",
        '{"b": [true, false, null], "a": {"\\u00e9": "\\n"}}',
    ]
    for text in edges:
        same(text)
    for bad in ("01", "[1,]", "", "{'a': 1}"):
        for reader in (json_value, json.loads):
            with pytest.raises(ValueError):
                reader(bad)
