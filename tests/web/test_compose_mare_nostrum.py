"""Mare Nostrum offers, payments and Mausoleum keeps composed by picking cards from the
hand: the form sends one move, the rules check it, the listed moves stay as shortcuts."""

from __future__ import annotations

import copy
import html
import json
import re

import pytest
from flask import render_template
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.mare_nostrum import trade
from pbem.games.service import SeatSpec
from pbem.web import create_app
from tests.web.conftest import form_fields

MOVE_JSON = re.compile(r'name="move" value="([^"]+)"')


@pytest.fixture
def client(sqlite_runtime):
    app = create_app(runtime=sqlite_runtime)
    app.config["TESTING"] = True
    return app.test_client()


def new_game(service, setup: str | None = None):
    seats = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(3)]
    options = {"setup": setup} if setup else None
    return service.create_game("mare_nostrum", seats, options, seed=b"\x02" * 32)


def play_until(service, game_id: str, phase: str, choose=None, limit: int = 200):
    """Plays the first legal move (or ``choose``'s pick) for the first due seat until the
    game reaches ``phase``; answers the head there."""
    for _ in range(limit):
        head = service.head(game_id)
        if head.state["phase"] == phase:
            return head
        seat = sorted(head.engine.to_move(head.state))[0]
        legal = head.engine.legal_moves(head.state, seat)
        move = (choose and choose(head.state, seat, legal)) or legal[0]
        service.submit_move(game_id, seat, move, head.seq)
    raise AssertionError(f"never reached {phase}")


def three_card_trade(state, seat, legal):
    if state["phase"] == "trade_number":
        return next(move for move in legal if move["n"] == 3)
    return None


def listed(page: str) -> list[dict]:
    return [json.loads(html.unescape(found)) for found in MOVE_JSON.findall(page)]


def offer_page(client, service, monkeypatch):
    monkeypatch.setattr(trade, "OFFER_LIST_LIMIT", 2)  # as a big hand's list is capped
    created = new_game(service)
    head = play_until(service, created.game_id, "offer", three_card_trade)
    seat = sorted(head.engine.to_move(head.state))[0]
    token = created.tokens[seat]
    page = client.get(f"/play/{token}").text
    return created, head, seat, token, page


def test_an_offer_no_shortcut_lists_is_composed_confirmed_and_made(
    client, sqlite_runtime, monkeypatch
):
    service = sqlite_runtime.service
    created, head, seat, token, page = offer_page(client, service, monkeypatch)
    hand = head.engine.view(head.state, seat)["hand"]
    assert 'id="compose-offer"' in page and "choose exactly 3 cards" in page
    for kind, count in hand.items():
        assert page.count(f'name="l.cards" value="{kind}"') == count
    shortcuts = [sorted(move["cards"]) for move in listed(page) if move["type"] == "offer"]
    assert len(shortcuts) == 2
    held = [kind for kind, count in sorted(hand.items()) for _ in range(count)]
    chosen = next(
        sorted([a, b, c])
        for i, a in enumerate(held)
        for j, b in enumerate(held[i + 1 :], i + 1)
        for c in held[j + 1 :]
        if sorted([a, b, c]) not in shortcuts
    )
    csrf, seq = form_fields(page)
    form = {"csrf_token": csrf, "seq": seq, "move_type": "offer", "lists": "cards"}
    form["l.cards"] = chosen
    asked = client.post(f"/play/{token}/move", data=form)
    # The others are offering too: the composed move gets the second step like any other.
    assert asked.status_code == 200 and "<h1>Confirm: Offer " in asked.text
    assert service.head(created.game_id).seq == head.seq
    (sent,) = listed(asked.text)
    assert sent == {"type": "offer", "cards": chosen}
    made = client.post(
        f"/play/{token}/move",
        data={"csrf_token": csrf, "seq": seq, "move": json.dumps(sent), "confirmed": "1"},
    )
    assert made.status_code == 303
    after = service.head(created.game_id)
    assert after.seq == head.seq + 1
    assert after.state["trade"]["offers"][seat] == {kind: chosen.count(kind) for kind in chosen}


def test_a_wrong_size_offer_is_refused_with_the_rules_reason(client, sqlite_runtime, monkeypatch):
    service = sqlite_runtime.service
    created, head, seat, token, page = offer_page(client, service, monkeypatch)
    csrf, seq = form_fields(page)
    one = next(kind for kind, count in head.engine.view(head.state, seat)["hand"].items() if count)
    form = {"csrf_token": csrf, "seq": seq, "move_type": "offer", "lists": "cards"}
    answer = client.post(f"/play/{token}/move", data={**form, "l.cards": [one], "confirmed": "1"})
    assert answer.status_code == 422
    assert "That move was not made: Offer exactly 3 cards." in html.unescape(answer.text)
    nothing = client.post(f"/play/{token}/move", data={**form, "confirmed": "1"})
    assert "Offer exactly 3 cards." in html.unescape(nothing.text)
    assert service.head(created.game_id).seq == head.seq


