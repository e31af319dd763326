"""Schema versions and the path between them.

The schema's version lives in the ``schema_info`` table. ``MIGRATIONS[n]`` takes a
database from version ``n - 1`` to ``n`` inside one transaction, with plain SQL that
runs on SQLite and PostgreSQL alike. Events are never rewritten by a migration: they
are the truth, everything else can be rebuilt from them.

Version 1 is the first released schema. Its databases hold the seeds of running games
in the clear; :func:`migrate` seals them when given the server's key (``pbem migrate``
and every server start do), without a version change: the readers take both forms.
Derived tables added since then (``audit_marks``: how far the audit page has verified
each log) are created by :func:`migrate` too, without a version change: they hold only
what can be rebuilt from the events.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection
from sqlalchemy.engine import Engine as SqlEngine
from sqlmodel import SQLModel

from pbem.errors import PbemError
from pbem.models import SCHEMA_VERSION

MIGRATIONS: dict[int, Callable[[Connection], None]] = {}


class SchemaTooNew(PbemError):
    """The database was made by a newer version of pbem than this one."""


def current_version(db: SqlEngine) -> int | None:
    """The database's schema version; None for an empty database."""
    tables = set(inspect(db).get_table_names())
    if "events" not in tables:
        return None
    if "schema_info" not in tables:
        return 1
    with db.connect() as connection:
        row = connection.exec_driver_sql("SELECT version FROM schema_info WHERE id = 1").first()
    return row[0] if row else 1


class SchemaOutdated(PbemError):
    """The database needs ``pbem migrate`` before this program can use it."""


def require_current(db: SqlEngine) -> None:
    """Refuses to run on a database whose schema is missing, older or newer."""
    version = current_version(db)
    if version != SCHEMA_VERSION:
        found = "no schema" if version is None else f"schema version {version}"
        raise SchemaOutdated(
            f"The database has {found}; this program needs version {SCHEMA_VERSION}. "
            "Run `pbem migrate` first."
        )


def migrate(db: SqlEngine, secret_key: str | None = None) -> tuple[int | None, int]:
    """Creates or upgrades the schema; returns (version before, version after).

    With the server's ``secret_key`` it also seals the seeds that databases of schema 1
    hold in the clear (:func:`seal_plain_seeds`); the readers accept both forms."""
    before = current_version(db)
    if before is not None and before > SCHEMA_VERSION:
        raise SchemaTooNew(
            f"The database has schema version {before}, newer than this program's "
            f"{SCHEMA_VERSION}: upgrade pbem instead."
        )
    version = before or SCHEMA_VERSION
    for target in range(version + 1, SCHEMA_VERSION + 1):
        with db.begin() as connection:
            MIGRATIONS[target](connection)
            _set_version(connection, target)
    SQLModel.metadata.create_all(db)
    with db.begin() as connection:
        _set_version(connection, SCHEMA_VERSION)
    if secret_key:
        seal_plain_seeds(db, secret_key)
    return before, SCHEMA_VERSION


def seal_plain_seeds(db: SqlEngine, secret_key: str) -> int:
    """Seals every seed still stored as plain hex (written before seeds were sealed)
    under the server's key, in one transaction; returns how many. Running it again
    changes nothing."""
    from pbem.seal import PREFIX
    from pbem.service import seal_seed

    with db.begin() as connection:
        rows = connection.execute(
            text("SELECT game_id, seed FROM game_secrets WHERE seed NOT LIKE :sealed"),
            {"sealed": PREFIX + "%"},
        ).all()
        for game_id, seed in rows:
            connection.execute(
                text("UPDATE game_secrets SET seed = :sealed WHERE game_id = :game_id"),
                {"sealed": seal_seed(secret_key, game_id, bytes.fromhex(seed)), "game_id": game_id},
            )
    return len(rows)


def _set_version(connection: Connection, version: int) -> None:
    updated = connection.exec_driver_sql(
        "UPDATE schema_info SET version = ? WHERE id = 1".replace("?", str(int(version)))
    )
    if updated.rowcount == 0:
        connection.exec_driver_sql(
            f"INSERT INTO schema_info (id, version) VALUES (1, {int(version)})"
        )
