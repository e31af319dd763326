"""Rules 'War': naming, moving, battles, occupation, pillage, assimilation, the turn limit."""

from __future__ import annotations

import pytest

from engines.api import IllegalMove
from engines.mare_nostrum.state import clone
from tests.engines.mare_nostrum.helpers import (
    ENGINE,
    dice,
    give_cards,
    play,
    put_legions,
    start,
    warring,
)

GREECE, CARTHAGE, ROME, EGYPT = range(4)


def move(unit: str, origin: str, goal: str) -> dict:
    return {"type": "move", "unit": unit, "from": origin, "to": goal}


def attack(space: str, target: str) -> dict:
    return {"type": "attack", "space": space, "target": target}


def test_the_general_names_who_goes_to_war_one_at_a_time():
    state = clone(start(4))
    state.update(phase="build", trade=None)
    state["build"] = {"done": [0, 1, 3], "current": ROME, "cleopatra": False, "hammurabi": False}
    state = play(state, ROME, {"type": "end_build"})
    assert state["phase"] == "name_warrior" and ENGINE.to_move(state) == {ROME}
    state = play(state, ROME, {"type": "name_warrior", "seat": EGYPT})
    assert ENGINE.to_move(state) == {EGYPT}
    with pytest.raises(IllegalMove, match="not your turn"):
        play(state, ROME, {"type": "end_war"})


def test_a_trireme_in_dock_puts_to_sea_as_its_move():
    state = clone(start(4))
    state["provinces"]["aegyptus"]["dock"] = {"egypt": 1}
    state["supply"]["egypt"]["trireme"] -= 1
    state = warring(state, EGYPT)
    with pytest.raises(IllegalMove, match="does not touch"):
        play(state, EGYPT, {"type": "launch", "province": "aegyptus", "sea": "s10"})
    state = play(state, EGYPT, {"type": "launch", "province": "aegyptus", "sea": "s9"})
    assert state["seas"]["s9"] == {"egypt": 2} and not state["provinces"]["aegyptus"]["dock"]
    assert state["war"]["moved"] == {"s9": 1}


def test_a_trireme_moves_one_sea_or_two_with_ulysses():
    state = warring(start(4), GREECE)
    with pytest.raises(IllegalMove, match="too far"):
        play(state, GREECE, move("trireme", "s6", "s4"))
    after = play(state, GREECE, move("trireme", "s6", "s7"))
    assert after["seas"]["s7"] == {"greece": 1}
    state = warring(give_cards(start(4), GREECE, "ulysses"), GREECE)
    after = play(state, GREECE, move("trireme", "s6", "s4"))
    assert after["seas"]["s4"] == {"greece": 1, "rome": 1}


def test_a_legion_moves_one_province_by_land_not_two():
    state = warring(start(4), GREECE)
    after = play(state, GREECE, move("legion", "macedonia", "illyria"))
    assert after["provinces"]["illyria"]["legions"] == {"greece": 1}
    with pytest.raises(IllegalMove, match="out of reach"):
        play(state, GREECE, move("legion", "macedonia", "etruria"))
    with pytest.raises(IllegalMove, match="not moved this turn"):
        play(after, GREECE, move("legion", "illyria", "etruria"))


def test_a_legion_crosses_the_sea_along_a_chain_of_its_owners_triremes():
    state = warring(start(4), GREECE)  # Greek triremes in s5 and s6
    after = play(state, GREECE, move("legion", "attica", "sicilia"))
    assert after["provinces"]["sicilia"]["legions"] == {"greece": 1}
    with pytest.raises(IllegalMove, match="out of reach"):
        play(state, GREECE, move("legion", "attica", "judaea"))  # s10 holds no Greek ship


def rome_in_macedonia(legions: int = 3) -> dict:
    return warring(put_legions(start(4), "rome", "macedonia", legions), ROME)


def test_a_battle_rolls_a_die_per_unit_and_every_five_points_is_a_hit():
    state = rome_in_macedonia()
    assert ENGINE.view(state, None)["provinces"]["macedonia"]["at_war"]
    after = play(state, ROME, attack("macedonia", "greece"), dice(6, 6, 5, 4))
    # 17 against 4: Greece loses 3 hits' worth (its only legion), Rome loses none.
    assert after["provinces"]["macedonia"]["legions"] == {"rome": 3}
    assert after["supply"]["greece"]["legion"] == 8 - 2
    lines = ENGINE.describe(state, ROME, attack("macedonia", "greece"), after, None)
    assert "{seat:2} attacks {seat:0} in Macedonia: 6 + 6 + 5 = 17 against 4;" in lines[0]
    assert "Rome attacks Greece in Macedonia" in after["log"][0][0]  # the stored words


