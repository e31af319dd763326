"""Database engines and sessions for SQLite (embedded, WAL) and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import event
from sqlalchemy.engine import Engine as SqlEngine
from sqlmodel import create_engine


def make_engine(url: str, **kwargs) -> SqlEngine:
    """An SQLAlchemy engine; SQLite gets WAL, a busy timeout and BEGIN IMMEDIATE writes."""
    if url.startswith("sqlite"):
        path = url.split("///", 1)[-1]
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
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
    kwargs.setdefault("pool_pre_ping", True)
    kwargs.setdefault("pool_size", 10)
    kwargs.setdefault("max_overflow", 20)
    return create_engine(url, **kwargs)


def init_db(engine: SqlEngine) -> None:
    """Creates the schema, or upgrades an older one in place (see :mod:`pbem.migrations`)."""
    from pbem.migrations import migrate

    migrate(engine)
