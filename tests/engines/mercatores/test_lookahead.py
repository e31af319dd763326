"""The normal bot's profit look-ahead on counts (``lookahead.Search``) comes to the same
positions, standings and choices as the same look-ahead played with the game's own rules.

The reference below is the look-ahead as it was written on the rules' ``State``: every
greedy turn taken with ``rules.apply`` over ``rules.legal_moves``, every standing counted
with ``scoring.cash_value``. The positions are the profit phases of seeded games between
normal bots (two to four players, both rule versions), so Trade Routes, Quays of every
kind, the Unloading card's round and the end of the game all come up.
"""

from __future__ import annotations

import random

import pytest

from engines.api import SeededChance
from engines.mercatores import ENGINE, bot_normal
from engines.mercatores.data import CAPTAIN_VALUE, CARDS, GOODS_OF, GOODS_TABLES
from engines.mercatores.lookahead import (
    CLASS_OF,
    KIND_INDEX,
    PILE_MOVE,
    SPECIAL_MOVE,
    TAX_MOVE,
    Search,
    counts_of,
)
from engines.mercatores.rules import apply, legal_moves
from engines.mercatores.scoring import cash_value, pays
from engines.mercatores.state import PROFIT, kinds_held, pile

LATER, TURNS = bot_normal.PARAMS["later"], int(bot_normal.PARAMS["turns"])
NO_CHANCE = bot_normal.NO_CHANCE


# ---------------------------------------------------------------- the reference, on the rules


def standing(state, seat, later=LATER):
    own = state.resources[seat]
    total = float(state.coins[seat] + (CAPTAIN_VALUE if state.captain == seat else 0))
    prospects = 0.0
    for kind in kinds_held(own):
        prospects += pays(GOODS_TABLES[kind], len(pile(own, kind)))
    for card in own:
        if card in GOODS_OF:
            continue
        if CARDS[card]["kind"] == "trade_route":
            best = 0
            for other in range(state.seats):
                if other != seat:
                    move = {"type": "cash", "special": card, "opponent": other}
                    best = max(best, cash_value(state, seat, move)[1])
            prospects += best
        else:
            prospects += cash_value(state, seat, {"type": "cash", "special": card})[1]
    return total + later * prospects


def margin(state, seat):
    others = [standing(state, other) for other in range(state.seats) if other != seat]
    return standing(state, seat) - max(others)


def greedy_turn(state):
    for _ in range(2):
        if state.phase != PROFIT:
            return state
        seat = state.turn
        state = max(
            (apply(state, seat, move, NO_CHANCE) for move in legal_moves(state, seat)),
            key=lambda after: standing(after, seat),
        )
        if state.turn != seat:
            return state
    return state


def replies(state):
    for _ in range(TURNS):
        if state.phase != PROFIT:
            break
        state = greedy_turn(state)
    return state


def finishing(state, seat, move):
    after = apply(state, seat, move, NO_CHANCE)
    if after.phase == PROFIT and after.turn == seat:
        return [apply(after, seat, cash, NO_CHANCE) for cash in legal_moves(after, seat)]
    return [after]


# ---------------------------------------------------------------- helpers


def as_counts(state):
    """A rules' state as what a position holds."""
    return (
        state.phase,
        state.step,
        state.turn,
        state.unloading,
        state.coins,
        tuple(counts_of(cards) for cards in state.resources),
    )


def plain(position):
    phase, step, turn, unloading, coins, holdings = position
    return (phase, step, turn, unloading, coins, tuple(own.counts for own in holdings))


def as_class_move(move):
    if move["type"] == "tax":
        return (TAX_MOVE, CLASS_OF[move["card"]])
    if "pile" in move:
        return (PILE_MOVE, KIND_INDEX[move["pile"]])
    return (SPECIAL_MOVE, CLASS_OF[move["special"]], move.get("opponent", -1))


def profit_decisions(seats, version, seed):
    """(view, legal) of every profit-phase move of a seeded game between normal bots."""
    engine = ENGINE.at_version(version)
    chance, rng = SeededChance(seed), random.Random(seed)
    state = engine.setup(seats, {}, chance)
    while engine.to_move(state):
        seat = state.turn
        legal = engine.legal_moves(state, seat)
        view = engine.view(state, seat)
        if state.phase == PROFIT:
            yield view, legal
        state = engine.apply(state, seat, engine.bot_move(view, legal, rng), chance)


# One seeded game per player count and rule version (each version on a deal of its own).
GAMES = [(seats, version, version) for seats in (2, 3, 4) for version in (1, 2)]


@pytest.mark.parametrize(("seats", "version", "seed"), GAMES)
def test_the_look_ahead_on_counts_plays_as_the_rules_do(seats, version, seed):
    checked = 0
    for view, legal in profit_decisions(seats, version, seed):
        table, seat = bot_normal.table_state(view), view["seat"]
        search = Search(table.seats, table.captain, LATER)
        start = search.position(table)
        assert plain(start) == as_counts(table)
        # Every move, in the rules' order, to the position the rules reach.
        every = legal_moves(table, seat)
        assert search.legal(start) == [as_class_move(move) for move in every]
        for move in every:
            after = apply(table, seat, move, NO_CHANCE)
            assert plain(search.apply(start, as_class_move(move))) == as_counts(after)
        # The greedy turns after each of the seat's moves, and the margin they leave.
        values = []
        for move in legal:
            value = None
            for done in finishing(table, seat, move):
                expected = replies(done)
                reached = search.replies(search.position(done), TURNS)
                assert plain(reached) == as_counts(expected)
                assert search.margin(reached, seat) == margin(expected, seat)
                value = (
                    margin(expected, seat) if value is None else max(value, margin(expected, seat))
                )
                checked += 1
            values.append(value)
        chosen = legal[max(range(len(legal)), key=lambda index: (values[index], -index))]
        assert bot_normal.look_ahead(view, legal, LATER, TURNS) == chosen
    assert checked > 20
