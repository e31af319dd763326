"""The rulebook's six examples, reproduced on this project's board with their outcomes."""

from __future__ import annotations

import pytest

from engines.api import IllegalMove, ScriptedChance
from engines.mare_balticum import ENGINE
from engines.mare_balticum.data import FISH, GOODS
from engines.mare_balticum.legal import sail_moves
from engines.mare_balticum.state import OVER

from .helpers import craft, in_turn


def play(state, seat, move):
    return ENGINE.apply(state, seat, move, ScriptedChance([]))


def test_example_1_fleet_movement():
    # A fleet in a line from a port: Riga, Gulf of Riga, Irbe Strait (5 players: 3 vessels).
    state = in_turn(5, fleets={0: ["riga", "gulf_riga", "irbe_strait"]})
    targets = {}
    for move in sail_moves(state, 0):
        targets.setdefault(move["from"], set()).add(move["to"])
    # The vessel in the port may go to one of three areas next to the others.
    assert targets["riga"] == {"vainameri", "eastern_gotland", "curonian_coast"}
    # The middle vessel cannot move: wherever it went, the fleet would split.
    assert "gulf_riga" not in targets
    with pytest.raises(IllegalMove, match="split your fleet"):
        play(state, 0, {"type": "sail", "from": "gulf_riga", "to": "vainameri"})
    # The outer vessel may move, but to one area only.
    assert targets["irbe_strait"] == {"vainameri"}


def test_example_2_fishing_a_salmon():
    state = in_turn(
        3, fleets={2: ["gdansk", "gulf_gdansk"]}, goods={"gulf_gdansk": ["salmon"]}, turn=2
    )
    after = play(state, 2, {"type": "fish", "area": "gulf_gdansk", "kind": "salmon"})
    assert after.holds[2] == (1, 0, 0, 0)
    assert after.goods["gulf_gdansk"] == ()


def test_example_3_unloading_herring_and_flatfish_at_gdansk_keeps_the_salmon():
    state = in_turn(
        3,
        fleets={0: ["gdansk", "gulf_gdansk", "bornholm", "kalmar_sound", "gdansk_deep"]},
        demand={"gdansk": ["herring", "flatfish"]},
        holds={0: {"herring": 2, "flatfish": 1, "salmon": 2}},
    )
    state = play(state, 0, {"type": "sail", "from": "kalmar_sound", "to": "curonian_coast"})
    unload = {"type": "unload", "port": "gdansk", "fish": {"flatfish": 1, "herring": 2}}
    assert unload in ENGINE.legal_moves(state, 0)
    state = play(state, 0, unload)
    assert state.holds[0] == (2, 0, 0, 0)
    assert state.warehouses[0][: len(FISH)] == (0, 1, 2, 0)
    with pytest.raises(IllegalMove, match="Gdańsk does not buy salmon"):
        play(state, 0, {"type": "unload", "port": "gdansk", "fish": {"salmon": 2}})


def test_example_4_scoring_21_points():
    state = in_turn(
        3,
        markets={0: {"salmon": 3, "herring": 2, "flatfish": 1, "cod": 0}},
        warehouses={0: {"salmon": 3, "herring": 4, "flatfish": 1, "amber": 3}},
    )
    result = ENGINE.result(craft(state, phase=OVER, time_track=6))
    detail = result.breakdown["seats"][0]
    assert detail["points"] == {"salmon": 9, "flatfish": 1, "herring": 8, "cod": 0, "amber": 3}
    assert result.scores[0] == 21


def test_example_5_demand_management_salmon_on_0_herring_on_minus_1():
    state = in_turn(
        3,
        {"demand_management": True},
        fleets={0: ["gdansk"]},
        holds={0: {"salmon": 3, "herring": 2}},
    )
    move = {
        "type": "unload",
        "port": "gdansk",
        "fish": {"salmon": 3, "herring": 2},
        "demand": {"salmon": 0, "herring": 1},
    }
    assert move in ENGINE.legal_moves(state, 0)
    state = play(state, 0, move)
    assert state.demand["gdansk"] == ("salmon", "herring")
    assert state.warehouses[0][GOODS.index("salmon")] == 3
    assert state.warehouses[0][GOODS.index("herring")] == 1
    assert state.removed[GOODS.index("herring")] == 1
    lines = ENGINE.describe(None, 0, move, state, None)
    assert "One herring is lost to the -1 circle." in lines
    # From now on only salmon and herring can be unloaded in Gdańsk.
    later = craft(state, holds={0: {"flatfish": 2}})
    with pytest.raises(IllegalMove, match="no free demand circle"):
        play(
            later,
            0,
            {
                "type": "unload",
                "port": "gdansk",
                "fish": {"flatfish": 2},
                "demand": {"flatfish": 0},
            },
        )


def test_example_6_the_contract_worth_14_points():
    state = in_turn(
        3,
        {"trade_contracts": True},
        contracts={0: "c1"},
        markets={0: {"salmon": 1, "herring": 1, "flatfish": 2, "cod": 3}},
        warehouses={0: {"salmon": 2, "herring": 2, "amber": 4, "cod": 1}},
    )
    result = ENGINE.result(craft(state, phase=OVER, time_track=6))
    detail = result.breakdown["seats"][0]
    assert detail["contract_sets"] == 2
    assert detail["contract_points"] == 14
    assert result.scores[0] == 14 + 3  # the cod left in the warehouse scores normally
