"""Mare Nostrum in Debian's chromium: an offer none of the listed shortcuts contain,
composed by clicking cards in the hand, on a desktop and on a phone; screenshots saved."""

from __future__ import annotations

import json

import pytest

from engines.mare_nostrum import trade
from tests.web.conftest import SCREENSHOTS, shoot
from tests.web.test_browser import confirm_if_asked, question, server, smtp
from tests.web.test_browser_pages import serious
from tests.web.test_compose_mare_nostrum import new_game, play_until, three_card_trade

pytestmark = pytest.mark.browser

__all__ = ["server", "smtp"]  # the fixtures this module borrows (browser: the conftest)


def compose_offer(page, shortcuts: list[list[str]], hand: dict[str, int]) -> list[str]:
    """Clicks three cards of the hand that no listed offer holds; answers them."""
    held = [kind for kind, count in sorted(hand.items()) for _ in range(count)]
    chosen = next(
        sorted([a, b, c])
        for i, a in enumerate(held)
        for j, b in enumerate(held[i + 1 :], i + 1)
        for c in held[j + 1 :]
        if sorted([a, b, c]) not in shortcuts
    )
    form = page.locator("#compose-offer")
    for index, card in enumerate(chosen):
        copy = chosen[:index].count(card)
        form.locator(f".card-pick:has(input[value='{card}'])").nth(copy).click()
    assert form.locator("input:checked").count() == 3
    return chosen


@pytest.mark.parametrize(
    "size,name",
    [({"width": 1280, "height": 900}, "desktop"), ({"width": 390, "height": 844}, "phone")],
)
def test_an_offer_no_shortcut_holds_is_composed_by_clicking_cards(
    browser, server, monkeypatch, size, name
):
    runtime, base, _inbox = server
    monkeypatch.setattr(trade, "OFFER_LIST_LIMIT", 2)  # as a big hand's list is capped
    service = runtime.service
    created = new_game(service)
    head = play_until(service, created.game_id, "offer", three_card_trade)
    seat = sorted(head.engine.to_move(head.state))[0]
    shortcuts = [
        sorted(move["cards"])
        for move in head.engine.legal_moves(head.state, seat)
        if move["type"] == "offer"
    ]
    page = browser.new_page(viewport=size, is_mobile=name == "phone")
    page.goto(f"{base}/play/{created.tokens[seat]}")
    page.locator("#compose-offer").scroll_into_view_if_needed()
    assert serious(page) == []
    chosen = compose_offer(page, shortcuts, head.engine.view(head.state, seat)["hand"])
    assert chosen not in shortcuts
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shoot(page.locator("#compose-offer"), path=str(SCREENSHOTS / f"compose-offer-{name}.png"))
    shoot(page, path=str(SCREENSHOTS / f"compose-page-{name}.png"), full_page=True)
    page.locator("#compose-offer button").click()
    assert question(page).startswith("Confirm: Offer")
    confirm_if_asked(page)
    assert "That move was not made" not in page.content()
    offered = service.head(created.game_id).state["trade"]["offers"][seat]
    assert offered == {kind: chosen.count(kind) for kind in chosen}, json.dumps(offered)
    page.close()


@pytest.mark.parametrize(
    "size,name",
    [({"width": 1280, "height": 900}, "desktop"), ({"width": 390, "height": 844}, "phone")],
)
def test_a_payment_is_composed_by_choosing_a_place_and_clicking_cards(browser, server, size, name):
    runtime, base, _inbox = server
    service = runtime.service
    created = new_game(service)
    head = play_until(service, created.game_id, "build")
    seat = sorted(head.engine.to_move(head.state))[0]
    view = head.engine.view(head.state, seat)
    price = view["costs"]["control_marker"]
    goods = [kind for kind, count in view["hand"].items() if count and kind != "coin"]
    pay = goods[:price] if len(goods) >= price else ["coin"] * price
    page = browser.new_page(viewport=size, is_mobile=name == "phone")
    page.goto(f"{base}/play/{created.tokens[seat]}")
    form = page.locator("#compose-build")
    form.scroll_into_view_if_needed()
    assert serious(page) == []
    options = form.locator("select[name=fields] option")
    label = next(text for text in options.all_inner_texts() if "a control marker in" in text)
    form.locator("select[name=fields]").select_option(label=label)
    for index, card in enumerate(pay):
        form.locator(f".card-pick:has(input[value='{card}'])").nth(pay[:index].count(card)).click()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shoot(form, path=str(SCREENSHOTS / f"compose-build-{name}.png"))
    form.locator("button").click()
    confirm_if_asked(page)
    assert "That move was not made" not in page.content()
    after = service.head(created.game_id)
    assert after.seq == head.seq + 1
    assert after.state["hands"][seat] == {
        kind: count - pay.count(kind) for kind, count in head.state["hands"][seat].items()
    }
    page.close()
