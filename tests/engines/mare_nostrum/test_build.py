"""Rules 'Build': card sets, costs and discounts, where each piece may go, heroes and
wonders, victory after every purchase, and the discard at the end."""

from __future__ import annotations

import pytest

from engines.api import IllegalMove
from engines.mare_nostrum.state import clone
from engines.mare_nostrum.war import update_occupation
from tests.engines.mare_nostrum.helpers import (
    ENGINE,
    building,
    give_cards,
    play,
    put_legions,
    start,
    with_hand,
)

GREECE, CARTHAGE, ROME, EGYPT = range(4)
ALL_GOODS = [
    "incense",
    "papyrus",
    "gold",
    "gems",
    "oil",
    "wine",
    "cattle",
    "fruit",
    "iron",
    "grain",
    "fish",
    "slaves",
]


def builder(seat: int, seats: int = 4, **cards: int) -> dict:
    state = start(seats)
    return building(with_hand(state, seat, **cards), seat)


def buy(item: str, pay: list[str], **place: str) -> dict:
    return {"type": "build", "item": item, **place, "pay": pay}


def test_rulebook_example_three_sets_of_three_but_no_set_of_six_or_nine():
    hand = {"coin": 3, "grain": 2, "incense": 1, "cattle": 1, "gold": 1, "slaves": 1}
    state = builder(CARTHAGE, **hand)
    listed = ENGINE.legal_moves(state, CARTHAGE)
    assert not [m for m in listed if m["type"] == "build" and len(m["pay"]) > 3]
    with pytest.raises(IllegalMove, match="grain is there twice"):
        play(
            state,
            CARTHAGE,
            buy(
                "temple",
                ["grain", "grain", "incense", "cattle", "gold", "slaves"],
                province="africa",
                site="Carthago",
            ),
        )
    with pytest.raises(IllegalMove, match="never a mix"):
        play(
            state,
            CARTHAGE,
            buy(
                "colossus", ["coin"] * 3 + ["grain", "incense", "cattle", "gold", "slaves", "grain"]
            ),
        )
    state = play(state, CARTHAGE, buy("legion", ["coin"] * 3, province="africa"))
    state = play(state, CARTHAGE, buy("legion", ["grain", "incense", "cattle"], province="africa"))
    state = play(state, CARTHAGE, buy("trireme", ["gold", "grain", "slaves"], province="africa"))
    assert state["provinces"]["africa"]["legions"] == {"carthage": 3}
    assert state["provinces"]["africa"]["dock"] == {"carthage": 1}
    assert sum(state["hands"][CARTHAGE].values()) == 0


def test_a_set_must_have_exactly_the_cost_in_cards():
    state = builder(CARTHAGE, coin=4)
    with pytest.raises(IllegalMove, match="exactly 3 cards, not 4"):
        play(state, CARTHAGE, buy("legion", ["coin"] * 4, province="africa"))
    with pytest.raises(IllegalMove, match="do not hold"):
        play(state, CARTHAGE, buy("temple", ["coin"] * 6, province="africa", site="Carthago"))


def test_costs_and_hero_discounts():
    state = builder(ROME, coin=2)  # Julius Caesar: legions and fortresses for 2
    state = play(state, ROME, buy("legion", ["coin", "coin"], province="latium"))
    assert state["provinces"]["latium"]["legions"]["rome"] == 3
    state = builder(GREECE, coin=2)  # Pericles: triremes for 2
    state = play(state, GREECE, buy("trireme", ["coin", "coin"], province="attica"))
    state = builder(CARTHAGE, coin=2)
    with pytest.raises(IllegalMove, match="exactly 3"):
        play(state, CARTHAGE, buy("trireme", ["coin", "coin"], province="africa"))


