"""Chance: committed seeds, derived draws, uniformity, and loud replay failures."""

from __future__ import annotations

import math

import pytest

from pbem.eventlog.chance import (
    ChanceMismatch,
    RecordingChance,
    ReplayChance,
    commitment,
    derive,
    new_seed,
    verify_draws,
)

SEED = bytes(range(32))


def chi_square_critical(df: int, z: float = 3.29) -> float:
    """Wilson-Hilferty approximation of the chi-square quantile (z=3.29: p = 0.0005)."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


def test_seed_is_32_random_bytes_and_commitment_is_sha256_hex():
    seed = new_seed()
    assert len(seed) == 32 and seed != new_seed()
    assert commitment(SEED) == "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"


def test_same_seed_same_outcomes_and_each_depends_on_game_event_and_index():
    first = [derive(SEED, "g1", 3, k, 68) for k in range(50)]
    assert first == [derive(SEED, "g1", 3, k, 68) for k in range(50)]
    assert first != [derive(SEED, "g2", 3, k, 68) for k in range(50)]
    assert first != [derive(SEED, "g1", 4, k, 68) for k in range(50)]
    assert first != [derive(bytes(32), "g1", 3, k, 68) for k in range(50)]


@pytest.mark.parametrize(
    "bound, samples", [(3, 30_000), (7, 35_000), (68, 68_000), (1000, 100_000)]
)
def test_outcomes_are_uniform_for_awkward_ranges(bound, samples):
    counts = [0] * bound
    for k in range(samples):
        counts[derive(SEED, "uniform", bound, k, bound)] += 1
    expected = samples / bound
    statistic = sum((count - expected) ** 2 / expected for count in counts)
    assert statistic < chi_square_critical(bound - 1), (statistic, bound)


def test_a_biased_source_fails_the_same_uniformity_check():
    """The check above can fail: plain modulo of a byte is visibly biased for 68."""
    bound, samples = 68, 68_000
    counts = [0] * bound
    for k in range(samples):
        counts[(k * 2654435761 % 256) % bound] += 1
    expected = samples / bound
    statistic = sum((count - expected) ** 2 / expected for count in counts)
    assert statistic > chi_square_critical(bound - 1)


def test_recording_chance_records_bound_and_value():
    chance = RecordingChance(SEED, "g", 5)
    values = [chance.below(6), chance.below(68), chance.below(1)]
    assert chance.drawn == [[6, values[0]], [68, values[1]], [1, 0]]
    assert verify_draws(SEED, "g", 5, chance.drawn) is None
    assert verify_draws(SEED, "g", 6, chance.drawn) is not None


def test_replay_feeds_recorded_outcomes_back():
    chance = ReplayChance([[6, 4], [10, 9]], event=3)
    assert [chance.below(6), chance.below(10)] == [4, 9]
    chance.finish()


def test_replay_fails_loudly_on_an_unrecorded_draw():
    chance = ReplayChance([[6, 4]], event=3)
    chance.below(6)
    with pytest.raises(ChanceMismatch, match="only 1 were recorded"):
        chance.below(6)


def test_replay_fails_loudly_on_a_different_range():
    with pytest.raises(ChanceMismatch, match="recorded below 6"):
        ReplayChance([[6, 4]]).below(7)


def test_replay_fails_when_recorded_draws_are_left_over():
    chance = ReplayChance([[6, 4], [6, 1]])
    chance.below(6)
    with pytest.raises(ChanceMismatch, match="not used"):
        chance.finish()


def test_bound_must_be_positive():
    with pytest.raises(ValueError):
        derive(SEED, "g", 0, 0, 0)
