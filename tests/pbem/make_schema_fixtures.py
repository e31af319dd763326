"""Writes the databases of a released schema, filled with games, for the upgrade test.

    .venv/bin/python -m tests.pbem.make_schema_fixtures

Run once per released schema version (never rewrite an old one): it writes
``fixtures/schema_v<N>.sqlite3`` and ``fixtures/schema_v<N>.postgres.sql`` (a pg_dump of
one schema, with the schema's name replaced by ``__SCHEMA__``). Each holds a game of every
title, some finished and some running, played by bots through the service.
"""

from __future__ import annotations

import random
import sqlite3
import subprocess
import tempfile
from pathlib import Path

from sqlalchemy import create_engine

from engines import REGISTRY
from pbem.db import make_engine
from pbem.games.service import SeatSpec
from pbem.models import SCHEMA_VERSION
from pbem.runtime import build_runtime

FIXTURES = Path(__file__).resolve().parent / "fixtures"
POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
GAMES = [
    ("mercatores", 2, {}, None),
    ("mare_nostrum", 3, {"turn_limit": 2}, None),
    ("mare_balticum", 3, {}, 60),
    ("mercatores", 3, {}, 20),
    ("mare_nostrum", 4, {}, 25),
    ("mare_balticum", 4, {"demand_management": True, "trade_contracts": True}, 30),
]


def fill(url: str, tmp: Path) -> None:
    db = make_engine(url)
    runtime = build_runtime(
        {"paths": {"var": str(tmp)}, "security": {"secret_key": "fixture"}}, db=db
    )
    service = runtime.service
    for slug, seats, options, stop_after in GAMES:
        engine = REGISTRY[slug]
        specs = [SeatSpec(f"Bot {i + 1}", f"bot{i + 1}@example.org") for i in range(seats)]
        created = service.create_game(slug, specs, options)
        rng = random.Random(len(slug) * seats)
        moved = 0
        while stop_after is None or moved < stop_after:
            head = service.head(created.game_id)
            due = sorted(engine.to_move(head.state))
            if not due:
                break
            legal = engine.legal_moves(head.state, due[0])
            move = engine.bot_move(engine.view(head.state, due[0]), legal, rng)
            service.submit_move(created.game_id, due[0], move, head.seq)
            moved += 1
    db.dispose()


def main() -> None:
    FIXTURES.mkdir(exist_ok=True)
    sqlite_path = FIXTURES / f"schema_v{SCHEMA_VERSION}.sqlite3"
    if sqlite_path.exists():
        raise SystemExit(f"{sqlite_path} exists: a released schema's fixture is never rewritten")
    with tempfile.TemporaryDirectory() as tmp:
        fill(f"sqlite:///{sqlite_path}", Path(tmp))
        compact = sqlite3.connect(sqlite_path, isolation_level=None)
        compact.execute("PRAGMA journal_mode=DELETE")
        compact.execute("VACUUM")
        compact.close()
        schema = f"fixture_v{SCHEMA_VERSION}"
        admin = create_engine(POSTGRES, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        fill(f"{POSTGRES}?options=-csearch_path%3D{schema}", Path(tmp))
        dump = subprocess.run(
            [
                "pg_dump",
                "-h",
                "127.0.0.1",
                "-U",
                "postgres",
                "--schema",
                schema,
                "--inserts",
                "--no-owner",
                "--no-privileges",
                "test",
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        lines = [
            line
            for line in dump.splitlines()
            if not line.startswith(("CREATE SCHEMA", "SET ", "SELECT pg_catalog.set_config", "\\"))
            and not line.startswith("--")
        ]
        text = "\n".join(lines).replace(f"{schema}.", "__SCHEMA__.")
        (FIXTURES / f"schema_v{SCHEMA_VERSION}.postgres.sql").write_text(text + "\n")
    print(f"wrote the fixtures of schema version {SCHEMA_VERSION} to {FIXTURES}")


if __name__ == "__main__":
    main()
