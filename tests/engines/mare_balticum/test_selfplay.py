"""Seeded self-play with bots in every seat, checking the invariants after every move."""

from __future__ import annotations

import pytest

from engines.api import SeededChance, state_hash
from engines.mare_balticum import ENGINE
from tests.engine_harness import replay_hashes, self_play, soak_count

from .helpers import ALL_OPTIONS, invariant, mutations

MODULE_COMBOS = [
    {"demand_management": demand, "trade_contracts": contracts}
    for demand in (False, True)
    for contracts in (False, True)
]


@pytest.mark.soak
@pytest.mark.parametrize("seats", [3, 4, 5])
@pytest.mark.parametrize("combo", MODULE_COMBOS, ids=["basic", "contracts", "demand", "both"])
def test_self_play_every_game_ends_with_invariants(seats: int, combo: dict) -> None:
    # 200 games per player count, spread evenly over the four module combinations.
    games = soak_count(1, 50)
    for game in range(games):
        seed = 1000 * seats + 100_000 * MODULE_COMBOS.index(combo) + game
        # Both seat orders for each combination, under `make test` (one game) as well.
        options = {**combo, "seat_order": "random" if (game + seats) % 2 else "as_listed"}
        state, log = self_play(
            ENGINE, seats, options, seed, invariant=invariant, mutations=mutations
        )
        assert ENGINE.result(state) is not None
        assert log


def test_replay_gives_the_same_state_hashes() -> None:
    for seats, options in ((3, ALL_OPTIONS[0]), (5, ALL_OPTIONS[-1])):
        setup_chance = SeededChance(77)
        ENGINE.setup(seats, options, setup_chance)
        state, log = self_play(ENGINE, seats, options, 77, check_all_legal=False)
        first = replay_hashes(ENGINE, seats, options, setup_chance.drawn, log)
        second = replay_hashes(ENGINE, seats, options, setup_chance.drawn, log)
        assert first == second
        assert len(first) == len(log) + 1
        assert first[-1] == state_hash(ENGINE, state)