def test_the_lawgiver_names_the_builders_one_at_a_time():
    state = play(start(4), CARTHAGE, {"type": "set_trade", "n": 0})
    assert state["phase"] == "name_builder" and ENGINE.to_move(state) == {EGYPT}
    state = play(state, EGYPT, {"type": "name_builder", "seat": EGYPT})
    state = play(state, EGYPT, {"type": "end_build"})
    with pytest.raises(IllegalMove, match="not built yet"):
        play(state, EGYPT, {"type": "name_builder", "seat": EGYPT})
    state = play(state, EGYPT, {"type": "name_builder", "seat": ROME})
    assert ENGINE.to_move(state) == {ROME}
    state = play(state, ROME, {"type": "end_build"})
    state = play(state, EGYPT, {"type": "name_builder", "seat": GREECE})
    state = play(state, GREECE, {"type": "end_build"})
    # The last builder needs no naming.
    assert state["phase"] == "build" and ENGINE.to_move(state) == {CARTHAGE}


def without_fleet(state: dict, civ: str) -> dict:
    state = clone(state)
    for fleet in state["seas"].values():
        state["supply"][civ]["trireme"] += fleet.pop(civ, 0)
    return state


def test_a_marker_goes_next_to_a_province_held_at_the_start_of_the_turn():
    state = building(without_fleet(with_hand(start(4), GREECE, coin=9), "greece"), GREECE)
    state = play(state, GREECE, buy("control_marker", ["coin"] * 3, province="thracia"))
    assert state["provinces"]["thracia"]["marker"] == "greece"
    # Asia borders only Thracia among Greece's provinces, marked this very turn.
    with pytest.raises(IllegalMove, match="does not border"):
        play(state, GREECE, buy("control_marker", ["coin"] * 3, province="asia"))
    with pytest.raises(IllegalMove, match="already holds"):
        play(state, GREECE, buy("control_marker", ["coin"] * 3, province="latium"))


def test_a_marker_may_cross_the_sea_along_a_chain_of_own_triremes():
    state = builder(GREECE, coin=9)  # Greek triremes in the Aegean and Ionian seas
    state = play(state, GREECE, buy("control_marker", ["coin"] * 3, province="creta"))
    state = play(state, GREECE, buy("control_marker", ["coin"] * 3, province="sicilia"))
    with pytest.raises(IllegalMove, match="does not border"):
        play(state, GREECE, buy("control_marker", ["coin"] * 3, province="judaea"))
    with pytest.raises(IllegalMove, match="There is no province"):
        play(state, GREECE, buy("control_marker", ["coin"] * 3, province="s6"))


def test_no_building_in_a_province_marked_this_turn():
    state = builder(GREECE, coin=6)
    state = play(state, GREECE, buy("control_marker", ["coin"] * 3, province="creta"))
    with pytest.raises(IllegalMove, match="marked Creta this turn"):
        play(state, GREECE, buy("city", ["coin"] * 3, province="creta", site="Cnossus"))


def test_building_only_in_own_provinces():
    state = builder(GREECE, coin=3)
    with pytest.raises(IllegalMove, match="your control marker"):
        play(state, GREECE, buy("legion", ["coin"] * 3, province="latium"))


def test_no_building_at_war_or_occupied_except_in_the_own_capital():
    state = put_legions(start(4), "rome", "peloponnesus", 1)
    state = building(with_hand(state, GREECE, coin=6), GREECE)
    with pytest.raises(IllegalMove, match="at war"):
        play(state, GREECE, buy("legion", ["coin"] * 3, province="peloponnesus"))
    state = put_legions(state, "rome", "attica", 1)
    state = play(state, GREECE, buy("legion", ["coin"] * 3, province="attica"))
    macedonia = state["provinces"]["macedonia"]
    macedonia["legions"] = {"rome": 1}
    state["supply"]["greece"]["legion"] += 1
    state["supply"]["rome"]["legion"] -= 1
    update_occupation(state, "macedonia")
    with pytest.raises(IllegalMove, match="occupied"):
        play(state, GREECE, buy("fortress", ["coin"] * 3, province="macedonia"))


