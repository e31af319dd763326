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


def first_seat(seats: int, choice: Any, chance: Chance) -> int:
    """Version 2's ``first_player`` option: seat order, a random seat, or a chosen one."""
    if choice in (None, "seat_order"):
        return 0
    if choice == "random":
        return chance.below(seats)
    if str(choice).isdigit() and 1 <= int(choice) <= seats:
        return int(choice) - 1
    raise ValueError(f"The first player must be a seat from 1 to {seats}, not {choice!r}.")


def setup(seats: int, options: Mapping[str, Any], chance: Chance, version: int = 1) -> State:
    """Rules 'Setup': five secret cards per player, then a market of five.

    From version 2 the players choose who starts (``first_player``); a random first
    player is the game's first draw.
    """
    end_cards = options.get("end_cards", INVESTMENT_END_CARDS)
    first = first_seat(seats, options.get("first_player"), chance) if version >= 2 else 0
    deck = list(CARDS)
    hands = tuple(ordered(draw(deck, chance) for _ in range(HAND_SIZE)) for _ in range(seats))
    market = ordered(draw(deck, chance) for _ in range(MARKET_SIZE))
    return State(
        seats=seats,
        end_cards=end_cards,
        phase=INVESTMENT,
        step=TRADE,
        turn=first,
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
        round_start=first,
        rules_version=version,
        first=first,
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
    # Version 2: the first to 15 takes the Captain even after the deck ran out, and the
    # others then get their one more turn ('End of the investment phase').
    first_to_end = not state.end or (state.rules_version >= 2 and state.end == END_BY_DECK)
    if first_to_end and len(state.resources[seat]) >= state.end_cards:
        # 'End of the investment phase': Captain and Unloading, one more turn each.
        state = replace(
            state, end=END_BY_CARDS, captain=seat, unloading=seat, last_turn=(seat - 1) % n
        )
    elif not state.end and len(market) < MARKET_SIZE:
        # The deck is empty: the phase ends with the last seat's turn of this round.
        state = replace(state, end=END_BY_DECK, last_turn=(state.first - 1) % n)
    if state.end and seat == state.last_turn:
        return start_profit(state)
    following = (seat + 1) % n
    return replace(
        state,
        turn=following,
        step=TRADE,
        round=state.round + 1 if following == state.first else state.round,
    )


def most_resources(state: State) -> int:
    """The seat with the most cards in resources; a tie goes to the earliest seat
    (in turn order from the first player)."""
    n = state.seats
    order = [(state.first + offset) % n for offset in range(n)]
    return max(order, key=lambda seat: (len(state.resources[seat]), -order.index(seat)))


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
