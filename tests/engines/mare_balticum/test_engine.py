"""The engine object offers the whole protocol."""

from __future__ import annotations

import random

from engines.api import Engine, Option, SeededChance, resolve_options
from engines.mare_balticum import ENGINE
from engines.mare_balticum.state import START


def test_engine_offers_every_protocol_member():
    assert isinstance(ENGINE, Engine)
    assert (ENGINE.slug, ENGINE.title, ENGINE.version) == ("mare_balticum", "Mare Balticum", 2)
    assert ENGINE.versions == (1, 2) and ENGINE.at_version(1).version == 1
    assert (ENGINE.min_seats, ENGINE.max_seats) == (3, 5)
    assert all(isinstance(option, Option) and option.help for option in ENGINE.options)
    assert [option.name for option in ENGINE.options] == [
        "demand_management",
        "trade_contracts",
        "seat_order",
    ]


def test_setup_takes_resolved_options_and_tolerates_missing_ones():
    resolved = resolve_options(ENGINE, {"trade_contracts": "yes"})
    assert resolved == {
        "demand_management": False,
        "trade_contracts": True,
        "seat_order": "as_listed",
    }
    state = ENGINE.setup(3, resolved, SeededChance(1))
    assert state.options == resolved
    assert ENGINE.setup(3, {}, SeededChance(1)).options["trade_contracts"] is False
    assert state.phase == START


def test_the_bot_always_answers_with_a_listed_move():
    state = ENGINE.setup(5, {"demand_management": True, "trade_contracts": True}, SeededChance(9))
    rng = random.Random(9)
    chance = SeededChance(10)
    while ENGINE.to_move(state):
        for seat in sorted(ENGINE.to_move(state)):
            legal = ENGINE.legal_moves(state, seat)
            move = ENGINE.bot_move(ENGINE.view(state, seat), legal, rng)
            assert move in legal
            state = ENGINE.apply(state, seat, move, chance)
            if not ENGINE.to_move(state) or seat not in ENGINE.to_move(state):
                break
    assert ENGINE.result(state) is not None
