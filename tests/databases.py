"""Fresh databases for tests, copied from one migrated template instead of migrated each.

Migrating a new database through every Alembic revision costs about 50 ms on SQLite and
130 ms on PostgreSQL (``drop_all`` and ``migrate`` on an idle machine); most tests only
need an empty schema at the head revision.

- SQLite: the first call of :func:`sqlite_engine` in a process migrates one template file
  (a temporary folder, removed at exit); every call copies it (about 2 ms).
- PostgreSQL: :func:`reset_postgres` empties every table of a test schema and restarts
  its sequences (a few ms). It first compares the schema's catalog with the one the
  migration made; a schema that a test dropped, altered or downgraded (or one never
  migrated in this process) is dropped and migrated afresh, as before.

Tests of the migrations themselves call :func:`pbem.migrations.migrate` for real.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
from pathlib import Path

from sqlalchemy import MetaData
from sqlalchemy.engine import Engine

from pbem.db import make_engine
from pbem.migrations import migrate

_template: Path | None = None


def sqlite_template() -> Path:
    """The migrated SQLite file of this process (made on first use)."""
    global _template
    if _template is None:
        folder = Path(tempfile.mkdtemp(prefix="pbem-template-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        path = folder / "template.sqlite3"
        engine = make_engine(f"sqlite:///{path}")
        try:
            migrate(engine)
            # Everything into the main file: a copy of it alone is the whole database.
            connection = engine.raw_connection()
            try:
                connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                connection.close()
        finally:
            engine.dispose()
        wal = Path(f"{path}-wal")
        assert not wal.exists() or wal.stat().st_size == 0, "the template's WAL was not emptied"
        _template = path
    return _template


def sqlite_copy(path: Path | str) -> str:
    """Copies the migrated template to ``path`` (a new file); returns its URL."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        raise FileExistsError(f"{path} exists: a fresh database needs a new file")
    shutil.copyfile(sqlite_template(), path)
    return f"sqlite:///{path}"


def sqlite_engine(path: Path | str, **kwargs) -> Engine:
    """An engine over a new SQLite file at ``path`` with the schema at the head revision,
    as ``make_engine`` and ``migrate`` would make it, copied from the template."""
    return make_engine(sqlite_copy(path), **kwargs)


# The schema's shape as PostgreSQL's catalog has it: relations and their columns
# (types, nullability, defaults), constraints, indexes, triggers, functions and Alembic's
# revision.
_FINGERPRINT = """
SELECT md5(string_agg(line, E'\\n' ORDER BY line)) FROM (
    SELECT c.relname::text || ' ' || c.relkind::text || ' ' || coalesce(a.attname::text, '')
           || ' ' || coalesce(format_type(a.atttypid, a.atttypmod), '')
           || ' ' || coalesce(a.attnotnull::text, '')
           || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '') AS line
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE n.nspname = current_schema()
    UNION ALL
    SELECT conrelid::regclass::text || ' ' || conname::text || ' ' || pg_get_constraintdef(oid)
    FROM pg_constraint WHERE connamespace = current_schema()::regnamespace
    UNION ALL
    SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema()
    UNION ALL
    SELECT pg_get_triggerdef(t.oid) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
    WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal
    UNION ALL
    SELECT pg_get_functiondef(oid) FROM pg_proc
    WHERE pronamespace = current_schema()::regnamespace
    UNION ALL
    SELECT 'alembic_version ' || version_num FROM alembic_version
) AS catalog
"""


def _fingerprint(engine: Engine) -> str | None:
    try:
        with engine.connect() as connection:
            return connection.exec_driver_sql(_FINGERPRINT).scalar()
    except Exception:  # noqa: BLE001 - no schema, no alembic_version: not the template
        return None


class _Template:
    """What a freshly migrated schema holds, to put back after a test: the catalog's
    fingerprint, its tables (children first), the rows the revisions wrote (the
    ``schema_info`` row) and each sequence's position."""

    def __init__(self, engine: Engine):
        self.fingerprint = _fingerprint(engine)
        self.metadata = MetaData()
        with engine.connect() as connection:
            self.metadata.reflect(connection)
            self.tables = [t for t in reversed(self.metadata.sorted_tables)]
            self.rows = {
                table: rows
                for table in self.tables
                if (rows := [row._asdict() for row in connection.execute(table.select())])
            }
            self.sequences = {
                name: connection.exec_driver_sql(
                    f'SELECT last_value, is_called FROM "{name}"'
                ).one()
                for (name,) in connection.exec_driver_sql(
                    "SELECT sequence_name FROM information_schema.sequences "
                    "WHERE sequence_schema = current_schema()"
                )
            }
            # Without triggers (the game counts) and foreign keys while the rows go;
            # only a superuser may, others truncate.
            self.superuser = connection.exec_driver_sql(
                "SELECT rolsuper FROM pg_roles WHERE rolname = current_user"
            ).scalar()

    def restore(self, engine: Engine) -> None:
        with engine.begin() as connection:
            if self.superuser:
                connection.exec_driver_sql("SET LOCAL session_replication_role = replica")
                for table in self.tables:
                    connection.execute(table.delete())
            else:
                names = ", ".join(f'"{table.name}"' for table in self.tables)
                connection.exec_driver_sql(f"TRUNCATE {names} CASCADE")
            for table, rows in self.rows.items():
                connection.execute(table.insert(), rows)
            for name, (value, called) in self.sequences.items():
                connection.exec_driver_sql(
                    "SELECT setval(%(name)s::regclass, %(value)s, %(called)s)",
                    {"name": f'"{name}"', "value": value, "called": called},
                )


_migrated: dict[str, _Template] = {}


def _migrate_afresh(engine: Engine, schema: str) -> None:
    with engine.begin() as connection:
        connection.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    migrate(engine)
    _migrated[schema] = _Template(engine)


def reset_postgres(engine: Engine, schema: str) -> None:
    """Makes ``schema`` (the engine's search path) an empty schema at the head revision,
    as ``migrate`` leaves it: its rows deleted and sequences restarted when its catalog
    is still as migrated, else dropped and migrated anew."""
    template = _migrated.get(schema)
    if template is None or _fingerprint(engine) != template.fingerprint:
        _migrate_afresh(engine, schema)
    else:
        template.restore(engine)
