"""The "normal" bot: each trade judged by the best load it allows, the profit phase
looked ahead, always from its own view."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engines.api import SeededChance
from engines.mercatores import ENGINE, bot, bot_normal
from engines.mercatores.state import END_BY_CARDS, PROFIT, dump_state, ordered
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


# Recorded positions: a three-player game of easy bots (seed 5 * 1_000_003 + game),
# stopped where seat 0 is to trade; seat 0's turn is then played by the normal bot with
# and without a fix, and the game finished the same way from both.
EASY_GAME_SEED = 5 * 1_000_003
BEFORE_HAND_FIX = dict(bot_normal.PARAMS, hand=0.6, part=0.8, pace=0.0, final=0)
BEFORE_LAST_TURN_FIX = dict(bot_normal.PARAMS, final=0)


def recorded(game: int, moves: int):
    chance = SeededChance(EASY_GAME_SEED + game)
    rng = random.Random(EASY_GAME_SEED + game)
    state = ENGINE.setup(3, {}, chance)
    for _ in range(moves):
        seat = min(ENGINE.to_move(state))
        legal = ENGINE.legal_moves(state, seat)
        move = ENGINE.bot_move(ENGINE.view(state, seat), legal, rng, level="easy")
        state = ENGINE.apply(state, seat, move, chance)
    assert state.turn == 0 and state.step == "trade"
    return state


def normal_turn(state, params):
    """Seat 0's trade and load by the normal bot with ``params``: (trade, load, state)."""
    moves = []
    for _ in range(2):
        legal = ENGINE.legal_moves(state, 0)
        move = bot_normal.choose_move(ENGINE.view(state, 0), legal, random.Random(0), params)
        state = ENGINE.apply(state, 0, move, SeededChance(0))
        moves.append(move)
    return moves[0], moves[1], state


def margin_at_the_end(state, seeds=range(10)) -> float:
    """Seat 0's final score less the best other's, over the game finished from ``state``
    with each of ``seeds`` for the cards drawn (seat 0 normal, the others easy)."""
    total = 0
    for seed in seeds:
        chance, rng, finished = SeededChance(seed), random.Random(seed), state
        while due := ENGINE.to_move(finished):
            seat = min(due)
            legal = ENGINE.legal_moves(finished, seat)
            level = "normal" if seat == 0 else "easy"
            move = ENGINE.bot_move(ENGINE.view(finished, seat), legal, rng, level=level)
            finished = ENGINE.apply(finished, seat, move, chance)
        scores = ENGINE.result(finished).scores
        total += scores[0] - max(scores[1:])
    return total / len(seeds)


def test_it_trades_for_cards_it_can_still_load():
    # Game 20 after 36 moves: the others hold 11 and 12 cards, so the phase ends within
    # a turn or two. Seat 0 holds corn, corn and three Trade Routes. Counting every card
    # it would keep in hand, it gave a Trade Route for a cotton, a cocoa and another
    # Trade Route, single cards of kinds it has no time to build; counting only what its
    # loads left can bring in, it takes two corn (four corn: one load, a pile that pays)
    # and the Trade Route.
    state = recorded(20, 36)
    trade_before, _load, before = normal_turn(state, BEFORE_HAND_FIX)
    trade_now, _load, now = normal_turn(state, bot_normal.PARAMS)
    assert trade_before["take"] == ["cotton-07", "cocoa-02", "t8"]
    assert trade_now["take"] == ["corn-10", "corn-15", "t8"]
    assert margin_at_the_end(now) >= margin_at_the_end(before) + 0.5


def test_on_its_last_turn_it_plays_the_profit_phase_out():
    # Game 23 after 54 moves: Green ended the phase, seat 0 has its last turn. Its two
    # Warehouses count four kinds; a corn and a cotton (a fifth kind, and a cotton pile
    # that pays) look best counted as the table lies, but the first taxes take the
    # single cards again. Played out, five corn do better: a pile that pays, spare cards
    # to pay the taxes with, and ships for its Quays.
    state = recorded(23, 54)
    assert state.end == END_BY_CARDS
    trade_before, load_before, before = normal_turn(state, BEFORE_LAST_TURN_FIX)
    trade_now, load_now, now = normal_turn(state, bot_normal.PARAMS)
    assert trade_before["take"] == ["corn-06", "cotton-01", "tobacco-03"]
    assert trade_now["take"] == ["corn-06", "corn-11", "corn-14"]
    assert len(load_now["cards"]) == 5
    assert margin_at_the_end(now) >= margin_at_the_end(before) + 1


@pytest.mark.parametrize("level", ["easy", "normal"])
def test_its_move_depends_on_nothing_hidden_from_its_seat(level):
    """Along a seeded game of normal bots: a twin state in which another seat's hand and
    the deck are dealt differently (the same number of cards each) gives the seat to
    move the same view, and its bot the same move drawn with the same seed."""
    chance, rng = SeededChance(4), random.Random(4)
    state = ENGINE.setup(3, {}, chance)
    compared = 0
    while due := ENGINE.to_move(state):
        seat = min(due)
        legal = ENGINE.legal_moves(state, seat)
        view = ENGINE.view(state, seat)
        other = (seat + 1) % state.seats
        hand, deck = list(state.hands[other]), list(state.deck)
        if hand and len(deck) >= len(hand):
            hands = list(state.hands)
            hands[other] = ordered(deck[: len(hand)])
            twin = replace(
                state, hands=tuple(hands), deck=tuple(reversed(hand + deck[len(hand) :]))
            )
            assert twin != state
            assert ENGINE.view(twin, seat) == view
            moves = [
                ENGINE.bot_move(seen, ENGINE.legal_moves(which, seat), random.Random(5), level)
                for which, seen in ((state, view), (twin, ENGINE.view(twin, seat)))
            ]
            assert moves[0] == moves[1]
            compared += 1
        move = ENGINE.bot_move(view, legal, rng, level="normal")
        state = ENGINE.apply(state, seat, move, chance)
    assert compared > 10
