"""Fixtures for the web: an app over a real database, its client, and games to visit;
for the browser tests, an app served on a loopback port and Debian's chromium."""

from __future__ import annotations

import os
import re
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from werkzeug.serving import make_server

from pbem.games.service import SeatSpec
from pbem.runtime import build_runtime
from pbem.web import create_app
from tests.databases import sqlite_engine

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
SEQ = re.compile(r'name="seq" value="(\d+)"')
SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"
# Screenshots are for people to look at: ``make screenshots`` writes them
# (``PBEM_SCREENSHOTS=1``); ``make test`` checks the same pages without the pictures, a
# full page at device scale 3 costing up to a second.
TAKE_SCREENSHOTS = os.environ.get("PBEM_SCREENSHOTS") == "1"


def shoot(target: Any, **options: Any) -> None:
    """``target.screenshot(**options)`` (a page, or a locator) under ``make screenshots``."""
    if TAKE_SCREENSHOTS:
        Path(options["path"]).parent.mkdir(parents=True, exist_ok=True)
        target.screenshot(**options)


CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-gpu",
]


def free_port() -> int:
    """A free TCP port on loopback (for a served app or an SMTP server in a test)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def overrides(tmp_path) -> dict:
    return {
        "security": {"secret_key": "test-secret"},
        "paths": {"var": str(tmp_path / "var")},
        "server": {"demo": False, "base_url": "http://localhost"},
    }


@pytest.fixture
def runtime(db, tmp_path):
    return build_runtime(overrides(tmp_path), db=db, create_schema=False)


@pytest.fixture
def sqlite_runtime(sqlite_db, tmp_path):
    return build_runtime(overrides(tmp_path), db=sqlite_db, create_schema=False)


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


@contextmanager
def file_runtime(tmp_path_factory, name: str) -> Iterator[Any]:
    """A runtime over a fresh SQLite file ``<name>.sqlite3`` in its own temporary folder,
    for a module's worth of served games."""
    tmp = tmp_path_factory.mktemp(name)
    db = sqlite_engine(tmp / f"{name}.sqlite3")
    try:
        yield build_runtime(overrides(tmp), db=db, create_schema=False)
    finally:
        db.dispose()


@contextmanager
def serving(runtime) -> Iterator[str]:
    """The app over ``runtime`` served on a free loopback port; yields its base URL."""
    port = free_port()
    httpd = make_server("127.0.0.1", port, create_app(runtime=runtime), threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        httpd.shutdown()
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium, launched once for a test module."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
        )
        yield chromium
        chromium.close()
