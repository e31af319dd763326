"""Recorded games: the format of ``seeds/<game>/*.json`` and their golden replay.

A recorded game holds everything needed to replay and audit it::

    {"format": "pbem-recorded-game/1", "engine": slug, "engine_version": int,
     "game_id": str, "seats": int, "options": {...}, "seed": hex, "commitment": hex,
     "setup_chance": [[bound, value], ...],
     "moves": [{"seat": int, "move": {...}, "chance": [[bound, value], ...]}, ...],
     "final_state_hash": hex, "result": {...}}

Setup is event 0 and the i-th move is event i, so every draw can be re-derived from the
revealed seed with :func:`pbem.eventlog.chance.derive`.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from engines.api import Engine, state_hash
from pbem.eventlog.chance import RecordingChance, ReplayChance, commitment, verify_draws

FORMAT = "pbem-recorded-game/1"


def record_game(
    engine: Engine,
    seats: int,
    options: dict,
    seed: bytes,
    game_id: str,
    bot_seed: int = 0,
    max_moves: int = 20000,
) -> dict:
    """Plays a whole game with bots in every seat and returns its record."""
    rng = random.Random(bot_seed)
    chance = RecordingChance(seed, game_id, 0)
    state = engine.setup(seats, options, chance)
    record: dict[str, Any] = {
        "format": FORMAT,
        "engine": engine.slug,
        "engine_version": engine.version,
        "game_id": game_id,
        "seats": seats,
        "options": options,
        "seed": seed.hex(),
        "commitment": commitment(seed),
        "setup_chance": chance.drawn,
        "moves": [],
    }
    for event in range(1, max_moves + 1):
        due = engine.to_move(state)
        if not due:
            break
        seat = min(due)
        legal = engine.legal_moves(state, seat)
        move = engine.bot_move(engine.view(state, seat), legal, rng)
        chance = RecordingChance(seed, game_id, event)
        state = engine.apply(state, seat, move, chance)
        record["moves"].append({"seat": seat, "move": move, "chance": chance.drawn})
    result = engine.result(state)
    assert result is not None, "the recorded game did not end"
    record["final_state_hash"] = state_hash(engine, state)
    record["result"] = result.to_json()
    return record


def replay_record(engine: Engine, record: dict) -> Any:
    """Replays a record from its recorded draws (checking each draw against the seed)."""
    assert record["format"] == FORMAT
    seed = bytes.fromhex(record["seed"])
    assert commitment(seed) == record["commitment"]
    game_id = record["game_id"]
    assert verify_draws(seed, game_id, 0, record["setup_chance"]) is None
    chance = ReplayChance(record["setup_chance"], 0)
    state = engine.setup(record["seats"], record["options"], chance)
    chance.finish()
    for event, entry in enumerate(record["moves"], start=1):
        assert verify_draws(seed, game_id, event, entry["chance"]) is None
        chance = ReplayChance(entry["chance"], event)
        state = engine.apply(state, entry["seat"], entry["move"], chance)
        chance.finish()
    return state


def assert_replays_to_record(engine: Engine, record: dict) -> None:
    """A recorded game replays, draw by draw, to its recorded final state and result, on
    the engine version it was recorded with."""
    from engines import at_version

    assert record["engine"] == engine.slug
    engine = at_version(engine, record["engine_version"])
    state = replay_record(engine, record)
    assert state_hash(engine, state) == record["final_state_hash"]
    # The outcome is the recorded one; its wording and table may change between releases.
    result = engine.result(state).to_json()
    for part in ("scores", "winners", "breakdown"):
        assert result[part] == record["result"][part], part
    assert result["table"]["rows"] and len(result["table"]["rows"]) == len(result["scores"])


def load_records(slug: str) -> list[tuple[str, dict]]:
    folder = Path(__file__).resolve().parent.parent / "seeds" / slug
    return [(path.name, json.loads(path.read_text())) for path in sorted(folder.glob("*.json"))]


def write_record(slug: str, name: str, record: dict) -> Path:
    folder = Path(__file__).resolve().parent.parent / "seeds" / slug
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")
    return path
