"""Contributions to the dice in Debian's chromium: an invited player's seat page sends
the browser's own random contribution as it opens (under the page's CSP), a move made
at once still stands, and the audit page lists whose contributions covered which
events."""

from __future__ import annotations

import pytest

from pbem.games.service import SeatSpec
from tests.web.conftest import SCREENSHOTS, shoot
from tests.web.test_browser import confirm_if_asked, server, smtp  # noqa: F401 - fixtures

pytestmark = pytest.mark.browser
SHOTS = SCREENSHOTS / "dice"  # under make screenshots


def filled(page) -> None:
    """Waits for the page's script to fill the contribution field (polled from here: the
    page's CSP forbids evaluating a string in it)."""
    field = page.locator("input[name=contribution]")
    for _ in range(100):
        if len(field.input_value()) == 64:
            return
        page.wait_for_timeout(50)
    raise AssertionError("the browser did not fill in a contribution")


def test_a_seat_page_adds_the_browsers_contribution(browser, server):  # noqa: F811
    runtime, base, _ = server
    seats = [SeatSpec("Ann", "ann@example.org"), SeatSpec("Ben", "ben@example.org")]
    created = runtime.service.create_game("pig", seats, {"target": 30})
    game_id = created.game_id
    assert runtime.service.needs_contribution(game_id, 1)
    runtime.service.submit_move(game_id, 0, {"type": "stop"}, 0)  # Ben's turn
    for width, height in ((1280, 900), (390, 844)):
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        complaints: list[str] = []
        page.on("console", lambda message, found=complaints: found.append(message.text))
        page.on("pageerror", lambda error, found=complaints: found.append(str(error)))
        page.goto(f"{base}/play/{created.tokens[1]}")
        if width == 1280:
            status = page.locator("#contribute [role=status]")
            status.filter(has_text="added its contribution").wait_for()
            shoot(page, path=SHOTS / f"seat-contributed-{width}.png", full_page=True)
            # The move made on this page still stands (its form carries the new event).
            page.locator(".moves button:text-is('Stop and bank')").first.click()
            confirm_if_asked(page)
            assert "not made" not in page.content() and "moved on" not in page.content()
        assert not [text for text in complaints if "Content Security Policy" in text]
        page.goto(f"{base}/games/{game_id}/audit")
        assert "Nobody alone chose this game's dice" in page.content()
        assert "Ben, seat 2 (browser)" in page.content()
        shoot(page, path=SHOTS / f"audit-{width}.png", full_page=True)
        context.close()
    (given,) = [row for row in runtime.service.events(game_id) if row["kind"] == "contribution"]
    assert given["seat"] == 1 and given["payload"]["by"] == "browser"
    assert len(given["payload"]["contribution"]) == 64
    assert runtime.service.game(game_id).head_seq >= 3  # the stop, the contribution, Ben's stop


def test_the_lobbys_second_step_shows_the_commitment_first(browser, server):  # noqa: F811
    runtime, base, _ = server
    for width, height in ((1280, 900), (390, 844)):
        page = browser.new_page(viewport={"width": width, "height": height})
        page.goto(base + "/")
        page.check("input[name=game][value=mercatores]")
        page.fill("input[name=seat_name_0]", "Ann")
        page.fill("input[name=seat_email_0]", f"ann{width}@example.org")
        page.fill("input[name=seat_email_1]", "bot")
        page.click("button.primary")
        filled(page)
        shown = page.locator("code.hash").first.inner_text()
        assert runtime.service.pending_game(page.locator("input[name=pending]").input_value())
        shoot(page, path=SHOTS / f"create-step-{width}.png", full_page=True)
        page.fill("input[name=contribution]", "typed by Ann")
        page.click("button.primary")
        page.wait_for_url("**/play/**")
        game = next(g for g in runtime.service.games() if g.commitment == shown)
        given = runtime.service.events(game.id)[0]["payload"]["contributions"]
        assert given[0]["contribution"] == "typed by Ann" and given[0]["by"] == "browser"
        page.close()
