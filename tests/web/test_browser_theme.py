"""The dark theme in Debian's chromium: the pages follow the device's setting
(``prefers-color-scheme``), the header's switch (device, light, dark) overrides it, is
kept across a reload and on every other page (a cookie, and with script the browser's
storage too), works without script, and axe-core finds no serious or critical violation
(``color-contrast`` included) on the pages as the switch sets them, at 1280x900 and
390x844 (every page kind under the device's setting: ``test_browser_every_page.py``).
The address ``/theme`` itself refuses an unknown choice and never sends a browser to
another site."""

from __future__ import annotations

import random

import pytest

from pbem.games.service import SeatSpec
from pbem.mail import games_link
from tests.web.conftest import file_runtime, serving
from tests.web.test_browser_pages import TITLES, play_until_due, serious
from tests.web.test_edges import settings_path

browser_test = pytest.mark.browser

SIZES = {"desktop": (1280, 900), "phone": (390, 844)}
# The page's background as the browser drew it: its relative luminance, 0 (black) to 1.
LUMINANCE = """() => {
  const [r, g, b] = getComputedStyle(document.body).backgroundColor
    .match(/[\\d.]+/g).slice(0, 3).map((c) => {
      c = Number(c) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A game of each title in its middle (two human seats, the rest bots), served on a
    loopback port, and the address of every page kind."""
    with file_runtime(tmp_path_factory, "theme") as runtime:
        games = {}
        rng = random.Random(5)
        for slug, names in TITLES.items():
            specs = [SeatSpec(names[0], "ann@example.org"), SeatSpec(names[1], "ben@example.org")]
            specs += [SeatSpec(name, is_bot=True) for name in names[2:]]
            created = runtime.service.create_game(
                slug,
                specs,
                {},
                seed=bytes([len(slug)]) * 32,
                game_id=f"theme-{slug.replace('_', '-')}",
            )
            play_until_due(runtime.service, created.game_id, {0, 1}, rng, 30)
            due = runtime.service.game(created.game_id).to_move[0]
            games[slug] = {"id": created.game_id, "due": created.tokens[due], "other": 1 - due}
        game = games["mare_nostrum"]
        pages = {f"turn {slug}": f"/play/{games[slug]['due']}" for slug in TITLES}
        pages |= {
            "history": f"/play/{game['due']}/history",
            "audit": f"/games/{game['id']}/audit",
            "spectator": f"/games/{game['id']}",
            "rules": "/rules/mare_nostrum",
            "settings": settings_path(runtime, game["id"], game["other"]),
            "my games": "/my-games/"
            + games_link.link_token(runtime.secret_key, "ann@example.org", 0),
            "lobby": "/",
            "seats and deadlines": f"/rescue/{game['due']}",
            "not found": "/play/" + "x" * 40,
        }
        with serving(runtime) as base:
            yield base, pages


def dark(page) -> bool:
    return page.evaluate(LUMINANCE) < 0.05


def light(page) -> bool:
    return page.evaluate(LUMINANCE) > 0.8


@browser_test
def test_the_pages_follow_the_device_setting(site, browser):
    base, pages = site
    for scheme, looks in (("dark", dark), ("light", light)):
        context = browser.new_context(color_scheme=scheme)
        page = context.new_page()
        for path in (pages["lobby"], pages["turn mercatores"], pages["history"]):
            page.goto(base + path)
            assert page.get_attribute("html", "data-theme") == "device"
            assert looks(page), (scheme, path)
            pressed = page.locator(".theme-switch button[aria-pressed=true]")
            assert pressed.inner_text() == "Device"
        context.close()


@browser_test
def test_the_switch_overrides_the_device_and_is_kept_on_reload_and_other_pages(site, browser):
    base, pages = site
    context = browser.new_context(color_scheme="dark")
    page = context.new_page()
    page.goto(base + pages["turn mare_balticum"])
    assert dark(page)
    # With script the switch changes the page in place: no page load.
    page.evaluate("window.notReloaded = true")
    page.get_by_role("button", name="Light").click()
    assert light(page) and page.evaluate("window.notReloaded") is True
    assert page.locator(".theme-switch button[aria-pressed=true]").inner_text() == "Light"
    assert page.evaluate("localStorage.getItem('pbem-theme')") == "light"
    # The server draws the next page light from the first paint (its cookie).
    answer = page.reload()
    assert 'data-theme="light"' in answer.text()
    assert light(page)
    page.goto(base + pages["rules"])
    assert light(page)
    # Dark on a light device, then back to the device's setting.
    context.close()
    context = browser.new_context(color_scheme="light")
    page = context.new_page()
    page.goto(base + pages["lobby"])
    page.get_by_role("button", name="Dark").click()
    assert dark(page)
    page.goto(base + pages["audit"])
    assert dark(page) and page.get_attribute("html", "data-theme") == "dark"
    page.get_by_role("button", name="Device").click()
    assert light(page)
    page.reload()
    assert light(page) and page.get_attribute("html", "data-theme") == "device"
    context.close()


