"""The history page read without a seat, in Debian's chromium: event times read in the
browser's own zone, also in a step the page's script swaps in; and the shared script
keeps no code for a stepper the pages no longer have."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.web.conftest import SCREENSHOTS, shoot
from tests.web.test_browser import server, smtp  # noqa: F401 - fixtures

ROOT = Path(__file__).resolve().parents[2]


def played_game(runtime, moves: int = 3) -> str:
    from pbem.games.service import SeatSpec

    specs = [SeatSpec("Ann", "ann@example.org"), SeatSpec("Bob", "bob@example.org")]
    created = runtime.service.create_game("mercatores", specs, {})
    for _ in range(moves):
        head = runtime.service.head(created.game_id)
        seat = min(head.engine.to_move(head.state))
        move = head.engine.legal_moves(head.state, seat)[0]
        runtime.service.submit_move(created.game_id, seat, move, head.seq)
    return created.game_id


@pytest.mark.browser
@pytest.mark.parametrize("size", [(1280, 900), (390, 844)])
def test_a_swapped_step_reads_its_time_in_the_browsers_zone(browser, server, size):  # noqa: F811
    runtime, base, _ = server
    game_id = played_game(runtime)
    width, height = size
    context = browser.new_context(
        timezone_id="Asia/Tokyo",
        viewport={"width": width, "height": height},
        is_mobile=width < 500,
        has_touch=width < 500,
    )
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    assert page.goto(f"{base}/games/{game_id}/history?at=1").status == 200
    time = page.locator("#event-line time")
    expect(time).to_have_attribute("title", re.compile(r" UTC$"))
    assert page.inner_text("#event-line time").endswith(("GMT+9", "JST"))
    page.locator("#history-step a[rel=next]").click()  # swapped in by the page's script
    expect(page.locator("#history-step .at-label")).to_have_text("2")
    expect(time).to_have_attribute("title", re.compile(r" UTC$"))
    shown = page.inner_text("#event-line time")
    assert shown.endswith(("GMT+9", "JST")), shown
    assert page.get_attribute("#event-line time", "title").endswith(" UTC")
    # The list's times were converted once, not again on each swap.
    listed = page.locator(".history-turns time[data-local]")
    assert listed.count() >= 1
    assert all(text.endswith(("GMT+9", "JST")) for text in listed.all_inner_texts())
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shoot(page, path=str(SCREENSHOTS / f"history-times-{width}.png"), full_page=False)
    assert errors == []
    context.close()


def test_the_shared_script_keeps_no_stepper_of_its_own():
    """The history's stepper is history.js's (a form.history-steps); the shared script's
    old slider code, for a form.stepper no page draws, is gone."""
    shared = (ROOT / "pbem" / "web" / "static" / "enhance.js").read_text(encoding="utf-8")
    assert "stepper" not in shared and "range" not in shared
    drawn = "".join(
        path.read_text(encoding="utf-8") for path in (ROOT / "templates").glob("*.html")
    )
    assert 'class="stepper' not in drawn and 'id="at-label"' not in drawn
