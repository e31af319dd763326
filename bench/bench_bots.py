"""The "normal" bot against the first version's ("easy") bots, per title.

    .venv/bin/python bench/bench_bots.py [GAMES] [--title SLUG ...]

For every engine with ``bot_levels`` (default: every registered title), plays GAMES games
(default 200) per player count listed below: one "normal" seat against "easy" seats, the
normal seat rotating. Prints games, the normal bot's share of wins (a shared win counts
as a share), the baseline share (1/players), its head-to-head record against each easy
seat (its score above theirs; ties half) and the average milliseconds per move per level.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines import REGISTRY, bot_levels_of  # noqa: E402
from tests.bot_duel import HEADER, duel  # noqa: E402

PLAYERS = {"mercatores": (2, 3), "mare_balticum": (3, 4), "mare_nostrum": (3, 4)}
OPTIONS = {"mare_nostrum": {"turn_limit": 30}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="?", type=int, default=200)
    parser.add_argument("--title", action="append", help="only this title (repeatable)")
    parser.add_argument("--players", type=int, action="append", help="only these counts")
    args = parser.parse_args(argv)
    slugs = args.title or sorted(
        slug for slug, engine in REGISTRY.items() if getattr(engine, "listed", True)
    )
    print(HEADER)
    for slug in slugs:
        engine = REGISTRY[slug]
        if not {"easy", "normal"} <= set(bot_levels_of(engine)):
            print(f"{slug:<14} (no easy/normal bot levels)")
            continue
        counts = args.players or PLAYERS.get(slug, (engine.min_seats,))
        for players in counts:
            if not engine.min_seats <= players <= engine.max_seats:
                continue
            start = time.perf_counter()
            options = dict(OPTIONS.get(slug, {}))
            declared = {option.name for option in engine.options}
            options = {name: value for name, value in options.items() if name in declared}
            table = duel(engine, players, args.games, options=options)
            print(table.row("normal", "easy"), f"  ({time.perf_counter() - start:.0f} s)")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
