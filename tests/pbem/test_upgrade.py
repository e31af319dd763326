"""Upgrading a database made by a released schema, filled with games, in place.

Every released schema version keeps a fixture (``fixtures/schema_v<N>.*``, written once
by ``make_schema_fixtures``). Each is stamped at its Alembic revision and upgraded to
the head on SQLite and on PostgreSQL, after which the models and the database agree;
then every game replays to the same keyed state hashes, its cached head
equals the replayed head, and a running game carries on.
"""

from __future__ import annotations

import random
import secrets
import shutil
from pathlib import Path

import pytest

from pbem.db import make_engine
from pbem.eventlog.seeds import SeedSealed
from pbem.games.service import GameService
from pbem.migrations import (
    PRE_ALEMBIC,
    current_revision,
    differences,
    head_revision,
    migrate,
    seal_plain_seeds,
)
from pbem.models import SCHEMA_VERSION

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SQLITE_FIXTURES = sorted(FIXTURES.glob("schema_v*.sqlite3"))
POSTGRES_FIXTURES = sorted(FIXTURES.glob("schema_v*.postgres.sql"))


def released_version(fixture: Path) -> int:
    return int(fixture.name.split(".")[0].removeprefix("schema_v"))


def check_every_game(db, secret_key: str | None = None) -> None:
    service = GameService(db, secret_key=secret_key)
    games = service.games()
    assert len(games) >= 6
    assert {game.status for game in games} == {"active", "finished"}
    for game in games:
        report = service.verify_game(game.id)
        assert report.ok, f"{game.id}: {report.summary()}"
        with service.session() as session:
            cached = service.store.head(session, game.id, use_cache=True)
            replayed = service.store.head(session, game.id, use_cache=False)
        assert cached.engine.dump(cached.state) == replayed.engine.dump(replayed.state)
    running = next(game for game in games if game.status == "active")
    head = service.head(running.id)
    seat = min(head.engine.to_move(head.state))
    legal = head.engine.legal_moves(head.state, seat)
    move = head.engine.bot_move(head.engine.view(head.state, seat), legal, random.Random(1))
    service.submit_move(running.id, seat, move, head.seq)
    assert service.verify_game(running.id).ok


def test_there_is_a_fixture_for_the_current_schema():
    assert FIXTURES / f"schema_v{SCHEMA_VERSION}.sqlite3" in SQLITE_FIXTURES
    assert FIXTURES / f"schema_v{SCHEMA_VERSION}.postgres.sql" in POSTGRES_FIXTURES


@pytest.mark.parametrize("fixture", SQLITE_FIXTURES, ids=lambda path: path.stem)
def test_a_released_sqlite_database_upgrades_in_place(fixture, tmp_path):
    path = tmp_path / fixture.name
    shutil.copy(fixture, path)
    db = make_engine(f"sqlite:///{path}")
    released = PRE_ALEMBIC[released_version(fixture)]
    assert current_revision(db) == released
    assert migrate(db) == (released, head_revision())
    assert current_revision(db) == head_revision()
    assert differences(db) == []
    check_every_game(db)
    db.dispose()


@pytest.mark.parametrize("fixture", SQLITE_FIXTURES, ids=lambda path: path.stem)
def test_upgrading_with_the_server_key_seals_the_plain_seeds(fixture, tmp_path):
    path = tmp_path / fixture.name
    shutil.copy(fixture, path)
    db = make_engine(f"sqlite:///{path}")
    with db.connect() as connection:
        plain = dict(connection.exec_driver_sql("SELECT game_id, seed FROM game_secrets").all())
    assert plain and all(len(seed) == 64 for seed in plain.values())
    migrate(db, secret_key="upgrade-key")
    with db.connect() as connection:
        stored = dict(connection.exec_driver_sql("SELECT game_id, seed FROM game_secrets").all())
    assert stored.keys() == plain.keys()
    assert all(seed.startswith("g1.") for seed in stored.values())
    assert not any(plain[game_id] in seed for game_id, seed in stored.items())
    assert seal_plain_seeds(db, "upgrade-key") == 0
    check_every_game(db, secret_key="upgrade-key")
    with pytest.raises(SeedSealed, match="another server key"):
        check_every_game(db, secret_key="another-key")
    db.dispose()


@pytest.mark.postgres
@pytest.mark.parametrize("fixture", POSTGRES_FIXTURES, ids=lambda path: path.stem)
def test_a_released_postgres_database_upgrades_in_place(fixture, postgres_schema):
    from sqlalchemy import create_engine

    url, _, _ = postgres_schema
    schema = f"upgrade_{secrets.token_hex(4)}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    try:
        raw = admin.raw_connection()
        try:
            raw.cursor().execute(fixture.read_text().replace("__SCHEMA__.", f'"{schema}".'))
            raw.commit()
        finally:
            raw.close()
        db = make_engine(url, connect_args={"options": f"-csearch_path={schema}"})
        assert migrate(db) == (PRE_ALEMBIC[released_version(fixture)], head_revision())
        assert differences(db) == []
        check_every_game(db)
        db.dispose()
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


@pytest.mark.parametrize("fixture", SQLITE_FIXTURES, ids=lambda path: path.stem)
def test_seat_links_sealed_before_aes_gcm_still_open(fixture, tmp_path):
    from pbem.games.tokens import hash_token
    from pbem.mail.render import unseal

    path = tmp_path / fixture.name
    shutil.copy(fixture, path)
    db = make_engine(f"sqlite:///{path}")
    with db.connect() as connection:
        links = connection.exec_driver_sql("SELECT sealed, token_hash FROM seat_links").all()
    db.dispose()
    assert links
    for sealed, token_hash in links:
        assert hash_token(unseal("fixture", sealed)) == token_hash
        assert unseal("another-key", sealed) is None
