"""Every recorded game under seeds/ verifies with ``pbem verify``; a forged one does not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pbem.cli import main

SEEDS = sorted((Path(__file__).resolve().parent.parent / "seeds").glob("*/*.json"))


@pytest.mark.parametrize("path", SEEDS, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_recorded_game_verifies(path, capsys):
    assert main(["verify", str(path)]) == 0
    assert "draws re-derived from the seed" in capsys.readouterr().out


@pytest.mark.parametrize("path", SEEDS[:3], ids=lambda path: f"{path.parent.name}/{path.name}")
def test_a_forged_draw_in_a_recorded_game_is_named(path, tmp_path, capsys):
    record = json.loads(path.read_text())
    seq, entry = next(
        (seq, entry) for seq, entry in enumerate(record["moves"], start=1) if entry["chance"]
    )
    bound, value = entry["chance"][0]
    entry["chance"][0] = [bound, (value + 1) % bound] if bound > 1 else [bound + 1, 0]
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(record))
    assert main(["verify", str(forged)]) == 1
    assert f"event {seq}:" in capsys.readouterr().out


def test_there_are_recorded_games_to_check():
    assert len(SEEDS) >= 6