def test_a_fortress_counts_six_and_legions_fall_before_it():
    state = warring(put_legions(start(4), "rome", "attica", 3), ROME)
    after = play(state, ROME, attack("attica", "greece"), dice(2, 2, 2, 5))
    # 6 against 5 + 6 = 11: one hit takes the legion, the fortress stands; Rome loses 2.
    assert after["provinces"]["attica"]["fortress"] == "greece"
    assert after["provinces"]["attica"]["legions"] == {"rome": 1}
    after = play(state, ROME, attack("attica", "greece"), dice(6, 6, 6, 5))
    assert after["provinces"]["attica"]["fortress"] is None
    assert after["supply"]["greece"]["fortress"] == 8


def test_card_bonuses_add_to_every_die():
    state = warring(put_legions(start(4), "carthage", "macedonia", 2), CARTHAGE)
    after = play(state, CARTHAGE, attack("macedonia", "greece"), dice(4, 4, 1))
    # Hannibal: 5 + 5 = 10, two hits.
    assert after["provinces"]["macedonia"]["legions"] == {"carthage": 2}
    state = give_cards(state, CARTHAGE, "agamemnon")
    after = play(state, CARTHAGE, attack("macedonia", "greece"), dice(2, 2, 1))
    assert after["provinces"]["macedonia"]["legions"] == {"carthage": 2}  # 4 + 4 = 8
    state = clone(warring(start(4), GREECE))
    state["seas"]["s6"]["rome"] = 1
    state["supply"]["rome"]["trireme"] -= 1
    state = give_cards(state, GREECE, "lighthouse")
    after = play(state, GREECE, attack("s6", "rome"), dice(1, 2, 6))
    # Pericles and the Lighthouse: (1 + 2) + (2 + 2) = 7 against 6: one hit each.
    assert after["seas"]["s6"] == {"greece": 1}


def test_each_unit_attacks_only_once_per_turn():
    state = rome_in_macedonia()
    state = put_legions(state, "egypt", "macedonia", 1)
    after = play(state, ROME, attack("macedonia", "egypt"), dice(1, 1, 1, 1))
    with pytest.raises(IllegalMove, match="not attacked this turn"):
        play(after, ROME, attack("macedonia", "greece"), dice(6, 6, 6, 1))
    after = play(after, ROME, move("legion", "latium", "etruria"))
    assert after["war"]["attacked"] == {"macedonia": 3}


def test_occupation_holds_buildings_and_pays_the_occupier():
    after = play(rome_in_macedonia(1), ROME, attack("macedonia", "greece"), dice(6, 1))
    province = after["provinces"]["macedonia"]
    assert province["occupier"] == "rome" and province["marker"] == "greece"
    assert ENGINE.view(after, None)["provinces"]["macedonia"]["held"] == ["caravan:gold"]


def test_pillage_takes_the_income_and_frees_the_province_but_never_a_capital():
    after = play(rome_in_macedonia(), ROME, attack("macedonia", "greece"), dice(6, 6, 6, 1))
    gold = after["hands"][ROME]["gold"]
    pillaged = play(after, ROME, {"type": "pillage", "province": "macedonia"})
    province = pillaged["provinces"]["macedonia"]
    assert (
        province["marker"] is None and province["caravans"] == [] and province["occupier"] is None
    )
    assert pillaged["hands"][ROME]["gold"] == gold + 1
    assert pillaged["pool"]["caravan"] == after["pool"]["caravan"] + 1
    assert (
        pillaged["supply"]["greece"]["control_marker"]
        == after["supply"]["greece"]["control_marker"] + 1
    )
    state = warring(put_legions(start(4), "rome", "attica", 3), ROME)
    state = play(state, ROME, attack("attica", "greece"), dice(6, 6, 6, 1))
    assert state["provinces"]["attica"]["occupier"] == "rome"
    with pytest.raises(IllegalMove, match="capitals are never pillaged"):
        play(state, ROME, {"type": "pillage", "province": "attica"})
    with pytest.raises(IllegalMove, match="do not occupy"):
        play(state, ROME, {"type": "pillage", "province": "peloponnesus"})


