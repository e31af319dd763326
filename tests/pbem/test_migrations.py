"""Schema versions: creation, idempotent upgrades, refusing a newer schema."""

from __future__ import annotations

import pytest
from sqlmodel import SQLModel

from pbem import migrations
from pbem.db import init_db, make_engine
from pbem.migrations import SchemaTooNew, current_version, migrate
from pbem.models import SCHEMA_VERSION


def test_empty_database_gets_the_current_schema(tmp_path):
    db = make_engine(f"sqlite:///{tmp_path / 'm.sqlite3'}")
    assert current_version(db) is None
    assert migrate(db) == (None, SCHEMA_VERSION)
    assert migrate(db) == (SCHEMA_VERSION, SCHEMA_VERSION)


def test_a_newer_schema_is_refused(tmp_path):
    db = make_engine(f"sqlite:///{tmp_path / 'm.sqlite3'}")
    init_db(db)
    with db.begin() as connection:
        connection.exec_driver_sql(f"UPDATE schema_info SET version = {SCHEMA_VERSION + 1}")
    with pytest.raises(SchemaTooNew):
        migrate(db)


def test_migrations_run_in_order_and_keep_the_events(service, monkeypatch):
    """A database at version N-1 is upgraded in place by MIGRATIONS[N]; events stay."""
    from tests.pbem.test_store import new_game, play

    created = new_game(service)
    play(service, created.game_id, limit=12)
    before = service.events(created.game_id)
    ran = []
    monkeypatch.setattr(migrations, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    monkeypatch.setitem(
        migrations.MIGRATIONS,
        SCHEMA_VERSION + 1,
        lambda connection: ran.append(connection.exec_driver_sql("SELECT 1").scalar()),
    )
    assert migrate(service.db) == (SCHEMA_VERSION, SCHEMA_VERSION + 1)
    assert ran == [1]
    assert current_version(service.db) == SCHEMA_VERSION + 1
    assert service.events(created.game_id) == before
    assert service.verify_game(created.game_id).ok
    SQLModel.metadata.create_all(service.db)


def test_production_refuses_a_database_that_needs_migrate(tmp_path):
    from pbem.migrations import SchemaOutdated
    from pbem.runtime import build_runtime

    url = f"sqlite:///{tmp_path / 'prod.sqlite3'}"
    settings = {
        "database": {"url": url},
        "server": {"production": True},
        "paths": {"var": str(tmp_path / "var")},
    }
    with pytest.raises(SchemaOutdated, match="pbem migrate"):
        build_runtime(settings)
    migrate(make_engine(url))
    assert build_runtime(settings).service is not None
