"""Shared helpers for the Mercatores tests: hand-built positions and the invariants."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from engines.mercatores.data import CARD_ORDER, CARDS, GOODS, GOODS_OF, SEAT_NAMES
from engines.mercatores.state import INVESTMENT, PROFIT, TRADE, State, ordered
from pbem.games.names import fill


def as_read(lines: list[str]) -> list[str]:
    """History lines as the server fills them, each player named by their colour."""
    return [fill(line, SEAT_NAMES) for line in lines]


def position(
    seats: int = 2,
    hands: list[list[str]] | None = None,
    market: list[str] | None = None,
    resources: list[list[str]] | None = None,
    **fields,
) -> State:
    """A state holding exactly the cards named; every other card is in the deck."""
    hands = hands or [[] for _ in range(seats)]
    market = market or []
    resources = resources or [[] for _ in range(seats)]
    discard = fields.pop("discard", [])
    placed = [*market, *discard] + [c for h in hands for c in h] + [c for r in resources for c in r]
    assert len(placed) == len(set(placed)), "a card is placed twice"
    deck = fields.pop("deck", None)
    if deck is None:
        deck = [card for card in CARD_ORDER if card not in set(placed)]
    state = State(
        seats=seats,
        end_cards=15,
        phase=INVESTMENT,
        step=TRADE,
        turn=0,
        round=1,
        deck=tuple(deck),
        market=ordered(market),
        hands=tuple(ordered(hand) for hand in hands),
        resources=tuple(ordered(cards) for cards in resources),
        discard=ordered(discard),
        coins=(0,) * seats,
        captain=None,
        unloading=None,
        end="",
        last_turn=None,
        round_start=0,
    )
    return replace(state, **fields)


def profit_position(seats: int, resources: list[list[str]], unloading: int = 0, **fields) -> State:
    """A profit-phase state (every card not in resources lies in the discard pile)."""
    placed = {card for cards in resources for card in cards}
    discard = [card for card in CARD_ORDER if card not in placed]
    fields.setdefault("step", "tax" if fields.get("turn", unloading) != unloading else "cash")
    fields.setdefault("turn", unloading)
    return position(
        seats,
        resources=resources,
        discard=discard,
        deck=[],
        phase=PROFIT,
        captain=unloading,
        unloading=unloading,
        round_start=unloading,
        **fields,
    )


def goods(kind: str, count: int, ships: int | None = None, skip: int = 0) -> list[str]:
    """``count`` cards of one kind (with that many ships, if given), skipping the first few."""
    cards = [
        card
        for card in CARD_ORDER
        if GOODS_OF.get(card) == kind and (ships is None or CARDS[card]["ships"] == ships)
    ]
    chosen = cards[skip : skip + count]
    assert len(chosen) == count, f"not enough {kind} cards"
    return chosen


def check_cards_accounted(state: State) -> None:
    """All 82 cards lie in exactly one place; no pile holds more than its goods' count."""
    everywhere = Counter(state.deck + state.market + state.discard)
    for seat in range(state.seats):
        everywhere.update(state.hands[seat])
        everywhere.update(state.resources[seat])
    assert everywhere == Counter(CARD_ORDER), "cards are missing or doubled"
    counts = {g["id"]: g["count"] for g in GOODS}
    for cards in state.resources:
        piles = Counter(GOODS_OF[card] for card in cards if card in GOODS_OF)
        for kind, size in piles.items():
            assert size <= counts[kind]
    for collection in (state.deck, state.market, state.discard, *state.hands, *state.resources):
        assert tuple(collection) == ordered(collection), "a collection is out of order"
