"""The tests' fresh databases (tests/databases.py): a copy of the SQLite template and a
reset PostgreSQL schema are what a migration of an empty database makes."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from pbem.db import make_engine
from pbem.games.service import GameService, SeatSpec
from pbem.migrations import current_revision, differences, head_revision, migrate
from tests.databases import _fingerprint, reset_postgres, sqlite_copy, sqlite_engine


def _rows(engine) -> dict[str, list]:
    """Every table's rows but Alembic's (the revision is checked apart)."""
    with engine.connect() as connection:
        if engine.dialect.name == "sqlite":
            names = connection.exec_driver_sql(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
            ).scalars()
        else:
            names = connection.exec_driver_sql(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
            ).scalars()
        return {
            name: sorted(map(tuple, connection.exec_driver_sql(f'SELECT * FROM "{name}"')))
            for name in sorted(names)
            if name != "alembic_version"
        }


def _play(engine) -> None:
    service = GameService(engine)
    created = service.create_game("pig", [SeatSpec("A", "a@example.org"), SeatSpec("B")], {})
    head = service.head(created.game_id)
    service.submit_move(created.game_id, 0, {"type": "roll"}, head.seq)


def test_a_copy_of_the_sqlite_template_is_a_database_migrated_afresh(tmp_path):
    migrated = make_engine(f"sqlite:///{tmp_path / 'migrated.sqlite3'}")
    migrate(migrated)
    copied = sqlite_engine(tmp_path / "copied.sqlite3")
    assert current_revision(copied) == head_revision()
    assert differences(copied) == []
    assert _rows(copied) == _rows(migrated)
    assert _rows(copied)["schema_info"] == [(1, 1)]
    _play(copied)  # the triggers are there: the game is counted
    with copied.connect() as connection:
        assert connection.exec_driver_sql("SELECT sum(games) FROM game_counts").scalar() == 1
    copied.dispose()
    migrated.dispose()


def test_a_copy_never_overwrites_a_database(tmp_path):
    engine = sqlite_engine(tmp_path / "kept.sqlite3")
    _play(engine)
    with pytest.raises(FileExistsError):
        sqlite_copy(tmp_path / "kept.sqlite3")
    with engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT count(*) FROM games").scalar() == 1
    engine.dispose()


@pytest.fixture
def schema_engine(postgres_schema):
    url, connect_args, schema = postgres_schema
    engine = make_engine(url, connect_args=connect_args)
    yield engine, schema
    engine.dispose()


@pytest.mark.postgres
def test_a_reset_schema_holds_what_a_migration_leaves_and_its_sequences_restart(
    schema_engine,
):
    engine, schema = schema_engine
    with engine.begin() as connection:
        connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    migrate(engine)
    migrated = _rows(engine)
    with engine.connect() as connection:
        sequences = connection.exec_driver_sql(
            "SELECT sequence_name FROM information_schema.sequences "
            "WHERE sequence_schema = current_schema()"
        ).scalars()
        fresh = {
            name: connection.exec_driver_sql(f"SELECT nextval('{name}')").scalar()
            for name in sequences
        }
    assert fresh and set(fresh.values()) == {1}
    reset_postgres(engine, schema)  # the first in this test: migrated anew
    for _ in range(2):
        _play(engine)
        with engine.begin() as connection:
            for name in fresh:
                connection.exec_driver_sql(f"SELECT nextval('{name}')")
        reset_postgres(engine, schema)
        assert _rows(engine) == migrated
        with engine.connect() as connection:
            after = {
                name: connection.exec_driver_sql(f"SELECT nextval('{name}')").scalar()
                for name in fresh
            }
        assert after == fresh
        reset_postgres(engine, schema)
    _play(engine)  # the counting trigger still counts
    with engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT sum(games) FROM game_counts").scalar() == 1


@pytest.mark.postgres
@pytest.mark.parametrize(
    "change",
    [
        "DROP TABLE audit_marks",
        "UPDATE alembic_version SET version_num = '0006_game_listing_indexes'",
        "DROP TABLE alembic_version",
        "DROP TRIGGER games_counted ON games",
        "DROP INDEX ix_seats_email",
        "ALTER TABLE games ADD COLUMN extra integer",
        "ALTER TABLE games ALTER COLUMN title TYPE varchar(300)",
    ],
)
def test_a_schema_a_test_changed_is_migrated_anew(schema_engine, change):
    engine, schema = schema_engine
    reset_postgres(engine, schema)
    before = _fingerprint(engine)
    with engine.begin() as connection:
        connection.execute(text(change))
    assert _fingerprint(engine) != before
    reset_postgres(engine, schema)
    assert _fingerprint(engine) == before
    assert current_revision(engine) == head_revision()
    assert differences(engine) == []
    with engine.connect() as connection:
        triggers = connection.exec_driver_sql(
            "SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
            "WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal"
        ).scalar()
    assert triggers == 7  # the game counts (2), the tallies (3: events, mails), the audit queue (2)
