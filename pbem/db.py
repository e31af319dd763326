"""Database engines and sessions for SQLite (embedded, WAL) and PostgreSQL.

On SQLite a transaction takes the write lock when it begins (``BEGIN IMMEDIATE``), so two
writers never deadlock when one upgrades a read lock. Within a process the writers of a
database file queue for it in arrival order (:class:`WriterQueue`) before they begin;
SQLite's busy timeout is left for writers of other processes.
Transactions on :func:`for_reads` (the game service's :meth:`reading` sessions) begin
deferred instead: under WAL they read a snapshot and never wait for a writer, nor make
one wait. A read transaction that tries to write is refused (:class:`WriteInRead`).
The safe side is the default: a path not marked as a read stays a writer.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import json
import os
import re
import sqlite3
import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import event
from sqlalchemy.engine import Connection
from sqlalchemy.engine import Engine as SqlEngine
from sqlalchemy.pool import QueuePool
from sqlmodel import create_engine
from sqlmodel.sql.sqltypes import UTCDateTime

from pbem.errors import PbemError

# The execution option that marks a connection's transactions as read-only.
READS = "pbem_reads"
SYNCHRONOUS = ("OFF", "NORMAL", "FULL", "EXTRA")
# A write statement's first word, for the guard on read transactions.
_WRITES = re.compile(r"\s*(INSERT|UPDATE|DELETE|REPLACE|CREATE|DROP|ALTER)\b", re.IGNORECASE)


class WriteInRead(RuntimeError):
    """A statement that writes ran in a transaction begun for reading."""


def check_synchronous(value: str) -> str:
    """The SQLite ``synchronous`` setting, checked (``database.sqlite_synchronous``)."""
    level = str(value).strip().upper()
    if level not in SYNCHRONOUS:
        raise ValueError(
            f"database.sqlite_synchronous must be one of {', '.join(SYNCHRONOUS)}, not {value!r}."
        )
    return level


def for_reads(db: SqlEngine) -> SqlEngine:
    """The same engine (and pool) for read-only work: on SQLite its transactions begin
    deferred, so they neither wait for a writer nor hold one up.

    On PostgreSQL each statement runs as its own transaction (autocommit), as a
    statement of a READ COMMITTED transaction would see the data anyway: a read sends no
    BEGIN before it and no ROLLBACK after it, holds no snapshot open while a page
    renders, and keeps the statements psycopg prepared (a ROLLBACK makes it forget
    them). A turn page took 2.57 against 2.98 ms (median of 30 alternating views). The
    connection goes back to the pool transactional."""
    reads = db.__dict__.get("_pbem_reads")
    if reads is None:
        options = {READS: True}
        if db.dialect.name == "postgresql":
            options["isolation_level"] = "AUTOCOMMIT"
        reads = db.execution_options(**options)
        db.__dict__["_pbem_reads"] = reads
    return reads


_ORJSON = (
    orjson.OPT_NON_STR_KEYS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
)


def json_text(value: Any) -> str:
    """A JSON column's text: orjson's, several times faster than ``json.dumps`` for a
    large head state. What orjson would write differently or not at all (date-times,
    dataclasses, subclasses of built-in types, integers past 64 bits) goes through
    ``json.dumps`` as before, so it is stored as before or refused as before. Columns
    are read back by :func:`json_value`; hashes never use this text
    (:func:`engines.api.canonical_json`)."""
    try:
        return orjson.dumps(value, option=_ORJSON).decode()
    except TypeError:
        return json.dumps(value)


# A run of 19 digits or more: a number orjson could read otherwise than json.loads
# (an integer past 64 bits becomes a float there). Shorter integers fit in 64 bits.
_LONG_DIGITS = re.compile(r"\d{19}")
_LONG_DIGITS_BYTES = re.compile(rb"\d{19}")


def json_value(text: str | bytes) -> Any:
    """A JSON column's value read back: the value ``json.loads`` gives, read by orjson,
    several times faster, where the two agree. Text with a run of 19 digits (an integer
    that may not fit in 64 bits), or that orjson refuses though ``json.loads`` reads it
    (NaN, Infinity, a lone surrogate, a number past a float's range), goes to
    ``json.loads``; text that both refuse is refused as before."""
    long_digits = _LONG_DIGITS_BYTES if isinstance(text, bytes) else _LONG_DIGITS
    if long_digits.search(text) is None:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


class WriterQueue:
    """A first-come, first-served lock: the writers of one SQLite file in one process.

    SQLite lets one transaction write at a time and makes the others poll for the lock
    (its busy handler sleeps and retries, ever longer), so with twenty writers at once a
    late one often wins and an early one waits many times a move's length (in
    ``bench/bench_crowd.py``, a p99 of 0.9 to 1.8 s and a worst of 1.7 to 3.2 s, against
    0.13 to 0.58 s and 0.16 to 1.4 s queued). Here each writer takes its place at the
    back of the line and begins its transaction when it reaches the front, as soon as
    the one before it ends (a plain :class:`threading.Lock` is not fair either). A
    writer that waited
    ``timeout`` seconds leaves the line and fails as SQLite's busy timeout would
    (``database is locked``). A thread that already holds the lock (a write transaction
    begun inside another) passes again, as it did before the queue, and meets SQLite's
    own lock."""

    def __init__(self, timeout: float = 30.0):
        self.timeout = timeout
        self._condition = threading.Condition(threading.Lock())
        self._line: collections.deque[object] = collections.deque()
        self._holder: int | None = None
        self._depth = 0

    def acquire(self, timeout: float | None = None) -> None:
        me = threading.get_ident()
        with self._condition:
            if self._holder == me:
                self._depth += 1
                return
            place = object()
            self._line.append(place)
            ready = lambda: self._holder is None and self._line[0] is place  # noqa: E731
            if not self._condition.wait_for(ready, self.timeout if timeout is None else timeout):
                self._line.remove(place)
                self._condition.notify_all()  # the one behind may be at the front now
                raise sqlite3.OperationalError("database is locked")
            self._line.popleft()
            self._holder, self._depth = me, 1

    def release(self) -> None:
        with self._condition:
            if self._depth == 0:
                raise RuntimeError("the writers' queue was released more often than taken")
            self._depth -= 1
            if self._depth == 0:
                self._holder = None
                self._condition.notify_all()

    def waiting(self) -> int:
        """How many writers wait in line."""
        with self._condition:
            return len(self._line)


_QUEUES: dict[str, WriterQueue] = {}
_QUEUES_LOCK = threading.Lock()


def queue_of(path: str) -> WriterQueue:
    """The process's queue for the writers of a database file (one per file, shared by
    every engine on it)."""
    key = os.path.realpath(path)
    with _QUEUES_LOCK:
        queue = _QUEUES.get(key)
        if queue is None:
            queue = _QUEUES[key] = WriterQueue()
        return queue


class _QueuedConnection(sqlite3.Connection):
    """An SQLite connection that leaves the writers' queue when its write transaction
    ends: after its COMMIT or ROLLBACK (a COMMIT that failed and left the transaction
    open keeps its place until the rollback), or when it closes."""

    pbem_queue: WriterQueue | None = None

    def pbem_enter(self, queue: WriterQueue) -> None:
        queue.acquire()
        self.pbem_queue = queue

    def pbem_leave(self) -> None:
        queue, self.pbem_queue = self.pbem_queue, None
        if queue is not None:
            queue.release()

    def commit(self):
        try:
            super().commit()
        finally:
            if not self.in_transaction:
                self.pbem_leave()

    def rollback(self):
        try:
            super().rollback()
        finally:
            if not self.in_transaction:
                self.pbem_leave()

    def close(self):
        try:
            super().close()
        finally:
            self.pbem_leave()


def make_engine(
    url: str, synchronous: str = "FULL", writer_queue: bool = True, **kwargs
) -> SqlEngine:
    """An SQLAlchemy engine; SQLite gets WAL, a busy timeout, ``synchronous`` (FULL by
    default: an acknowledged move survives a power cut) and BEGIN IMMEDIATE writes, which
    queue in arrival order for the file (:class:`WriterQueue`; not for an in-memory
    database, nor with ``writer_queue`` false: ``database.sqlite_writer_queue``)."""
    if url.startswith("sqlite"):
        level = check_synchronous(synchronous)
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            _private(Path(path))
        connect_args = {"check_same_thread": False, "timeout": 30, **kwargs.pop("connect_args", {})}
        queue = None
        if writer_queue and path and path != ":memory:":
            queue = queue_of(path)
            connect_args.setdefault("factory", _QueuedConnection)
        kwargs.pop("pool_size", None)
        kwargs.setdefault("json_serializer", json_text)
        kwargs.setdefault("json_deserializer", json_value)
        engine = create_engine(url, connect_args=connect_args, **kwargs)

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_connection, _record):
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute(f"PRAGMA synchronous={level}")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _on_begin(connection):
            # Writers take the write lock at the start so that two of them queue instead of
            # deadlocking; readers begin deferred and read their snapshot without waiting.
            if connection.get_execution_options().get(READS):
                _execute(connection, "BEGIN", (), False, False, autobegin=False)
                return
            driver = connection.connection.dbapi_connection
            queued = queue is not None and isinstance(driver, _QueuedConnection)
            if queued:
                driver.pbem_enter(queue)
            try:
                _execute(connection, "BEGIN IMMEDIATE", (), False, False, autobegin=False)
            except BaseException:
                if queued and not driver.in_transaction:
                    driver.pbem_leave()
                raise

        event.listen(engine, "reset", _end_leftover_transaction)

        @event.listens_for(engine, "before_cursor_execute")
        def _guard(connection, _cursor, statement, _parameters, _context, _many):
            if connection.get_execution_options().get(READS) and _WRITES.match(statement):
                raise WriteInRead(f"a read transaction tried to write: {statement[:80]}")

        return engine
    kwargs.setdefault("pool_size", 10)
    kwargs.setdefault("max_overflow", 20)
    kwargs.setdefault("json_serializer", json_text)
    kwargs.setdefault("json_deserializer", json_value)
    engine = create_engine(url, **kwargs)
    event.listen(engine, "handle_error", _reconnect_on_error)
    event.listen(engine, "reset", _end_leftover_transaction)
    return engine


def _end_leftover_transaction(dbapi_connection, _record, _state) -> None:
    """A connection going back to the pool leaves no transaction open in the driver.

    SQLAlchemy skips its rollback when it believes the transaction ended, and a COMMIT
    that failed (a full disk) ends it for SQLAlchemy but can leave it open in SQLite
    or psycopg: the next user would meet "cannot start a transaction within a
    transaction". A rollback that fails here makes the pool discard the connection."""
    if isinstance(dbapi_connection, sqlite3.Connection):
        if dbapi_connection.in_transaction:
            dbapi_connection.rollback()
        return
    info = getattr(dbapi_connection, "info", None)
    status = getattr(getattr(info, "transaction_status", None), "name", "IDLE")
    if status in ("INTRANS", "INERROR"):
        dbapi_connection.rollback()


