"""The normal bot's trade offers keep from the leader what it lacks: a coin, when its income
makes coin sets (gold, which Carthage lacks too, is then the cheaper card to give)."""

from __future__ import annotations

import random

import pytest

from engines.api import ScriptedChance
from engines.mare_nostrum import ENGINE, bot_normal
from engines.mare_nostrum.data import CARD_KINDS

GREECE, CARTHAGE = 0, 1


def offer_view(carthage: dict) -> dict:
    """Greece offers one card; Carthage, with two heroes more, leads and trades too."""
    state = ENGINE.setup(4, {}, ScriptedChance([0] * 20))
    view = ENGINE.view(state, GREECE)
    view["phase_id"] = "offer"
    view["trade"] = {"in": [0, 1, 2, 3], "n": 1}
    view["players"][CARTHAGE]["heroes_and_wonders"] = 3
    view["provinces"]["africa"].update(carthage)
    view["hand"] = {**dict.fromkeys(CARD_KINDS, 0), "coin": 3, "grain": 1, "gold": 1, "gems": 1}
    return view


OFFERS = [{"type": "offer", "cards": [card]} for card in ("coin", "gold")]


def test_no_coin_for_a_leader_whose_income_makes_coin_sets():
    # Carthago with a temple and a second city: 4 coins a turn against 3 goods kinds.
    view = offer_view({"cities": ["Carthago", "Utica"], "temple": "Carthago"})
    move = bot_normal.choose_move(view, OFFERS, random.Random(1))
    assert move["cards"] != ["coin"]


def test_a_coin_for_a_leader_that_builds_goods_sets():
    # No city in Carthago: 1 coin a turn against 3 goods kinds, coins are off its route.
    view = offer_view({"cities": [], "temple": None})
    move = bot_normal.choose_move(view, OFFERS, random.Random(1))
    assert move["cards"] == ["coin"]


def test_it_builds_rather_than_burn_its_cards_at_the_end_of_its_build_phase():
    """Carthage with 3 coins, oil and cattle: ending the phase burns a coin, the oil and
    the cattle. Three coins buy a control marker (Mauretania is free): two kept coins
    spent on a province with sites (Mauretania or one as good), rather than nothing for
    the three cards burned."""
    from .helpers import building, seat_of, start, with_hand

    state = start(3)
    seat = seat_of(state, "carthage")
    state = building(with_hand(state, seat, coin=3, oil=1, cattle=1), seat)
    legal = ENGINE.legal_moves(state, seat)
    marker = {"type": "build", "item": "control_marker", "province": "mauretania"}
    assert {**marker, "pay": ["coin", "coin", "coin"]} in legal
    for seed in range(5):
        move = ENGINE.bot_move(ENGINE.view(state, seat), legal, random.Random(seed), "normal")
        assert move["type"] == "build" and move["item"] == "control_marker", move


@pytest.mark.parametrize("level", ["easy", "normal"])
def test_its_move_depends_on_nothing_hidden_from_its_seat(level):
    """Along a seeded game of normal bots: whenever two other seats hold as many cards,
    a twin state with their hands swapped gives the seat to move the same view, and its
    bot the same move drawn with the same seed."""
    from engines.api import SeededChance
    from engines.mare_nostrum.state import clone

    chance, rng = SeededChance(3), random.Random(3)
    state = ENGINE.setup(3, {"turn_limit": 12}, chance)
    compared = 0
    while due := ENGINE.to_move(state):
        seat = min(due)
        legal = ENGINE.legal_moves(state, seat)
        view = ENGINE.view(state, seat)
        a, b = (other for other in range(3) if other != seat)
        hands = state["hands"]
        if sum(hands[a].values()) == sum(hands[b].values()) and hands[a] != hands[b]:
            twin = clone(state)
            twin["hands"][a], twin["hands"][b] = twin["hands"][b], twin["hands"][a]
            assert ENGINE.view(twin, seat) == view
            moves = [
                ENGINE.bot_move(view_of, ENGINE.legal_moves(which, seat), random.Random(5), level)
                for which, view_of in ((state, view), (twin, ENGINE.view(twin, seat)))
            ]
            assert moves[0] == moves[1]
            compared += 1
        move = ENGINE.bot_move(view, legal, rng, level="normal")
        state = ENGINE.apply(state, seat, move, chance)
    assert compared > 10


def border_view(leader_cards: int) -> tuple[dict, list[dict]]:
    """Babylon builds in a 5-player game; Greece holds Cappadocia, beside Babylon's
    Mesopotamia, with a fortress (no weak prey there, no legion to guard against), and
    owns ``leader_cards`` heroes and wonders. Babylon may buy a city or a legion in
    Mesopotamia, each with goods that would be burned."""
    state = ENGINE.setup(5, {}, ScriptedChance([0] * 20))
    seat = next(s for s in range(5) if ENGINE.view(state, s)["players"][s]["civ"] == "babylon")
    view = ENGINE.view(state, seat)
    view["phase_id"] = "build"
    greece = next(p for p in view["players"] if p["civ"] == "greece")
    greece["heroes_and_wonders"] = leader_cards
    greece["provinces"] += 1
    view["provinces"]["cappadocia"].update(marker="greece", fortress="greece")
    view["hand"] = {**dict.fromkeys(CARD_KINDS, 0), "grain": 1, "fish": 1, "slaves": 1}
    pay = ["grain", "fish", "slaves"]
    legal = [
        {"type": "build", "item": "city", "province": "mesopotamia", "site": "Ninive", "pay": pay},
        {"type": "build", "item": "legion", "province": "mesopotamia", "pay": pay},
        {"type": "end_build"},
    ]
    return view, legal


def test_a_runaway_leader_is_contested_on_its_border():
    """Greece a hero ahead: a legion on its border comes before a city (with the flat
    bonus of before, the city came first)."""
    view, legal = border_view(leader_cards=2)
    for seed in range(10):
        move = bot_normal.choose_move(view, legal, random.Random(seed))
        assert move["item"] == "legion", move


def test_a_close_leader_leaves_room_for_income():
    """Greece only a little ahead (same cards, a few more sites): the city comes first."""
    view, legal = border_view(leader_cards=1)
    assert bot_normal._leader(view)["civ"] == "greece"
    for seed in range(10):
        move = bot_normal.choose_move(view, legal, random.Random(seed))
        assert move["item"] == "city", move


def test_it_marches_back_into_its_own_occupied_province():
    """Babylon's Mesopotamia is occupied by a Greek legion and will be Greek after
    Greece's next war turn; Babylon has three legions next door in its capital: one
    marches back in (a province of its own was never a goal before)."""
    state = ENGINE.setup(5, {}, ScriptedChance([0] * 20))
    seat = next(s for s in range(5) if ENGINE.view(state, s)["players"][s]["civ"] == "babylon")
    view = ENGINE.view(state, seat)
    view["phase_id"] = "war"
    view["war"] = {"attacked": {}, "both": {}, "moved": {}}
    view["provinces"]["babylonia"]["legions"] = {"babylon": 3}
    view["provinces"]["mesopotamia"].update(occupier="greece", legions={"greece": 1})
    back = {"type": "move", "unit": "legion", "from": "babylonia", "to": "mesopotamia"}
    legal = [back, {"type": "end_war"}]
    for seed in range(5):
        assert bot_normal.choose_move(view, legal, random.Random(seed)) == back
