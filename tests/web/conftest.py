"""Fixtures for the web: an app over a real database, its client, and games to visit."""

from __future__ import annotations

import re

import pytest

from pbem.games.service import SeatSpec
from pbem.runtime import build_runtime
from pbem.web import create_app

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
SEQ = re.compile(r'name="seq" value="(\d+)"')


def overrides(tmp_path) -> dict:
    return {
        "security": {"secret_key": "test-secret"},
        "paths": {"var": str(tmp_path / "var")},
        "server": {"demo": False, "base_url": "http://localhost"},
    }


@pytest.fixture
def runtime(db, tmp_path):
    return build_runtime(overrides(tmp_path), db=db)


@pytest.fixture
def sqlite_runtime(sqlite_db, tmp_path):
    return build_runtime(overrides(tmp_path), db=sqlite_db)


@pytest.fixture
def app(runtime):
    app = create_app(runtime=runtime)
    app.config["TESTING"] = True
    return app


@pytest.fixture
def client(app):
    return app.test_client()


def pig_game(runtime, seats=2, target=20, bots=()):
    specs = [
        SeatSpec(f"Bot {i}", is_bot=True) if i in bots else SeatSpec(f"P{i}", f"p{i}@example.org")
        for i in range(seats)
    ]
    return runtime.service.create_game("pig", specs, {"target": target})


def csrf_of(html: str) -> str:
    return CSRF.search(html).group(1)


def form_fields(html: str) -> tuple[str, int]:
    """The CSRF token and seq of the first form on a page."""
    return csrf_of(html), int(SEQ.search(html).group(1))
