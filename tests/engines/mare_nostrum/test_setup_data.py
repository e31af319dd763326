"""The printed set-ups as every version resolves them, for each civilisation and player
count, against ``setups.json``: the set-up data may be written more briefly, but no piece
of a set-up changes unnoticed. A deliberate change re-records the file with
``python -m tests.engines.mare_nostrum.test_setup_data`` and shows up in its diff."""

from __future__ import annotations

import json
from pathlib import Path

from engines.mare_nostrum import data

RECORDED = Path(__file__).with_name("setups.json")
VERSIONS = (1, 2, 3, 4)
SEATS = (3, 4, 5)


def resolved() -> dict[str, dict]:
    """``"<version>/<civilisation>/<players>"`` to the set-up that game starts from."""
    return {
        f"{version}/{civ}/{seats}": data.start_of(version, civ, seats)
        for version in VERSIONS
        for civ in data.CIV_IDS
        for seats in SEATS
    }


def test_every_resolved_set_up_is_as_recorded():
    recorded = json.loads(RECORDED.read_text())
    now = json.loads(json.dumps(resolved()))
    assert len(now) == len(VERSIONS) * len(data.CIV_IDS) * len(SEATS)
    assert now.keys() == recorded.keys()
    for key, start in now.items():
        assert start == recorded[key], key


if __name__ == "__main__":
    lines = [f"{json.dumps(key)}: {json.dumps(start)}" for key, start in resolved().items()]
    RECORDED.write_text("{\n" + ",\n".join(lines) + "\n}\n")