def next_war_turn(state: dict, seat: int) -> dict:
    state = play(state, seat, {"type": "end_war"})
    return warring(state, seat)


def test_assimilation_at_the_end_of_the_occupiers_next_war_turn():
    state = play(rome_in_macedonia(), ROME, attack("macedonia", "greece"), dice(6, 6, 6, 1))
    state = next_war_turn(state, ROME)
    assert state["provinces"]["macedonia"]["marker"] == "greece"
    state = play(state, ROME, {"type": "end_war"})
    province = state["provinces"]["macedonia"]
    assert province["marker"] == "rome" and province["occupier"] is None
    assert province["caravans"] == ["gold"]


def test_nebuchadnezzar_assimilates_at_the_end_of_the_same_war_turn():
    state = give_cards(rome_in_macedonia(), ROME, "nebuchadnezzar")
    state = play(state, ROME, attack("macedonia", "greece"), dice(6, 6, 6, 1))
    state = play(state, ROME, {"type": "end_war"})
    assert state["provinces"]["macedonia"]["marker"] == "rome"


def test_the_owner_returning_ends_the_occupation():
    state = play(rome_in_macedonia(), ROME, attack("macedonia", "greece"), dice(6, 6, 6, 1))
    state = warring(state, GREECE)
    state = play(state, GREECE, move("legion", "attica", "macedonia"))
    assert state["provinces"]["macedonia"]["occupier"] is None


def test_helen_of_troy_turns_one_attacking_legion():
    state = give_cards(rome_in_macedonia(), GREECE, "helen_of_troy")
    after = play(state, ROME, attack("macedonia", "greece"), dice(1, 1, 1, 1))
    assert after["provinces"]["macedonia"]["legions"] == {"greece": 2, "rome": 2}


def test_neutral_powers_defend_with_dice_rolled_by_the_engine():
    state = warring(put_legions(start(3), "greece", "etruria", 2), 0)  # Rome is neutral
    after = play(state, 0, attack("etruria", "rome"), dice(3, 3, 5))
    # 6 against 5: Rome's legion falls; Greece loses one.
    assert after["provinces"]["etruria"]["legions"] == {"greece": 1}
    assert after["provinces"]["etruria"]["occupier"] == "greece"


def test_the_turn_limit_ends_the_game_after_the_war_phase():
    state = start(4, turn_limit=1)
    state = give_cards(state, EGYPT, "colossus")
    state = warring(state, GREECE)
    state["war"]["done"] = [CARTHAGE, ROME, EGYPT]
    state = play(state, GREECE, {"type": "end_war"})
    result = ENGINE.result(state)
    assert result.winners == (EGYPT,) and "turn limit" in result.reason
    assert result.scores == (1, 1, 1, 2)


def test_the_turn_limit_breaks_ties_on_provinces_and_lets_a_remaining_tie_stand():
    state = start(4, turn_limit=1)
    state = warring(state, GREECE)
    state["war"]["done"] = [CARTHAGE, ROME, EGYPT]
    result = ENGINE.result(play(state, GREECE, {"type": "end_war"}))
    assert result.winners == (GREECE, CARTHAGE, ROME, EGYPT)  # all hold 1 card, 3 provinces


def test_fortresses_never_move():
    state = warring(start(4), GREECE)
    with pytest.raises(IllegalMove, match="Only legions and triremes move"):
        play(state, GREECE, move("fortress", "attica", "macedonia"))


def test_a_legion_from_an_inland_province_cannot_use_the_sea():
    state = clone(start(4))
    state["seas"]["s9"]["egypt"] = 1
    state = warring(state, EGYPT)
    with pytest.raises(IllegalMove, match="out of reach"):
        play(state, EGYPT, move("legion", "thebais", "creta"))
    after = play(state, EGYPT, move("legion", "marmarica", "creta"))
    assert after["provinces"]["creta"]["legions"] == {"egypt": 1}


def test_units_of_two_powers_in_a_space_put_it_at_war():
    state = warring(start(4), GREECE)
    after = play(state, GREECE, move("trireme", "s5", "s4"))
    assert ENGINE.view(after, None)["seas"]["s4"]["at_war"]
    assert not ENGINE.view(after, None)["seas"]["s6"]["at_war"]
