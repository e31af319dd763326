"""Unload labels at the point of decision: an unloading that a -1 circle cuts says how
many fish reach the warehouse and how many are lost, as playing it shows."""

from __future__ import annotations

import random
import re

import pytest

from engines.api import SeededChance
from engines.mare_balticum import ENGINE
from engines.mare_balticum.data import GOODS

CUT = re.compile(r": (\d+) to the warehouse, (\d+) lost( \(-1 circle\))?$")


def unload_positions(seats: int, seed: int, options: dict):
    state = ENGINE.setup(seats, options, SeededChance(seed))
    rng = random.Random(seed)
    while ENGINE.to_move(state):
        seat = min(ENGINE.to_move(state))
        legal = ENGINE.legal_moves(state, seat)
        unloads = [move for move in legal if move["type"] == "unload"]
        if unloads:
            yield state, seat, unloads
        move = ENGINE.bot_move(ENGINE.view(state, seat), legal, rng)
        state = ENGINE.apply(state, seat, move, SeededChance(rng.randrange(1000)))


@pytest.mark.parametrize("seats, seed", [(3, 1), (4, 2), (5, 3), (3, 4)])
def test_every_unload_label_says_what_reaches_the_warehouse_and_what_is_lost(seats, seed):
    options = {"demand_management": True}
    cut = whole = 0
    for state, seat, unloads in unload_positions(seats, seed, options):
        view = ENGINE.view(state, seat)
        for move in unloads:
            after = ENGINE.apply(state, seat, move, SeededChance(0))
            kept = sum(after.warehouses[seat]) - sum(state.warehouses[seat])
            lost = sum(after.removed) - sum(state.removed)
            label = ENGINE.move_label(move, view)
            found = CUT.search(label)
            if lost:
                assert found, label
                assert (int(found.group(1)), int(found.group(2))) == (kept, lost)
                assert bool(found.group(3)) != bool(move.get("demand")) or lost > 1
                cut += 1
            else:
                assert label == ENGINE.move_label(move), label
                whole += 1
            assert kept + lost == sum(move["fish"].values())
    assert cut >= 3 and whole >= 3


def test_without_module_1_no_unload_is_cut():
    for state, seat, unloads in unload_positions(3, 5, {}):
        view = ENGINE.view(state, seat)
        for move in unloads:
            assert ENGINE.move_label(move, view) == ENGINE.move_label(move)
            after = ENGINE.apply(state, seat, move, SeededChance(0))
            assert after.removed[: len(GOODS)] == state.removed[: len(GOODS)]
