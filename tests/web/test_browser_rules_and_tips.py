"""In Debian's chromium: a composed move that cannot be taken back asks in the same dialog
as a listed one; each kind of move's rule link reads well and is large enough to tap;
the boards' explanations open on a tap, a click or keyboard focus, not only on hover.
"""

from __future__ import annotations

import pytest

from engines import REGISTRY
from pbem.games.service import SeatSpec
from tests.web.conftest import SCREENSHOTS, file_runtime, serving, shoot
from tests.web.test_browser import question, settled
from tests.web.test_browser_pages import play_until_due, serious

pytestmark = pytest.mark.browser

DESK = {"viewport": {"width": 1280, "height": 900}}
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 3,
    "is_mobile": True,
    "has_touch": True,
}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """Each title's game at its start and a little later, every seat a person's."""
    import random

    with file_runtime(tmp_path_factory, "rules_tips") as runtime:
        games = {}
        for slug in ("mercatores", "mare_balticum", "mare_nostrum"):
            engine = REGISTRY[slug]
            for stage, moves in (("start", 0), ("mid", 24)):
                specs = [SeatSpec(f"P{n}", f"p{n}@example.org") for n in range(engine.min_seats)]
                created = runtime.service.create_game(
                    slug, specs, {}, seed=b"t" * 32, game_id=f"tips-{slug}-{stage}"
                )
                seats = set(range(len(specs)))
                play_until_due(runtime.service, created.game_id, seats, random.Random(3), moves)
                games[slug, stage] = created
        with serving(runtime) as base:
            yield runtime, base, games


def due_link(runtime, base, created) -> tuple[int, str]:
    seat = runtime.service.game(created.game_id).to_move[0]
    return seat, f"{base}/play/{created.tokens[seat]}"


def compose_load(page, runtime, game_id: str, seat: int) -> None:
    """Clicks the cards of the first legal load in the load form and sends it."""
    head = runtime.service.head(game_id)
    move = next(m for m in head.engine.legal_moves(head.state, seat) if m["type"] == "load")
    form = page.locator("form.compose:has(input[name=move_type][value=load])")
    form.locator("select[name='f.way']").select_option(move["way"])
    for card in move["cards"]:
        form.locator(f"input[type=checkbox][value='{card}']").check()
    form.locator("button[type=submit]").click()


def test_a_composed_final_move_asks_in_the_dialog_and_waits_for_the_answer(served, browser):
    runtime, base, games = served
    created = games["mercatores", "start"]
    seat, link = due_link(runtime, base, created)
    context = browser.new_context(**DESK)
    page = context.new_page()
    page.goto(link)
    head = runtime.service.head(created.game_id)
    # A trade can be taken back: composed, it is made at once and the page follows.
    trade = next(m for m in head.engine.legal_moves(head.state, seat) if m["type"] == "trade")
    form = page.locator("form.compose:has(input[name=move_type][value=trade])")
    form.locator(f"input[name='f.give'][value='{trade['give']}']").check()
    for card in trade["take"]:
        form.locator(f"input[type=checkbox][value='{card}']").check()
    form.locator("button[type=submit]").click()
    settled(page)
    assert runtime.service.head(created.game_id).seq == head.seq + 1
    assert page.url == link and page.locator("dialog[open]").count() == 0
    # A load hands the turn over: the same dialog as a listed move asks first.
    seq = head.seq + 1
    compose_load(page, runtime, created.game_id, seat)
    asked = question(page)
    dialog = page.locator("dialog.confirm[open]")
    assert dialog.count() == 1 and asked.startswith("Confirm: Load")
    assert "it cannot be taken back" in dialog.locator(".reason").inner_text()
    assert page.url == link  # no confirm page: still the turn page, nothing applied
    assert runtime.service.head(created.game_id).seq == seq
    assert serious(page) == []
    shoot(page, path=str(SCREENSHOTS / "compose-dialog-desktop.png"))
    dialog.get_by_role("button", name="Cancel").click()
    assert page.locator("dialog[open]").count() == 0
    assert runtime.service.head(created.game_id).seq == seq
    # The form keeps its choice; asked again and confirmed, the move is made.
    page.locator("form.compose:has(input[name=move_type][value=load]) button").click()
    question(page)
    with page.expect_navigation():
        page.locator("dialog.confirm[open]").get_by_role("button", name="Confirm").click()
    assert runtime.service.head(created.game_id).seq == seq + 1
    assert "That move was not made" not in page.content()
    context.close()


def test_without_script_a_composed_final_move_gets_the_confirm_page(served, browser):
    runtime, base, _ = served
    specs = [SeatSpec("Ann", "ann@example.org"), SeatSpec("Ben", "ben@example.org")]
    created = runtime.service.create_game("mercatores", specs, {}, seed=b"n" * 32)
    seat, link = due_link(runtime, base, created)
    head = runtime.service.head(created.game_id)
    trade = next(m for m in head.engine.legal_moves(head.state, seat) if m["type"] == "trade")
    runtime.service.submit_move(created.game_id, seat, trade, head.seq)
    context = browser.new_context(**PHONE, java_script_enabled=False)
    page = context.new_page()
    page.goto(link)
    compose_load(page, runtime, created.game_id, seat)
    page.wait_for_load_state()
    assert page.locator("h1").inner_text().startswith("Confirm: Load")
    assert page.url.endswith("/move")
    assert runtime.service.head(created.game_id).seq == head.seq + 1
    context.close()


