"""Rules 'Powers and seats' and 'Setup': civilisations, neutrals, both set-ups, titles."""

from __future__ import annotations

import pytest

from engines.api import IllegalMove, ScriptedChance
from tests.engines.mare_nostrum.helpers import ENGINE, OPTIONS, check_pieces, play, start


@pytest.mark.parametrize(
    "seats, civs",
    [
        (3, ["greece", "carthage", "babylon"]),
        (4, ["greece", "carthage", "rome", "egypt"]),
        (5, ["rome", "carthage", "greece", "egypt", "babylon"]),
    ],
)
def test_default_civilisations_follow_the_player_count(seats, civs):
    assert start(seats)["civs"] == civs


def test_random_civilisations_are_drawn_by_chance():
    chance = ScriptedChance([4, 0, 2] + [0] * 5)
    state = ENGINE.setup(3, {**OPTIONS, "civilisations": "random"}, chance)
    # Draws from rome, carthage, greece, egypt, babylon without replacement.
    assert state["civs"] == ["babylon", "rome", "egypt"]


def test_chosen_civilisations_are_picked_in_seat_order():
    state = ENGINE.setup(3, {**OPTIONS, "civilisations": "choose"}, ScriptedChance([]))
    assert ENGINE.to_move(state) == {0}
    state = play(state, 0, {"type": "choose_civ", "civ": "egypt"})
    with pytest.raises(IllegalMove, match="taken"):
        play(state, 1, {"type": "choose_civ", "civ": "egypt"})
    state = play(state, 1, {"type": "choose_civ", "civ": "rome"})
    state = play(state, 2, {"type": "choose_civ", "civ": "babylon"}, [0] * 5)
    assert state["civs"] == ["egypt", "rome", "babylon"]
    assert state["phase"] == "trade_number"


def test_neutral_powers_hold_their_capital_and_its_land_neighbours():
    state = start(3)  # Rome and Egypt are neutral
    assert state["neutrals"] == ["rome", "egypt"]
    latium = state["provinces"]["latium"]
    assert latium["marker"] == "rome" and latium["legions"] == {"rome": 1}
    assert latium["fortress"] == "rome"
    for pid in ("etruria", "magna_graecia"):
        province = state["provinces"][pid]
        assert province["marker"] == "rome" and province["legions"] == {"rome": 1}
        assert province["fortress"] is None and not province["cities"]
    for pid in ("marmarica", "thebais", "nabataea"):
        assert state["provinces"][pid]["marker"] == "egypt"
    check_pieces(state)


def test_starting_setup_places_the_printed_pieces_and_the_civilisation_hero():
    state = start(4)
    carthage = state["civs"].index("carthage")
    africa = state["provinces"]["africa"]
    assert africa["marker"] == "carthage" and africa["fortress"] == "carthage"
    assert africa["cities"] == ["Carthago"] and africa["market"] == "grain"
    assert state["seas"]["s3"] == {"carthage": 2} and state["seas"]["s1"] == {"carthage": 1}
    assert state["cards"][carthage] == ["hannibal"]
    assert state["supply"]["carthage"]["control_marker"] == 12 - 3
    check_pieces(state)


def test_printed_titles_go_to_their_players_and_the_rest_by_counts():
    state = start(4)
    assert state["titles"] == {"navigator": 1, "lawgiver": 3, "general": 2}
    # Three players: Rome and Egypt are absent. Greece leads the cities (lawgiver);
    # Greece and Babylon tie for the General, and Babylon holds no title yet.
    state = start(3)
    assert state["titles"] == {"navigator": 1, "lawgiver": 0, "general": 2}


def experienced(seats: int = 4) -> dict:
    return ENGINE.setup(seats, {**OPTIONS, "setup": "experienced"}, ScriptedChance([]))


def test_experienced_setup_gives_the_capital_marker_free_and_36_points():
    state = experienced()
    assert state["phase"] == "setup" and state["setup"] == {"seat": 0, "points": 36}
    for civ in ("greece", "carthage", "rome", "egypt"):
        capital = {"greece": "attica", "carthage": "africa", "rome": "latium", "egypt": "aegyptus"}
        assert state["provinces"][capital[civ]]["marker"] == civ
    assert state["provinces"]["babylonia"]["marker"] == "babylon"  # neutral


