"""Version 2 of the Mare Nostrum rules beside version 1: versions, 36-point set-ups, the
turn limit by default, and the rule points settled against the rulebook."""

from __future__ import annotations

import json
import random

import pytest

from engines.api import IllegalMove, ScriptedChance, SeededChance, canonical_json
from engines.mare_nostrum import ENGINE as NEWEST
from engines.mare_nostrum import bot, data
from engines.mare_nostrum.income import province_income
from engines.mare_nostrum.state import clone, controlled
from engines.mare_nostrum.war import update_occupation
from tests.engines.mare_nostrum.helpers import ENGINE as V1
from tests.engines.mare_nostrum.helpers import (
    V2,
    building,
    invariant,
    put_legions,
    warring,
    with_hand,
)

GREECE, CARTHAGE, ROME, EGYPT = range(4)
OPTIONS = {"civilisations": "recommended", "setup": "starting", "turn_limit": 30}


def start2(seats: int = 4, **options) -> dict:
    return V2.setup(seats, {**OPTIONS, **options}, ScriptedChance([0] * 20))


def play2(state: dict, seat: int, move: dict, outcomes=()) -> dict:
    return V2.apply(state, seat, move, ScriptedChance(list(outcomes)))


# --- Versions --------------------------------------------------------------------------


def test_the_engine_plays_versions_one_and_two_beside_newer_ones():
    assert V2.version == 2 and {1, 2} <= set(NEWEST.versions)
    assert NEWEST.at_version(2) is V2 and V2.at_version(2) is V2
    assert V1.version == 1 and V1.at_version(2) is V2 and V1.at_version(1) is V1
    assert V2.at_version(NEWEST.version) is NEWEST
    assert NEWEST.bot_levels == ("easy", "normal", "hard") and NEWEST.slow_bot_levels == ("hard",)
    with pytest.raises(KeyError, match="no version 9"):
        NEWEST.at_version(9)


def test_version_one_keeps_its_options_and_version_two_limits_games_to_40_turns():
    old = {option.name: option.default for option in V1.options}
    assert old == {"civilisations": "recommended", "setup": "starting", "turn_limit": 0}
    new = {option.name: option.default for option in V2.options}
    assert new == {"civilisations": "recommended", "setup": "starting", "turn_limit": 40}
    assert V2.setup(4, {}, ScriptedChance([0] * 20))["options"]["turn_limit"] == 40
    assert V2.setup(4, {"turn_limit": 0}, ScriptedChance([0] * 20))["options"]["turn_limit"] == 0
    assert V1.setup(4, {}, ScriptedChance([0] * 20))["options"]["turn_limit"] == 0


def test_a_version_one_state_dumps_without_a_rules_version_and_loads_as_version_one():
    old = V1.setup(4, OPTIONS, ScriptedChance([0] * 20))
    assert "rules_version" not in V1.dump(old)
    assert "rules_version" not in V1.load(json.loads(json.dumps(V1.dump(old))))
    assert "rules_version" not in V1.view(old, 0) and "bank" not in V1.view(old, 0)
    new = start2()
    dumped = V2.dump(new)
    assert dumped["rules_version"] == 2
    again = V2.load(json.loads(json.dumps(dumped)))
    assert canonical_json(V2.dump(again)) == canonical_json(dumped)


# --- Set-ups ---------------------------------------------------------------------------


def points(start: dict) -> int:
    costs = data.COSTS
    return (
        costs["hero"]
        + costs["control_marker"] * (len(start["provinces"]) - 1)
        + costs["city"] * len(start["cities"])
        + costs["temple"] * len(start["temples"])
        + costs["caravan"] * len(start["caravans"])
        + costs["market"] * len(start["markets"])
        + costs["legion"] * sum(start["legions"].values())
        + costs["trireme"] * sum(start["triremes"].values())
        + costs["fortress"] * len(start["fortresses"])
    )


