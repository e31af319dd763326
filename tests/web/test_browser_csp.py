"""The Content-Security-Policy in Debian's chromium: no page breaks it, the script still runs."""

from __future__ import annotations

import pytest

from pbem.games.service import SeatSpec
from tests.web.test_browser import server, smtp  # noqa: F401 - fixtures

pytestmark = pytest.mark.browser


def test_no_page_violates_the_policy_and_the_enhancements_still_run(browser, server):  # noqa: F811
    runtime, base, _ = server
    seats = [SeatSpec("Ann", "ann@example.org"), SeatSpec("Bob", "bob@example.org")]
    created = runtime.service.create_game("mercatores", seats)
    game_id, token = created.game_id, created.tokens[0]
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    complaints: list[str] = []
    page.on(
        "console",
        lambda message: (
            complaints.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    page.on("pageerror", lambda error: complaints.append(str(error)))
    for path in (
        "/",
        f"/games/{game_id}",
        f"/games/{game_id}/history?at=0",
        f"/games/{game_id}/audit",
        f"/play/{token}",
        f"/play/{token}/history",
        f"/rescue/{token}",
    ):
        answer = page.goto(base + path)
        assert answer.status == 200, path
        assert "frame-ancestors 'none'" in answer.headers["content-security-policy"]
    assert complaints == []
    # history.js, loaded from /static under script-src 'self', keeps the label in step
    # and fetches the board after the chosen event (connect-src 'self').
    head = runtime.service.head(game_id)
    due = min(head.engine.to_move(head.state))
    move = head.engine.legal_moves(head.state, due)[0]
    runtime.service.submit_move(game_id, due, move, head.seq)
    page.goto(f"{base}/games/{game_id}/history?at=0")
    slider = page.locator("form.history-steps input[type=range]")
    slider.evaluate(
        "(el) => { el.value = el.max; el.dispatchEvent(new Event('input', {bubbles: true})); }"
    )
    assert page.inner_text(".at-label") == slider.evaluate("(el) => el.value") != "0"
    slider.evaluate("(el) => el.dispatchEvent(new Event('change', {bubbles: true}))")
    page.wait_for_url("**/history?at=1")
    assert page.inner_text("#event-line").startswith("#1 ")
    assert complaints == []
    page.close()