@pytest.mark.parametrize("count", ["-1", "two", "1.5", "100", "9" * 30])
def test_bad_counts_are_bad_input_and_change_nothing(client, sqlite_runtime, monkeypatch, count):
    service = sqlite_runtime.service
    created, head, seat, token, page = offer_page(client, service, monkeypatch)
    csrf, seq = form_fields(page)
    form = {"csrf_token": csrf, "seq": seq, "move_type": "offer", "lists": "cards"}
    answer = client.post(f"/play/{token}/move", data={**form, "n.cards.coin": count})
    assert answer.status_code == 400
    assert "is not a whole number from 0 to 99" in html.unescape(answer.text)
    assert service.head(created.game_id).seq == head.seq
    bad = client.post(f"/play/{token}/move", data={**form, "fields": "[1, 2]"})
    assert bad.status_code == 400 and service.head(created.game_id).seq == head.seq
    alien = client.post(f"/play/{token}/move", data={**form, "fields": '{"item": "legion"}'})
    assert alien.status_code == 422 and service.head(created.game_id).seq == head.seq
    assert "An offer move has no field &#39;item&#39;." in alien.text


def test_counts_expand_into_repeated_cards(client, sqlite_runtime, monkeypatch):
    service = sqlite_runtime.service
    created, head, seat, token, page = offer_page(client, service, monkeypatch)
    hand = head.engine.view(head.state, seat)["hand"]
    kinds = [kind for kind, count in hand.items() if count]
    assert hand["coin"] >= 2
    other = next(kind for kind in kinds if kind != "coin")
    csrf, seq = form_fields(page)
    form = {"csrf_token": csrf, "seq": seq, "move_type": "offer", "lists": "cards"}
    form.update({"n.cards.coin": "2", "l.cards": other, "n.cards.grain": "", "confirmed": "1"})
    assert client.post(f"/play/{token}/move", data=form).status_code == 303
    offered = service.head(created.game_id).state["trade"]["offers"][seat]
    assert offered == {"coin": 2, other: 1}


def test_a_payment_is_composed_for_a_chosen_item_and_place(client, sqlite_runtime):
    service = sqlite_runtime.service
    created = new_game(service)
    head = play_until(service, created.game_id, "build")
    seat = sorted(head.engine.to_move(head.state))[0]
    token = created.tokens[seat]
    page = client.get(f"/play/{token}").text
    assert 'id="compose-build"' in page
    form_html = page[page.index('id="compose-build"') :].split("</form>")[0]
    options = re.findall(r'<option value="([^"]+)">([^<]+)</option>', form_html)
    builds = [m for m in head.engine.legal_moves(head.state, seat) if m["type"] == "build"]
    targets = {
        json.dumps({k: v for k, v in m.items() if k != "pay"}, sort_keys=True) for m in builds
    }
    sent = {
        json.dumps(
            {k: v for k, v in json.loads(html.unescape(value)).items() if k != "pay"},
            sort_keys=True,
        )
        for value, _ in options
    }
    assert sent == targets and len(options) == len(targets)
    # A control marker paid for with goods of different kinds (or coins), as composed.
    hand = head.engine.view(head.state, seat)["hand"]
    view = head.engine.view(head.state, seat)
    value, label = next((v, t) for v, t in options if "control marker" in t)
    price = view["costs"]["control_marker"]
    goods = [kind for kind, count in hand.items() if count and kind != "coin"]
    pay = goods[:price] if len(goods) >= price else ["coin"] * price
    csrf, seq = form_fields(page)
    form = {"csrf_token": csrf, "seq": seq, "move_type": "build", "lists": "pay"}
    form.update({"fields": html.unescape(value), "confirmed": "1"})
    # One card short: the rules say why, and nothing changes.
    short = client.post(f"/play/{token}/move", data={**form, "l.pay": pay[:-1]})
    assert short.status_code == 422 and service.head(created.game_id).seq == head.seq
    assert f"This costs a set of exactly {price} cards, not {price - 1}." in html.unescape(
        short.text
    )
    answer = client.post(f"/play/{token}/move", data={**form, "l.pay": pay})
    assert answer.status_code == 303, answer.text
    after = service.head(created.game_id).state
    target = json.loads(html.unescape(value))
    assert after["provinces"][target["province"]]["marker"] == after["civs"][seat]
    for kind in set(pay):
        assert after["hands"][seat][kind] == hand[kind] - pay.count(kind)


