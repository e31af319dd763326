"""Every page kind of every title, at its start, in its middle and at its end, on a phone
(390x844, device scale 3, touch) and on a desk (1280x900), in the light and the dark
colour scheme: none scrolls sideways and axe-core (``axe-playwright-python``) finds no
serious or critical violation on it.

The page kinds: the turn page of the seat that is due and of one that waits, the seat's
history, the audit page, the spectator page, the title's rules reference, the mail
settings, "my games", the lobby, the seats page and a page not found. One server serves
the whole module; each pair of size and colour scheme gets one browser page that visits
everything. ``make test`` runs the phone in the light theme and the desk in the dark one,
so that every page's layout and colours are both checked; ``make soak`` runs all four.
"""

from __future__ import annotations

import os
import random

import pytest

from engines import bot_move
from pbem.games import profiles
from pbem.games.service import SeatSpec
from pbem.mail import games_link
from tests.web.conftest import file_runtime, serving
from tests.web.test_browser_pages import play_until_due
from tests.web.test_compose_mare_nostrum import new_game, play_until
from tests.web.test_edges import settings_path

pytestmark = pytest.mark.browser

TITLES = {
    "mercatores": ["Ann", "Ben"],
    "mare_balticum": ["Ann", "Ben", "Cleo"],
    "mare_nostrum": ["Ann", "Ben", "Cleo"],
}
STAGES = ("start", "mid", "end")
CONTEXTS = {
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "device_scale_factor": 3,
        "has_touch": True,
        "is_mobile": True,
    },
    "desk": {"viewport": {"width": 1280, "height": 900}},
}
ADDRESS = "ann@example.org"
# Two serious rules that axe-core leaves off unless asked: touch targets of 24 px
# (WCAG 2.2) and a link's name that does not contain its visible text.
AXE_OPTIONS = {
    "resultTypes": ["violations"],
    "rules": {"target-size": {"enabled": True}, "label-content-name-mismatch": {"enabled": True}},
}
# Reported whatever their impact: two landmarks of the same kind and name.
ALWAYS = {"landmark-unique"}


def play_to_the_end(service, game_id: str, rng: random.Random) -> None:
    """Every seat played by the engine's bot until the game is over."""
    for _ in range(20_000):
        service.play_bots(game_id, max_moves=20_000)
        head = service.head(game_id)
        due = head.engine.to_move(head.state)
        if not due:
            return
        seat = sorted(due)[0]
        view = head.engine.view(head.state, seat)
        move = bot_move(head.engine, view, head.engine.legal_moves(head.state, seat), rng)
        service.submit_move(game_id, seat, move, head.seq)
    raise AssertionError(f"{game_id} did not end")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A game of each title at its start, in its middle and at its end (two human seats,
    the rest bots), served on a loopback port; the paths of every page to visit."""
    with file_runtime(tmp_path_factory, "every-page") as runtime:
        service = runtime.service
        rng = random.Random(7)
        paths: dict[str, str] = {}
        for slug, names in TITLES.items():
            for stage in STAGES:
                specs = [SeatSpec(names[0], ADDRESS), SeatSpec(names[1], "ben@example.org")]
                specs += [SeatSpec(name, is_bot=True) for name in names[2:]]
                created = service.create_game(
                    slug,
                    specs,
                    {"turn_limit": 3} if slug == "mare_nostrum" and stage == "end" else {},
                    seed=bytes([len(slug)]) * 32,
                    game_id=f"every-{slug.replace('_', '-')}-{stage}",
                )
                game_id = created.game_id
                if stage == "end":
                    play_to_the_end(service, game_id, rng)
                    assert service.game(game_id).status == "finished"
                    due = 0
                else:
                    play_until_due(service, game_id, {0, 1}, rng, 0 if stage == "start" else 30)
                    due = service.game(game_id).to_move[0]
                at = f"{slug} {stage}"
                paths |= {
                    f"{at} turn (due)": f"/play/{created.tokens[due]}",
                    f"{at} turn (waiting)": f"/play/{created.tokens[1 - due]}",
                    f"{at} history": f"/play/{created.tokens[due]}/history",
                    f"{at} audit": f"/games/{game_id}/audit",
                    f"{at} spectator": f"/games/{game_id}",
                    f"{at} settings": settings_path(runtime, game_id, 1 - due),
                }
                if stage == "mid":
                    paths[f"{at} seats and deadlines"] = f"/rescue/{created.tokens[due]}"
                    paths[f"{at} public history"] = f"/games/{game_id}/history"
            paths[f"{slug} rules"] = f"/rules/{slug}"
        building = new_game(service)
        head = play_until(service, building.game_id, "build")
        due = sorted(head.engine.to_move(head.state))[0]
        paths["mare_nostrum mid turn (building)"] = f"/play/{building.tokens[due]}"
        paths["lobby"] = "/"
        # The finished games rated both people: a profile each, a leaderboard per title.
        profiles.claim(runtime, ADDRESS, "every_anna")
        profiles.claim(runtime, "ben@example.org", "every_ben")
        paths["profile"] = "/players/every_anna"
        paths |= {f"{slug} ratings": f"/ratings/{slug}" for slug in TITLES}
        paths["my games"] = "/my-games/" + games_link.link_token(runtime.secret_key, ADDRESS, 0)
        paths["not found"] = "/play/" + "x" * 40
        with serving(runtime) as base:
            yield base, paths


def axe_findings(page) -> list[str]:
    """axe-core's serious and critical violations (and those of :data:`ALWAYS`), one
    line each."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page, options=AXE_OPTIONS).response["violations"]
    return [
        f"{rule['id']} ({rule['impact']}): {[node['target'] for node in rule['nodes'][:3]]}"
        for rule in found
        if rule["impact"] in ("serious", "critical") or rule["id"] in ALWAYS
    ]


