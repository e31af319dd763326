"""Balance of the printed set-ups and the strength of the normal bot, as tables.

``make test`` plays a few games of each kind; ``PBEM_SOAK=1`` plays 200 per player count
and 200 of the normal bot against easy bots (the figures of the engine's docstring; the
5-player figures there are on 400 games, from ``bench/bench_mare_nostrum_balance.py``)."""

from __future__ import annotations

import pytest

from tests.engine_harness import soak_count
from tests.engines.mare_nostrum.balance import (
    against_easy,
    against_table,
    balance,
    balance_table,
    merge,
)

FULL = 200


@pytest.mark.soak
def test_balance_table_of_the_normal_bot_in_every_seat():
    games = soak_count(3, FULL)
    results = {seats: balance(seats, games) for seats in (3, 4, 5)}
    print("\n" + balance_table(results))
    for found in results.values():
        assert sum(found["endings"].values()) == games
        assert sum(found["wins"].values()) >= games  # every game has a winner
    if games >= FULL:
        victories = sum(games - found["endings"]["turn limit"] for found in results.values())
        assert victories >= 0.95 * 3 * games


@pytest.mark.soak
def test_normal_bot_against_easy_bots():
    found = against_easy(soak_count(4, FULL))
    print("\n" + against_table(found))
    assert found["ms_per_move"] < 50
    if found["games"] >= FULL:
        assert found["won"] >= 0.6 * found["games"]


def test_a_series_split_in_parts_gives_the_figures_of_the_whole_series():
    whole = balance(3, 4)
    parts = merge([balance(3, 1), balance(3, 3, first=1)])
    assert parts == whole
    assert balance_table({3: parts}) == balance_table({3: whole})
