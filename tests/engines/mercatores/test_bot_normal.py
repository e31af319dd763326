"""The "normal" bot: each trade judged by the best load it allows, the profit phase
looked ahead, always from its own view."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engines.api import SeededChance
from engines.mercatores import ENGINE, bot, bot_normal
from engines.mercatores.state import END_BY_CARDS, PROFIT, dump_state
from tests.engines.mercatores.helpers import goods, position, profit_position


def test_the_table_is_rebuilt_from_the_view_alone():
    state = ENGINE.at_version(1).setup(2, {}, SeededChance(9))
    rng = random.Random(9)
    while state.phase != PROFIT:
        seat = state.turn
        legal = ENGINE.legal_moves(state, seat)
        state = ENGINE.apply(
            state, seat, bot.choose_move(ENGINE.view(state, seat), legal, rng), SeededChance(1)
        )
    rebuilt = dump_state(bot_normal.table_state(ENGINE.view(state, state.turn)))
    actual = dump_state(state)
    for name in ("resources", "coins", "turn", "step", "round", "captain", "unloading"):
        assert rebuilt[name] == actual[name], name


def last_turn_position():
    """The other player has reached 15 cards: seat 0 has one more trade and one load."""
    mine = goods("corn", 4) + goods("cotton", 3) + goods("tobacco", 3)
    theirs = goods("corn", 6, skip=4) + goods("cotton", 5, skip=3) + goods("tobacco", 4, skip=3)
    hand = goods("coffee", 2) + goods("cocoa", 1) + goods("corn", 1, skip=10) + ["w1"]
    market = goods("coffee", 2, skip=2) + goods("cocoa", 2, skip=1) + goods("tobacco", 1, skip=8)
    return position(
        2,
        hands=[hand, []],
        market=market,
        resources=[mine, theirs],
        end=END_BY_CARDS,
        captain=1,
        unloading=1,
        last_turn=0,
    )


def play_turn(state, level):
    for _ in range(2):
        legal = ENGINE.legal_moves(state, 0)
        move = ENGINE.bot_move(ENGINE.view(state, 0), legal, random.Random(0), level=level)
        assert move in legal
        state = ENGINE.apply(state, 0, move, SeededChance(0))
    return state


def coffee_loaded(state):
    return sum(1 for card in state.resources[0] if card.startswith("coffee"))


def test_on_its_last_turn_it_trades_for_the_load_that_pays():
    # Two coffee in hand, two in the market: four coffee pay 3 coins, three only 2. The
    # first bot takes one coffee and a cocoa it can no longer load with them.
    assert coffee_loaded(play_turn(last_turn_position(), "normal")) == 4
    assert coffee_loaded(play_turn(last_turn_position(), "easy")) == 3


def test_it_is_deterministic_given_its_inputs():
    state = ENGINE.setup(3, {}, SeededChance(5))
    view, legal = ENGINE.view(state, 0), ENGINE.legal_moves(state, 0)
    first = ENGINE.bot_move(view, legal, random.Random(3))
    assert all(ENGINE.bot_move(view, legal, random.Random(3)) == first for _ in range(3))


@pytest.mark.parametrize("seats", [2, 3])
def test_its_profit_phase_looks_ahead_where_the_first_bot_does_not(seats):
    differs = 0
    for seed in range(4):
        state = ENGINE.setup(seats, {}, SeededChance(seed))
        rng = random.Random(seed)
        while ENGINE.to_move(state):
            seat = state.turn
            legal = ENGINE.legal_moves(state, seat)
            view = ENGINE.view(state, seat)
            same_draws = random.Random()
            same_draws.setstate(rng.getstate())
            move = ENGINE.bot_move(view, legal, rng)
            assert move in legal
            if state.phase == PROFIT and move != bot.choose_move(view, legal, same_draws):
                differs += 1
            state = ENGINE.apply(state, seat, move, SeededChance(seed))
    assert differs > 0


def captain_counted_position(captain):
    """Seat 0 cashes one of two piles paying 2 coins each. Blue's Cocoa Trade Route counts
    seat 0's cocoa, Green's Coffee Trade Route its coffee: the pile cashed is lost to that
    route. Blue has 4 coins, Green 5; the Captain adds 2 coins at the end."""
    resources = [goods("cocoa", 4, ships=0) + goods("coffee", 3, ships=0), ["t7"], ["t9"]]
    state = profit_position(3, resources, unloading=0, coins=(0, 4, 5))
    return replace(state, captain=captain)


@pytest.mark.parametrize(("captain", "denied"), [(1, "cocoa"), (2, "coffee")])
def test_it_denies_the_leader_counting_the_captains_coins(captain, denied):
    # With the Captain, Blue (4 + 2 coins) leads Green (5): the normal bot cashes its
    # cocoa, which Blue's route counts; with the Captain at Green, its coffee.
    state = captain_counted_position(captain)
    legal = ENGINE.legal_moves(state, 0)
    move = ENGINE.bot_move(ENGINE.view(state, 0), legal, random.Random(0), level="normal")
    assert move == {"type": "cash", "pile": denied}
