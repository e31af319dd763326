"""A turn page in German in Debian's chromium on a phone (390 px): the frame in German,
its scripts' words too, nothing wider than the screen, and axe-core finds no serious or critical violation
(the footer's chooser included). ``make screenshots`` keeps a picture of it in
``test-artifacts/screenshots/i18n/``."""

from __future__ import annotations

import random

import pytest

from pbem.games.service import SeatSpec
from tests.web.conftest import SCREENSHOTS, browser, file_runtime, serving, shoot  # noqa: F401 - a fixture
from tests.web.test_browser_pages import play_until_due, serious

pytestmark = pytest.mark.browser

WIDER_THAN_THE_SCREEN = "() => document.documentElement.scrollWidth - window.innerWidth"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A game of Mare Balticum in its middle, Ann's seat in German, served on loopback."""
    with file_runtime(tmp_path_factory, "languages") as runtime:
        specs = [
            SeatSpec("Ann", "ann@example.org", language="de", timezone="Europe/Berlin"),
            SeatSpec("Ben", "ben@example.org"),
            SeatSpec("Cleo", is_bot=True),
        ]
        created = runtime.service.create_game(
            "mare_balticum", specs, {}, seed=b"\x07" * 32, game_id="languages-de"
        )
        play_until_due(runtime.service, created.game_id, {0, 1}, random.Random(3), 20)
        with serving(runtime) as base:
            yield base, created.tokens


def test_a_german_turn_page_on_a_phone(browser, site):  # noqa: F811
    base, tokens = site
    page = browser.new_page(viewport={"width": 390, "height": 844}, locale="fr-FR")
    try:
        for seat, token in enumerate(tokens[:2]):
            page.goto(f"{base}/play/{token}")
            text = page.inner_text("body")
            if seat == 0:  # the seat's language wins over the browser's
                assert page.get_attribute("html", "lang") == "de"
                assert "Seit deinem letzten Zug" in text and "Since your last move" not in text
                shoot(page, path=str(SCREENSHOTS / "i18n" / "turn-de-390.png"), full_page=True)
                confirm = "Bestätigen"
            else:  # no language of its own: the browser's
                assert page.get_attribute("html", "lang") == "fr"
                assert "Depuis votre dernier coup" in text
                confirm = "Confirmer"
            # What the scripts write (a move's confirm dialog, the waiting page's notice).
            assert page.evaluate("() => pageWord('confirm', 'Confirm')") == confirm
            assert page.evaluate(WIDER_THAN_THE_SCREEN) <= 0
            assert serious(page) == []
    finally:
        page.close()
