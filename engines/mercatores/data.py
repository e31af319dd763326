"""Mercatores cards as plain data, copied from the project's card design.

The printed card list was not available, so counts, ship symbols and profit tables are
the project's own design (fitted to every example in the rulebook). A profit table
``((threshold, coins), ...)`` pays the coins of the highest threshold reached, 0 below
the lowest. Card ids are stable: goods ``corn-01`` .. ``coffee-08``, specials ``w1`` ..
``w6`` (Warehouses), ``q1`` .. ``q6`` (Quays), ``t1`` .. ``t10`` (Trade Routes).
``CARD_ORDER`` is the canonical order of the deck. ``LAYOUT`` gives drawing hints.
"""

from __future__ import annotations

from engines.mercatores.words import T

GOODS: tuple[dict, ...] = (
    {
        "id": "corn",
        "name": T("Corn"),
        "count": 16,
        "table": ((4, 1), (6, 2), (8, 3)),
        "ships": (0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2),
    },
    {
        "id": "cotton",
        "name": T("Cotton"),
        "count": 14,
        "table": ((3, 1), (5, 2), (7, 3)),
        "ships": (0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 2, 2),
    },
    {
        "id": "tobacco",
        "name": T("Tobacco"),
        "count": 12,
        "table": ((3, 1), (5, 2), (7, 3)),
        "ships": (0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 2, 2),
    },
    {
        "id": "cocoa",
        "name": T("Cocoa"),
        "count": 10,
        "table": ((2, 1), (4, 2), (5, 3)),
        "ships": (0, 0, 0, 0, 1, 1, 1, 1, 1, 2),
    },
    {
        "id": "coffee",
        "name": T("Coffee"),
        "count": 8,
        "table": ((2, 1), (3, 2), (4, 3)),
        "ships": (0, 0, 0, 0, 1, 1, 1, 1),
    },
)

SPECIALS: tuple[dict, ...] = (
    {"id": "w1", "kind": "warehouse", "table": ((3, 1), (4, 2), (5, 3))},
    {"id": "w2", "kind": "warehouse", "table": ((3, 1), (4, 2), (5, 3))},
    {"id": "w3", "kind": "warehouse", "table": ((3, 1), (4, 2), (5, 3))},
    {"id": "w4", "kind": "warehouse", "table": ((3, 1), (4, 2), (5, 3))},
    {"id": "w5", "kind": "warehouse", "table": ((3, 1), (4, 2), (5, 3))},
    {"id": "w6", "kind": "warehouse", "table": ((3, 1), (4, 2), (5, 3))},
    {"id": "q1", "kind": "quay", "arrows": ("self", "left"), "table": ((6, 1), (10, 2), (14, 3))},
    {"id": "q2", "kind": "quay", "arrows": ("self", "left"), "table": ((6, 1), (10, 2), (14, 3))},
    {"id": "q3", "kind": "quay", "arrows": ("self", "right"), "table": ((6, 1), (10, 2), (14, 3))},
    {"id": "q4", "kind": "quay", "arrows": ("self", "right"), "table": ((6, 1), (10, 2), (14, 3))},
    {"id": "q5", "kind": "quay", "arrows": ("left", "right"), "table": ((6, 1), (10, 2), (14, 3))},
    {"id": "q6", "kind": "quay", "arrows": ("left", "right"), "table": ((6, 1), (10, 2), (14, 3))},
    {"id": "t1", "kind": "trade_route", "goods": "corn", "table": ((5, 1), (7, 2), (9, 3))},
    {"id": "t2", "kind": "trade_route", "goods": "corn", "table": ((5, 1), (7, 2), (9, 3))},
    {"id": "t3", "kind": "trade_route", "goods": "cotton", "table": ((4, 1), (6, 2), (8, 3))},
    {"id": "t4", "kind": "trade_route", "goods": "cotton", "table": ((4, 1), (6, 2), (8, 3))},
    {"id": "t5", "kind": "trade_route", "goods": "tobacco", "table": ((4, 1), (6, 2), (8, 3))},
    {"id": "t6", "kind": "trade_route", "goods": "tobacco", "table": ((4, 1), (6, 2), (8, 3))},
    {"id": "t7", "kind": "trade_route", "goods": "cocoa", "table": ((3, 1), (5, 2), (6, 3))},
    {"id": "t8", "kind": "trade_route", "goods": "cocoa", "table": ((3, 1), (5, 2), (6, 3))},
    {"id": "t9", "kind": "trade_route", "goods": "coffee", "table": ((3, 1), (4, 2), (5, 3))},
    {"id": "t10", "kind": "trade_route", "goods": "coffee", "table": ((3, 1), (4, 2), (5, 3))},
)

