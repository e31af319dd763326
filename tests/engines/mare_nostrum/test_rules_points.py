"""Rule points of the rules file checked one by one on the newest rules version (and on
version 2, which reads them the same way): the default 3-player game's Nabataea, and the
turn limit of 40 by default."""

from __future__ import annotations

import random

import pytest

from engines.api import ScriptedChance, SeededChance
from engines.mare_nostrum import ENGINE as NEWEST
from engines.mare_nostrum.data import LAND_NEIGHBOURS
from engines.mare_nostrum.state import clone
from tests.engines.mare_nostrum.helpers import ENGINE as V1
from tests.engines.mare_nostrum.helpers import V2, check_pieces

V3, V4 = NEWEST.at_version(3), NEWEST.at_version(4)
EGYPT_CAPITAL = "aegyptus"


# --- In the default 3-player game, Babylon's Nabataea stays Babylon's -------------------


@pytest.mark.parametrize("engine", [V2, V3, V4], ids=["version 2", "version 3", "version 4"])
def test_the_default_three_player_game_leaves_nabataea_to_babylon(engine):
    state = engine.setup(3, {}, ScriptedChance([0] * 20))
    assert state["civs"] == ["greece", "carthage", "babylon"]
    assert "egypt" in state["neutrals"]
    assert "nabataea" in LAND_NEIGHBOURS[EGYPT_CAPITAL]  # beside neutral Egypt's capital
    nabataea = state["provinces"]["nabataea"]
    assert nabataea["marker"] == "babylon"
    assert nabataea["legions"] == {}  # no neutral legion placed on Babylon's province
    # Egypt's other neighbours of its capital are neutral Egypt's, as the rules say.
    for pid in LAND_NEIGHBOURS[EGYPT_CAPITAL]:
        if pid != "nabataea":
            assert state["provinces"][pid]["marker"] == "egypt"
            assert state["provinces"][pid]["legions"] == {"egypt": 1}
    assert state["supply"]["egypt"]["control_marker"] == 12 - len(LAND_NEIGHBOURS[EGYPT_CAPITAL])
    check_pieces(state)


def test_version_one_still_gives_nabataea_to_neutral_egypt():
    """Version 1's Babylon does not start there, so the province is neutral Egypt's."""
    state = V1.setup(3, {}, ScriptedChance([0] * 20))
    assert state["provinces"]["nabataea"]["marker"] == "egypt"


# --- The turn limit: 40 by default, 0 switches it off ----------------------------------


def play_until(engine, state, chance, rng, done) -> dict:
    while not done(state) and (due := engine.to_move(state)):
        seat = min(due)
        legal = engine.legal_moves(state, seat)
        state = engine.apply(
            state, seat, engine.bot_move(engine.view(state, seat), legal, rng), chance
        )
    return state


def at_turn(engine, turn: int, options: dict) -> dict:
    state = clone(engine.setup(3, options, ScriptedChance([0] * 20)))
    state["turn"] = turn
    return state


def test_new_games_default_to_a_limit_of_40_turns():
    assert {option.name: option.default for option in V3.options}["turn_limit"] == 40
    assert V3.setup(3, {}, ScriptedChance([0] * 20))["options"]["turn_limit"] == 40


def test_a_default_game_ends_after_turn_40s_war_phase():
    chance, rng = SeededChance(5), random.Random(5)
    state = play_until(V3, at_turn(V3, 40, {}), chance, rng, lambda s: s["turn"] != 40)
    result = V3.result(state)
    assert result is not None and state["turn"] == 40
    assert "turn limit" in result.reason and "after turn 40" in result.reason


def test_a_default_game_goes_on_after_turn_39():
    chance, rng = SeededChance(5), random.Random(5)
    state = play_until(V3, at_turn(V3, 39, {}), chance, rng, lambda s: s["turn"] != 39)
    assert V3.result(state) is None and state["turn"] == 40


def test_a_limit_of_0_lets_the_game_go_on_past_turn_40():
    chance, rng = SeededChance(5), random.Random(5)
    start = at_turn(V3, 40, {"turn_limit": 0})
    state = play_until(V3, start, chance, rng, lambda s: s["turn"] != 40)
    assert V3.result(state) is None and state["turn"] == 41
