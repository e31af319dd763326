"""Alembic's environment for pbem: the models' metadata, and the database of the caller.

:func:`pbem.migrations.migrate` passes its open connection in ``config.attributes``
(one transaction for the whole upgrade). Run from the command line (``make revision``,
``alembic -c alembic.ini ...``), the database is the one the pbem configuration names
(``PBEM_DATABASE_URL``, ``PBEM_CONFIG``), never a URL written in ``alembic.ini``.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import context
from sqlmodel import SQLModel
from sqlmodel.sql.sqltypes import AutoString, UTCDateTime

import pbem.games.tables  # noqa: F401 - registers the seat tables
import pbem.mail.models  # noqa: F401 - registers the mail tables
import pbem.models  # noqa: F401 - registers the game tables

target_metadata = SQLModel.metadata
config = context.config


def _render_item(kind: str, item, _autogen_context):
    """Writes SQLModel's column types as plain SQLAlchemy ones, so a revision does not
    depend on the models' library."""
    if kind == "type" and isinstance(item, AutoString):
        return f"sa.String(length={item.length})" if item.length else "sa.String()"
    if kind == "type" and isinstance(item, UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def _run(connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        compare_type=True,
        render_as_batch=connection.dialect.name == "sqlite",
        render_item=_render_item,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    from pbem.config import load_config, make_var
    from pbem.db import make_engine

    settings = load_config()
    make_var(settings)
    engine = make_engine(settings["database"]["url"])
    try:
        with engine.connect() as connection:
            tables = set(sa.inspect(connection).get_table_names())
            if "alembic_version" not in tables and tables & {"events", "schema_info"}:
                raise SystemExit(
                    "This database predates Alembic: run `pbem migrate` first, which "
                    "records its revision and upgrades it."
                )
            _run(connection)
            connection.commit()
    finally:
        engine.dispose()


if context.is_offline_mode():
    raise SystemExit("pbem's revisions run against a database: drop --sql.")
run_migrations()
