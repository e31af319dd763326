"""Mare Nostrum move costs: ``apply``, a legion's destinations and the war phase's legal
moves, in microseconds of CPU, before and after.

Run from the project root:
``.venv/bin/python bench/bench_mare_nostrum_apply.py --tree PATH [--games N] [--runs N]``.

Easy bots play ``--games`` seeded games (3 to 5 players, turn limit 30) in a process of
its own; the same process then times, on the positions of those games, every move's
``apply`` (what replaying a log, ``pbem verify`` and every move on the server pay), a
legion's destinations from every province holding one of the mover's legions in the war
phase, and the war phase's ``legal_moves`` (what a bot or a turn page asks for). "before"
runs the code of the checkout ``PATH`` (``git worktree add /tmp/before <commit>``), "after"
this checkout's, alternately, run by run; each figure is the median over the runs of the
mean per call (CPU time of the thread). Both play the same games: seeded self-play gives
identical moves and states on both (the games' moves are compared).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OPTIONS = {"civilisations": "recommended", "setup": "starting", "turn_limit": 30}


def measure(games: int) -> None:
    """In a process of its own, on whatever code ``sys.path`` finds first."""
    from engines.api import SeededChance, canonical_json
    from engines.mare_nostrum import ENGINE
    from engines.mare_nostrum.data import PROVINCE_IDS
    from engines.mare_nostrum.war import legion_destinations

    moves, wars = [], []
    for game in range(games):
        seats = 3 + game % 3
        rng = random.Random(game)
        state = ENGINE.setup(seats, OPTIONS, SeededChance(game))
        while ENGINE.to_move(state):
            seat = min(ENGINE.to_move(state))
            legal = ENGINE.legal_moves(state, seat)
            move = ENGINE.bot_move(ENGINE.view(state, seat), legal, rng, "easy")
            draw = rng.randrange(1 << 30)
            if state["phase"] == "war":
                wars.append((state, seat))
            moves.append((state, seat, move, draw))
            state = ENGINE.apply(state, seat, move, SeededChance(draw))
    legions = [
        (state, state["civs"][seat], pid)
        for state, seat in wars
        for pid in PROVINCE_IDS
        if state["provinces"][pid]["legions"].get(state["civs"][seat])
    ]

    def per_call(calls: int, work) -> float:
        start = time.thread_time()
        work()
        return (time.thread_time() - start) / calls * 1e6

    figures = {
        "apply": per_call(
            len(moves),
            lambda: [ENGINE.apply(s, seat, m, SeededChance(d)) for s, seat, m, d in moves],
        ),
        "legion destinations": per_call(
            len(legions), lambda: [legion_destinations(s, civ, pid) for s, civ, pid in legions]
        ),
        "war legal moves": per_call(
            len(wars), lambda: [ENGINE.legal_moves(s, seat) for s, seat in wars]
        ),
    }
    played = canonical_json([m for _, _, m, _ in moves])
    counts = {
        "apply": len(moves),
        "legion destinations": len(legions),
        "war legal moves": len(wars),
    }
    print(json.dumps({"figures": figures, "counts": counts, "games": played}))


def measured_in(tree: Path, games: int) -> dict:
    command = [sys.executable, str(Path(__file__).resolve()), "--measure", str(games)]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"measuring the code of {tree} failed:\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, help="a checkout whose code is 'before'")
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--measure", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measure(args.measure)
        return
    if args.tree is None or not (args.tree / "engines" / "mare_nostrum").is_dir():
        parser.error("--tree must name a checkout of the project (the code 'before')")
    before: list[dict] = []
    after: list[dict] = []
    for _ in range(args.runs):
        before.append(measured_in(args.tree.resolve(), args.games))
        after.append(measured_in(ROOT, args.games))
    if any(run["games"] != before[0]["games"] for run in before + after):
        raise SystemExit("the two checkouts played different games: the figures would not compare")
    print(f"before: the code of {args.tree}; {args.games} games, {args.runs} runs")
    print(f"{'per call':<22}{'calls':>8}{'before us':>12}{'after us':>11}{'speed-up':>10}")
    for name, calls in before[0]["counts"].items():
        old = statistics.median(run["figures"][name] for run in before)
        new = statistics.median(run["figures"][name] for run in after)
        print(f"{name:<22}{calls:>8}{old:>12.1f}{new:>11.1f}{old / new:>9.2f}x")


if __name__ == "__main__":
    main()
