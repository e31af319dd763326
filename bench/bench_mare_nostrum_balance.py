"""Mare Nostrum balance: who wins bot games of the printed set-ups, and how the games end.

Run from the project root: ``.venv/bin/python bench/bench_mare_nostrum_balance.py [GAMES]
[PART ...] [--jobs N]`` (200 games per table unless told; PART is 3, 4 or 5 for one player
count's balance table, or ``easy`` for the second table; all of them unless told, so that
the parts can run side by side and give the same figures). ``--jobs N`` splits each
balance table's games over N processes; the games, and so the figures, are the same as
in one process. Two tables, on the newest rules version:

- **Balance**: the "normal" bot in every seat, 3, 4 and 5 players, turn limit 30. The
  civilisations are the recommended ones for the player count, rotated so that each sits
  in each seat position equally often. Wins per civilisation (a shared win counts for
  each winner, ± one standard error) and how the games ended.
  The 5-player balance target (each civilisation 15-25%) is read on 400 games:
  ``bench/bench_mare_nostrum_balance.py 400 5 --jobs 2`` (about 2 minutes on 2 cores);
  the engine's docstring keeps the latest figures.
- **Normal bot against easy bots**: one "normal" seat, "easy" bots in all the others,
  4 players, the normal seat and the civilisations rotated over every seat and every
  civilisation. The normal seat's share of wins and the bots' time per move.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.engines.mare_nostrum.balance import (  # noqa: E402
    against_easy,
    against_table,
    balance,
    balance_table,
    merge,
)

PARTS = ("3", "4", "5", "easy")


def _balance_part(args: tuple[int, int, int]) -> dict:
    seats, games, first = args
    return balance(seats, games, first=first)


def split_balance(seats: int, games: int, jobs: int) -> dict:
    """``balance(seats, games)``, its games shared among ``jobs`` processes."""
    if jobs <= 1:
        return balance(seats, games)
    size = -(-games // jobs)
    chunks = [(seats, min(size, games - first), first) for first in range(0, games, size)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return merge(list(pool.map(_balance_part, chunks)))


def main(games: int = 200, parts: tuple[str, ...] = PARTS, jobs: int = 1) -> None:
    unknown = [part for part in parts if part not in PARTS]
    if unknown:
        raise SystemExit(f"Unknown part {unknown[0]!r}: choose among {', '.join(PARTS)}.")
    started = time.perf_counter()
    counts = [int(part) for part in parts if part != "easy"]
    if counts:
        print(balance_table({seats: split_balance(seats, games, jobs) for seats in counts}))
    if "easy" in parts:
        print(against_table(against_easy(games)))
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Mare Nostrum balance tables.")
    parser.add_argument("games", nargs="?", type=int, default=200)
    parser.add_argument("parts", nargs="*", default=list(PARTS))
    parser.add_argument("--jobs", type=int, default=1, help="processes per balance table")
    found = parser.parse_args()
    main(found.games, tuple(found.parts), found.jobs)