def tip_text(page) -> str:
    tip = page.locator(".board-tip")
    return tip.inner_text() if tip.count() and tip.is_visible() else ""


def own_title(locator) -> str:
    return locator.evaluate("(node) => node.querySelector(':scope > title').textContent.trim()")


@pytest.mark.parametrize("slug", ["mare_balticum", "mare_nostrum", "mercatores"])
def test_a_tap_on_a_place_or_card_shows_what_it_is(served, browser, slug):
    runtime, base, games = served
    created = games[slug, "mid"]
    due = runtime.service.game(created.game_id).to_move[0]
    waiting = next(seat for seat in range(len(created.tokens)) if seat != due)
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.goto(f"{base}/play/{created.tokens[waiting]}")  # not its turn: places are no links
    places = page.locator("svg.board g.place, svg.board g.card")
    assert places.count() >= 3
    target = places.nth(2)
    target.scroll_into_view_if_needed()
    target.tap()
    assert tip_text(page) == own_title(target)
    tip = page.locator(".board-tip").bounding_box()
    assert tip and tip["x"] >= 0 and tip["x"] + tip["width"] <= 390
    shoot(page, path=str(SCREENSHOTS / f"board-tip-{slug}-phone.png"))
    # A tap elsewhere closes it; the words stay the hover title for a page without script.
    page.locator("h1").tap()
    assert tip_text(page) == ""
    assert target.locator(":scope > title").count() == 1
    assert serious(page) == []
    context.close()


def test_a_tapped_place_link_shows_what_it_is_beside_its_moves(served, browser):
    runtime, base, games = served
    _, link = due_link(runtime, base, games["mare_balticum", "mid"])
    context = browser.new_context(**PHONE)
    page = context.new_page()
    page.goto(link)
    place = page.locator("svg.board a.place").first
    words = place.get_attribute("aria-label")
    place.locator(".label").tap()  # a tap follows the link: only the moves that name it
    page.wait_for_url("**pick=**")
    page.wait_for_function("() => !document.querySelector('.board-tip[hidden]')")
    assert tip_text(page) == words
    context.close()


def test_keyboard_focus_on_a_place_shows_what_it_is(served, browser):
    runtime, base, games = served
    _, link = due_link(runtime, base, games["mare_nostrum", "mid"])
    context = browser.new_context(**DESK)
    page = context.new_page()
    page.goto(link)
    places = page.locator("svg.board a.place")
    places.nth(0).focus()
    page.keyboard.press("Tab")
    assert tip_text(page) == places.nth(1).get_attribute("aria-label")
    page.keyboard.press("Escape")
    assert tip_text(page) == ""
    context.close()


def test_a_drag_across_the_map_opens_no_tip(served, browser):
    runtime, base, games = served
    created = games["mare_nostrum", "mid"]
    due = runtime.service.game(created.game_id).to_move[0]
    context = browser.new_context(**DESK)
    page = context.new_page()
    page.goto(f"{base}/play/{created.tokens[1 - due]}")
    frame = page.locator(".map-frame")
    page.locator(".map-zoom-live button[aria-label='Zoom in']").click()
    box = page.locator("svg.board g.place").nth(5).bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    before = frame.evaluate("(f) => f.scrollLeft")
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x - 60, y, steps=6)
    page.mouse.up()
    assert frame.evaluate("(f) => f.scrollLeft") != before  # the map was dragged
    assert tip_text(page) == ""
    context.close()


@pytest.mark.parametrize("slug", ["mare_balticum", "mare_nostrum", "mercatores"])
def test_each_rule_link_reads_as_its_rule_is_large_enough_and_submits_nothing(
    served, browser, slug
):
    import re

    from axe_playwright_python.sync_playwright import Axe

    runtime, base, games = served
    created = games[slug, "mid"]
    _, link = due_link(runtime, base, created)
    seq = runtime.service.head(created.game_id).seq
    for options in (DESK, PHONE):
        context = browser.new_context(**options)
        page = context.new_page()
        page.goto(link)
        rules = page.get_by_role("link", name=re.compile(r"^Rule: \w"))
        kinds = page.locator(".moves > .move-group > details")
        assert kinds.count() >= 1 and rules.count() >= kinds.count()
        for index in range(rules.count()):
            box = rules.nth(index).bounding_box()
            assert box["width"] >= 24 and box["height"] >= 24, box
        checked = Axe().run(
            page, options={"runOnly": ["target-size", "label-content-name-mismatch"]}
        )
        assert [rule["id"] for rule in checked.response["violations"]] == []
        assert serious(page) == []
        summary = kinds.first.locator("summary").inner_text()
        kind = re.sub(r" \(\d+\)$", "", summary)
        page.get_by_role("link", name=f"Rule: {kind}").first.click()
        page.wait_for_load_state()
        anchor = page.url.split("#")[1]
        assert page.url.startswith(f"{base}/rules/{slug}#")
        assert page.locator(f"[id='{anchor}']").is_visible()
        assert page.locator(f"[id='{anchor}']").evaluate(
            "(node) => node.getBoundingClientRect().top < window.innerHeight"
        )
        context.close()
    # No move was made (opening the seat's page may add its contribution to the dice).
    later = runtime.service.events(created.game_id, after=seq)
    assert [row["kind"] for row in later] in ([], ["contribution"])
