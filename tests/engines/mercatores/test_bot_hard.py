"""The "hard" bot: a search over sampled deals, from its own seat's view alone."""

from __future__ import annotations

import random
from dataclasses import replace

from engines.api import SeededChance
from engines.mercatores import ENGINE, bot_hard, bot_normal
from engines.mercatores.state import INVESTMENT, ordered

BUDGET = {"playouts": 24, "depth": 12}


def mid_game(seed: int = 5, moves: int = 12):
    """A three-player investment position after ``moves`` normal-bot moves."""
    state = ENGINE.setup(3, {}, SeededChance(seed))
    rng = random.Random(seed)
    for _ in range(moves):
        seat = state.turn
        legal = ENGINE.legal_moves(state, seat)
        move = ENGINE.bot_move(ENGINE.view(state, seat), legal, rng, level="normal")
        state = ENGINE.apply(state, seat, move, SeededChance(seed))
    assert state.phase == INVESTMENT
    return state


def hard_move(state, seed: int = 1):
    seat = state.turn
    view, legal = ENGINE.view(state, seat), ENGINE.legal_moves(state, seat)
    return bot_hard.choose_move(ENGINE, view, legal, random.Random(seed), **BUDGET)


def test_two_states_giving_the_same_view_give_the_same_move():
    state = mid_game()
    seat = state.turn
    other = (seat + 1) % state.seats
    # Swap the other seat's hand with cards from the deck and reverse the deck: the
    # seat to move sees nothing of it.
    hand, deck = list(state.hands[other]), list(state.deck)
    swapped = deck[: len(hand)]
    deck = hand + deck[len(hand) :]
    hands = list(state.hands)
    hands[other] = ordered(swapped)
    twin = replace(state, hands=tuple(hands), deck=ordered(deck))
    assert twin != state
    assert ENGINE.view(twin, seat) == ENGINE.view(state, seat)
    assert hard_move(twin) == hard_move(state)


def test_a_sampled_deal_agrees_with_the_view():
    state = mid_game()
    seat = state.turn
    view = ENGINE.view(state, seat)
    sampled = bot_hard.determinize(view, seat, random.Random(3), version=ENGINE.version)
    assert ENGINE.view(sampled, seat) == view
    assert sorted(sampled.deck + sum(sampled.hands, ()) + sampled.market) == sorted(
        state.deck + sum(state.hands, ()) + state.market
    )


def test_it_is_deterministic_given_its_inputs():
    state = mid_game(seed=8, moves=7)
    assert hard_move(state, seed=4) == hard_move(state, seed=4)


def test_it_answers_every_step_with_a_legal_move():
    state = ENGINE.setup(2, {}, SeededChance(2))
    rng = random.Random(2)
    while ENGINE.to_move(state):
        seat = state.turn
        legal = ENGINE.legal_moves(state, seat)
        view = ENGINE.view(state, seat)
        if seat == 0:
            move = bot_hard.choose_move(ENGINE, view, legal, rng, playouts=6, depth=6)
        else:
            move = bot_normal.choose_move(view, legal, rng)
        assert move in legal
        state = ENGINE.apply(state, seat, move, SeededChance(2))
    assert ENGINE.result(state).winners
