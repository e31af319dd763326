"""Database engines and sessions for SQLite (embedded, WAL) and PostgreSQL."""

from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy import event
from sqlalchemy.engine import Engine as SqlEngine
from sqlmodel import create_engine


def make_engine(url: str, **kwargs) -> SqlEngine:
    """An SQLAlchemy engine; SQLite gets WAL, a busy timeout and BEGIN IMMEDIATE writes."""
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            _private(Path(path))
        connect_args = {"check_same_thread": False, "timeout": 30, **kwargs.pop("connect_args", {})}
        kwargs.pop("pool_size", None)
        engine = create_engine(url, connect_args=connect_args, **kwargs)

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_connection, _record):
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA busy_timeout=30000")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _on_begin(connection):
            # Take the write lock at the start so two writers queue instead of deadlocking.
            connection.exec_driver_sql("BEGIN IMMEDIATE")

        return engine
    kwargs.setdefault("pool_size", 10)
    kwargs.setdefault("max_overflow", 20)
    engine = create_engine(url, **kwargs)
    event.listen(engine, "handle_error", _reconnect_on_error)
    return engine


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


def init_db(engine: SqlEngine, secret_key: str | None = None) -> None:
    """Creates the schema, or upgrades an older one in place, through Alembic's revisions
    (see :mod:`pbem.migrations`); with the server's key, also seals seeds stored plain by
    an earlier version."""
    from pbem.migrations import migrate

    migrate(engine, secret_key=secret_key)
