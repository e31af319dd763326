"""Table talk in Debian's chromium: the turn page's form on a desk and a phone, a note
to one player and a word to the table; screenshots kept in test-artifacts/."""

from __future__ import annotations

from pathlib import Path

import pytest

from pbem.games.service import SeatSpec
from tests.web.conftest import browser, shoot  # noqa: F401 - a fixture
from tests.web.test_browser import server, smtp  # noqa: F401 - fixtures

pytestmark = pytest.mark.browser

SCREENSHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "screenshots"


@pytest.mark.parametrize(
    "device, size",
    [("desk", {"width": 1280, "height": 900}), ("phone", {"width": 390, "height": 844})],
)
def test_talk_on_the_turn_page(server, browser, device, size):  # noqa: F811
    runtime, base, _ = server
    specs = [SeatSpec(name, f"{name.lower()}@example.org") for name in ("Ann", "Ben", "Cleo")]
    created = runtime.service.create_game("mare_nostrum", specs, title="Talk at the harbour")
    ann, ben, cleo = (f"{base}/play/{token}" for token in created.tokens)
    context = browser.new_context(viewport=size, is_mobile=device == "phone")
    page = context.new_page()

    def open_form(link: str) -> None:
        """The form is on the turn page, whether it is one's turn or not."""
        page.goto(link)
        page.wait_for_selector("#talk-text")

    open_form(ben)
    page.fill("#talk-text", "Grain for wine, anyone? I have two of each.")
    page.click(".talk-form button")
    page.wait_for_selector(".talk-list")
    open_form(ann)
    page.select_option("#talk-to", "1")
    page.fill("#talk-text", "Ben, only between us: Cleo is short of coin.")
    page.click(".talk-form button")
    page.wait_for_selector(".said.private")
    talk = page.locator("#talk")
    assert "You to Ben (private)" in talk.inner_text()
    assert "Ben" in talk.inner_text() and "Grain for wine" in talk.inner_text()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    talk.scroll_into_view_if_needed()
    shoot(page, path=str(SCREENSHOTS / f"talk-{device}.png"))
    shoot(talk, path=str(SCREENSHOTS / f"talk-section-{device}.png"))
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= size["width"], "the talk section must not widen the page"
    page.goto(f"{ben}/talk")
    assert "Ann (private to you)" in page.locator("#talk").inner_text()
    page.goto(cleo)
    cleo_sees = page.content()
    page.goto(f"{cleo}/talk")
    cleo_sees += page.content()
    assert "Grain for wine" in cleo_sees and "short of coin" not in cleo_sees
    page.goto(f"{base}/games/{created.game_id}")
    assert "short of coin" not in page.content() and "Grain for wine" in page.content()
    context.close()
