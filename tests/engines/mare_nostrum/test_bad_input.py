"""Bad input: every illegal or malformed move raises IllegalMove with a readable reason."""

from __future__ import annotations

import pytest

from engines.api import IllegalMove, MalformedMove
from tests.engines.mare_nostrum.helpers import (
    ENGINE,
    building,
    dice,
    play,
    put_legions,
    start,
    warring,
    with_hand,
)

GREECE, CARTHAGE, ROME, EGYPT = range(4)


def rejected(state: dict, seat: int, move, match: str, outcomes=()) -> str:
    with pytest.raises(IllegalMove, match=match) as caught:
        play(state, seat, move, outcomes)
    reason = caught.value.reason
    # A sentence: a capital or a seat placeholder the server fills with a name first.
    assert (reason[0].isupper() or reason.startswith("{seat:")) and reason.endswith("."), reason
    return reason


def greek_builder(**cards: int) -> dict:
    return building(with_hand(start(4), GREECE, **cards), GREECE)


def test_a_set_with_duplicate_goods():
    state = greek_builder(grain=2, fish=1)
    move = {
        "type": "build",
        "item": "legion",
        "province": "attica",
        "pay": ["grain", "grain", "fish"],
    }
    rejected(state, GREECE, move, "all different kinds")


def test_a_wrong_sized_set():
    state = greek_builder(coin=5)
    move = {
        "type": "build",
        "item": "city",
        "province": "macedonia",
        "site": "Pella",
        "pay": ["coin"] * 4,
    }
    rejected(state, GREECE, move, "exactly 3 cards")


def test_a_marker_in_a_province_that_does_not_border_ones_own():
    state = greek_builder(coin=3)
    move = {"type": "build", "item": "control_marker", "province": "hispania", "pay": ["coin"] * 3}
    rejected(state, GREECE, move, "does not border")


def test_building_in_a_province_marked_this_turn_or_at_war():
    state = greek_builder(coin=9)
    state = play(
        state,
        GREECE,
        {"type": "build", "item": "control_marker", "province": "creta", "pay": ["coin"] * 3},
    )
    move = {
        "type": "build",
        "item": "city",
        "province": "creta",
        "site": "Cnossus",
        "pay": ["coin"] * 3,
    }
    rejected(state, GREECE, move, "this turn")
    state = put_legions(state, "rome", "macedonia", 1)
    move = {
        "type": "build",
        "item": "city",
        "province": "macedonia",
        "site": "Pella",
        "pay": ["coin"] * 3,
    }
    rejected(state, GREECE, move, "at war")


def test_a_second_temple_in_a_province():
    state = building(with_hand(start(4), EGYPT, coin=6), EGYPT)
    move = {
        "type": "build",
        "item": "temple",
        "province": "aegyptus",
        "site": "Memphis",
        "pay": ["coin"] * 6,
    }
    rejected(state, EGYPT, move, "one temple per province")


def test_a_legion_moving_two_provinces():
    state = warring(start(4), ROME)
    rejected(
        state,
        ROME,
        {"type": "move", "unit": "legion", "from": "latium", "to": "illyria"},
        "out of reach",
    )


def test_a_unit_attacking_twice():
    state = warring(put_legions(start(4), "rome", "macedonia", 3), ROME)
    state = put_legions(state, "egypt", "macedonia", 1)
    state = play(
        state, ROME, {"type": "attack", "space": "macedonia", "target": "egypt"}, dice(1, 1, 1, 1)
    )
    rejected(
        state, ROME, {"type": "attack", "space": "macedonia", "target": "greece"}, "not attacked"
    )


def test_pillaging_a_capital():
    state = warring(put_legions(start(4), "rome", "attica", 3), ROME)
    state = play(
        state, ROME, {"type": "attack", "space": "attica", "target": "greece"}, dice(6, 6, 6, 1)
    )
    rejected(state, ROME, {"type": "pillage", "province": "attica"}, "never pillaged")