def test_the_mausoleum_keep_is_composed_from_the_hand(sqlite_runtime):
    """The keep form on a state where the Mausoleum's owner holds more than 4 cards (made
    by the rules' own end of building), its choice read back and applied by the rules."""
    from werkzeug.datastructures import MultiDict

    from engines.api import IllegalMove
    from engines.mare_nostrum.flow import end_build_phase
    from pbem.web.play import form_move, move_groups

    service = sqlite_runtime.service
    created = new_game(service)
    head = play_until(service, created.game_id, "build")
    state, engine = copy.deepcopy(head.state), head.engine
    seat = sorted(engine.to_move(state))[0]
    state["cards"][seat].append("mausoleum")
    state["hands"][seat].update(coin=7, grain=2, fish=1, gold=1)
    end_build_phase(state)
    assert state["phase"] == "keep" and engine.to_move(state) == frozenset({seat})
    view = engine.view(state, seat)
    legal = engine.legal_moves(state, seat)
    names = [f"P{i}" for i in range(3)]
    app = create_app(runtime=sqlite_runtime)
    with app.test_request_context(f"/play/{created.tokens[seat]}"):
        page = render_template(
            "mare_nostrum/_compose.html",
            view=view,
            groups=move_groups(engine, legal, view, names),
            seq=7,
            token=created.tokens[seat],
        )
    assert 'id="compose-keep"' in page and "choose the 4 cards you keep" in page
    assert 'id="compose-offer"' not in page and 'id="compose-build"' not in page
    for kind, count in view["hand"].items():
        if kind != "coin":
            assert page.count(f'name="l.cards" value="{kind}"') == count
    # More copies than are worth a box each: a number field for the kind.
    assert 'name="n.cards.coin" min="0" max="7" value="0"' in page
    assert 'value="coin"' not in page
    base = [("move_type", "keep"), ("lists", "cards")]
    kept = ["grain", "gold", "coin", "coin"]  # not one of the listed keeps
    assert sorted(kept) not in [sorted(move["cards"]) for move in legal]
    picked = [("l.cards", "grain"), ("l.cards", "gold"), ("n.cards.coin", "2")]
    move = form_move(MultiDict([*base, *picked]))
    assert move == {"type": "keep", "cards": kept}
    after = engine.apply(copy.deepcopy(state), seat, move, None)
    assert {kind: n for kind, n in after["hands"][seat].items() if n} == {
        "coin": 2,
        "grain": 1,
        "gold": 1,
    }
    with pytest.raises(IllegalMove, match="Choose the 4 cards"):
        engine.apply(copy.deepcopy(state), seat, form_move(MultiDict(base)), None)


COMPOSE_KEYS = st.sampled_from(
    ["move_type", "fields", "lists", "l.cards", "n.cards.coin", "n.pay.grain", "n.cards", "f.n"]
)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    form=st.dictionaries(
        COMPOSE_KEYS,
        st.one_of(
            st.text(max_size=12),
            st.sampled_from(
                ["offer", "build", "keep", "cards", "coin", "2", "-3", "1e9", "{}", '{"pay": 3}']
            ),
            st.sampled_from(['{"item": "legion", "province": "latium"}', '{"type": "end_war"}']),
        ),
    )
)
def test_fuzzed_composed_forms_never_fail(sqlite_runtime, form):
    runtime = sqlite_runtime
    if "compose" not in runtime.extras:
        app = create_app(runtime=runtime)
        created = new_game(runtime.service)
        head = play_until(runtime.service, created.game_id, "offer", three_card_trade)
        seat = sorted(head.engine.to_move(head.state))[0]
        client = app.test_client()
        csrf = form_fields(client.get(f"/play/{created.tokens[seat]}").text)[0]
        runtime.extras["compose"] = (client, created, seat, csrf)
    client, created, seat, csrf = runtime.extras["compose"]
    before = runtime.service.head(created.game_id).seq
    data = {**form, "csrf_token": csrf, "seq": before, "confirmed": "1"}
    answer = client.post(f"/play/{created.tokens[seat]}/move", data=data)
    assert answer.status_code < 500
    if answer.status_code != 303:
        assert runtime.service.head(created.game_id).seq == before


def test_each_place_is_offered_once_with_hammurabi_free_marker(sqlite_runtime):
    """Babylon's Hammurabi builds a control marker for nothing: the place is listed once
    (with its price when it can be paid for too), and an empty payment sends it free."""
    from pbem.web.play import move_groups

    service = sqlite_runtime.service
    created = new_game(service)
    head = play_until(service, created.game_id, "build")
    state, engine = copy.deepcopy(head.state), head.engine
    seat = state["civs"].index("babylon")
    state["build"]["current"] = seat
    state["hands"][seat].update(coin=3)
    view = engine.view(state, seat)
    legal = engine.legal_moves(state, seat)
    assert any(move.get("pay") == [] for move in legal)
    app = create_app(runtime=sqlite_runtime)
    with app.test_request_context("/"):
        page = render_template(
            "mare_nostrum/_compose.html",
            view=view,
            groups=move_groups(engine, legal, view, ["P0", "P1", "P2"]),
            seq=1,
            token="t",
        )
    assert "nothing for Hammurabi's free control marker" in html.unescape(page)
    options = re.findall(r'<option value="([^"]+)">([^<]+)</option>', page)
    places = [
        json.dumps(
            {k: v for k, v in json.loads(html.unescape(value)).items() if k != "pay"},
            sort_keys=True,
        )
        for value, _ in options
    ]
    builds = {
        json.dumps({k: v for k, v in move.items() if k != "pay"}, sort_keys=True)
        for move in legal
        if move["type"] == "build"
    }
    assert len(places) == len(set(places)) and set(places) == builds
    labels = [label for _, label in options if "control marker" in label]
    # The price first, where a select cut to a phone's width still shows it.
    assert labels and all(label.startswith("3 cards: a control marker in") for label in labels)
