"""Mare Nostrum balance: who wins bot games of the printed set-ups, and how the games end.

Run from the project root: ``.venv/bin/python bench/bench_mare_nostrum_balance.py [GAMES]
[PART ...]`` (200 games per table unless told; PART is 3, 4 or 5 for one player count's
balance table, or ``easy`` for the second table; all of them unless told, so that the
parts can run side by side and give the same figures). Two tables, on the newest rules
version:

- **Balance**: the "normal" bot in every seat, 3, 4 and 5 players, turn limit 30. The
  civilisations are the recommended ones for the player count, rotated so that each sits
  in each seat position equally often. Wins per civilisation (a shared win counts for
  each winner) and how the games ended.
- **Normal bot against easy bots**: one "normal" seat, "easy" bots in all the others,
  4 players, the normal seat and the civilisations rotated over every seat and every
  civilisation. The normal seat's share of wins and the bots' time per move.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.engines.mare_nostrum.balance import (  # noqa: E402
    against_easy,
    against_table,
    balance,
    balance_table,
)

PARTS = ("3", "4", "5", "easy")


def main(games: int = 200, parts: tuple[str, ...] = PARTS) -> None:
    unknown = [part for part in parts if part not in PARTS]
    if unknown:
        raise SystemExit(f"Unknown part {unknown[0]!r}: choose among {', '.join(PARTS)}.")
    started = time.perf_counter()
    counts = [int(part) for part in parts if part != "easy"]
    if counts:
        print(balance_table({seats: balance(seats, games) for seats in counts}))
    if "easy" in parts:
        print(against_table(against_easy(games)))
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200, tuple(sys.argv[2:]) or PARTS)
