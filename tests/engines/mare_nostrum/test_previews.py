"""Build labels at the point of decision: every purchase says what it costs this player
now (hero discounts included), as the rules charge it."""

from __future__ import annotations

import random
import re

import pytest

from engines.api import SeededChance
from engines.mare_nostrum import ENGINE
from engines.mare_nostrum.build import cost
from engines.mare_nostrum.setups import setup_cost

COSTS = re.compile(r": costs (\d+), paying (.+)$")
SETUP = re.compile(r": costs (\d+) of your (\d+) points left$")


def build_positions(seats: int, seed: int, options: dict, limit: int = 1500):
    state = ENGINE.setup(seats, options, SeededChance(seed))
    rng = random.Random(seed)
    for _ in range(limit):
        if not ENGINE.to_move(state):
            return
        seat = min(ENGINE.to_move(state))
        legal = ENGINE.legal_moves(state, seat)
        builds = [move for move in legal if move["type"] in ("build", "setup_build")]
        if builds:
            yield state, seat, builds
        move = ENGINE.bot_move(ENGINE.view(state, seat), legal, rng)
        state = ENGINE.apply(state, seat, move, SeededChance(rng.randrange(1000)))


@pytest.mark.parametrize("seats, seed", [(3, 1), (4, 2), (5, 3)])
def test_every_build_label_shows_the_cost_the_rules_charge(seats, seed):
    checked = 0
    for state, seat, builds in build_positions(seats, seed, {"turn_limit": 4}):
        view = ENGINE.view(state, seat)
        for move in builds:
            label = ENGINE.move_label(move, view)
            if not move["pay"]:
                assert label.endswith(" free (Hammurabi)")
                continue
            found = COSTS.search(label)
            assert found, label
            price = cost(state, seat, move["item"])
            assert int(found.group(1)) == price == len(move["pay"])
            assert found.group(2) == ", ".join(move["pay"])
            checked += 1
    assert checked > 30


def test_every_experienced_set_up_purchase_shows_its_points():
    checked = 0
    for state, seat, builds in build_positions(3, 4, {"setup": "experienced"}, limit=60):
        if state["phase"] != "setup":
            break
        view = ENGINE.view(state, seat)
        for move in builds:
            found = SETUP.search(ENGINE.move_label(move, view))
            assert found, ENGINE.move_label(move, view)
            assert int(found.group(1)) == setup_cost(move["item"])
            assert int(found.group(2)) == state["setup"]["points"]
            after = ENGINE.apply(state, seat, move, SeededChance(0))
            assert state["setup"]["points"] - after["setup"]["points"] == int(found.group(1))
            checked += 1
    assert checked > 10


def test_julius_caesar_shows_the_cheaper_legion():
    for state, seat, builds in build_positions(5, 3, {"turn_limit": 4}):
        if "julius_caesar" not in state["cards"][seat]:
            continue
        legions = [move for move in builds if move["item"] == "legion"]
        if legions:
            assert ": costs 2, paying" in ENGINE.move_label(legions[0], ENGINE.view(state, seat))
            return
    pytest.skip("Rome never built a legion in this game")
