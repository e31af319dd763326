"""The "normal" bot: what it does better than the first version's ("easy") bot."""

from __future__ import annotations

import random

from engines.api import SeededChance
from engines.mare_balticum import ENGINE, bot, bot_normal
from engines.mare_balticum.data import AREA_IDS

from .helpers import in_turn


def normal(state, seat=0):
    legal = ENGINE.legal_moves(state, seat)
    move = ENGINE.bot_move(ENGINE.view(state, seat), legal, random.Random(0), level="normal")
    assert move in legal
    return move


def test_it_never_fishes_a_kind_worth_nothing_to_it():
    empty = {area: () for area in AREA_IDS}
    goods = {**empty, "oresund": ("herring", "herring")}
    state = in_turn(
        3,
        fleets={0: ["copenhagen", "oresund"]},
        goods=goods,
        markets={0: {"herring": 0}},
        played={0: [0]},
    )
    assert normal(state)["type"] != "fish"
    # the easy bot fishes it all the same
    legal = ENGINE.legal_moves(state, 0)
    easy = ENGINE.bot_move(ENGINE.view(state, 0), legal, random.Random(0), level="easy")
    assert easy == {"type": "fish", "area": "oresund", "kind": "herring"}
    # worth x3, the same herring is fished
    rich = in_turn(
        3,
        fleets={0: ["copenhagen", "oresund"]},
        goods=goods,
        markets={0: {"herring": 3}},
        played={0: [3]},
    )
    assert normal(rich) == {"type": "fish", "area": "oresund", "kind": "herring"}


def test_the_plan_gives_the_high_tokens_to_the_kinds_it_holds_most():
    state = in_turn(3, warehouses={0: {"cod": 4, "salmon": 2}}, holds={0: {"herring": 1}})
    values = bot_normal.plan(ENGINE.view(state, 0))
    assert values["cod"] == 3 and values["salmon"] == 2 and values["herring"] == 1
    assert values["flatfish"] == 0 and values["amber"] == 1


def play(levels, seed):
    chance, rng = SeededChance(seed), random.Random(seed)
    state = ENGINE.setup(len(levels), {}, chance)
    first_number = [None] * len(levels)
    unloads = {level: [] for level in levels}
    while due := ENGINE.to_move(state):
        seat = min(due)
        legal = ENGINE.legal_moves(state, seat)
        move = ENGINE.bot_move(ENGINE.view(state, seat), legal, rng, level=levels[seat])
        if move["type"] == "produce" and move["token"] != "tax" and first_number[seat] is None:
            first_number[seat] = move["token"]
        if move["type"] == "unload":
            unloads[levels[seat]].append(sum(move["fish"].values()))
        state = ENGINE.apply(state, seat, move, chance)
    lost = {level: 0 for level in levels}
    for detail in ENGINE.result(state).breakdown["seats"]:
        lost[levels[detail["seat"]]] += detail["lost_in_hold"]
    return first_number, unloads, lost


def test_its_production_order_does_not_give_its_x3_away():
    easy_first, normal_first = set(), set()
    for seed in range(8):
        first, _, _ = play(["easy", "easy", "easy"], seed)
        easy_first.update(first)
        first, _, _ = play(["normal", "normal", "normal"], seed)
        normal_first.update(first)
    assert easy_first == {3}  # the first bot always starts with its x3
    assert len(normal_first) >= 3


def test_it_lands_more_fish_at_a_time_and_loses_fewer_in_the_hold():
    sizes = {"easy": [], "normal": []}
    lost = {"easy": 0, "normal": 0}
    for seed in range(12):
        levels = ["normal" if seat == seed % 3 else "easy" for seat in range(3)]
        _, unloads, lost_here = play(levels, seed)
        for level in sizes:
            sizes[level] += unloads[level]
            lost[level] += lost_here[level] / levels.count(level)
    assert sum(sizes["normal"]) / len(sizes["normal"]) > sum(sizes["easy"]) / len(sizes["easy"])
    assert lost["normal"] < lost["easy"] / 2


def test_easy_is_the_first_bot():
    state = in_turn(3)
    legal = ENGINE.legal_moves(state, 0)
    view = ENGINE.view(state, 0)
    assert ENGINE.bot_move(view, legal, random.Random(4), level="easy") == bot.choose_move(
        view, legal, random.Random(4)
    )


def test_bots_near_the_end_still_act_so_the_clock_runs_out():
    """Four normal bots with both modules once all waited for the end at the start of
    every turn near it; the time tokens are drawn only as the sea is fished, so the end
    never came (seeds 14, 15 and 37 ran past round 700). Now every such game ends."""
    options = {"demand_management": True, "trade_contracts": True}
    for seed in (14, 15, 37):
        rng = random.Random(seed)
        state = ENGINE.setup(4, options, SeededChance(seed))
        for _ in range(6000):
            due = sorted(ENGINE.to_move(state))
            if not due:
                break
            seat = rng.choice(due)
            legal = ENGINE.legal_moves(state, seat)
            move = ENGINE.bot_move(ENGINE.view(state, seat), legal, rng)
            state = ENGINE.apply(state, seat, move, SeededChance(rng.randrange(1 << 30)))
        assert ENGINE.result(state) is not None, seed