def test_cities_and_temples_on_city_sites_caravans_and_markets_on_resource_sites():
    state = builder(EGYPT, coin=12)
    with pytest.raises(IllegalMove, match="no city site"):
        play(state, EGYPT, buy("city", ["coin"] * 3, province="thebais", site="Memphis"))
    with pytest.raises(IllegalMove, match="built already"):
        play(state, EGYPT, buy("city", ["coin"] * 3, province="aegyptus", site="Memphis"))
    with pytest.raises(IllegalMove, match="one temple per province"):
        play(state, EGYPT, buy("temple", ["coin"] * 6, province="aegyptus", site="Memphis"))
    with pytest.raises(IllegalMove, match="no 'grain' resource site"):
        play(state, EGYPT, buy("caravan", ["coin"] * 3, province="thebais", site="grain"))
    with pytest.raises(IllegalMove, match="no 'gold' caravan"):
        play(state, EGYPT, buy("market", ["coin"] * 6, province="thebais", site="gold"))
    state = play(state, EGYPT, buy("caravan", ["coin"] * 3, province="thebais", site="gold"))
    state = play(state, EGYPT, buy("market", ["coin"] * 6, province="thebais", site="gold"))
    assert state["provinces"]["thebais"]["caravans"] == ["gold"]
    assert state["provinces"]["thebais"]["market"] == "gold"
    with pytest.raises(IllegalMove, match="one market per province"):
        play(
            with_hand(state, EGYPT, coin=6),
            EGYPT,
            buy("market", ["coin"] * 6, province="thebais", site="gold"),
        )


def test_a_temple_stands_on_a_built_city():
    state = builder(GREECE, coin=6)
    with pytest.raises(IllegalMove, match="A temple goes on a city"):
        play(state, GREECE, buy("temple", ["coin"] * 6, province="macedonia", site="Pella"))
    state = play(state, GREECE, buy("temple", ["coin"] * 6, province="attica", site="Athenae"))
    assert state["provinces"]["attica"]["temple"] == "Athenae"


def test_one_fortress_per_province():
    state = builder(GREECE, coin=3)
    with pytest.raises(IllegalMove, match="one fortress per province"):
        play(state, GREECE, buy("fortress", ["coin"] * 3, province="attica"))


def test_shared_pools_and_own_supply_limit_building():
    state = builder(GREECE, coin=6)
    state["pool"]["city"] = 0
    with pytest.raises(IllegalMove, match="No city is left in the pool"):
        play(state, GREECE, buy("city", ["coin"] * 3, province="macedonia", site="Pella"))
    state["supply"]["greece"]["legion"] = 0
    with pytest.raises(IllegalMove, match="All your legions"):
        play(state, GREECE, buy("legion", ["coin"] * 3, province="attica"))


def test_triremes_are_built_in_dock_in_coastal_provinces():
    state = builder(EGYPT, coin=6)
    with pytest.raises(IllegalMove, match="no coast"):
        play(state, EGYPT, buy("trireme", ["coin"] * 3, province="thebais"))
    state = play(state, EGYPT, buy("trireme", ["coin"] * 3, province="aegyptus"))
    assert state["provinces"]["aegyptus"]["dock"] == {"egypt": 1}
    assert state["seas"]["s9"] == {"egypt": 1}


def test_heroes_and_wonders_exist_once_and_civilisation_heroes_serve_their_own():
    state = builder(GREECE, seats=3, coin=9)  # Rome is neutral: Caesar is nobody's
    with pytest.raises(IllegalMove, match="serves Rome only"):
        play(state, GREECE, buy("julius_caesar", ["coin"] * 9))
    state = play(state, GREECE, buy("archimedes", ["coin"] * 9))
    assert state["cards"][GREECE] == ["archimedes", "pericles"]
    state = building(with_hand(state, 1, coin=9), 1)
    with pytest.raises(IllegalMove, match="taken already"):
        play(state, 1, buy("archimedes", ["coin"] * 9))