@pytest.mark.parametrize("civ", data.CIV_IDS)
def test_each_version_two_set_up_is_worth_the_rulebooks_36_points(civ):
    start = data.STARTS_V2[civ]
    assert points(start) == 36
    capital = data.CIV[civ]["capital"]
    assert capital in start["provinces"] and len(set(start["provinces"])) == 3
    assert capital in start["fortresses"]
    for pid, site in start["cities"]:
        assert site in data.city_sites(2, pid) and pid in start["provinces"]
    for pid, goods in start["caravans"]:
        assert goods in data.PROVINCE[pid]["resources"] and pid in start["provinces"]
    if civ == "babylon":
        assert not start["triremes"]
    if civ == "egypt":
        assert ["aegyptus", "papyrus"] in start["caravans"]
        assert ["aegyptus", "grain"] in start["caravans"]


def test_version_one_set_ups_and_city_sites_are_untouched():
    assert points(data.CIV["egypt"]["start"]) == 51  # the printed data of version 1
    assert data.city_sites(1, "aegyptus") == ["Alexandria", "Memphis"]
    assert data.city_sites(2, "aegyptus") == ["Alexandria"]
    assert data.city_sites(1, "etruria") == [] and data.city_sites(2, "etruria") == ["Pisae"]
    old = V1.setup(4, OPTIONS, ScriptedChance([0] * 20))
    assert old["provinces"]["aegyptus"]["cities"] == ["Alexandria", "Memphis"]


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_the_printed_titles_stay_with_their_holders_after_the_first_title_check(seats):
    state = start2(seats)
    assert state["phase"] == "trade_number"  # no title changed hands, no choice pending
    holders = {title: state["civs"][seat] for title, seat in state["titles"].items()}
    printed = {"general": "rome", "lawgiver": "egypt", "navigator": "carthage"}
    for title, civ in printed.items():
        if civ in state["civs"]:
            assert holders[title] == civ
    for civ in state["civs"]:
        assert len(controlled(state, civ)) == 3
    invariant(state)


# --- No endless games ------------------------------------------------------------------


@pytest.mark.parametrize("level", ["easy", "normal"])
def test_a_bot_only_game_with_the_default_options_ends(level):
    chance, rng = SeededChance(11), random.Random(11)
    state = V2.setup(3, {}, chance)
    moves = 0
    while due := V2.to_move(state):
        seat = min(due)
        move = V2.bot_move(V2.view(state, seat), V2.legal_moves(state, seat), rng, level=level)
        state = V2.apply(state, seat, move, chance)
        moves += 1
        assert moves < 20000
    assert V2.result(state) is not None and state["turn"] <= 40


# --- Rule points -----------------------------------------------------------------------


def launched_trireme_state() -> dict:
    state = with_hand(building(start2(), GREECE), GREECE, coin=3)
    build = {"type": "build", "item": "trireme", "province": "attica", "pay": ["coin", "coin"]}
    state = play2(state, GREECE, build)  # Pericles: triremes cost 2
    assert state["provinces"]["attica"]["dock"] == {"greece": 1}
    return warring(state, GREECE)


def test_new_triremes_put_to_sea_in_the_war_phase():
    """Rulebook, Build 5: "During the War Phase, new triremes put to sea"."""
    state = launched_trireme_state()
    legal = V2.legal_moves(state, GREECE)
    assert {"type": "end_war"} not in legal
    assert {"type": "launch", "province": "attica", "sea": "s6"} in legal
    with pytest.raises(IllegalMove, match="put to sea"):
        play2(state, GREECE, {"type": "end_war"})
    state = play2(state, GREECE, {"type": "launch", "province": "attica", "sea": "s6"})
    assert {"type": "end_war"} in V2.legal_moves(state, GREECE)
    play2(state, GREECE, {"type": "end_war"})


def test_version_one_still_lets_new_triremes_stay_in_dock():
    state = clone(launched_trireme_state())
    state.pop("rules_version")
    assert {"type": "end_war"} in V1.legal_moves(state, GREECE)


def test_the_bank_lies_face_up_in_every_view():
    """Rulebook, Setup: lay the cards "face up next to the game board — this is the bank"."""
    state = start2()
    for viewer in (None, GREECE, EGYPT):
        shown = V2.view(state, viewer)
        assert shown["bank"] == state["bank"]
        assert shown["bank_size"] == sum(state["bank"].values())


