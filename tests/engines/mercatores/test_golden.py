"""The recorded games in ``seeds/mercatores/`` replay to the same final state and result."""

from __future__ import annotations

import pytest

from engines.mercatores import ENGINE
from tests.golden import assert_replays_to_record, load_records

RECORDS = load_records("mercatores")


def test_three_golden_games_are_recorded():
    assert len(RECORDS) == 3
    assert sorted(record["seats"] for _, record in RECORDS) == [2, 3, 4]


@pytest.mark.parametrize("name, record", RECORDS, ids=[name for name, _ in RECORDS])
def test_golden_game_replays_to_its_recorded_end(name, record):
    assert_replays_to_record(ENGINE, record)
