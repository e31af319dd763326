"""Do bot-only games end? Plays normal bots in every seat of a title, with each event's
draws derived as the server derives them (a seed and a game id), and counts the games
that do not end within a cap of moves.

Run from the project root: ``.venv/bin/python bench/bench_bot_games_end.py [games]
[--title mare_balticum] [--level normal] [--cap 6000]``. Each "game" is played once per
player count and per module combination of the title's boolean options; the game id
``g<n>x`` and ``random.Random(n)`` for the bots make every one repeatable.
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engines import REGISTRY  # noqa: E402
from pbem.eventlog.chance import RecordingChance  # noqa: E402

SEED = b"m" * 32


def play(engine, seats: int, options: dict, number: int, level: str, cap: int) -> int | None:
    """Moves the game took, or None if it had not ended after ``cap`` moves."""
    game_id = f"g{number}x"
    state = engine.setup(seats, options, RecordingChance(SEED, game_id, 0))
    rng = random.Random(number)
    for moves in range(cap):
        due = sorted(engine.to_move(state))
        if not due:
            return moves
        legal = engine.legal_moves(state, due[0])
        move = engine.bot_move(engine.view(state, due[0]), legal, rng, level=level)
        state = engine.apply(state, due[0], move, RecordingChance(SEED, game_id, moves + 1))
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="?", type=int, default=100)
    parser.add_argument("--title", default="mare_balticum")
    parser.add_argument("--level", default="normal")
    parser.add_argument("--cap", type=int, default=6000)
    args = parser.parse_args(argv)
    engine = REGISTRY[args.title]
    flags = [option.name for option in engine.options if isinstance(option.default, bool)]
    print(f"{'options':<40} {'games':>6} {'stalled':>8} {'mean moves':>11} {'seconds':>8}")
    for values in itertools.product((False, True), repeat=len(flags)):
        options = dict(zip(flags, values, strict=True))
        start, lengths, stalled = time.perf_counter(), [], []
        for number in range(args.games):
            for seats in range(engine.min_seats, engine.max_seats + 1):
                moves = play(engine, seats, options, number, args.level, args.cap)
                if moves is None:
                    stalled.append(f"{seats}p #{number}")
                else:
                    lengths.append(moves)
        mean = sum(lengths) / len(lengths) if lengths else 0.0
        named = ", ".join(name for name, on in options.items() if on) or "none"
        print(
            f"{named:<40} {len(lengths) + len(stalled):>6} {len(stalled):>8} {mean:>11.1f} "
            f"{time.perf_counter() - start:>8.0f}"
            + (f"   stalled: {', '.join(stalled[:8])}" if stalled else "")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