def occupied_aegyptus(legions: int) -> dict:
    """Egypt's capital (city, temple, two caravans) occupied by Rome's legions."""
    state = start2()
    aegyptus = state["provinces"]["aegyptus"]
    state["supply"]["egypt"]["legion"] += aegyptus["legions"].pop("egypt", 0)
    aegyptus["fortress"] = None
    state["supply"]["egypt"]["fortress"] += 1
    state = put_legions(state, "rome", "aegyptus", legions)
    update_occupation(state, "aegyptus")
    assert state["provinces"]["aegyptus"]["occupier"] == "rome"
    return warring(state, ROME)


def test_the_occupier_chooses_which_buildings_its_legions_hold():
    """Rulebook, Occupation: income goes to "the player occupying the buildings"."""
    state = occupied_aegyptus(1)
    legal = V2.legal_moves(state, ROME)
    holds = [move for move in legal if move["type"] == "hold"]
    assert [move["buildings"] for move in holds] == [
        ["city:Alexandria"],
        ["temple"],
        ["caravan:papyrus"],
        ["caravan:grain"],
    ]
    assert {"type": "end_war"} not in legal
    with pytest.raises(IllegalMove, match="before you end the war turn"):
        play2(state, ROME, {"type": "end_war"})
    # The default would have been the city; Rome takes the papyrus instead.
    after = play2(
        state, ROME, {"type": "hold", "province": "aegyptus", "buildings": ["caravan:papyrus"]}
    )
    assert V2.view(after, None)["provinces"]["aegyptus"]["held"] == ["caravan:papyrus"]
    assert dict(province_income(after["provinces"]["aegyptus"])) == {
        "egypt": {"coin": 2, "grain": 1},  # its temple still doubles its city
        "rome": {"papyrus": 1},
    }
    assert {"type": "end_war"} in V2.legal_moves(after, ROME)
    # The log keeps its words; a reader gets the seat and the building in words.
    assert ["Rome's legions in Aegyptus hold caravan:papyrus.", None] in after["log"]
    assert "The legions of {seat:2} in Aegyptus hold the papyrus caravan." in V2.describe(
        state,
        ROME,
        {"type": "hold", "province": "aegyptus", "buildings": ["caravan:papyrus"]},
        after,
        None,
    )


@pytest.mark.parametrize(
    "buildings",
    [[], ["temple", "caravan:grain"], ["market"], ["city:Memphis"], ["temple", "temple"]],
)
def test_a_hold_naming_the_wrong_buildings_is_refused_and_changes_nothing(buildings):
    state = occupied_aegyptus(1)
    before = canonical_json(V2.dump(state))
    with pytest.raises(IllegalMove, match="Name 1 different building"):
        play2(state, ROME, {"type": "hold", "province": "aegyptus", "buildings": buildings})
    assert canonical_json(V2.dump(state)) == before


def test_legions_enough_for_every_building_need_no_choice():
    state = occupied_aegyptus(4)
    legal = V2.legal_moves(state, ROME)
    assert not [move for move in legal if move["type"] == "hold"]
    assert {"type": "end_war"} in legal
    with pytest.raises(IllegalMove, match="no choice"):
        play2(state, ROME, {"type": "hold", "province": "aegyptus", "buildings": ["temple"]})


def test_version_one_keeps_the_engines_choice_of_held_buildings():
    state = clone(occupied_aegyptus(1))
    state.pop("rules_version")
    assert {"type": "end_war"} in V1.legal_moves(state, ROME)
    hold = {"type": "hold", "province": "aegyptus", "buildings": ["temple"]}
    with pytest.raises(IllegalMove, match="most valuable"):
        V1.apply(state, ROME, hold, ScriptedChance([]))


# --- Bots ------------------------------------------------------------------------------


def test_the_easy_bot_is_the_first_bot_and_an_unknown_level_is_refused():
    state = start2()
    seat = min(V2.to_move(state))
    view, legal = V2.view(state, seat), V2.legal_moves(state, seat)
    easy = V2.bot_move(view, legal, random.Random(3), level="easy")
    assert easy == bot.choose_move(view, legal, random.Random(3))
    assert V2.bot_move(view, legal, random.Random(3)) in legal
    with pytest.raises(KeyError, match="no bot level"):
        V2.bot_move(view, legal, random.Random(3), level="grandmaster")
