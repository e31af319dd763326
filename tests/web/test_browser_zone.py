"""The lobby's time zone in Debian's chromium: the browser's zone is preselected by the
lobby's script (under the page's CSP), and a game created there keeps it."""

from __future__ import annotations

import pytest

from tests.web.test_browser import server, smtp  # noqa: F401 - fixtures
from tests.web.test_browser_dice import filled

pytestmark = pytest.mark.browser


def test_the_lobby_preselects_the_browsers_zone(browser, server):  # noqa: F811
    runtime, base, _ = server
    context = browser.new_context(timezone_id="Asia/Tokyo")
    page = context.new_page()
    complaints: list[str] = []
    page.on("console", lambda message: complaints.append(message.text))
    page.on("pageerror", lambda error: complaints.append(str(error)))
    assert page.goto(base + "/").status == 200
    zone = page.locator("input[name=timezone]")
    page.wait_for_function("document.querySelector('input[name=timezone]').value !== 'UTC'")
    assert zone.input_value() == "Asia/Tokyo"
    page.check("input[name=game][value=mercatores]")
    page.fill("input[name=seat_name_0]", "Ann")
    page.fill("input[name=seat_email_0]", "ann@example.org")
    page.fill("input[name=seat_name_1]", "Bob")
    page.fill("input[name=seat_email_1]", "bob@example.org")
    page.fill("input[name=seat_timezone_1]", "Europe/Paris")
    page.click("button.primary")
    # The second step: the browser fills in its own random contribution to the dice.
    filled(page)
    page.click("button.primary")
    page.wait_for_url("**/play/**")
    game = runtime.service.games()[0]
    given = runtime.service.events(game.id)[0]["payload"]["contributions"]
    assert given[0]["by"] == "browser" and len(given[0]["contribution"]) == 64
    zones = [seat.timezone for seat in runtime.service.seats(game.id)]
    assert zones == ["Asia/Tokyo", "Europe/Paris"]
    assert not [text for text in complaints if "Content Security Policy" in text]
    context.close()


def test_without_script_the_lobby_says_utc(browser, server):  # noqa: F811
    _, base, _ = server
    context = browser.new_context(timezone_id="Asia/Tokyo", java_script_enabled=False)
    page = context.new_page()
    page.goto(base + "/")
    assert page.locator("input[name=timezone]").input_value() == "UTC"
    context.close()


def test_a_game_page_reads_its_times_in_the_browsers_zone(browser, server):  # noqa: F811
    from pbem.games.service import SeatSpec

    runtime, base, _ = server
    specs = [
        SeatSpec("Ann", "ann@example.org", timezone="Europe/Berlin"),
        SeatSpec("Bob", "b@x.org"),
    ]
    created = runtime.service.create_game("mercatores", specs, {})
    head = runtime.service.head(created.game_id)
    seat = min(head.engine.to_move(head.state))
    move = head.engine.legal_moves(head.state, seat)[0]
    runtime.service.submit_move(created.game_id, seat, move, head.seq)
    game = f"{base}/games/{created.game_id}"
    context = browser.new_context(timezone_id="Asia/Tokyo")
    page = context.new_page()
    complaints: list[str] = []
    page.on("console", lambda message: complaints.append(message.text))
    assert page.goto(game).status == 200
    page.wait_for_function("document.querySelector('time[data-local]').title !== ''")
    shown = page.inner_text("ol.lines time")
    assert shown.endswith(("GMT+9", "JST")), shown
    assert page.get_attribute("ol.lines time", "title").endswith(" UTC")
    # A seat's own pages keep the seat's zone, whatever the browser's.
    page.goto(f"{base}/play/{created.tokens[0]}")
    assert page.inner_text("ol.lines time").endswith(("CET", "CEST"))
    assert not [text for text in complaints if "Content Security Policy" in text]
    context.close()
    # Without script the page reads UTC, named.
    context = browser.new_context(timezone_id="Asia/Tokyo", java_script_enabled=False)
    page = context.new_page()
    page.goto(game)
    assert page.inner_text("ol.lines time").endswith(" UTC")
    context.close()