@browser_test
def test_the_storage_brings_the_choice_back_and_other_tabs_follow(site, browser):
    base, pages = site
    context = browser.new_context(color_scheme="light")
    page = context.new_page()
    page.goto(base + pages["lobby"])
    page.get_by_role("button", name="Dark").click()
    context.clear_cookies()
    answer = page.goto(base + pages["spectator"])
    assert 'data-theme="device"' in answer.text()  # the server no longer knows ...
    assert dark(page)  # ... the browser does, and tells it again
    assert {cookie["name"]: cookie["value"] for cookie in context.cookies()}["theme"] == "dark"
    # A choice made in one tab reaches the others open on the site.
    other = context.new_page()
    other.goto(base + pages["rules"])
    page.get_by_role("button", name="Light").click()
    other.wait_for_function("document.documentElement.dataset.theme === 'light'")
    assert light(other)
    context.close()


@browser_test
def test_without_script_the_switch_is_a_form_that_comes_back_to_the_same_page(site, browser):
    base, pages = site
    context = browser.new_context(color_scheme="light", java_script_enabled=False)
    page = context.new_page()
    # The turn page is drawn once per game state and seat: each theme has its own.
    for path in (pages["turn mare_nostrum"], pages["history"] + "?at=3"):
        page.goto(base + path)
        assert light(page)
        page.get_by_role("button", name="Dark").click()
        page.wait_for_load_state()
        assert page.url == base + path and dark(page)
        assert page.locator(".theme-switch button[aria-pressed=true]").inner_text() == "Dark"
        page.goto(base + pages["lobby"])
        assert dark(page)
        page.get_by_role("button", name="Light").click()
        page.wait_for_load_state()
        assert page.url == base + pages["lobby"] and light(page)
    context.close()


@browser_test
@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_the_switch_gives_pages_without_a_serious_violation(site, browser, scheme):
    """The theme as the switch sets it (every page kind under the device's own setting is
    checked by ``test_browser_every_page.py``): a turn page, the seats page, the lobby and
    a page not found, at both sizes."""
    base, pages = site
    problems = []
    for size, (width, height) in SIZES.items():
        context = browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        page.goto(base + pages["lobby"])
        page.get_by_role("button", name=scheme.capitalize()).click()
        for name in ("turn mare_nostrum", "seats and deadlines", "lobby", "not found"):
            page.goto(base + pages[name])
            assert page.get_attribute("html", "data-theme") == scheme, name
            # The switch fits in the header, which wraps on a phone.
            overflow = page.evaluate(
                "(e) => e.scrollWidth - e.clientWidth", page.query_selector("header")
            )
            if overflow > 0:
                problems.append(f"{name} {size}: the header is too wide by {overflow}px")
            problems += [f"{name} {size}: {line}" for line in serious(page)]
        context.close()
    assert not problems, "\n".join(problems)


def test_the_theme_address_refuses_an_unknown_choice_and_stays_on_this_site(client):
    answer = client.get("/theme?theme=purple&next=/")
    assert answer.status_code == 400
    assert "light or dark" in answer.get_data(as_text=True)
    assert "theme=" not in answer.headers.get("Set-Cookie", "")
    for elsewhere in ("//evil.example/", "https://evil.example/", "/\\evil.example", "", "x"):
        answer = client.get("/theme", query_string={"theme": "dark", "next": elsewhere})
        assert answer.status_code == 303 and answer.headers["Location"] == "/", elsewhere
    answer = client.get("/theme", query_string={"theme": "dark", "next": "/games/g1?at=3"})
    assert answer.headers["Location"] == "/games/g1?at=3"
    assert "theme=dark" in answer.headers["Set-Cookie"]
    assert "Max-Age=31536000" in answer.headers["Set-Cookie"]
    page = client.get("/")
    assert '<html lang="en" data-theme="dark">' in page.get_data(as_text=True)
    assert "Cookie" in page.headers["Vary"]
    client.set_cookie("theme", "<script>")
    assert 'data-theme="device"' in client.get("/").get_data(as_text=True)
