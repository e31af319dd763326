"""Bad input: every illegal or malformed move is refused with a reason a player can read."""

from __future__ import annotations

import random

import pytest

from engines.api import IllegalMove, MalformedMove, SeededChance
from engines.mercatores import ENGINE
from engines.mercatores.state import LOAD
from tests.engines.mercatores.helpers import goods, position, profit_position


def trading():
    """Red to trade, with corn and a Warehouse in hand and five cocoa in the market."""
    return position(
        3,
        hands=[goods("corn", 3) + ["w1"], goods("cotton", 3), goods("tobacco", 3)],
        market=goods("cocoa", 5),
    )


def loading():
    return position(
        3,
        hands=[goods("corn", 3) + ["w1", "q1"], goods("cotton", 3), goods("tobacco", 3)],
        market=goods("cocoa", 4),
        step=LOAD,
    )


def cashing():
    """Profit phase: Red holds the Unloading card; Blue is next and owes tax."""
    resources = [goods("corn", 4) + ["w1", "t3"], goods("cotton", 3) + ["q1"], goods("cocoa", 2)]
    return profit_position(3, resources, unloading=0)


def taxing():
    state = cashing()
    return ENGINE.apply(state, 0, {"type": "cash", "pile": "corn"}, SeededChance(0))


ILLEGAL = [
    (
        "taking the card just given",
        trading,
        0,
        {"type": "trade", "give": "corn-01", "take": ["corn-01", "cocoa-01"]},
        "take back",
    ),
    (
        "taking three after giving a goods card",
        trading,
        0,
        {"type": "trade", "give": "corn-01", "take": ["cocoa-01", "cocoa-02", "cocoa-03"]},
        "exactly 2",
    ),
    (
        "taking two after giving a special card",
        trading,
        0,
        {"type": "trade", "give": "w1", "take": ["cocoa-01", "cocoa-02"]},
        "exactly 3",
    ),
    (
        "giving a card one does not hold",
        trading,
        0,
        {"type": "trade", "give": "cotton-01", "take": ["cocoa-01", "cocoa-02"]},
        "do not hold",
    ),
    (
        "loading two cards of one kind as two different goods",
        loading,
        0,
        {"type": "load", "way": "two_kinds", "cards": ["corn-01", "corn-02"]},
        "two different goods",
    ),
    (
        "loading two special cards",
        loading,
        0,
        {"type": "load", "way": "special", "cards": ["w1", "q1"]},
        "exactly one special",
    ),
    (
        "emptying the hand when not allowed",
        lambda: position(2, hands=[goods("corn", 2), goods("cotton", 2)], step=LOAD),
        0,
        {"type": "load", "way": "one_kind", "cards": ["corn-01", "corn-02"]},
        "Keep at least one card",
    ),
    (
        "a tax from the Unloading card's holder",
        cashing,
        0,
        {"type": "tax", "card": "corn-01"},
        "Unloading card",
    ),
    (
        "a tax paid with a special card",
        taxing,
        1,
        {"type": "tax", "card": "q1"},
        "not a special card",
    ),
    (
        "cashing in before paying the tax",
        taxing,
        1,
        {"type": "cash", "pile": "cotton"},
        "First pay the tax",
    ),
    (
        "a trade route without an opponent",
        cashing,
        0,
        {"type": "cash", "special": "t3"},
        "Name the opponent",
    ),
    (
        "a trade route with oneself",
        cashing,
        0,
        {"type": "cash", "special": "t3", "opponent": 0},
        "other players",
    ),
    (
        "a move out of turn in the investment phase",
        trading,
        1,
        {"type": "trade", "give": "cotton-01", "take": ["cocoa-01", "cocoa-02"]},
        "not your turn",
    ),
    (
        "a move out of turn in the profit phase",
        cashing,
        2,
        {"type": "cash", "pile": "cocoa"},
        "not your turn",
    ),
    (
        "a second cash-in in one turn",
        taxing,
        0,
        {"type": "cash", "special": "w1"},
        "not your turn",
    ),
    (
        "a load in the profit phase",
        cashing,
        0,
        {"type": "load", "way": "special", "cards": ["w1"]},
        "investment phase is over",
    ),
]


