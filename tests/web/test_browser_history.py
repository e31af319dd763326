"""The history page in Debian's chromium: filters that apply at once with script (and as
a form without it), the board stepped without a page load, the turn jump, no sideways
scroll on a phone, and axe-core finding no serious or critical violation. Screenshots go
to ``test-artifacts/screenshots/history-<kind>-<size>.png``."""

from __future__ import annotations

import re

import pytest

from tests.web.conftest import SCREENSHOTS, file_runtime, serving, shoot
from tests.web.test_browser_pages import SIZES, serious
from tests.web.test_history import long_game

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with file_runtime(tmp_path_factory, "history") as runtime:
        created = long_game(runtime, moves=120)
        with serving(runtime) as base:
            yield runtime, base, created


def line_starts(page, seq) -> None:
    """Waits until the step's line tells of event ``seq`` (the board was swapped in)."""
    from playwright.sync_api import expect

    expect(page.locator("#event-line")).to_have_text(re.compile(rf"^#{seq} "))


def shown_kinds(page) -> list[str]:
    return page.eval_on_selector_all(
        ".history-turns li[data-kinds]:not([hidden])", "(items) => items.map(i => i.dataset.kinds)"
    )


def test_filters_and_steps_with_script_load_no_page(site, browser):
    runtime, base, created = site
    head = runtime.service.game(created.game_id).head_seq
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console",
        lambda message: errors.append(message.text) if message.type == "error" else None,
    )
    page.goto(f"{base}/games/{created.game_id}/history")
    page.evaluate("window.sameDocument = true")
    opened = page.eval_on_selector_all("details.turn[open]", "(turns) => turns.map(t => t.id)")
    assert len(opened) == 1
    # Filters apply at once: talk only, then one player's talk.
    page.check("input[name=kind][value=talk]")
    kinds = shown_kinds(page)
    assert len(kinds) == 2 and all("talk" in k.split() for k in kinds)
    assert "kind=talk" in page.url
    assert page.inner_text("#history-count").startswith("2 of ")
    page.select_option("select[name=player]", "2")
    assert len(shown_kinds(page)) == 1
    assert page.locator("details.turn:not([hidden])").count() == 1
    page.click(".filters-clear")
    assert len(shown_kinds(page)) == head + 1
    # Steps: an event of the list, then Back, then the slider; the board swapped in.
    page.click("details.turn:has(#event-10) > summary")
    page.click("#event-10 a[data-step]")
    line_starts(page, "10")
    assert page.url.endswith("?at=10")
    page.click("#history-step a[rel=prev]")
    line_starts(page, "9")
    assert page.get_attribute("#event-9 a", "aria-current") == "step"
    slider = page.locator("#history-step input[type=range]")
    slider.evaluate(
        "(el) => { el.value = '20'; el.dispatchEvent(new Event('change', {bubbles: true})); }"
    )
    line_starts(page, "20")
    page.go_back()
    line_starts(page, "9")
    # The jump opens that turn and steps to its first event.
    page.select_option("select[name=turn]", "3")
    page.click("form.history-jump button")
    first = page.get_attribute("#turn-3", "data-first")
    line_starts(page, first)
    assert page.evaluate("document.querySelector('#turn-3').open")
    assert page.evaluate("window.sameDocument") is True, "a step loaded a page"
    assert errors == []
    page.close()


def test_without_script_the_filters_and_the_jump_are_forms(site, browser):
    _, base, created = site
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 1280, "height": 900}
    )
    page = context.new_page()
    page.goto(f"{base}/games/{created.game_id}/history")
    page.check("input[name=kind][value=seats]")
    page.click("#history-filters button[type=submit]")
    assert "kind=seats" in page.url
    kinds = shown_kinds(page)
    assert kinds == ["seats"]
    page.select_option("form.history-jump select[name=turn]", "2")
    page.click("form.history-jump button")
    assert "turn=2" in page.url and "kind=seats" in page.url
    first = page.get_attribute("#turn-2", "data-first")
    assert page.inner_text("#event-line").startswith(f"#{first} ")
    page.click("#history-step a[rel=next]")
    assert page.inner_text("#event-line").startswith(f"#{int(first) + 1} ")
    assert "kind=seats" in page.url
    context.close()


@pytest.mark.parametrize("size", list(SIZES))
def test_the_history_fits_and_has_no_serious_violation(site, browser, size):
    _, base, created = site
    width, height = SIZES[size]
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    phone = size == "phone"
    context = browser.new_context(
        viewport={"width": width, "height": height},
        device_scale_factor=3 if phone else 1,
        has_touch=phone,
        is_mobile=phone,
    )
    page = context.new_page()
    for kind, path in (
        ("spectator", f"/games/{created.game_id}/history"),
        ("seat-filtered", f"/play/{created.tokens[0]}/history?kind=moves&kind=talk&player=0"),
    ):
        page.goto(base + path)
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"{kind} {size} scrolls sideways by {overflow}px"
        opened = page.eval_on_selector_all("details.turn[open]", "(ds) => ds.map(d => d.id)")
        page.evaluate("document.querySelectorAll('details.turn').forEach(d => d.open = true)")
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"{kind} {size}, every turn open, scrolls sideways by {overflow}px"
        page.evaluate(
            "(ids) => document.querySelectorAll('details.turn').forEach(d => d.open = ids.includes(d.id))",
            opened,
        )
        shoot(page, path=str(SCREENSHOTS / f"history-{kind}-{size}.png"), full_page=True)
        assert serious(page) == [], f"{kind} {size}"
    context.close()
