"""The "normal" bot against the first version's ("easy") bots, per title.

    .venv/bin/python bench/bench_bots.py [GAMES] [--title SLUG ...]
    .venv/bin/python bench/bench_bots.py --cpu [GAMES] [--title SLUG] [--level normal]
        [--players N ...] [--tree PATH]

For every engine with ``bot_levels`` (default: every registered title), plays GAMES games
(default 200) per player count listed below: one "normal" seat against "easy" seats, the
normal seat rotating. Prints games, the normal bot's share of wins (a shared win counts
as a share), the baseline share (1/players), its head-to-head record against each easy
seat (its score above theirs; ties half) and the average milliseconds per move per level.

``--cpu``: plays GAMES games (default 20) of the title (default mercatores) with bots of
one level at every seat and prints the CPU a bot spends per move (p50, p99, worst, in
milliseconds): its choice alone (``bot_move``) and with the seat's view and legal moves,
what a bot's move costs the server besides the move itself.

``--cpu --tree PATH``: the same games played by this checkout and by the one at PATH (say
an older commit's ``git worktree``), each in a process of its own, game by game in turn
(which goes first alternates), so both see the same machine load; prints both side by
side, and how many games the two played move for move alike (the same seed, the same
moves, the same scores).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = {"mercatores": (2, 3), "mare_balticum": (3, 4), "mare_nostrum": (3, 4)}
OPTIONS = {"mare_nostrum": {"turn_limit": 30}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="?", type=int, default=200)
    parser.add_argument("--title", action="append", help="only this title (repeatable)")
    parser.add_argument("--players", type=int, action="append", help="only these counts")
    parser.add_argument("--cpu", action="store_true", help="CPU per bot move, not duels")
    parser.add_argument("--level", default="normal", help="the bots' level for --cpu")
    parser.add_argument("--tree", help="--cpu: also another checkout, side by side")
    parser.add_argument("--worker", help=argparse.SUPPRESS)  # a --tree side's process
    args = parser.parse_args(argv)
    if args.worker:
        return worker(Path(args.worker), args.title[0], args.level)
    sys.path.insert(0, str(ROOT))
    if args.cpu and args.tree:
        return cpu_side_by_side(args.title or ["mercatores"], args.games or 20, args)
    if args.cpu:
        return cpu_per_move(args.title or ["mercatores"], args.games or 20, args.level, args)
    from engines import REGISTRY, bot_levels_of
    from tests.bot_duel import HEADER, duel

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


def _figures(ms: list[float]) -> str:
    ms = sorted(ms)
    return f"{_quantile(ms, 0.5):.1f} / {_quantile(ms, 0.99):.1f} / {ms[-1]:.1f}"


def timed_game(engine, players: int, game: int, level: str) -> dict:
    """One seeded game with bots of ``level`` at every seat: the process CPU of each bot
    move, its choice alone and with the view and legal moves, and a digest of the moves
    and scores."""
    from engines import bot_move
    from engines.api import SeededChance

    options = {option.name: option.default for option in engine.options}
    options.update({k: v for k, v in OPTIONS.get(engine.slug, {}).items() if k in options})
    rng, chance = random.Random(game), SeededChance(game)
    state = engine.setup(players, options, chance)
    choice, whole, digest = [], [], hashlib.sha256()
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
        digest.update(json.dumps(move, sort_keys=True).encode())
        state = engine.apply(state, seat, move, chance)
    result = engine.result(state)
    digest.update(json.dumps(result.scores if result else None).encode())
    return {"choice": choice, "whole": whole, "digest": digest.hexdigest()}


def cpu_per_move(slugs: list[str], games: int, level: str, args) -> int:
    from engines import REGISTRY

    print(
        f"{'title':<14} {'players':>7} {'moves':>6}   {'choice p50/p99/worst ms':>24}"
        f"   {'with view+legal p50/p99/worst ms':>32}"
    )
    for slug in slugs:
        engine = REGISTRY[slug]
        for players in args.players or PLAYERS.get(slug, (engine.min_seats,)):
            choice, whole = [], []
            for game in range(games):
                played = timed_game(engine, players, game, level)
                choice += played["choice"]
                whole += played["whole"]
            figures = [_figures(ms) for ms in (choice, whole)]
            print(f"{slug:<14} {players:>7} {len(choice):>6}   {figures[0]:>24}   {figures[1]:>32}")
            sys.stdout.flush()
    return 0


def worker(tree: Path, slug: str, level: str) -> int:
    """A ``--tree`` side: plays the games asked for on stdin ("players game" a line) with
    the engines of ``tree`` and answers each with its figures, one JSON line."""
    sys.path.insert(0, str(tree))
    import engines
    from engines import REGISTRY

    engine = REGISTRY[slug]
    print(json.dumps({"engines": str(Path(engines.__file__).parent)}), flush=True)
    for line in sys.stdin:
        players, game = map(int, line.split())
        print(json.dumps(timed_game(engine, players, game, level)), flush=True)
    return 0


def cpu_side_by_side(slugs: list[str], games: int, args) -> int:
    """``--cpu --tree``: the other checkout ("before") and this one ("after"), game by
    game in turn."""
    from engines import REGISTRY

    trees = {"before": Path(args.tree).resolve(), "after": ROOT}
    print(
        f"{'title':<14} {'players':>7} {'moves':>6} {'same':>6}   {'':<6}"
        f" {'choice p50/p99/worst ms':>24}   {'with view+legal p50/p99/worst ms':>32}"
    )
    for slug in slugs:
        sides = {}
        for name, tree in trees.items():
            command = [sys.executable, __file__, "--worker", str(tree), "--title", slug]
            sides[name] = subprocess.Popen(
                [*command, "--level", args.level],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            print(f"{name}: {json.loads(sides[name].stdout.readline())['engines']}")
        for players in args.players or PLAYERS.get(slug, (REGISTRY[slug].min_seats,)):
            figures = {name: {"choice": [], "whole": []} for name in sides}
            digests: dict[str, list[str]] = {name: [] for name in sides}
            for game in range(games):
                order = ["before", "after"] if game % 2 == 0 else ["after", "before"]
                for name in order:
                    side = sides[name]
                    side.stdin.write(f"{players} {game}\n")
                    side.stdin.flush()
                    played = json.loads(side.stdout.readline())
                    figures[name]["choice"] += played["choice"]
                    figures[name]["whole"] += played["whole"]
                    digests[name].append(played["digest"])
            same = sum(a == b for a, b in zip(digests["before"], digests["after"], strict=True))
            for name in ("before", "after"):
                choice, whole = figures[name]["choice"], figures[name]["whole"]
                print(
                    f"{slug:<14} {players:>7} {len(choice):>6} {same:>3}/{games:<2}   {name:<6}"
                    f" {_figures(choice):>24}   {_figures(whole):>32}"
                )
            sys.stdout.flush()
        for side in sides.values():
            side.stdin.close()
            side.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
