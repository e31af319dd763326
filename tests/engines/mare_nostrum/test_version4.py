"""Version 4 of the Mare Nostrum rules: version 3 but for Babylon's 5-player set-up (its
second legion in Nabataea), beside the older versions, which running games still play."""

from __future__ import annotations

import pytest

from engines.api import ScriptedChance
from engines.mare_nostrum import ENGINE as NEWEST
from engines.mare_nostrum import data
from engines.mare_nostrum.views import rules_reference, start_rows

V3, V4 = NEWEST.at_version(3), NEWEST.at_version(4)
OPTIONS = {"civilisations": "recommended", "setup": "starting", "turn_limit": 30}


def test_new_games_get_version_four():
    assert NEWEST.version == 4 and NEWEST.versions == (1, 2, 3, 4) and V4 is NEWEST
    assert {option.name: option.default for option in V4.options} == {
        "civilisations": "recommended",
        "setup": "starting",
        "turn_limit": 40,
    }
    state = V4.setup(5, OPTIONS, ScriptedChance([0] * 20))
    assert state["rules_version"] == 4 and V4.view(state, 0)["rules_version"] == 4


@pytest.mark.parametrize("seats", [3, 4, 5])
@pytest.mark.parametrize("civ", data.CIV_IDS)
def test_only_babylon_with_five_players_starts_otherwise_than_in_version_three(civ, seats):
    changed = (civ, seats) == ("babylon", 5)
    assert (data.start_of(4, civ, seats) != data.start_of(3, civ, seats)) == changed


def test_babylon_with_five_players_keeps_36_points_with_a_legion_in_nabataea():
    begin = data.start_of(4, "babylon", 5)
    assert begin["legions"] == {"babylonia": 1, "nabataea": 1}
    assert sum(row["points"] for row in start_rows(4, "babylon", 5)) == 36
    assert not begin["triremes"] and "babylonia" in begin["fortresses"]
    state = V4.setup(5, OPTIONS, ScriptedChance([0] * 20))
    babylon = state["civs"].index("babylon")
    assert state["provinces"]["nabataea"]["legions"] == {"babylon": 1}
    assert state["provinces"]["babylonia"]["legions"] == {"babylon": 1}
    old = V3.setup(5, OPTIONS, ScriptedChance([0] * 20))
    assert old["provinces"]["babylonia"]["legions"] == {"babylon": 2}
    assert old["civs"][babylon] == "babylon"


def test_the_rules_reference_names_babylons_five_player_set_up_from_version_four():
    def players(version: int) -> list[int]:
        shown = {setup["civ"]: setup for setup in rules_reference(version)["setups"]}
        return [other["players"] for other in shown["Babylon"]["by_players"]]

    assert players(3) == [3] and players(4) == [3, 5]
