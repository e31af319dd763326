"""Seeded self-play with bots in every seat: every game ends, cards, pieces and pools stay
whole after every move, every listed move is accepted and mutated moves are rejected."""

from __future__ import annotations

from collections import Counter

import pytest

from engines.api import SeededChance, state_hash
from engines.mare_nostrum import ENGINE
from tests.engine_harness import replay_hashes, self_play, soak_count
from tests.engines.mare_nostrum.helpers import OPTIONS, invariant

FAST = {3: 1, 4: 1, 5: 1}
FULL = 100


def mutations(move: dict) -> list[dict]:
    """Variants of a legal move that break a rule whatever the position."""
    bad: list[dict] = [
        {**move, "type": "sail"},
        {**move, "extra": 1},
        {key: value for key, value in move.items() if key != "type"},
    ]
    for key, value in move.items():
        if key == "type":
            continue
        bad.append({k: v for k, v in move.items() if k != key})
        if isinstance(value, int):
            bad.append({**move, key: True})
            bad.append({**move, key: str(value)})
            bad.append({**move, key: -1})
        elif isinstance(value, str):
            bad.append({**move, key: 7})
            bad.append({**move, key: "atlantis"})
        elif isinstance(value, list):
            bad.append({**move, key: "coin"})
            bad.append({**move, key: [*value, "coin"]})
            if value:
                bad.append({**move, key: value[:-1]})
    if move["type"] == "take":
        bad.append({**move, "from_seat": 99})
    return bad


def outcome(result) -> str:
    if "Pyramids" in result.reason:
        return "pyramids"
    if "four heroes" in result.reason:
        return "four cards"
    return "turn limit"


def run(seats: int, count: int, options: dict, engine=ENGINE) -> Counter:
    endings: Counter = Counter()
    for seed in range(count):
        state, log = self_play(
            engine, seats, options, 1000 * seats + seed, invariant=invariant, mutations=mutations
        )
        result = engine.result(state)
        assert result is not None and len(result.scores) == seats
        endings[outcome(result)] += 1
    return endings


@pytest.mark.soak
@pytest.mark.parametrize("version", ENGINE.versions)
@pytest.mark.parametrize("seats", [3, 4, 5])
def test_self_play_games_end_with_everything_accounted(seats, version):
    endings = run(seats, soak_count(FAST[seats], FULL), OPTIONS, ENGINE.at_version(version))
    print(f"\nversion {version}, {seats} players: {dict(endings)}")


@pytest.mark.soak
@pytest.mark.parametrize("version", ENGINE.versions)
def test_self_play_with_experienced_setup_and_random_civilisations(version):
    options = {**OPTIONS, "setup": "experienced", "civilisations": "random"}
    run(4, soak_count(1, 20), options, ENGINE.at_version(version))


@pytest.mark.soak
@pytest.mark.parametrize("version", ENGINE.versions)
def test_self_play_with_chosen_civilisations(version):
    options = {**OPTIONS, "civilisations": "choose"}
    run(3, soak_count(1, 20), options, ENGINE.at_version(version))


def test_replay_gives_the_same_state_hashes():
    chance = SeededChance(7)
    state = ENGINE.setup(4, OPTIONS, chance)
    setup_draws = list(chance.drawn)
    final, log = self_play(ENGINE, 4, OPTIONS, 7, check_all_legal=False)
    first = replay_hashes(ENGINE, 4, OPTIONS, setup_draws, log)
    second = replay_hashes(ENGINE, 4, OPTIONS, setup_draws, log)
    assert first == second
    assert first[0] == state_hash(ENGINE, state)
    assert first[-1] == state_hash(ENGINE, final)
