"""The end of a game of each title in a real browser, on a desk and on a phone: the
result names the winners, its table has a row per seat with the engine's labels, the
phone page never scrolls sideways (only the table's own region may), and screenshots are
kept in ``test-artifacts/screenshots`` (``end-<title>-<desktop|phone>.png``)."""

from __future__ import annotations

import threading

import pytest
from werkzeug.serving import make_server

from pbem.games.results import standings
from pbem.games.service import SeatSpec
from pbem.runtime import build_runtime
from pbem.web import create_app
from tests.web.conftest import CHROMIUM_ARGS, SCREENSHOTS, free_port, overrides, shoot

pytestmark = pytest.mark.browser

TITLES = [
    ("mercatores", ["Ann", "Ben"], {}),
    ("mare_balticum", ["Ann", "Ben", "Cleo", "Dan"], {}),
    ("mare_nostrum", ["Ann", "Ben", "Cleo", "Dan", "Eve"], {"turn_limit": 3}),
]


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """Bot games of each title played to their end, served on a loopback port."""
    from tests.databases import sqlite_engine

    tmp = tmp_path_factory.mktemp("ends")
    db = sqlite_engine(tmp / "ends.sqlite3")
    runtime = build_runtime(overrides(tmp), db=db)
    games = {}
    for slug, names, options in TITLES:
        specs = [SeatSpec(name, is_bot=True) for name in names]
        game_id = runtime.service.create_game(slug, specs, options).game_id
        runtime.service.play_bots(game_id, max_moves=20_000)
        game = runtime.service.game(game_id)
        assert game.status == "finished"
        games[slug] = (game_id, standings(game.result, names), names)
    port = free_port()
    httpd = make_server("127.0.0.1", port, create_app(runtime=runtime), threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}", games
    httpd.shutdown()
    thread.join(timeout=10)
    db.dispose()


@pytest.mark.parametrize("slug", [slug for slug, _, _ in TITLES])
def test_the_end_of_a_game_reads_well_on_desktop_and_phone(finished, slug):
    from playwright.sync_api import sync_playwright

    base, games = finished
    game_id, standing, names = games[slug]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
        )
        try:
            for size, (width, height) in {"desktop": (1280, 900), "phone": (390, 844)}.items():
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(f"{base}/games/{game_id}")
                table = page.locator("table.result")
                assert (
                    page.locator(".result-headline").inner_text().startswith(standing["headline"])
                )
                headers = table.locator("thead th").all_inner_texts()
                assert headers == ["Rank", "Player", *standing["columns"]]
                rows = table.locator("tbody tr")
                assert rows.count() == len(names)
                first = rows.first.locator("th").inner_text()
                assert standing["rows"][0]["name"] in first and "wins" in first
                overflow = page.evaluate(
                    "document.documentElement.scrollWidth - document.documentElement.clientWidth"
                )
                assert overflow <= 0, f"the {size} page scrolls sideways by {overflow}px"
                page.locator("h2", has_text="Result").scroll_into_view_if_needed()
                shoot(page, path=str(SCREENSHOTS / f"end-{slug}-{size}.png"))
                page.close()
        finally:
            browser.close()
