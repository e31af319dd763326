"""Mare Nostrum balance: who wins bot games of the printed set-ups, and how the games end.

Run from the project root: ``.venv/bin/python bench/bench_mare_nostrum_balance.py [GAMES]``
(200 games per table unless told). Two tables, on the newest rules version:

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


def main(games: int = 200) -> None:
    started = time.perf_counter()
    results = {seats: balance(seats, games) for seats in (3, 4, 5)}
    print(balance_table(results))
    print(against_table(against_easy(games)))
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
