"""Schema revisions through Alembic: creation, idempotent upgrades, the models agreeing
with the head revision, refusing a newer schema, production refusing to migrate."""

from __future__ import annotations

import pytest

from pbem.db import make_engine
from pbem.migrations import (
    FIRST_RELEASE,
    SchemaOutdated,
    SchemaTooNew,
    alembic_config,
    current_revision,
    differences,
    head_revision,
    migrate,
    require_current,
)


def test_empty_database_gets_the_head_revision(tmp_path):
    db = make_engine(f"sqlite:///{tmp_path / 'm.sqlite3'}")
    assert current_revision(db) is None
    head = head_revision()
    assert migrate(db) == (None, head)
    assert migrate(db) == (head, head)
    assert current_revision(db) == head
    with db.connect() as connection:
        assert connection.exec_driver_sql("SELECT version FROM schema_info").all() == [(1,)]


def test_the_models_and_the_head_revision_agree(db):
    """A model changed without a revision (or a revision without its model) fails here,
    on SQLite and on PostgreSQL."""
    assert current_revision(db) == head_revision()
    assert differences(db) == []


def test_a_model_change_without_a_revision_is_seen(sqlite_db):
    with sqlite_db.begin() as connection:
        connection.exec_driver_sql("DROP INDEX ix_seat_requests_seat")
        connection.exec_driver_sql("ALTER TABLE seats ADD COLUMN spare INTEGER")
    found = {diff[0] for diff in differences(sqlite_db)}
    assert found == {"add_index", "remove_column"}


def test_a_schema_revision_this_program_does_not_know_is_refused(tmp_path):
    db = make_engine(f"sqlite:///{tmp_path / 'm.sqlite3'}")
    migrate(db)
    with db.begin() as connection:
        connection.exec_driver_sql("UPDATE alembic_version SET version_num = 'ffff_newer'")
    with pytest.raises(SchemaTooNew, match="upgrade pbem"):
        migrate(db)
    with pytest.raises(SchemaOutdated, match="pbem migrate"):
        require_current(db)
    assert current_revision(db) == "ffff_newer"


def test_a_pre_alembic_schema_newer_than_the_last_one_before_alembic_is_refused(tmp_path):
    db = make_engine(f"sqlite:///{tmp_path / 'm.sqlite3'}")
    migrate(db)
    with db.begin() as connection:
        connection.exec_driver_sql("DROP TABLE alembic_version")
        connection.exec_driver_sql("UPDATE schema_info SET version = 3")
    with pytest.raises(SchemaTooNew, match="schema version 3"):
        migrate(db)
    with db.connect() as connection:
        assert connection.exec_driver_sql("SELECT version FROM schema_info").scalar() == 3


def test_revisions_go_down_and_up_again_and_keep_the_events(service):
    """Every revision after the first release undoes and redoes cleanly; events stay,
    and the game counts are made again from the games there."""
    from alembic import command

    from tests.pbem.test_store import new_game, play

    created = new_game(service)
    play(service, created.game_id, limit=12)
    before = service.events(created.game_id)
    with service.db.begin() as connection:
        command.downgrade(alembic_config(connection), FIRST_RELEASE)
    assert current_revision(service.db) == FIRST_RELEASE
    with pytest.raises(SchemaOutdated):
        require_current(service.db)
    assert migrate(service.db) == (FIRST_RELEASE, head_revision())
    assert differences(service.db) == []
    assert service.events(created.game_id) == before
    assert service.verify_game(created.game_id).ok
    status = service.game(created.game_id).status
    assert service.list_games().counts == {"active": 0, "finished": 0, status: 1}


def test_production_refuses_a_database_that_needs_migrate(tmp_path):
    from alembic import command

    from pbem.runtime import build_runtime

    url = f"sqlite:///{tmp_path / 'prod.sqlite3'}"
    settings = {
        "database": {"url": url},
        "server": {"production": True},
        "paths": {"var": str(tmp_path / "var")},
    }
    with pytest.raises(SchemaOutdated, match="pbem migrate"):
        build_runtime(settings)
    db = make_engine(url)
    with db.begin() as connection:
        command.upgrade(alembic_config(connection), FIRST_RELEASE)
    with pytest.raises(SchemaOutdated, match=f"revision {FIRST_RELEASE}"):
        build_runtime(settings)
    migrate(db)
    assert build_runtime(settings).service is not None


def test_a_first_release_database_with_the_later_tables_already_made_upgrades(tmp_path):
    """Before Alembic, tables added after the first release were made by the upgrade
    without a version change: such a database is stamped at the first release and
    the revisions that would make them again leave them as they are."""
    from sqlmodel import SQLModel

    db = make_engine(f"sqlite:///{tmp_path / 'm.sqlite3'}")
    SQLModel.metadata.create_all(db)
    with db.begin() as connection:
        connection.exec_driver_sql("INSERT INTO schema_info (id, version) VALUES (1, 1)")
        connection.exec_driver_sql(
            "INSERT INTO retired_links (token_hash, game_id, seat, message, created_at) "
            "VALUES ('h', 'g', 0, 'replaced', '2026-01-01 00:00:00')"
        )
    assert current_revision(db) == FIRST_RELEASE
    assert migrate(db) == (FIRST_RELEASE, head_revision())
    assert differences(db) == []
    with db.connect() as connection:
        assert connection.exec_driver_sql("SELECT message FROM retired_links").all() == [
            ("replaced",)
        ]


@pytest.mark.parametrize(
    "backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def test_processes_migrating_at_once_create_the_schema_once(backend, tmp_path, request):
    """Several processes starting together on an empty database (SQLite's write lock,
    PostgreSQL's advisory lock): one creates the schema, the others find it done."""
    from concurrent.futures import ThreadPoolExecutor

    from pbem.migrations import drop_all

    if backend == "sqlite":
        engines = [make_engine(f"sqlite:///{tmp_path / 'm.sqlite3'}") for _ in range(4)]
    else:
        url, connect_args, _ = request.getfixturevalue("postgres_schema")
        # Without the advisory lock concurrent DDL waits on itself: fail, do not hang.
        options = {"options": connect_args["options"] + " -clock_timeout=20s"}
        engines = [make_engine(url, connect_args=options) for _ in range(4)]
        drop_all(engines[0])
    with ThreadPoolExecutor(len(engines)) as pool:
        results = list(pool.map(migrate, engines))
    head = head_revision()
    assert results.count((None, head)) == 1 and results.count((head, head)) == 3
    assert differences(engines[0]) == []
    for engine in engines:
        engine.dispose()


def test_alembic_s_command_line_sends_a_pre_alembic_database_to_pbem_migrate(tmp_path, monkeypatch):
    """`alembic upgrade` alone would create the first release's tables over it."""
    import shutil
    from pathlib import Path

    from alembic import command

    fixture = Path(__file__).parent / "fixtures" / "schema_v1.sqlite3"
    shutil.copy(fixture, tmp_path / "v1.sqlite3")
    monkeypatch.setenv("PBEM_DATABASE_URL", f"sqlite:///{tmp_path / 'v1.sqlite3'}")
    monkeypatch.setenv("PBEM_PATHS_VAR", str(tmp_path / "var"))
    with pytest.raises(SystemExit, match="pbem migrate"):
        command.upgrade(alembic_config(), "head")
    db = make_engine(f"sqlite:///{tmp_path / 'v1.sqlite3'}")
    assert current_revision(db) == FIRST_RELEASE
    migrate(db)
    command.upgrade(alembic_config(), "head")  # now a no-op through the command line
    assert current_revision(db) == head_revision()