def test_experienced_setup_places_markers_only_next_to_the_capital_except_greek_lands():
    state = experienced()
    state = play(
        state, 0, {"type": "setup_build", "item": "control_marker", "province": "macedonia"}
    )
    assert state["setup"]["points"] == 33
    state = play(state, 0, {"type": "setup_build", "item": "control_marker", "province": "creta"})
    with pytest.raises(IllegalMove, match="next to your capital"):
        play(state, 0, {"type": "setup_build", "item": "control_marker", "province": "illyria"})
    state = play(
        state, 0, {"type": "setup_build", "item": "city", "province": "creta", "site": "Cnossus"}
    )
    state = play(state, 0, {"type": "end_setup"})
    with pytest.raises(IllegalMove, match="next to your capital"):
        play(state, 1, {"type": "setup_build", "item": "control_marker", "province": "sicilia"})


def test_experienced_setup_military_units_only_in_the_capital_and_no_fleet_for_babylon():
    state = experienced(5)
    rome = 0
    state = play(
        state, rome, {"type": "setup_build", "item": "control_marker", "province": "etruria"}
    )
    with pytest.raises(IllegalMove, match="capital only"):
        play(state, rome, {"type": "setup_build", "item": "legion", "province": "etruria"})
    state = play(state, rome, {"type": "setup_build", "item": "trireme", "province": "latium"})
    assert state["provinces"]["latium"]["dock"] == {"rome": 1}
    for seat in range(4):
        state = (
            play(state, seat, {"type": "end_setup"}) if state["setup"]["seat"] == seat else state
        )
    babylon = 4
    assert state["setup"]["seat"] == babylon
    with pytest.raises(IllegalMove, match="no coast"):
        play(state, babylon, {"type": "setup_build", "item": "trireme", "province": "babylonia"})


def test_experienced_setup_points_run_out_and_only_the_own_hero_is_bought():
    state = experienced()
    with pytest.raises(IllegalMove, match="own civilisation's hero"):
        play(state, 0, {"type": "setup_build", "item": "archimedes"})
    with pytest.raises(IllegalMove, match="serves"):
        play(state, 0, {"type": "setup_build", "item": "hannibal"})
    state = play(state, 0, {"type": "setup_build", "item": "pericles"})
    for _ in range(8):
        state = play(state, 0, {"type": "setup_build", "item": "legion", "province": "attica"})
    state = play(state, 0, {"type": "setup_build", "item": "fortress", "province": "attica"})
    assert state["setup"]["points"] == 0 and state["cards"][0] == ["pericles"]
    with pytest.raises(IllegalMove, match="points"):
        play(state, 0, {"type": "setup_build", "item": "trireme", "province": "attica"})


def test_experienced_setup_titles_go_by_counts_one_each_ties_by_chance():
    state = experienced(3)
    greece, carthage, babylon = 0, 1, 2
    state = play(
        state,
        greece,
        {"type": "setup_build", "item": "city", "province": "attica", "site": "Athenae"},
    )
    state = play(
        state,
        greece,
        {"type": "setup_build", "item": "caravan", "province": "attica", "site": "oil"},
    )
    state = play(state, greece, {"type": "end_setup"})
    state = play(state, carthage, {"type": "setup_build", "item": "legion", "province": "africa"})
    state = play(state, carthage, {"type": "end_setup"})
    # Navigator: Greece leads. Lawgiver: Greece leads but holds a title, so Carthage and
    # Babylon tie at 0 and chance picks (outcome 1: Babylon). General: Carthage is left.
    state = play(state, babylon, {"type": "end_setup"}, [1])
    lines = [text for text, _ in state["log"]]
    assert "Greece is the Great Navigator." in lines
    assert "Babylon is the Great Lawgiver." in lines
    assert "Carthage is the Great General." in lines
    # The check at the start of the first Trade phase then lets Greece's count win.
    assert "Greece takes the title of Great Lawgiver from Babylon." in lines
    assert state["titles"] == {"navigator": greece, "lawgiver": greece, "general": carthage}
    assert state["phase"] == "trade_number"


@pytest.mark.parametrize(
    "seats, pools", [(3, (18, 8, 8, 4)), (4, (23, 10, 10, 5)), (5, (28, 12, 12, 6))]
)
def test_shared_building_pools_follow_the_player_count(seats, pools):
    state = ENGINE.setup(seats, {**OPTIONS, "setup": "experienced"}, ScriptedChance([]))
    assert tuple(state["pool"][kind] for kind in ("caravan", "city", "market", "temple")) == pools
    for civ in state["civs"]:
        assert state["supply"][civ] == {
            "control_marker": 11,
            "legion": 8,
            "trireme": 5,
            "fortress": 8,
        }
