"""Mercatores speed: bot self-play in games per second, replay in moves per second.

Run: ``.venv/bin/python bench/bench_mercatores.py``. Each figure is the median of 5 runs.
Replay feeds the recorded draws back through ``ScriptedChance``: no bot work, the way
the server rebuilds a game from its event log.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines.api import ScriptedChance, SeededChance  # noqa: E402
from engines.mercatores import ENGINE  # noqa: E402

RUNS = 5
GAMES_PER_RUN = 30  # ten each for 2, 3 and 4 players


def play(seats: int, seed: int) -> tuple[list[int], list[tuple[int, dict, list[int]]]]:
    """One bot game; returns the setup draws and the log of (seat, move, draws)."""
    chance = SeededChance(seed)
    rng = random.Random(seed)
    state = ENGINE.setup(seats, {}, chance)
    setup_draws = list(chance.drawn)
    log = []
    while ENGINE.to_move(state):
        seat = min(ENGINE.to_move(state))
        move = ENGINE.bot_move(ENGINE.view(state, seat), ENGINE.legal_moves(state, seat), rng)
        chance = SeededChance(rng.randrange(1 << 30))
        state = ENGINE.apply(state, seat, move, chance)
        log.append((seat, move, list(chance.drawn)))
    return setup_draws, log


def self_play_rate(run: int) -> float:
    start = time.perf_counter()
    for game in range(GAMES_PER_RUN):
        play(2 + game % 3, run * 1000 + game)
    return GAMES_PER_RUN / (time.perf_counter() - start)


def replay_rate(games: list[tuple[int, list[int], list]]) -> float:
    moves = 0
    start = time.perf_counter()
    for seats, setup_draws, log in games:
        state = ENGINE.setup(seats, {}, ScriptedChance(setup_draws))
        for seat, move, drawn in log:
            state = ENGINE.apply(state, seat, move, ScriptedChance(drawn))
        moves += len(log)
    return moves / (time.perf_counter() - start)


def main() -> None:
    games_per_second = statistics.median(self_play_rate(run) for run in range(RUNS))
    recorded = [(2 + game % 3, *play(2 + game % 3, game)) for game in range(GAMES_PER_RUN)]
    moves_per_second = statistics.median(replay_rate(recorded) for _ in range(RUNS))
    total = sum(len(log) for _, _, log in recorded)
    print(f"self-play: {games_per_second:,.1f} games per second (2-4 players, bots)")
    print(f"replay:    {moves_per_second:,.0f} moves per second ({total} moves per run)")


if __name__ == "__main__":
    main()
