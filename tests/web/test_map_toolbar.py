"""The map's toolbar in Debian's chromium (with script, ``static/map.js``): on a phone
(390x844, device scale 3, touch) the zoom buttons and "To the moves" share one line
under the map's name; the readout names the scale as a player reads it (the readable scale is "100%",
the whole map "fit"), and tells a screen reader the zoom once it settles, not at every
step of a pinch or of the buttons' animation; the places list is open where there is
room beside it (a desk) and folded on a phone. Screenshots go to
``test-artifacts/screenshots/maps/toolbar-*.png``."""

from __future__ import annotations

import pytest

from pbem.games.service import SeatSpec
from tests.web.conftest import SCREENSHOTS, file_runtime, serving, shoot
from tests.web.test_maps_browser import DESK, PHONE, first_view, touch

pytestmark = pytest.mark.browser

GALLERY = SCREENSHOTS / "maps"
SEATS = {"mare_balticum": 4, "mare_nostrum": 5, "mercatores": 3}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A new game of each title and the link of a seat that is due (its turn page shows
    "To the moves")."""
    with file_runtime(tmp_path_factory, "toolbar") as runtime:
        links = {}
        for slug, seats in SEATS.items():
            specs = [SeatSpec(f"Player {i + 1}", f"p{i}@example.org") for i in range(seats)]
            created = runtime.service.create_game(
                slug, specs, {}, seed=bytes([seats]) * 32, game_id=f"toolbar-{seats}"
            )
            head = runtime.service.head(created.game_id)
            due = sorted(head.engine.to_move(head.state)) or [0]
            links[slug] = f"/play/{created.tokens[due[0]]}"
        with serving(runtime) as base:
            yield base, links


TOOLBAR = """(tools) => [...tools.querySelectorAll(
  '.map-title, .map-zoom-live button, .map-zoom-live .zoom-level, .map-skip')]
  .filter((e) => e.offsetParent !== null)
  .map((e) => { const r = e.getBoundingClientRect();
    return {text: e.textContent.trim(), top: r.top, bottom: r.bottom, right: r.right}; })"""


@pytest.mark.parametrize("slug", list(SEATS))
def test_on_a_phone_the_toolbar_is_one_line_and_says_the_scale_in_words(browser, served, slug):
    base, links = served
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.goto(base + links[slug])
    facts = first_view(page)
    tools = page.locator(".map-tools")
    tools.scroll_into_view_if_needed()
    shoot(page, path=str(GALLERY / f"toolbar-{slug}-phone.png"))
    parts = tools.evaluate(TOOLBAR)
    assert any(part["text"] == "To the moves" for part in parts), parts
    # The map's name heads the bar; the zoom and "To the moves" share the line under it.
    title, *tools_line = parts
    middles = [(part["top"] + part["bottom"]) / 2 for part in tools_line]
    assert max(middles) - min(middles) < 12, parts  # one line
    assert title["bottom"] <= min(part["top"] for part in tools_line) + 12, parts
    assert max(part["right"] for part in parts) <= 390
    # The readable scale is "100%" (or "fit" where the whole map reads): never a
    # percentage of the map's own units ("86%").
    assert facts["level"] in ("100%", "fit"), facts["level"]
    page.get_by_role("button", name="Zoom in").click()
    page.wait_for_timeout(400)
    assert page.locator(".map-zoom-live .zoom-level").inner_text() == "125%"
    readout = page.locator(".map-zoom-live .zoom-level")
    assert readout.get_attribute("title")  # what the percentage is of
    context.close()


def test_the_zoom_is_announced_once_a_pinch_settles(browser, served):
    base, links = served
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.goto(base + links["mare_nostrum"])
    first_view(page)
    page.evaluate(
        """() => {
      window.announced = [];
      const live = document.querySelector('.map-zoom-live [aria-live]');
      new MutationObserver(() => window.announced.push(live.textContent))
        .observe(live, {childList: true, characterData: true, subtree: true});
    }"""
    )
    # Nothing is said on the first view: the page has only just opened.
    assert page.locator(".map-zoom-live [aria-live]").inner_text() == ""
    box = page.locator(".map-frame").bounding_box()
    cx, cy = box["x"] + box["width"] / 2, box["y"] + min(box["height"], 844 - box["y"]) / 2
    cdp = context.new_cdp_session(page)
    touch(cdp, "touchStart", [(cx - 40, cy), (cx + 40, cy)])
    for step in range(1, 21):
        touch(cdp, "touchMove", [(cx - 40 - 3 * step, cy), (cx + 40 + 3 * step, cy)])
        page.wait_for_timeout(20)
    touch(cdp, "touchEnd", [])
    page.wait_for_timeout(1200)
    announced = page.evaluate("window.announced")
    shown = page.locator(".map-zoom-live .zoom-level").inner_text()
    assert len(announced) == 1 and shown in announced[0], (announced, shown)
    assert page.locator(".map-zoom-live .zoom-level").get_attribute("aria-live") is None
    # Two quick taps on "+" (or on "-", if a slow pinch already reached the top) say the
    # end result once.
    page.evaluate("window.announced.length = 0")
    zoom_in = page.get_by_role("button", name="Zoom in")
    button = zoom_in if zoom_in.is_enabled() else page.get_by_role("button", name="Zoom out")
    button.click()
    # One tap may already reach the end of the scale: the second then lands on a
    # disabled button and does nothing, as a finger's would (no wait for it to enable).
    button.click(force=True)
    page.wait_for_timeout(1200)
    announced = page.evaluate("window.announced")
    shown = page.locator(".map-zoom-live .zoom-level").inner_text()
    assert len(announced) == 1 and shown in announced[0], (announced, shown)
    context.close()


@pytest.mark.parametrize("slug", list(SEATS))
def test_the_places_list_is_open_on_a_desk_and_folded_on_a_phone(browser, served, slug):
    base, links = served
    for name, size in (("desktop", DESK), ("phone", PHONE)):
        context = browser.new_context(**size)
        page = context.new_page()
        page.goto(base + links[slug])
        first_view(page)
        places = page.locator("details.map-places")
        is_open = places.evaluate("(d) => d.open")
        assert is_open == (name == "desktop"), (slug, name)
        if name == "desktop":
            places.scroll_into_view_if_needed()
            shoot(page, path=str(GALLERY / f"toolbar-{slug}-desktop-places.png"))
        context.close()
