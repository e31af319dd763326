"""The recorded games in ``seeds/mare_nostrum/`` replay to the same final state and result."""

from __future__ import annotations

import pytest

from engines.mare_nostrum import ENGINE
from tests.golden import assert_replays_to_record, load_records

RECORDS = load_records("mare_nostrum")


def test_three_golden_games_are_recorded():
    assert len(RECORDS) == 3
    assert sorted(record["seats"] for _, record in RECORDS) == [3, 4, 5]
    assert {record["engine_version"] for _, record in RECORDS} == {1}


@pytest.mark.parametrize("name, record", RECORDS, ids=[name for name, _ in RECORDS])
def test_golden_game_replays_to_its_recorded_end(name, record):
    assert_replays_to_record(ENGINE.at_version(record["engine_version"]), record)
