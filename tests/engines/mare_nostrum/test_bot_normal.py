"""The normal bot's trade offers keep from the leader what it lacks: a coin, when its income
makes coin sets (gold, which Carthage lacks too, is then the cheaper card to give)."""

from __future__ import annotations

import random

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
