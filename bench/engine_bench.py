"""Shared measurement for the engine benchmarks: self-play and replay, medians of runs.

Self-play: bots in every seat, seeded chance, whole games. Replay: the recorded games of
``seeds/<slug>/`` fed back through ``ReplayChance`` with no bot work, the way the server
rebuilds a game from its log.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines.api import Engine, SeededChance  # noqa: E402
from pbem.eventlog.chance import ReplayChance  # noqa: E402
from tests.golden import load_records  # noqa: E402

RUNS = 5


def self_play_rate(
    engine: Engine,
    games: int,
    seats: Callable[[int], int],
    options: Callable[[int], dict],
    run: int,
) -> float:
    start = time.perf_counter()
    for game in range(games):
        seed = run * 1000 + game
        chance, rng = SeededChance(seed), random.Random(seed)
        state = engine.setup(seats(game), options(game), chance)
        while due := engine.to_move(state):
            seat = min(due)
            legal = engine.legal_moves(state, seat)
            move = engine.bot_move(engine.view(state, seat), legal, rng)
            state = engine.apply(state, seat, move, chance)
    return games / (time.perf_counter() - start)


def replay_rate(engine: Engine, records: list[dict]) -> float:
    moves = 0
    start = time.perf_counter()
    for record in records:
        at_version = getattr(engine, "at_version", None)
        if at_version is not None:
            engine = at_version(record["engine_version"])  # a record replays on its version
        state = engine.setup(
            record["seats"], record["options"], ReplayChance(record["setup_chance"])
        )
        for entry in record["moves"]:
            state = engine.apply(state, entry["seat"], entry["move"], ReplayChance(entry["chance"]))
        moves += len(record["moves"])
    return moves / (time.perf_counter() - start)


def report(
    engine: Engine,
    games: int,
    seats: Callable[[int], int],
    options: Callable[[int], dict],
    repeat_records: int = 10,
) -> None:
    """Prints both figures, each the median of ``RUNS`` runs."""
    records = [record for _, record in load_records(engine.slug)] * repeat_records
    played = statistics.median(
        self_play_rate(engine, games, seats, options, run) for run in range(RUNS)
    )
    replayed = statistics.median(replay_rate(engine, records) for _ in range(RUNS))
    print(f"{engine.title} self-play: {played:.1f} games per second (bots in every seat)")
    print(f"{engine.title} replay: {replayed:,.0f} moves per second (median of {RUNS} runs)")
