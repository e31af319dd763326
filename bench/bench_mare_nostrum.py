"""Mare Nostrum speed: bot self-play games per second and replay moves per second.

Run from the project root: ``.venv/bin/python bench/bench_mare_nostrum.py``.
Each figure is the median of 5 runs. Replay feeds the recorded draws of the games in
``seeds/mare_nostrum/`` back to the engine through ``ReplayChance``, with no bot work.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines.api import SeededChance  # noqa: E402
from engines.mare_nostrum import ENGINE  # noqa: E402
from pbem.chance import ReplayChance  # noqa: E402
from tests.golden import load_records  # noqa: E402

RUNS = 5
GAMES_PER_RUN = 6
OPTIONS = {"civilisations": "recommended", "setup": "starting", "turn_limit": 30}


def self_play_run(run: int) -> float:
    start = time.perf_counter()
    for game in range(GAMES_PER_RUN):
        seats = 3 + game % 3
        seed = run * 1000 + game
        chance, rng = SeededChance(seed), random.Random(seed)
        state = ENGINE.setup(seats, OPTIONS, chance)
        while due := ENGINE.to_move(state):
            seat = min(due)
            legal = ENGINE.legal_moves(state, seat)
            move = ENGINE.bot_move(ENGINE.view(state, seat), legal, rng)
            state = ENGINE.apply(state, seat, move, chance)
    return GAMES_PER_RUN / (time.perf_counter() - start)


def replay_run(records: list[dict]) -> float:
    moves = 0
    start = time.perf_counter()
    for record in records:
        state = ENGINE.setup(
            record["seats"], record["options"], ReplayChance(record["setup_chance"])
        )
        for entry in record["moves"]:
            state = ENGINE.apply(state, entry["seat"], entry["move"], ReplayChance(entry["chance"]))
        moves += len(record["moves"])
    return moves / (time.perf_counter() - start)


def main() -> None:
    records = [record for _, record in load_records("mare_nostrum")] * 5
    games = statistics.median(self_play_run(run) for run in range(RUNS))
    replay = statistics.median(replay_run(records) for _ in range(RUNS))
    print(f"Mare Nostrum self-play: {games:.1f} games per second (bots in every seat)")
    print(f"Mare Nostrum replay: {replay:,.0f} moves per second (median of {RUNS} runs)")


if __name__ == "__main__":
    main()
