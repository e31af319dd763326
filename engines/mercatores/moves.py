"""Mercatores moves: the legal moves of a position and the shape every move must have.

Legal moves name one card of each class (same goods and ships, or the same special),
since such cards are alike in every rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations
from typing import Any

from engines.api import MalformedMove
from engines.mercatores.data import (
    CARDS,
    GOODS_KINDS,
    GOODS_NAMES,
    GOODS_OF,
)
from engines.mercatores.scoring import cash_value
from engines.mercatores.state import (
    CASH,
    LOAD,
    TAX,
    TRADE,
    State,
    kinds_held,
    ordered,
)
from engines.mercatores.turns import may_empty_hand, to_move
from engines.mercatores.words import T

LOAD_WAYS = ("one_kind", "two_kinds", "special")


def card_class(card: str) -> tuple:
    """Cards of one class are alike in every rule: legal moves list one of each."""
    info = CARDS[card]
    if info["kind"] == "goods":
        return (info["goods"], info["ships"])
    return (info["kind"], info["goods"], info["arrows"])


def representatives(cards: tuple[str, ...]) -> list[str]:
    seen: set[tuple] = set()
    chosen = []
    for card in cards:
        key = card_class(card)
        if key not in seen:
            seen.add(key)
            chosen.append(card)
    return chosen


def distinct_takes(market: tuple[str, ...], count: int) -> list[list[str]]:
    seen: set[tuple] = set()
    takes = []
    for chosen in combinations(market, count):
        key = tuple(sorted(card_class(card) for card in chosen))
        if key not in seen:
            seen.add(key)
            takes.append(list(chosen))
    return takes


def take_count(state: State, give: str) -> int:
    """Two cards for goods, three for a special card, or all the market holds."""
    wanted = 2 if give in GOODS_OF else 3
    return min(wanted, len(state.market))


def trade_moves(state: State, seat: int) -> list[dict]:
    moves = []
    for give in representatives(state.hands[seat]):
        for take in distinct_takes(state.market, take_count(state, give)):
            moves.append({"type": "trade", "give": give, "take": take})
    return moves


def load_choices(hand: tuple[str, ...]) -> list[tuple[str, list[str]]]:
    """Every distinct load of a hand, as (way, cards)."""
    choices: list[tuple[str, list[str]]] = []
    by_kind: dict[str, list[list[str]]] = {}
    for card in hand:
        if card in GOODS_OF:
            by_ships = by_kind.setdefault(GOODS_OF[card], [[], [], []])
            by_ships[CARDS[card]["ships"]].append(card)
    for kind in GOODS_KINDS:
        if kind not in by_kind:
            continue
        none, one, two = by_kind[kind]
        for a in range(len(none) + 1):
            for b in range(len(one) + 1):
                for c in range(len(two) + 1):
                    if a + b + c:
                        choices.append(("one_kind", ordered(none[:a] + one[:b] + two[:c])))
    kinds = [kind for kind in GOODS_KINDS if kind in by_kind]
    for first, second in combinations(kinds, 2):
        for x in representatives(tuple(card for group in by_kind[first] for card in group)):
            for y in representatives(tuple(card for group in by_kind[second] for card in group)):
                choices.append(("two_kinds", ordered((x, y))))
    for card in representatives(tuple(card for card in hand if card not in GOODS_OF)):
        choices.append(("special", [card]))
    return [(way, list(cards)) for way, cards in choices]


def load_moves(state: State, seat: int) -> list[dict]:
    hand = state.hands[seat]
    held = len(state.resources[seat])
    return [
        {"type": "load", "way": way, "cards": cards}
        for way, cards in load_choices(hand)
        if len(cards) < len(hand) or may_empty_hand(state, seat, held + len(cards))
    ]


def tax_moves(state: State, seat: int) -> list[dict]:
    goods = tuple(card for card in state.resources[seat] if card in GOODS_OF)
    return [{"type": "tax", "card": card} for card in representatives(goods)]


def cash_moves(state: State, seat: int) -> list[dict]:
    """Every pile and special card; from version 2 one that pays nothing only when
    nothing pays (rulebook, 'Further Turn Rules')."""
    moves = every_cash(state, seat)
    if state.rules_version >= 2:
        paying = [move for move in moves if cash_value(state, seat, move)[1] > 0]
        return paying or moves
    return moves


def something_pays(state: State, seat: int) -> bool:
    """Whether any cash-in open to ``seat`` would pay a coin."""
    return any(cash_value(state, seat, move)[1] > 0 for move in every_cash(state, seat))


def every_cash(state: State, seat: int) -> list[dict]:
    own = state.resources[seat]
    moves: list[dict] = [{"type": "cash", "pile": kind} for kind in kinds_held(own)]
    specials = tuple(card for card in own if card not in GOODS_OF)
    for card in representatives(specials):
        if CARDS[card]["kind"] == "trade_route":
            for opponent in range(state.seats):
                if opponent != seat:
                    moves.append({"type": "cash", "special": card, "opponent": opponent})
        else:
            moves.append({"type": "cash", "special": card})
    return moves


def legal_moves(state: State, seat: int) -> list[dict]:
    if seat not in to_move(state):
        return []
    return {TRADE: trade_moves, LOAD: load_moves, TAX: tax_moves, CASH: cash_moves}[state.step](
        state, seat
    )


# ---------------------------------------------------------------- move shapes

SHAPES: dict[str, dict[str, type]] = {
    "trade": {"give": str, "take": list},
    "load": {"way": str, "cards": list},
    "tax": {"card": str},
}
CASH_FIELDS = {"type", "pile", "special", "opponent"}
# The ways of loading, as a move names them (machine words, not translated).
WAYS = T(
    "%(first)s, %(second)s or %(third)s", first="one_kind", second="two_kinds", third="special"
)
# Every move type (trade, load, tax, cash) begins with a consonant: "a trade move".
FIELD_WORDS = {
    "give": T("a card id"),
    "take": T("a list of card ids"),
    "way": WAYS,
    "cards": T("a list of card ids"),
    "card": T("a card id"),
    "pile": T("the name of a goods kind, such as %(example)s", example="corn"),
    "special": T("a card id"),
    "opponent": T("a seat number"),
}


def check_field(move: Mapping[str, Any], name: str, kind: type) -> None:
    value = move[name]
    if kind is int:
        ok = type(value) is int
    elif kind is list:
        ok = isinstance(value, list) and all(isinstance(item, str) for item in value)
    else:
        ok = isinstance(value, kind)
    if not ok:
        raise MalformedMove(
            T(
                "The field %(field)s of a %(kind)s move must be %(wanted)s.",
                field=repr(name),
                kind=move["type"],
                wanted=FIELD_WORDS[name],
            )
        )


def check_shape(move: Any) -> None:
    """Rejects anything that is not a well-formed move of this game."""
    if not isinstance(move, Mapping):
        raise MalformedMove(T("A move must be a JSON object with a %(field)s.", field="'type'"))
    kind = move.get("type")
    if kind not in ("trade", "load", "tax", "cash"):
        raise MalformedMove(T("Mercatores has no move of type %(kind)s.", kind=repr(kind)))
    if kind == "cash":
        extra = sorted(set(move) - CASH_FIELDS)
        if extra:
            raise MalformedMove(
                T("A %(kind)s move has no field %(field)s.", kind=kind, field=repr(extra[0]))
            )
        if ("pile" in move) == ("special" in move):
            raise MalformedMove(
                T(
                    "Cash in exactly one thing: name a %(pile)s or a %(special)s card.",
                    pile="'pile'",
                    special="'special'",
                )
            )
        if "pile" in move:
            if "opponent" in move:
                raise MalformedMove(T("Only a Trade Route names an opponent."))
            check_field(move, "pile", str)
            if move["pile"] not in GOODS_NAMES:
                raise MalformedMove(
                    T("There are no goods called %(name)s.", name=repr(move["pile"]))
                )
            return
        check_field(move, "special", str)
        if "opponent" in move:
            check_field(move, "opponent", int)
        check_cards(move, [move["special"]])
        return
    fields = SHAPES[kind]
    extra = sorted(set(move) - set(fields) - {"type"})
    if extra:
        raise MalformedMove(
            T("A %(kind)s move has no field %(field)s.", kind=kind, field=repr(extra[0]))
        )
    for name, field_type in fields.items():
        if name not in move:
            raise MalformedMove(
                T("A %(kind)s move needs the field %(field)s.", kind=kind, field=repr(name))
            )
        check_field(move, name, field_type)
    named = {"trade": lambda: [move["give"], *move["take"]], "load": lambda: move["cards"]}
    check_cards(move, named.get(kind, lambda: [move["card"]])())
    if kind == "load" and move["way"] not in LOAD_WAYS:
        raise MalformedMove(T("The way of loading must be %(ways)s.", ways=WAYS))


def check_cards(move: Mapping[str, Any], cards: list[str]) -> None:
    for card in cards:
        if card not in CARDS:
            raise MalformedMove(T("There is no card called %(card)s.", card=repr(card)))