def test_four_heroes_and_wonders_win_at_once():
    state = give_cards(start(4), GREECE, "archimedes", "colossus")
    state = building(with_hand(state, GREECE, coin=9), GREECE)
    state = play(state, GREECE, buy("lighthouse", ["coin"] * 9))
    assert ENGINE.to_move(state) == frozenset()
    result = ENGINE.result(state)
    assert result.winners == (GREECE,) and "four heroes and wonders" in result.reason
    with pytest.raises(IllegalMove, match="over"):
        play(state, GREECE, {"type": "end_build"})


def test_the_pyramids_win_at_once_paid_with_one_of_each_goods():
    state = builder(EGYPT, **{kind: 1 for kind in ALL_GOODS})
    state = play(state, EGYPT, buy("pyramids", ALL_GOODS))
    result = ENGINE.result(state)
    assert result.winners == (EGYPT,) and "Pyramids" in result.reason


def test_at_the_end_of_building_goods_go_and_two_coins_stay():
    state = start(4)
    state = with_hand(state, GREECE, coin=5, grain=2)
    state = with_hand(state, CARTHAGE, coin=1, fish=3)
    state = building(state, ROME)
    state["build"]["done"] = [GREECE, CARTHAGE, EGYPT]
    state = play(state, ROME, {"type": "end_build"})
    assert state["hands"][GREECE]["coin"] == 2 and state["hands"][GREECE]["grain"] == 0
    assert state["hands"][CARTHAGE]["coin"] == 1 and state["hands"][CARTHAGE]["fish"] == 0


def test_the_mausoleum_keeps_four_cards_of_any_kind():
    state = give_cards(start(4), GREECE, "mausoleum")
    state = with_hand(state, GREECE, coin=3, grain=2, fish=2)
    state = building(state, ROME)
    state["build"]["done"] = [GREECE, CARTHAGE, EGYPT]
    state = play(state, ROME, {"type": "end_build"})
    assert state["phase"] == "keep" and ENGINE.to_move(state) == {GREECE}
    with pytest.raises(IllegalMove, match="do not hold"):
        play(state, GREECE, {"type": "keep", "cards": ["gold", "grain", "grain", "fish"]})
    state = play(state, GREECE, {"type": "keep", "cards": ["grain", "grain", "fish", "coin"]})
    assert {k: n for k, n in state["hands"][GREECE].items() if n} == {
        "coin": 1,
        "grain": 2,
        "fish": 1,
    }


def test_cleopatra_swaps_one_card_with_the_bank_once_per_build_phase():
    state = builder(EGYPT, grain=1, coin=1)
    state = play(state, EGYPT, {"type": "exchange", "give": "grain", "get": "coin"})
    assert state["hands"][EGYPT]["coin"] == 2 and state["hands"][EGYPT]["grain"] == 0
    with pytest.raises(IllegalMove, match="used already"):
        play(state, EGYPT, {"type": "exchange", "give": "coin", "get": "gold"})
    state = builder(GREECE, grain=1)
    with pytest.raises(IllegalMove, match="Cleopatra"):
        play(state, GREECE, {"type": "exchange", "give": "grain", "get": "coin"})


def test_hammurabi_places_one_free_marker_each_build_phase():
    state = builder(4, seats=5, coin=3)  # Babylon is seat 4 with five players
    state = play(state, 4, buy("control_marker", [], province="susiana"))
    assert state["provinces"]["susiana"]["marker"] == "babylon"
    with pytest.raises(IllegalMove, match="exactly 3 cards, not 0"):
        play(state, 4, buy("control_marker", [], province="nabataea"))
    state = play(state, 4, buy("control_marker", ["coin"] * 3, province="nabataea"))


def test_babylon_builds_triremes_only_once_it_holds_a_coastal_province():
    state = builder(4, seats=5, coin=6)  # Babylon: Babylonia, Mesopotamia, Syria
    with pytest.raises(IllegalMove, match="no coast"):
        play(state, 4, buy("trireme", ["coin"] * 3, province="babylonia"))
    state = play(state, 4, buy("trireme", ["coin"] * 3, province="syria"))
    assert state["provinces"]["syria"]["dock"] == {"babylon": 1}