def test_attacking_where_the_target_has_no_units():
    state = warring(start(4), ROME)
    rejected(
        state, ROME, {"type": "attack", "space": "latium", "target": "greece"}, "no military units"
    )
    rejected(state, ROME, {"type": "attack", "space": "latium", "target": "rome"}, "another power")


@pytest.mark.parametrize(
    "seat, move",
    [
        (GREECE, {"type": "set_trade", "n": 1}),
        (EGYPT, {"type": "end_build"}),
        (ROME, {"type": "end_war"}),
        (5, {"type": "set_trade", "n": 1}),
        (None, {"type": "set_trade", "n": 1}),
    ],
)
def test_any_move_out_of_turn(seat, move):
    rejected(start(4), seat, move, "not your turn")


def test_a_move_of_the_wrong_phase():
    rejected(start(4), CARTHAGE, {"type": "end_war"}, "does not fit now")


@pytest.mark.parametrize(
    "move, match",
    [
        ("set_trade", "JSON object"),
        ({}, "no move called"),
        ({"type": "fish"}, "no move called"),
        ({"type": "set_trade"}, "needs the field 'n'"),
        ({"type": "set_trade", "n": True}, "whole number"),
        ({"type": "set_trade", "n": "2"}, "whole number"),
        ({"type": "set_trade", "n": 2, "why": 1}, "no field 'why'"),
        ({"type": "build", "item": "dragon", "pay": []}, "nothing called"),
        ({"type": "build", "item": "legion", "pay": []}, "needs the field 'province'"),
        (
            {"type": "build", "item": "legion", "province": "attica", "pay": "coin"},
            "list of card names",
        ),
        ({"type": "offer", "cards": [1, 2]}, "list of card names"),
    ],
)
def test_a_malformed_move(move, match):
    with pytest.raises(MalformedMove, match=match):
        ENGINE.apply(start(4), CARTHAGE, move, None)


def test_the_navigator_naming_too_many_cards():
    state = with_hand(start(4), CARTHAGE, coin=2)
    rejected(state, CARTHAGE, {"type": "set_trade", "n": 3}, "from 0 to 2")
    rejected(state, CARTHAGE, {"type": "set_trade", "n": -1}, "from 0 to 2")


def test_offering_cards_one_does_not_hold_or_the_wrong_number():
    state = with_hand(with_hand(start(4), CARTHAGE, coin=2), GREECE, grain=2)
    state = play(state, CARTHAGE, {"type": "set_trade", "n": 2})
    rejected(state, GREECE, {"type": "offer", "cards": ["grain", "fish"]}, "do not hold")
    rejected(state, GREECE, {"type": "offer", "cards": ["grain"]}, "exactly 2")
    rejected(state, GREECE, {"type": "offer", "cards": ["grain", "dragon"]}, "no card called")


def test_taking_from_oneself_or_a_card_not_offered():
    state = with_hand(with_hand(start(4), CARTHAGE, coin=1), GREECE, grain=1)
    state = with_hand(with_hand(state, ROME), EGYPT)
    state = play(state, CARTHAGE, {"type": "set_trade", "n": 1})
    state = play(state, GREECE, {"type": "offer", "cards": ["grain"]})
    state = play(state, CARTHAGE, {"type": "offer", "cards": ["coin"]})
    rejected(
        state, CARTHAGE, {"type": "take", "from_seat": CARTHAGE, "card": "coin"}, "another player"
    )
    rejected(
        state, CARTHAGE, {"type": "take", "from_seat": GREECE, "card": "fish"}, "offers no fish"
    )


def test_moves_after_the_game_is_over():
    state = with_hand(start(4), GREECE, coin=12)
    state = building(state, GREECE)
    state = play(state, GREECE, {"type": "build", "item": "pyramids", "pay": ["coin"] * 12})
    assert ENGINE.legal_moves(state, GREECE) == []
    rejected(state, GREECE, {"type": "end_build"}, "over")
