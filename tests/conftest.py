"""Shared fixtures: the fixture engine, and databases (SQLite and PostgreSQL).

PostgreSQL is at 127.0.0.1:5432 (database ``test``, trust auth) unless
``PBEM_TEST_POSTGRES_URL`` says otherwise. Each test run makes its own schema there and
drops it at the end. Without PostgreSQL the tests that need it are skipped locally,
but under ``CI=true`` they fail.
"""

from __future__ import annotations

import hashlib
import importlib
import itertools
import os
import secrets
import tempfile
from functools import partial
from pathlib import Path

import pytest

from engines import REGISTRY
from pbem.db import make_engine
from pbem.games.service import GAME_ID_ALPHABET, GameService
from tests.databases import reset_postgres, sqlite_engine
from tests.fixture_engine import PIG

REGISTRY.setdefault(PIG.slug, PIG)

# "Your turn" mails go at once in tests (and in the commands they run) unless a test
# sets ``mail.quiet_minutes`` itself: the quiet window has tests of its own.
os.environ.setdefault("PBEM_MAIL_QUIET_MINUTES", "0")

# Test files, the databases above all, go to memory where the machine has a tmpfs:
# SQLite syncs each commit to disk (synchronous=FULL, as served), and a sync to memory
# costs nothing. A TMPDIR given by the caller is kept.
_MEMORY = Path("/dev/shm")
if "TMPDIR" not in os.environ and _MEMORY.is_dir() and os.access(_MEMORY, os.W_OK | os.X_OK):
    os.environ["TMPDIR"] = str(_MEMORY)
    tempfile.tempdir = None  # tempfile and pytest's tmp_path read TMPDIR afresh

POSTGRES_URL = os.environ.get(
    "PBEM_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)


def _postgres_schema_url():
    import sqlalchemy

    schema = f"pbem_test_{os.getpid()}_{secrets.token_hex(4)}"
    try:
        admin = sqlalchemy.create_engine(POSTGRES_URL, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    except Exception as error:  # noqa: BLE001 - any failure means "no PostgreSQL here"
        if os.environ.get("CI") == "true":
            pytest.fail(f"PostgreSQL is required under CI=true but unreachable: {error}")
        pytest.skip(f"PostgreSQL not reachable: {error}")
    return admin, schema


@pytest.fixture(scope="session")
def postgres_schema():
    """A fresh PostgreSQL schema for this test run: (url, connect_args)."""
    admin, schema = _postgres_schema_url()
    # Commits do not wait for the WAL's sync (what they change and when others see it
    # is as with a synchronous commit; only a crash of the server could lose them).
    options = f"-csearch_path={schema} -csynchronous_commit=off"
    yield POSTGRES_URL, {"options": options}, schema
    with admin.connect() as connection:
        connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
    admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db(request, tmp_path):
    """A database engine with the schema created, on SQLite and on PostgreSQL (an empty
    schema at the head revision, copied or reset from the session's template:
    :mod:`tests.databases`)."""
    if request.param == "sqlite":
        engine = sqlite_engine(tmp_path / "test.sqlite3")
    else:
        url, connect_args, schema = request.getfixturevalue("postgres_schema")
        engine = make_engine(url, connect_args=connect_args)
        reset_postgres(engine, schema)
    yield engine
    engine.dispose()


@pytest.fixture(autouse=True)
def seeds_of_this_test(request, monkeypatch):
    """A game made in a test draws from a seed, and has an id, fixed by the test's name
    (and a count of the games before it there): its draws derive from both, so a test's
    dice are the same on every run. A failure is never the luck of one run, and it comes
    back to be looked at. (Games made by a fixture wider than one test keep random ones.)"""
    from pbem.eventlog import chance
    from pbem.games import service

    name = request.node.nodeid.encode()
    seeds, ids = itertools.count(), itertools.count()

    def game_id() -> str:
        digest = hashlib.sha256(b"%s#id%d" % (name, next(ids))).digest()
        return "".join(GAME_ID_ALPHABET[byte % len(GAME_ID_ALPHABET)] for byte in digest[:10])

    monkeypatch.setattr(
        chance, "new_seed", lambda: hashlib.sha256(b"%s#%d" % (name, next(seeds))).digest()
    )
    monkeypatch.setattr(service, "new_game_id", game_id)


@pytest.fixture
def sqlite_db(tmp_path):
    engine = sqlite_engine(tmp_path / "test.sqlite3")
    yield engine
    engine.dispose()


@pytest.fixture
def service(db):
    return GameService(db, snapshot_every=10)


# The longest test files (a minute or more each in two processes), handed out first under
# ``make test`` (``--dist loadfile --no-loadscope-reorder``): the processes then end
# together instead of one running the longest file alone at the end. The others keep
# their order.
LONGEST_FIRST = (
    "tests/web/test_browser_every_page.py",
    "tests/web/test_browser_pages.py",
    "tests/web/test_maps_browser.py",
    "tests/pbem/test_package.py",
    "tests/web/test_browser.py",
    "tests/web/test_boards.py",
    "tests/engines/mare_nostrum/test_self_play.py",
    "tests/security/test_postfix.py",
    "tests/mail/test_whole_table.py",
    "tests/web/test_browser_rules_and_tips.py",
    "tests/web/test_browser_theme.py",
)


def pytest_collection_modifyitems(items):
    rank = {path: place for place, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


# Each title's hard bot on a small budget (a handful of short playouts): for tests of
# what it does (where it moves, on what it depends), not of its strength.
SMALL_HARD_BUDGETS = {
    "mare_balticum": {"playouts": 4, "depth": 4, "checks": 4},
    "mare_nostrum": {"playouts": 4, "depth": 4},
    "mercatores": {"playouts": 4, "depth": 4, "count": 2},
}


@pytest.fixture
def small_hard_bots(monkeypatch):
    """The hard bots on :data:`SMALL_HARD_BUDGETS`, given as arguments to their
    ``choose_move``."""
    for slug, budget in SMALL_HARD_BUDGETS.items():
        module = importlib.import_module(f"engines.{slug}.bot_hard")
        monkeypatch.setattr(module, "choose_move", partial(module.choose_move, **budget))