CAPTAIN_VALUE = 2
HAND_SIZE = 5
MARKET_SIZE = 5
INVESTMENT_END_CARDS = 15
MIN_PLAYERS, MAX_PLAYERS = 2, 4

GOODS_KINDS: tuple[str, ...] = tuple(goods["id"] for goods in GOODS)
GOODS_NAMES: dict[str, str] = {goods["id"]: goods["name"] for goods in GOODS}
GOODS_TABLES: dict[str, tuple[tuple[int, int], ...]] = {
    goods["id"]: goods["table"] for goods in GOODS
}

# A Quay's arrows as its card names them: "Quay (own + left)".
ARROW_NAMES = {"self": T("own"), "left": T("left"), "right": T("right")}
SEAT_NAMES = (T("Red"), T("Blue"), T("Green"), T("Yellow"))


def _special_name(special: dict) -> str:
    if special["kind"] == "warehouse":
        return T("Warehouse")
    if special["kind"] == "quay":
        first, second = (ARROW_NAMES[arrow] for arrow in special["arrows"])
        return T("Quay (%(first)s + %(second)s)", first=first, second=second)
    return T("Trade Route: %(goods)s", goods=GOODS_NAMES[special["goods"]])


def _cards() -> dict[str, dict]:
    cards: dict[str, dict] = {}
    for goods in GOODS:
        for number, ships in enumerate(goods["ships"], start=1):
            card_id = f"{goods['id']}-{number:02d}"
            cards[card_id] = {
                "id": card_id,
                "kind": "goods",
                "goods": goods["id"],
                "ships": ships,
                "name": goods["name"],
                "table": goods["table"],
            }
    for special in SPECIALS:
        cards[special["id"]] = {
            "id": special["id"],
            "kind": special["kind"],
            "goods": special.get("goods"),
            "arrows": special.get("arrows", ()),
            "ships": 0,
            "name": _special_name(special),
            "table": special["table"],
        }
    return cards


# Every goods and special card by id, in the canonical order of the deck.
CARDS: dict[str, dict] = _cards()
CARD_ORDER: tuple[str, ...] = tuple(CARDS)
CARD_INDEX: dict[str, int] = {card_id: index for index, card_id in enumerate(CARD_ORDER)}
DECK_SIZE = len(CARD_ORDER)

# Drawing hints for the web (a 1000 x 700 table): where the shared areas lie and where
# each seat's resources are spread, by seat count.
LAYOUT = {
    "width": 1000,
    "height": 700,
    "deck": {"x": 40, "y": 300},
    "discard": {"x": 140, "y": 300},
    "market": {"x": 260, "y": 300, "step": 110},
    "seats": {
        "2": [{"x": 40, "y": 520}, {"x": 40, "y": 40}],
        "3": [{"x": 40, "y": 520}, {"x": 40, "y": 40}, {"x": 520, "y": 40}],
        "4": [{"x": 40, "y": 520}, {"x": 40, "y": 40}, {"x": 520, "y": 40}, {"x": 520, "y": 520}],
    },
}
# The goods kind of each goods card (special cards are not in it).
GOODS_OF: dict[str, str] = {
    card_id: card["goods"] for card_id, card in CARDS.items() if card["kind"] == "goods"
}
