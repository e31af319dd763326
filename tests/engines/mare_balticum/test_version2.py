"""Version 2 of Mare Balticum: the market spaces holding a face-down token are seen.

Rulebook, "Passage of Time": the token "is placed face down on one of the market spaces
of the player's board" -- at the table everyone sees which spaces hold one, not its number.
"""

from __future__ import annotations

from engines.api import SeededChance
from engines.mare_balticum import ENGINE
from engines.mare_balticum.state import dump_state

from .helpers import craft, in_turn

V1 = ENGINE.at_version(1)


def test_everyone_sees_which_market_spaces_hold_a_token():
    state = in_turn(4, markets={2: {"cod": 1, "herring": 3}}, played={2: [1, "tax", 3]})
    for viewer in (None, 0, 1, 3):
        player = ENGINE.view(state, viewer)["players"][2]
        assert set(player["covered"]) == {"herring", "cod"}
        assert "market" not in player
        assert player["played"] == ["number", "tax", "number"]
        assert sorted(player["unplayed"]) == ["number", "number"]
    own = ENGINE.view(state, 2)["players"][2]
    assert own["market"]["herring"] == 3 and own["played"] == [1, "tax", 3]
    assert own["unplayed"] == [0, 2]


def test_version_one_still_hides_the_spaces():
    state = craft(in_turn(4, markets={2: {"cod": 1}}, played={2: [1]}), rules_version=1)
    player = V1.view(state, 0)["players"][2]
    assert "covered" not in player and player["face_down"] == 1 and player["played"] == [1]


def test_the_version_is_in_the_state_and_version_one_dumps_as_before():
    old = V1.setup(3, {}, SeededChance(3))
    new = ENGINE.setup(3, {}, SeededChance(3))
    assert "rules_version" not in dump_state(old) and dump_state(new)["rules_version"] == 2
    assert {k: v for k, v in dump_state(new).items() if k != "rules_version"} == dump_state(old)
    assert ENGINE.load(ENGINE.dump(new)) == new and V1.load(V1.dump(old)) == old
    upgraded = ENGINE.upgrade_state(old)
    assert upgraded.rules_version == 2 and old.rules_version == 1
    assert V1.options == ENGINE.options
