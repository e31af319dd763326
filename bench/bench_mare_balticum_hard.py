"""Mare Balticum's "hard" bot against the "normal" one (or any two levels), seats rotated.

    .venv/bin/python bench/bench_mare_balticum_hard.py [GAMES] [--players N ...]
        [--strong hard] [--weak normal] [--playouts P] [--depth D] [--jobs J] [--seed S]

Plays GAMES games (default 24) per player count (default 3 and 4): one ``strong`` seat
against ``weak`` seats, the strong seat rotating so that each deal is played once with
it in every seat. Prints the strong bot's share of wins (a shared win counts as a
share), the baseline (1/players), its head-to-head record against each weak seat (its
score above theirs; ties half), and the CPU time of a strong move and of a weak one
(p50 and p99 in milliseconds, moves with a single legal choice left out). ``--playouts``
and ``--depth`` set the hard bot's budget (default: its own); ``--jobs`` plays games in
that many processes.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def play(args: tuple) -> dict:
    """One game: the strong seat's result, its pairs against the others, move CPU times."""
    sys.path.insert(0, str(ROOT))
    from engines.api import SeededChance
    from engines.mare_balticum import ENGINE, bot_hard

    players, game, seed, strong, weak, playouts, depth = args
    seat = game % players
    deal = seed * 1_000_003 + game // players
    levels = [strong if other == seat else weak for other in range(players)]
    chance = SeededChance(deal)
    rng = random.Random(deal ^ 0x5EED)
    state = ENGINE.setup(players, {}, chance)
    ms: dict[str, list[float]] = {strong: [], weak: []}
    for _ in range(20_000):
        due = sorted(ENGINE.to_move(state))
        if not due:
            break
        mover = due[0]
        legal = ENGINE.legal_moves(state, mover)
        view = ENGINE.view(state, mover)
        level = levels[mover]
        start = time.process_time()
        if level == "hard" and playouts:
            move = bot_hard.choose_move(view, legal, rng, playouts=playouts, depth=depth)
        else:
            move = ENGINE.bot_move(view, legal, rng, level=level)
        if len(legal) > 1:
            ms[level].append(1000 * (time.process_time() - start))
        state = ENGINE.apply(state, mover, move, chance)
    result = ENGINE.result(state)
    if result is None:
        return {"finished": False, "ms": ms}
    win = 1 / len(result.winners) if seat in result.winners else 0.0
    mine = result.scores[seat]
    pairs = [
        1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
        for other, theirs in enumerate(result.scores)
        if other != seat
    ]
    return {"finished": True, "win": win, "pairs": pairs, "ms": ms}


def quantile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="?", type=int, default=24)
    parser.add_argument("--players", type=int, action="append")
    parser.add_argument("--strong", default="hard")
    parser.add_argument("--weak", default="normal")
    parser.add_argument("--playouts", type=int, default=0)
    parser.add_argument("--depth", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.playouts and not args.depth:
        sys.path.insert(0, str(ROOT))
        from engines.mare_balticum.bot_hard import DEPTH

        args.depth = DEPTH
    print(
        f"{'players':>7} {'games':>5} {'wins':>6} {'baseline':>8} {'head-to-head':>12} "
        f"{'ms ' + args.strong + ' p50/p99':>18} {'ms ' + args.weak + ' p50/p99':>18} "
        f"{'unfinished':>10}"
    )
    for players in args.players or (3, 4):
        jobs = [
            (players, game, args.seed, args.strong, args.weak, args.playouts, args.depth)
            for game in range(args.games)
        ]
        if args.jobs > 1:
            with ProcessPoolExecutor(args.jobs) as pool:
                games = list(pool.map(play, jobs))
        else:
            games = [play(job) for job in jobs]
        done = [game for game in games if game["finished"]]
        wins = sum(game["win"] for game in done)
        pairs = [pair for game in done for pair in game["pairs"]]
        strong = [ms for game in games for ms in game["ms"][args.strong]]
        weak = [ms for game in games for ms in game["ms"][args.weak]]
        share = wins / len(done) if done else 0.0
        duel = sum(pairs) / len(pairs) if pairs else 0.0
        print(
            f"{players:>7} {len(games):>5} {share:>6.1%} {1 / players:>8.1%} {duel:>12.1%} "
            f"{quantile(strong, 0.5):>8.0f} / {quantile(strong, 0.99):<7.0f} "
            f"{quantile(weak, 0.5):>8.1f} / {quantile(weak, 0.99):<7.1f} "
            f"{len(games) - len(done):>10}"
        )
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