def sideways(page) -> int:
    return page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )


# ``make test`` checks every page on a phone in the light theme and on a desk in the dark
# one: the layout depends on the size and the colours on the theme, so each page's two
# axes are both covered. ``make soak`` adds the other two pairs.
PAIRS = [("phone", "light"), ("desk", "dark")]
if os.environ.get("PBEM_SOAK") == "1":
    PAIRS += [("phone", "dark"), ("desk", "light")]


@pytest.mark.soak
@pytest.mark.parametrize(("size", "scheme"), PAIRS)
def test_no_page_scrolls_sideways_or_breaks_axe(site, browser, size, scheme):
    base, paths = site
    context = browser.new_context(color_scheme=scheme, **CONTEXTS[size])
    page = context.new_page()
    problems = []
    try:
        for name, path in paths.items():
            response = page.goto(base + path)
            expected = 404 if name == "not found" else 200
            assert response.status == expected, f"{name}: {response.status}"
            overflow = sideways(page)
            if overflow > 0:
                problems.append(f"{name}: scrolls sideways by {overflow}px")
            problems += [f"{name}: {line}" for line in axe_findings(page)]
    finally:
        context.close()
    assert not problems, f"{size} {scheme}:\n" + "\n".join(problems)


@pytest.fixture
def phone(browser):
    context = browser.new_context(**CONTEXTS["phone"])
    yield context.new_page()
    context.close()


def test_the_checker_finds_what_the_issue_found(phone):
    """Links 16 px high one under the other, and two regions of the same name."""
    phone.set_content(
        '<html lang="en"><head><title>t</title></head><body><main><h1>t</h1>'
        '<ul style="line-height:16px;list-style:none;padding:0">'
        + "".join(f'<li><a href="#{n}" style="display:inline-block">{n}</a></li>' for n in "abc")
        + '</ul><section aria-label="Heroes"><p>x</p></section>'
        '<section aria-label="Heroes"><p>y</p></section></main></body></html>'
    )
    found = " ".join(axe_findings(phone))
    assert "target-size" in found and "landmark-unique" in found


def test_the_score_chart_reads_on_a_phone(site, phone):
    base, paths = site
    phone.goto(base + paths["mercatores end spectator"])
    chart = phone.locator(".chart")
    sizes = chart.evaluate(
        """chart => [...chart.querySelectorAll('.chart-axis-y span, .chart-axis-x span, .chart-ends li')]
        .map(node => parseFloat(getComputedStyle(node).fontSize))"""
    )
    assert len(sizes) >= 5 and min(sizes) >= 12, sizes
    box = chart.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390
    labels = [item.bounding_box() for item in chart.locator(".chart-ends li").all()]
    names = chart.locator(".chart-ends li").all_inner_texts()
    assert "Ann" in names[0] and "Ben" in names[1]  # by name, not by letter only
    for label in labels:
        assert box["x"] <= label["x"] and label["x"] + label["width"] <= box["x"] + box["width"]
        assert box["y"] <= label["y"] and label["y"] + label["height"] <= box["y"] + box["height"]
    first, second = sorted(labels, key=lambda label: label["y"])
    assert first["y"] + first["height"] <= second["y"] + 0.5
    # Every label's text is shown whole (not cut to fit its column).
    assert chart.locator(".chart-ends li").evaluate_all(
        "items => items.every(item => item.scrollWidth <= item.clientWidth)"
    )


@pytest.mark.parametrize("slug", list(TITLES))
def test_every_column_of_the_result_shows_on_a_phone(site, phone, slug):
    base, paths = site
    phone.goto(base + paths[f"{slug} end spectator"])
    region = phone.locator(".table-scroll:has(table.result)")
    assert region.evaluate("node => node.scrollWidth <= node.clientWidth")
    cells = phone.locator("table.result td")
    assert cells.count() >= len(TITLES[slug]) * 2
    for cell in cells.all():
        cell_box = cell.bounding_box()
        assert cell_box["x"] >= 0 and cell_box["x"] + cell_box["width"] <= 390
    if phone.locator("table.result.stack").count():
        label = cells.nth(1).evaluate("node => getComputedStyle(node, '::before').content")
        assert label.strip('"').endswith(": ")


def test_the_build_selector_shows_the_price_on_a_phone(site, phone):
    base, paths = site
    phone.goto(base + paths["mare_nostrum mid turn (building)"])
    select = phone.locator("#compose-build select")
    width = select.evaluate("node => node.clientWidth")
    prices = select.evaluate(
        """select => {
            const ink = document.createElement('canvas').getContext('2d');
            ink.font = getComputedStyle(select).font;
            return [...select.options].map(option => {
                const price = option.text.match(/^\\d+ cards?: /);
                return price && ink.measureText(price[0]).width;
            });
        }"""
    )
    assert prices and all(price is not None and price < width - 40 for price in prices), prices
