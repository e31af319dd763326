"""Resigning, "my games" and the lobby's refused form in a real browser, on a desk and
on a phone: the pages read well, never scroll sideways, and screenshots are kept in
``test-artifacts/screenshots`` (``seat-exit-<page>-<desktop|phone>.png``)."""

from __future__ import annotations

import threading

import pytest
from werkzeug.serving import make_server

from pbem.games import rescue
from pbem.games.service import SeatSpec
from pbem.mail import games_link
from pbem.runtime import build_runtime
from pbem.web import create_app
from tests.web.conftest import CHROMIUM_ARGS, SCREENSHOTS, free_port, overrides, shoot

pytestmark = pytest.mark.browser

SIZES = {"desktop": (1280, 900), "phone": (390, 844)}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    from tests.databases import sqlite_engine

    tmp = tmp_path_factory.mktemp("exit")
    db = sqlite_engine(tmp / "exit.sqlite3")
    runtime = build_runtime(overrides(tmp), db=db)
    service = runtime.service
    first = service.create_game(
        "mare_balticum",
        [
            SeatSpec("Ann", "ann@example.org", timezone="Europe/Berlin"),
            SeatSpec("Ben", "ben@example.org"),
            SeatSpec("Cleo", "cleo@example.org"),
        ],
        {},
        title="Friday at Ann's",
        policy={"deadline_after_days": 3},
    )
    second = service.create_game(
        "mercatores",
        [
            SeatSpec("Ann", "ann@example.org", timezone="Europe/Berlin"),
            SeatSpec("Bot", is_bot=True),
        ],
        {},
    )
    service.play_bots(second.game_id)
    rescue.resign(runtime, first.game_id, 1, by=1)
    link = "/my-games/" + games_link.link_token(runtime.secret_key, "ann@example.org", 0)
    port = free_port()
    httpd = make_server("127.0.0.1", port, create_app(runtime=runtime), threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}", first, link
    httpd.shutdown()
    thread.join(timeout=10)
    db.dispose()


def test_the_seat_exit_pages_read_well_on_desktop_and_phone(served):
    from playwright.sync_api import sync_playwright

    base, first, link = served
    ann, cleo = first.tokens[0], first.tokens[2]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
        )
        try:
            for size, (width, height) in SIZES.items():
                page = browser.new_page(viewport={"width": width, "height": height})

                def shot(name: str, page=page, width=width, size=size) -> None:
                    wide = page.evaluate("document.documentElement.scrollWidth")
                    assert wide <= width + 1, f"{name} scrolls sideways on {size}"
                    shoot(page, path=str(SCREENSHOTS / f"seat-exit-{name}-{size}.png"))

                page.goto(base + link)
                assert page.locator("li.my-game").count() == 2
                assert "Your deadline" in page.content() or "Waiting for" in page.content()
                shot("my-games")
                page.goto(f"{base}/play/{ann}")
                assert "resigned (a bot plays on)" in page.locator(".players").inner_text()
                page.click("text=Hand my seat to a bot, or resign")
                page.locator("#my-seat").scroll_into_view_if_needed()
                shot("seat-page")
                page.click("button:text-is('Resign')")
                assert page.locator("h1").inner_text() == "Resign from this game?"
                shot("resign-confirm")
                page.click("text=No, go back")
                page.goto(base + "/")
                page.fill("input[name=seat_name_0]", "Ann")
                page.fill("input[name=seat_email_0]", "ann@example.org")
                page.fill("input[name=seat_name_1]", "Ben")
                page.fill("input[name=seat_email_1]", "not an address")
                page.check("input[name=private]")
                page.click("button.primary")
                assert page.locator("input[name=seat_email_1]").input_value() == "not an address"
                assert page.locator("input[name=private]").is_checked()
                shot("lobby-refused")
                page.close()
            # Cleo resigns for real, through both steps, on the phone.
            page = browser.new_page(viewport={"width": 390, "height": 844})
            page.goto(f"{base}/rescue/{cleo}")
            page.click("button:text-is('Resign')")
            page.click("button:text-is('Yes, resign')")
            assert "You resigned" in page.content()
            shoot(page, path=str(SCREENSHOTS / "seat-exit-after-resigning-phone.png"))
        finally:
            browser.close()
