"""The "normal" bot against the first version's ("easy") bots, per title.

    .venv/bin/python bench/bench_bots.py [GAMES] [--title SLUG ...]
    .venv/bin/python bench/bench_bots.py --cpu [GAMES] [--title SLUG] [--level normal]

For every engine with ``bot_levels`` (default: every registered title), plays GAMES games
(default 200) per player count listed below: one "normal" seat against "easy" seats, the
normal seat rotating. Prints games, the normal bot's share of wins (a shared win counts
as a share), the baseline share (1/players), its head-to-head record against each easy
seat (its score above theirs; ties half) and the average milliseconds per move per level.

``--cpu``: plays GAMES games (default 20) of the title (default mercatores) with bots of
one level at every seat and prints the CPU a bot spends per move (p50, p99, worst, in
milliseconds): its choice alone (``bot_move``) and with the seat's view and legal moves,
what a bot's move costs the server besides the move itself.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines import REGISTRY, bot_levels_of, bot_move  # noqa: E402
from engines.api import SeededChance  # noqa: E402
from tests.bot_duel import HEADER, duel  # noqa: E402

PLAYERS = {"mercatores": (2, 3), "mare_balticum": (3, 4), "mare_nostrum": (3, 4)}
OPTIONS = {"mare_nostrum": {"turn_limit": 30}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="?", type=int, default=200)
    parser.add_argument("--title", action="append", help="only this title (repeatable)")
    parser.add_argument("--players", type=int, action="append", help="only these counts")
    parser.add_argument("--cpu", action="store_true", help="CPU per bot move, not duels")
    parser.add_argument("--level", default="normal", help="the bots' level for --cpu")
    args = parser.parse_args(argv)
    if args.cpu:
        return cpu_per_move(args.title or ["mercatores"], args.games or 20, args.level, args)
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


def _quantile(sorted_ms: list[float], q: float) -> float:
    return sorted_ms[min(len(sorted_ms) - 1, int(q * len(sorted_ms)))]


def cpu_per_move(slugs: list[str], games: int, level: str, args) -> int:
    print(
        f"{'title':<14} {'players':>7} {'moves':>6}   {'choice p50/p99/worst ms':>24}"
        f"   {'with view+legal p50/p99/worst ms':>32}"
    )
    for slug in slugs:
        engine = REGISTRY[slug]
        options = {option.name: option.default for option in engine.options}
        options.update({k: v for k, v in OPTIONS.get(slug, {}).items() if k in options})
        for players in args.players or PLAYERS.get(slug, (engine.min_seats,)):
            choice, whole = [], []
            for game in range(games):
                rng, chance = random.Random(game), SeededChance(game)
                state = engine.setup(players, options, chance)
                for _ in range(20_000):
                    due = sorted(engine.to_move(state))
                    if not due:
                        break
                    seat = due[0]
                    start = time.process_time()
                    legal = engine.legal_moves(state, seat)
                    view = engine.view(state, seat)
                    middle = time.process_time()
                    move = bot_move(engine, view, legal, rng, level)
                    end = time.process_time()
                    choice.append((end - middle) * 1000)
                    whole.append((end - start) * 1000)
                    state = engine.apply(state, seat, move, chance)
            choice.sort()
            whole.sort()
            figures = [
                f"{_quantile(ms, 0.5):.1f} / {_quantile(ms, 0.99):.1f} / {ms[-1]:.1f}"
                for ms in (choice, whole)
            ]
            print(f"{slug:<14} {players:>7} {len(choice):>6}   {figures[0]:>24}   {figures[1]:>32}")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
