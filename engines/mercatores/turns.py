"""Mercatores turn flow: setup, the end of each turn, the phases and rounds.

Rules cited by section refer to the project's rules file for Mercatores.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from engines.api import Chance
from engines.mercatores.data import (
    CARDS,
    GOODS_OF,
    HAND_SIZE,
    INVESTMENT_END_CARDS,
    MARKET_SIZE,
)
from engines.mercatores.state import (
    CASH,
    END_BY_CARDS,
    END_BY_DECK,
    INVESTMENT,
    OVER,
    PROFIT,
    TAX,
    TRADE,
    State,
    left_of,
    ordered,
)


def draw(deck: list[str], chance: Chance) -> str:
    """One card drawn at random from the canonically ordered deck."""
    return deck.pop(chance.below(len(deck)))


def setup(seats: int, options: Mapping[str, Any], chance: Chance) -> State:
    """Rules 'Setup': five secret cards per player, then a market of five."""
    end_cards = options.get("end_cards", INVESTMENT_END_CARDS)
    deck = list(CARDS)
    hands = tuple(ordered(draw(deck, chance) for _ in range(HAND_SIZE)) for _ in range(seats))
    market = ordered(draw(deck, chance) for _ in range(MARKET_SIZE))
    return State(
        seats=seats,
        end_cards=end_cards,
        phase=INVESTMENT,
        step=TRADE,
        turn=0,
        round=1,
        deck=tuple(deck),
        market=market,
        hands=hands,
        resources=((),) * seats,
        discard=(),
        coins=(0,) * seats,
        captain=None,
        unloading=None,
        end="",
        last_turn=None,
        round_start=0,
    )


def to_move(state: State) -> frozenset[int]:
    if state.phase == OVER:
        return frozenset()
    return frozenset((state.turn,))


def may_empty_hand(state: State, seat: int, resources_after: int) -> bool:
    """The hand minimum and its exceptions (rules 'Investment phase')."""
    return bool(state.end) or resources_after >= state.end_cards


def end_investment_turn(state: State, chance: Chance) -> State:
    """Refill the market, check both ends of the phase, pass the turn."""
    deck = list(state.deck)
    market = list(state.market)
    while len(market) < MARKET_SIZE and deck:
        market.append(draw(deck, chance))
    state = replace(state, deck=tuple(deck), market=ordered(market))
    seat, n = state.turn, state.seats
    if not state.end:
        if len(state.resources[seat]) >= state.end_cards:
            # 'End of the investment phase': Captain and Unloading, one more turn each.
            state = replace(
                state, end=END_BY_CARDS, captain=seat, unloading=seat, last_turn=(seat - 1) % n
            )
        elif len(market) < MARKET_SIZE:
            # The deck is empty: the phase ends with the last seat's turn of this round.
            state = replace(state, end=END_BY_DECK, last_turn=n - 1)
    if state.end and seat == state.last_turn:
        return start_profit(state)
    following = (seat + 1) % n
    return replace(
        state,
        turn=following,
        step=TRADE,
        round=state.round + 1 if following == 0 else state.round,
    )


def most_resources(state: State) -> int:
    """The seat with the most cards in resources; a tie goes to the earliest seat."""
    counts = [len(cards) for cards in state.resources]
    return counts.index(max(counts))


def start_profit(state: State) -> State:
    """Discard hands and market; the Captain's holder opens the profit phase."""
    captain = state.captain if state.captain is not None else most_resources(state)
    thrown = [card for hand in state.hands for card in hand] + list(state.market)
    state = replace(
        state,
        phase=PROFIT,
        hands=((),) * state.seats,
        market=(),
        discard=ordered(state.discard + tuple(thrown)),
        captain=captain,
        unloading=captain,
        round=1,
        round_start=captain,
        last_turn=None,
    )
    return begin_round(state)


def begin_round(state: State) -> State:
    """The first seat from the Unloading card's holder with resources takes a turn."""
    n = state.seats
    for offset in range(n):
        seat = (state.round_start + offset) % n
        if state.resources[seat]:
            return begin_profit_turn(state, seat)
    return replace(state, phase=OVER, step="")


def begin_profit_turn(state: State, seat: int) -> State:
    """Tax first, unless the Unloading card's holder or a player without goods."""
    owes_tax = seat != state.unloading and any(card in GOODS_OF for card in state.resources[seat])
    return replace(state, turn=seat, step=TAX if owes_tax else CASH)


def end_profit_turn(state: State) -> State:
    """Next seat with resources in this round; after the round the Unloading card passes."""
    n = state.seats
    if not any(state.resources):
        return replace(state, phase=OVER, step="")
    seat = (state.turn + 1) % n
    while seat != state.round_start:
        if state.resources[seat]:
            return begin_profit_turn(state, seat)
        seat = (seat + 1) % n
    holder = left_of(state.unloading, n)
    return begin_round(replace(state, unloading=holder, round_start=holder, round=state.round + 1))
