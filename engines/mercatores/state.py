"""The Mercatores game state: one frozen value, copied (never changed) by each move.

Every collection of cards is a tuple of card ids kept in the canonical deck order, so
two states that hold the same cards compare, dump and hash the same whatever the order
in which the cards arrived.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from engines.mercatores.data import CARD_INDEX, CARDS, GOODS_KINDS, GOODS_OF

INVESTMENT = "investment"
PROFIT = "profit"
OVER = "over"

TRADE = "trade"
LOAD = "load"
TAX = "tax"
CASH = "cash"

# Why the investment phase is ending: a player reached the card count, or the deck ran out.
END_BY_CARDS = "cards"
END_BY_DECK = "deck"


@dataclass(frozen=True, slots=True)
class State:
    seats: int
    end_cards: int  # resources that end the investment phase (option, default 15)
    phase: str  # investment, profit or over
    step: str  # trade or load (investment), tax or cash (profit), "" when over
    turn: int  # the seat to move
    round: int  # round number within the phase, from 1
    deck: tuple[str, ...]
    market: tuple[str, ...]
    hands: tuple[tuple[str, ...], ...]
    resources: tuple[tuple[str, ...], ...]
    discard: tuple[str, ...]
    coins: tuple[int, ...]
    captain: int | None
    unloading: int | None
    end: str  # "", END_BY_CARDS or END_BY_DECK
    last_turn: int | None  # investment: the seat whose turn closes the phase, once known
    round_start: int  # profit: the seat that opened the round (the Unloading card's holder)
    rules_version: int = 1  # the engine version whose rules this game plays
    first: int = 0  # the seat that started the investment phase (version 2 on)


def ordered(cards: Iterable[str]) -> tuple[str, ...]:
    """Cards in the canonical deck order."""
    return tuple(sorted(cards, key=CARD_INDEX.__getitem__))


def without(cards: tuple[str, ...], gone: Iterable[str]) -> tuple[str, ...]:
    gone = set(gone)
    return tuple(card for card in cards if card not in gone)


def replace_at(items: tuple, index: int, value: Any) -> tuple:
    return items[:index] + (value,) + items[index + 1 :]


def pile(resources: tuple[str, ...], kind: str) -> list[str]:
    """The goods cards of one kind in a player's resources (a Trade Route is no goods)."""
    return [card for card in resources if GOODS_OF.get(card) == kind]


def kinds_held(resources: tuple[str, ...]) -> list[str]:
    """The goods kinds with a pile in these resources, in data order."""
    present = {GOODS_OF[card] for card in resources if card in GOODS_OF}
    return [kind for kind in GOODS_KINDS if kind in present]


def ships(resources: tuple[str, ...]) -> int:
    return sum(CARDS[card]["ships"] for card in resources)


def left_of(seat: int, seats: int) -> int:
    """Seats sit clockwise in turn order: the left neighbour plays next."""
    return (seat + 1) % seats


def right_of(seat: int, seats: int) -> int:
    return (seat - 1) % seats


def dump_state(state: State) -> dict:
    """The state as JSON; a version-1 state has no version fields (dumps as it always did)."""
    data = {
        "seats": state.seats,
        "end_cards": state.end_cards,
        "phase": state.phase,
        "step": state.step,
        "turn": state.turn,
        "round": state.round,
        "deck": list(state.deck),
        "market": list(state.market),
        "hands": [list(hand) for hand in state.hands],
        "resources": [list(cards) for cards in state.resources],
        "discard": list(state.discard),
        "coins": list(state.coins),
        "captain": state.captain,
        "unloading": state.unloading,
        "end": state.end,
        "last_turn": state.last_turn,
        "round_start": state.round_start,
    }
    if state.rules_version != 1:
        data["rules_version"] = state.rules_version
        data["first"] = state.first
    return data


def load_state(data: Mapping[str, Any]) -> State:
    return State(
        seats=data["seats"],
        end_cards=data["end_cards"],
        phase=data["phase"],
        step=data["step"],
        turn=data["turn"],
        round=data["round"],
        deck=tuple(data["deck"]),
        market=tuple(data["market"]),
        hands=tuple(tuple(hand) for hand in data["hands"]),
        resources=tuple(tuple(cards) for cards in data["resources"]),
        discard=tuple(data["discard"]),
        coins=tuple(data["coins"]),
        captain=data["captain"],
        unloading=data["unloading"],
        end=data["end"],
        last_turn=data["last_turn"],
        round_start=data["round_start"],
        rules_version=data.get("rules_version", 1),
        first=data.get("first", 0),
    )
