"""The recorded games in ``seeds/mare_balticum/`` replay to their recorded end."""

from __future__ import annotations

import pytest

from engines.mare_balticum import ENGINE
from tests.golden import assert_replays_to_record, load_records

RECORDS = load_records("mare_balticum")


def test_there_are_three_recorded_games():
    assert len(RECORDS) == 3


@pytest.mark.parametrize(("name", "record"), RECORDS, ids=[name for name, _ in RECORDS])
def test_a_recorded_game_replays_to_its_hash_and_result(name, record):
    assert_replays_to_record(ENGINE, record)
