"""Bad input: every illegal or malformed move raises IllegalMove with a readable reason."""

from __future__ import annotations

import pytest

from engines.api import IllegalMove, MalformedMove, ScriptedChance
from engines.mare_balticum import ENGINE

from .helpers import craft, fresh, in_turn, no_refill


def play(state, seat, move):
    return ENGINE.apply(state, seat, move, ScriptedChance([]))


def test_a_sail_that_splits_the_fleet():
    state = in_turn(5, fleets={0: ["gdansk", "gulf_gdansk", "bornholm"]})
    with pytest.raises(IllegalMove, match="would split your fleet"):
        play(state, 0, {"type": "sail", "from": "gulf_gdansk", "to": "kalmar_sound"})


def test_a_sail_onto_ones_own_vessel():
    state = in_turn(5, fleets={0: ["gdansk", "gulf_gdansk", "bornholm"]})
    with pytest.raises(IllegalMove, match="You already have a vessel in Bornholm Basin"):
        play(state, 0, {"type": "sail", "from": "gdansk", "to": "bornholm"})


def test_fishing_a_fish_into_a_full_hold():
    state = in_turn(
        3,
        fleets={0: ["gdansk", "gulf_gdansk"]},
        goods={"gulf_gdansk": ["cod"]},
        holds={0: {"herring": 5}},
    )
    with pytest.raises(
        IllegalMove, match="Your hold is full: throw a fish overboard or fish amber."
    ):
        play(state, 0, {"type": "fish", "area": "gulf_gdansk", "kind": "cod"})


def test_unloading_a_fish_the_port_does_not_demand():
    state = in_turn(3, fleets={0: ["riga"]}, demand={"riga": ["cod"]}, holds={0: {"salmon": 2}})
    with pytest.raises(IllegalMove, match="Riga does not buy salmon"):
        play(state, 0, {"type": "unload", "port": "riga", "fish": {"salmon": 2}})


def test_a_production_token_on_a_filled_market_space():
    state = no_refill(in_turn(3, markets={1: {"cod": 1}}, played={1: [1]}))
    state = craft(state, phase="time", pending=(None, None, None), time_track=1)
    with pytest.raises(IllegalMove, match="Your cod market space already holds a production token"):
        play(state, 1, {"type": "produce", "token": 2, "kind": "cod"})


def test_the_tax_with_fewer_than_two_goods_when_not_the_last_token():
    state = in_turn(3, warehouses={0: {"amber": 1}})
    state = craft(state, phase="time", pending=(None, None, None), time_track=1)
    with pytest.raises(IllegalMove, match="You need at least 2 goods to pay the tax"):
        play(state, 0, {"type": "produce", "token": "tax", "discard": {"warehouse": {"amber": 1}}})


def test_any_move_out_of_turn():
    state = in_turn(3)
    for move in ENGINE.legal_moves(state, 0):
        with pytest.raises(IllegalMove, match="It is not your turn."):
            play(state, 1, move)
    assert ENGINE.legal_moves(state, 1) == []
    start = fresh(3)
    with pytest.raises(IllegalMove, match="not your turn"):
        play(start, 2, {"type": "place_start", "port": "riga"})


def test_a_move_of_the_wrong_phase():
    with pytest.raises(IllegalMove, match="port where your first vessel starts"):
        play(fresh(3), 0, {"type": "end_turn"})
    with pytest.raises(IllegalMove, match="only be done"):
        play(in_turn(3), 0, {"type": "produce", "token": 1, "kind": "cod"})


def test_a_seat_that_does_not_exist():
    for seat in (-1, 3, True, "0"):
        with pytest.raises(IllegalMove, match="no such seat"):
            play(in_turn(3), seat, {"type": "end_turn"})


MALFORMED = [
    "end_turn",
    ["end_turn"],
    {},
    {"type": 3},
    {"type": "swim"},
    {"type": "end_turn", "now": True},
    {"type": "sail"},
    {"type": "sail", "to": 4},
    {"type": "sail", "to": "atlantis"},
    {"type": "sail", "to": "gulf_gdansk", "from": None},
    {"type": "fish", "area": "gulf_gdansk"},
    {"type": "fish", "area": "gulf_gdansk", "kind": "whale"},
    {"type": "unload", "port": "gdansk", "fish": {}},
    {"type": "unload", "port": "gdansk", "fish": {"cod": 0}},
    {"type": "unload", "port": "gdansk", "fish": {"cod": True}},
    {"type": "unload", "port": "gdansk", "fish": {"amber": 1}},
    {"type": "unload", "port": "gdansk", "fish": {"cod": 1}, "demand": {}},
    {"type": "unload", "port": "gdansk", "fish": {"cod": 1}, "demand": {"cod": "0"}},
    {"type": "unload", "port": "gdansk", "fish": ["cod"]},
    {"type": "take_contract", "contract": "c9"},
    {"type": "overboard", "kind": "cod", "count": 0},
    {"type": "overboard", "kind": "cod", "count": 1.0},
    {"type": "overboard", "kind": "amber", "count": 1},
    {"type": "produce", "token": 4, "kind": "cod"},
    {"type": "produce", "token": True, "kind": "cod"},
    {"type": "produce", "token": 1},
    {"type": "produce", "token": 1, "kind": "cod", "discard": {}},
    {"type": "produce", "token": "tax"},
    {"type": "produce", "token": "tax", "kind": "cod", "discard": {}},
    {"type": "produce", "token": "tax", "discard": {"bank": {"cod": 1}}},
    {"type": "produce", "token": "tax", "discard": {"hold": {"amber": 1}}},
]


@pytest.mark.parametrize("move", MALFORMED, ids=range(len(MALFORMED)))
def test_a_malformed_move(move):
    with pytest.raises(MalformedMove) as raised:
        play(in_turn(3), 0, move)
    assert raised.value.reason.endswith(".")


def test_a_rejected_move_changes_nothing():
    state = in_turn(3, holds={0: {"cod": 5}}, goods={"copenhagen": ()})
    before = ENGINE.dump(state)
    with pytest.raises(IllegalMove):
        play(state, 0, {"type": "overboard", "kind": "cod", "count": 6})
    assert ENGINE.dump(state) == before


def test_the_state_shares_nothing_with_a_move():
    state = craft(
        in_turn(3, warehouses={0: {"amber": 3}}), phase="time", pending=(None,) * 3, time_track=1
    )
    move = {"type": "produce", "token": "tax", "discard": {"warehouse": {"amber": 2}}}
    after = play(state, 0, move)
    move["discard"]["warehouse"]["amber"] = 1
    assert after.pending[0]["discard"] == {"warehouse": {"amber": 2}}