# SQLSTATEs after which a pooled connection is no use: the connection is gone (class 08),
# the server is shutting down or crashed (57P01-57P03), or it answers read-only, as an old
# primary turned standby does (25006).
_GONE = ("08", "57P01", "57P02", "57P03", "25006")


def _reconnect_on_error(context) -> None:
    """Marks errors that mean "this server is gone" as disconnects.

    SQLAlchemy then invalidates the whole pool, so the next checkout connects afresh to
    whichever host of a multi-host URL is the primary now; the request that met the error
    fails (the web answers 503). This replaces ``pool_pre_ping``'s round trip per checkout.
    """
    sqlstate = getattr(context.original_exception, "sqlstate", None) or ""
    if sqlstate.startswith(_GONE):
        context.is_disconnect = True


def _private(path: Path) -> None:
    """The database file and its -wal and -shm companions readable by their owner only
    (files made by an earlier version were world-readable; new ones follow the umask
    :func:`pbem.config.make_var` sets, and SQLite gives its companions the file's mode)."""
    for item in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        try:
            if item.stat().st_mode & 0o077 and item.stat().st_uid == os.geteuid():
                item.chmod(0o600)
        except FileNotFoundError:
            continue


class KeptConnections:
    """Connections kept open between moves: one set per engine (:meth:`of`), shared by
    every service on it.

    A move through :meth:`SqlEngine.connect` builds a :class:`Connection` (its event
    dispatch, a pool checkout) and takes it apart at the end (a pool check-in and its
    reset): about a tenth of a move's processor time on SQLite, where the database
    itself costs little. Here a move takes an idle connection, or a new one, and gives
    it back when it ends; at most ``keep`` wait (more are closed), so the pool always
    has the rest. A connection goes back only outside a transaction (a move refused by
    the rules or by a conflict is rolled back first) and while it is sound; a move that
    failed in any other way (a full disk, a lost server, a bug) discards its connection,
    so the next move begins on a fresh one whatever state the failure left behind.
    Disposing of the engine closes the idle ones, and so does an error that says the
    database is gone. One thread uses a connection at a time: it is taken off the idle
    list before use.

    On PostgreSQL a kept connection is one of the pool's that the pages cannot have, and
    the pool's size is the operator's: a pool keeps at most a quarter of its size (two
    of the default ten; none in a pool of fewer than four). There the checkout and its
    reset cost about a twentieth of a move (1.07 against 1.02 ms a move, median of 20
    alternating blocks).
    """

    KEEP = 2

    def __init__(self, db: SqlEngine, keep: int = KEEP):
        self.db = db
        if db.dialect.name != "sqlite":
            size = db.pool.size() if isinstance(db.pool, QueuePool) else 0
            keep = min(keep, size // 4)
        self.keep = keep
        self.idle: collections.deque[Connection] = collections.deque()

    @classmethod
    def of(cls, db: SqlEngine) -> KeptConnections:
        """The engine's kept connections (made, with the listeners that close them, on
        first use)."""
        kept = db.__dict__.get("_pbem_kept")
        if kept is None:
            kept = db.__dict__["_pbem_kept"] = cls(db)
            if kept.keep:
                event.listen(db, "engine_disposed", kept._on_dispose)
                event.listen(db, "handle_error", kept._on_error)
        return kept

    @contextlib.contextmanager
    def connect(self):
        """A connection for one move: an idle one, or a new one from the pool."""
        try:
            connection = self.idle.pop()
        except IndexError:
            connection = self.db.connect()
        try:
            yield connection
        except PbemError:
            # A refusal (conflict, illegal move, unknown game): the connection is sound.
            if not self._put_back(connection):
                connection.close()
            raise
        except BaseException:
            self._discard(connection)
            raise
        else:
            if not self._put_back(connection):
                connection.close()

    @staticmethod
    def _discard(connection: Connection) -> None:
        """Closes the driver's connection for good (the pool makes a new one later)."""
        with contextlib.suppress(Exception):  # a connection to a database gone
            connection.invalidate()
        with contextlib.suppress(Exception):
            connection.close()

    def _put_back(self, connection: Connection) -> bool:
        """Rolls back what the move left open; True when it waits for the next move."""
        if connection.closed or connection.invalidated:
            return False
        # A transaction that failed to commit is no longer "in" one, yet still attached:
        # only a rollback frees the connection for the next begin().
        if connection.get_transaction() is not None or connection.in_transaction():
            try:
                connection.rollback()
            except Exception:  # noqa: BLE001 - a connection that cannot roll back is closed
                return False
        if not self.keep or len(self.idle) >= self.keep:
            return False
        self.idle.append(connection)
        return True

    def close_idle(self) -> None:
        while self.idle:
            try:
                connection = self.idle.pop()
            except IndexError:
                break
            self._discard(connection)

    def _on_dispose(self, _engine) -> None:
        self.close_idle()

    def _on_error(self, context) -> None:
        if context.is_disconnect:
            self.close_idle()


def connection_of(session) -> Connection:
    """The connection an ORM session works on, for plain statements in its transaction.

    A move's session is opened on the move's own connection (``Session(bind=...)``):
    that connection is used as it is, without the session's transaction bookkeeping.
    Any other session gives its own (:meth:`Session.connection`)."""
    bind = session.bind
    if isinstance(bind, Connection):
        return bind
    return session.connection()


class Prepared:
    """A Core statement compiled once per database dialect and run on the driver's cursor.

    The hot path of a move runs the same few statements again and again. Through
    :meth:`Connection.execute` each one costs a compiled-cache look-up, an execution
    context and a result object (for a wide SELECT, a result description built column by
    column each time): several times what the database itself spends. Here the SQL
    text, the order of its parameters and each parameter's and column's type processing
    (JSON, dates on SQLite) are worked out once per dialect, and the statement goes
    straight to the DBAPI cursor of the connection's open transaction, the way
    SQLAlchemy itself hands it over: the engine's statement listeners
    (``before_cursor_execute``, ``after_cursor_execute``: the read guard, counters) see
    it, and an error comes out as SQLAlchemy's (``IntegrityError``...) through the
    engine's error handling (``handle_error``: reconnect on a lost server).

    Parameters are given by bind name (a column's key for an INSERT); :meth:`rows`
    returns a SELECT's rows as tuples, each column converted as its type says.
    """

    def __init__(self, statement, column_keys: Sequence[str] | None = None):
        self.statement = statement
        self.column_keys = list(column_keys) if column_keys is not None else None
        self._forms: dict[tuple[str, str, str], _Form] = {}

    def form(self, dialect) -> _Form:
        key = (dialect.name, dialect.driver, dialect.paramstyle)
        found = self._forms.get(key)
        if found is None:
            found = self._forms[key] = _Form(self.statement, dialect, self.column_keys)
        return found

    def run(self, connection: Connection, params: Mapping[str, Any] | Sequence[Mapping[str, Any]]):
        """Executes with one set of parameters (a mapping) or many (a list of them)."""
        form = self.form(connection.dialect)
        if isinstance(params, Mapping):
            _execute(connection, form.sql, form.bind(params), False, False)
        elif len(params) == 1:
            _execute(connection, form.sql, form.bind(params[0]), False, False)
        else:
            _execute(connection, form.sql, [form.bind(one) for one in params], True, False)

    def rows(
        self, connection: Connection, params: Mapping[str, Any], repeated: int = 0
    ) -> list[Sequence]:
        """A SELECT's rows (sequences by column), each column converted as its type says.

        The first ``repeated`` columns repeat one row's values on every row (a joined
        parent): they are converted on the first row only, later rows keep them raw."""
        form = self.form(connection.dialect)
        found = _execute(connection, form.sql, form.bind(params), False, True)
        convert = form.results
        if not convert:
            return found
        converted = []
        for row in found:
            values = list(row)
            for index, processor in convert:
                values[index] = processor(values[index])
            converted.append(values)
            if repeated and len(converted) == 1:
                convert = [(index, processor) for index, processor in convert if index >= repeated]
        return converted


def _execute(
    connection: Connection,
    sql: str,
    params,
    many: bool,
    fetch: bool,
    *,
    autobegin: bool = True,
    native: bool = False,
):
    """One statement on the connection's DBAPI cursor, with the engine's statement events
    and error handling as :meth:`Connection.exec_driver_sql` has them (without building
    a result object); ``fetch``: its rows. Outside a transaction one is begun first (as
    SQLAlchemy does), unless ``autobegin`` is False (the statement that begins it).
    ``native``: PostgreSQL's own $n placeholders (psycopg), as :func:`_combined` writes
    them. On psycopg the cursor is the connection's kept one (:func:`_kept_cursor`)."""
    if connection._echo:  # logging statements: let SQLAlchemy do it all
        if many:
            connection.exec_driver_sql(sql, params)
            return None
        result = connection.exec_driver_sql(sql, params)
        return [tuple(row) for row in result] if fetch else None
    if autobegin and not connection.in_transaction():
        connection.begin()
    keep = connection.dialect.driver == "psycopg"
    cursor = _kept_cursor(connection.connection, native) if keep else connection.connection.cursor()
    try:
        events = connection._has_events or connection.engine._has_events
        if events:
            for listener in connection.dispatch.before_cursor_execute:
                sql, params = listener(connection, cursor, sql, params, None, many)
        if many:
            cursor.executemany(sql, params)
        else:
            cursor.execute(sql, params)
        if events:
            connection.dispatch.after_cursor_execute(connection, cursor, sql, params, None, many)
        found = cursor.fetchall() if fetch else None
    except BaseException as error:
        connection._handle_dbapi_exception(error, sql, params, cursor, None)
    if not keep:
        cursor.close()
    return found


# The key of a psycopg connection's kept cursors in its pool record's ``info`` (which
# SQLAlchemy clears when it connects the record afresh).
_CURSORS = "pbem_cursors"


def _kept_cursor(fairy, native: bool):
    """The psycopg connection's cursor for the statements run here, made once per
    connection (one for named placeholders, one for native ones) and used again.

    A new cursor looks up, for each column of its first result, how to read it, and for
    each parameter how to send it; the move's read has some forty columns and its write
    up to sixty parameters, so a new cursor per statement cost 14 to 25 µs of a read.
    A cursor is used by one thread at a time, as its connection is; an error leaves it
    usable, and a connection made afresh gets new ones."""
    import psycopg

    dbapi = fairy.dbapi_connection
    kept = fairy.info.get(_CURSORS)
    if kept is None or kept[0] is not dbapi:
        kept = fairy.info[_CURSORS] = [dbapi, None, None]
    slot = 2 if native else 1
    cursor = kept[slot]
    if cursor is None or cursor.closed:
        cursor = kept[slot] = psycopg.RawCursor(dbapi) if native else dbapi.cursor()
    return cursor


class _Form:
    """One statement as one dialect runs it: SQL text, parameter order and processing."""

    def __init__(self, statement, dialect, column_keys: list[str] | None):
        compiled = statement.compile(dialect=dialect, column_keys=column_keys)
        self.sql = compiled.string
        # Values fixed in the statement itself (a literal compared with), by bind name.
        self.defaults = {
            name: bind.value
            for name, bind in compiled.binds.items()
            if bind.value is not None and not callable(bind.value)
        }
        self.order = list(compiled.positiontup) if compiled.positional else None
        self.processors = {}
        for name, bind in compiled.binds.items():
            processor = _fast_bind(bind.type, dialect) or bind.type.dialect_impl(
                dialect
            ).bind_processor(dialect)
            if processor is not None:
                self.processors[name] = processor
        # The columns whose values the dialect converts (index, converter).
        self.results = []
        if getattr(statement, "is_select", False):
            for index, column in enumerate(statement.selected_columns):
                processor = _fast_result(column.type, dialect) or column.type.dialect_impl(
                    dialect
                ).result_processor(dialect, None)
                if processor is not None:
                    self.results.append((index, processor))

    def bind(self, params: Mapping[str, Any]):
        values = {**self.defaults, **params} if self.defaults else dict(params)
        for name, processor in self.processors.items():
            if name in values:
                values[name] = processor(values[name])
        if self.order is not None:
            return tuple(values[name] for name in self.order)
        return values


def _fast_bind(kind, dialect) -> Callable[[Any], Any] | None:
    """On SQLite, an aware date-time column's value as SQLAlchemy stores it (UTC, no
    offset, ``YYYY-MM-DD HH:MM:SS.ffffff``) in one step instead of a chain of three."""
    if dialect.name != "sqlite" or not isinstance(kind, UTCDateTime):
        return None

    def store(value: datetime | None) -> str | None:
        if value is None:
            return None
        if value.tzinfo is UTC:  # the usual case: the text without its "+00:00"
            return value.isoformat(" ", "microseconds")[:-6]
        if value.utcoffset() is None:
            raise ValueError("Datetime values must have timezone information.")
        return value.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")

    return store


def _fast_result(kind, dialect) -> Callable[[Any], Any] | None:
    """On SQLite, a stored aware date-time read back in UTC, as :func:`_fast_bind`'s
    counterpart (``datetime.fromisoformat`` reads every form SQLAlchemy writes)."""
    if dialect.name != "sqlite" or not isinstance(kind, UTCDateTime):
        return None

    def load(value: str | None) -> datetime | None:
        if value is None:
            return None
        found = datetime.fromisoformat(value)
        if found.tzinfo is None:
            return found.replace(tzinfo=UTC)
        return found.astimezone(UTC)

    return load


# The key of a move's write batch in its session's ``info``.
BATCH = "pbem_batch"
_NAMED = re.compile(r"%\((\w+)\)s")


class Batch:
    """The writes of one transaction sent together.

    On PostgreSQL every statement is a round trip to the server, so the writes a move
    makes (its event, the game's head, the seats, the clocks, the turn mail) are
    gathered and sent at :meth:`flush` as one statement: each write a data-modifying
    ``WITH`` clause of it. The statement runs them all or none; a collision on a key (a
    lost race) fails it as a whole. Elsewhere (SQLite, in the process) each write runs
    at once, as :meth:`Prepared.run` would.
    """

    def __init__(self, connection: Connection):
        self.connection = connection
        # psycopg (its cursor for native placeholders); not while SQLAlchemy logs statements.
        self.combine = (
            connection.dialect.name == "postgresql"
            and connection.dialect.driver == "psycopg"
            and not connection._echo
        )
        self.parts: list[tuple[str, dict[str, Any]]] = []

    def add(
        self, prepared: Prepared, params: Mapping[str, Any] | Sequence[Mapping[str, Any]]
    ) -> None:
        if not self.combine:
            prepared.run(self.connection, params)
            return
        form = prepared.form(self.connection.dialect)
        for one in [params] if isinstance(params, Mapping) else params:
            self.parts.append((form.sql, form.bind(one)))

    def flush(self) -> None:
        """Sends what was gathered (nothing to do when each write ran at once).

        When nothing else ran in the transaction (a move whose read went alone, see
        :func:`read_alone`, and whose listeners only added to the batch), the statement
        runs as its own transaction: the server commits it as it ends, durably as a
        COMMIT would, with no BEGIN before it and no COMMIT after it to wait for."""
        parts, self.parts = self.parts, []
        if not parts:
            return
        if len(parts) == 1:
            sql, values, native = parts[0][0], parts[0][1], False
        else:
            sql, order = _combined(tuple(sql for sql, _ in parts))
            values = [parts[number][1][name] for number, name in order]
            native = True
        if self.combine and _idle(self.connection):
            with _autocommit(self.connection):
                _execute(self.connection, sql, values, False, False, native=native)
        else:
            _execute(self.connection, sql, values, False, False, native=native)


@functools.lru_cache(maxsize=256)
def _combined(statements: tuple[str, ...]) -> tuple[str, list[tuple[int, str]]]:
    """Writes as one statement, each a ``WITH`` clause of it, with PostgreSQL's own
    numbered placeholders ($1, $2...): the SQL text and, for each placeholder in turn,
    which write's parameter it takes (write number, name). A statement this long is
    not one the driver keeps its placeholder translation for: with native
    placeholders there is none to do."""
    order: list[tuple[int, str]] = []
    clauses = []
    for number, sql in enumerate(statements):
        places: dict[str, int] = {}

        def place(match: re.Match, number: int = number, places: dict = places) -> str:
            name = match.group(1)
            if name not in places:
                order.append((number, name))
                places[name] = len(order)
            return f"${places[name]}"

        clauses.append(f"w{number} AS ({_NAMED.sub(place, sql).replace('%%', '%')})")
    return f"WITH {', '.join(clauses)} SELECT 1", order


def _idle(connection: Connection) -> bool:
    """Whether the driver's connection has no transaction open (psycopg)."""
    import psycopg

    status = connection.connection.dbapi_connection.info.transaction_status
    return status == psycopg.pq.TransactionStatus.IDLE


@contextlib.contextmanager
def _autocommit(connection: Connection):
    """psycopg runs the statements inside each as its own transaction; the connection is
    put back as it was (transactions begun by the first statement) in any case."""
    driver = connection.connection.dbapi_connection
    driver.autocommit = True
    try:
        yield
    finally:
        if not driver.closed:
            driver.autocommit = False


@contextlib.contextmanager
def read_alone(connection: Connection):
    """On PostgreSQL (psycopg) the reads inside run each as its own transaction, as a
    statement of a READ COMMITTED transaction would see the data anyway: no BEGIN round
    trip before them. Statements after the block begin a transaction as usual. Nothing
    changes on SQLite, where the write lock is taken before the read."""
    if (
        connection.dialect.name == "postgresql"
        and connection.dialect.driver == "psycopg"
        and not connection._echo
        and _idle(connection)
    ):
        with _autocommit(connection):
            yield
    else:
        yield


def write(
    session, prepared: Prepared, params: Mapping[str, Any] | Sequence[Mapping[str, Any]]
) -> None:
    """Runs a write in a session's transaction: into the move's :class:`Batch` when the
    session has one (``session.info[BATCH]``), else at once on its connection."""
    batch = session.info.get(BATCH)
    if batch is not None:
        batch.add(prepared, params)
    else:
        prepared.run(connection_of(session), params)