@pytest.mark.parametrize(
    "make, seat, move, words", [case[1:] for case in ILLEGAL], ids=[case[0] for case in ILLEGAL]
)
def test_illegal_move_is_refused_with_a_reason(make, seat, move, words):
    state = make()
    before = ENGINE.dump(state)
    with pytest.raises(IllegalMove) as raised:
        ENGINE.apply(state, seat, move, SeededChance(0))
    reason = raised.value.reason
    assert words in reason
    assert reason[0].isupper() and reason.endswith(".")
    assert ENGINE.dump(state) == before


MALFORMED = [
    ("not an object", "trade"),
    ("a list", ["trade"]),
    ("no type", {"give": "corn-01", "take": []}),
    ("an unknown type", {"type": "sail", "from": "corn-01"}),
    ("an unknown field", {"type": "trade", "give": "corn-01", "take": [], "price": 3}),
    ("a missing field", {"type": "trade", "give": "corn-01"}),
    ("a card id that is a number", {"type": "trade", "give": 7, "take": []}),
    ("take that is not a list", {"type": "trade", "give": "corn-01", "take": "cocoa-01"}),
    ("take holding numbers", {"type": "trade", "give": "corn-01", "take": [1, 2]}),
    ("an unknown card", {"type": "trade", "give": "silk-01", "take": []}),
    ("an unknown way", {"type": "load", "way": "all", "cards": ["corn-01"]}),
    ("a pile and a special", {"type": "cash", "pile": "corn", "special": "w1"}),
    ("neither pile nor special", {"type": "cash"}),
    ("an unknown goods pile", {"type": "cash", "pile": "silk"}),
    ("an opponent that is true", {"type": "cash", "special": "t3", "opponent": True}),
    ("an opponent that is text", {"type": "cash", "special": "t3", "opponent": "1"}),
    ("an opponent with a pile", {"type": "cash", "pile": "corn", "opponent": 1}),
    ("a tax without a card", {"type": "tax"}),
]


@pytest.mark.parametrize("move", [case[1] for case in MALFORMED], ids=[c[0] for c in MALFORMED])
def test_malformed_move_is_refused_as_malformed(move):
    for state, seat in ((trading(), 0), (cashing(), 0)):
        with pytest.raises(MalformedMove) as raised:
            ENGINE.apply(state, seat, move, SeededChance(0))
        assert raised.value.reason[0].isupper() and raised.value.reason.endswith(".")


def test_any_move_after_the_game_is_over_is_refused():
    state = profit_position(2, [goods("corn", 4), []], unloading=0)
    state = ENGINE.apply(state, 0, {"type": "cash", "pile": "corn"}, SeededChance(0))
    assert ENGINE.result(state) is not None
    for seat in (0, 1):
        with pytest.raises(IllegalMove, match="game is over"):
            ENGINE.apply(state, seat, {"type": "cash", "pile": "corn"}, SeededChance(0))


JUNK = [
    None,
    True,
    1,
    -1,
    99,
    "",
    "corn",
    "corn-01",
    "w1",
    "t3",
    [],
    ["corn-01"],
    [1],
    {},
    "special",
]
FIELDS = ["give", "take", "way", "cards", "card", "pile", "special", "opponent", "extra"]


def test_junk_moves_raise_nothing_but_illegal_move():
    rng = random.Random(0)
    for _ in range(2000):
        move = {"type": rng.choice(["trade", "load", "tax", "cash", 3, None])}
        for name in rng.sample(FIELDS, rng.randint(0, 3)):
            move[name] = rng.choice(JUNK)
        for make, seat in ((trading, 0), (loading, 0), (cashing, 0), (taxing, 1)):
            try:
                ENGINE.apply(make(), seat, move, SeededChance(0))
            except IllegalMove as refused:
                assert refused.reason.endswith(".")
