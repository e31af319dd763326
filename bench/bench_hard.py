"""The "hard" bot against the "normal" one (and "normal" against "easy"), one title.

    .venv/bin/python bench/bench_hard.py SLUG [GAMES] [--players N ...] [--strong hard]
        [--weak normal] [--playouts P]

Plays GAMES games (default 30) per player count: one ``strong`` seat (rotating) against
``weak`` seats, each deal once per seat (``tests/bot_duel.py``). Prints the strong bot's
share of wins (a shared win counts as a share), the baseline, its head-to-head record
against each weak seat (the winners rank first, then the scores; ties half) and the CPU
milliseconds a move of each level costs, p50 and p99 (process time, over every move that
level made). ``--playouts`` sets the title's module-level ``PLAYOUTS`` of its
``bot_hard`` module, to tune with a smaller budget; ``--set NAME=NUMBER`` any other of
its module-level numbers.

``--paired`` also plays each deal with ``weak`` bots in every seat (the control: the same
seed, so the same set-up and the same first draws) and prints the strong seat's head to
head less the same seat's in the control: what a deal gives a seat cancels out, at the
cost of the control's own luck (the standard error is printed beside it; for the normal
bot against easy ones at 4 players, 60 games, it was 5.2 points).
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def quantile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else 0.0


def play(engine, levels: list[str], seed: int, ms: dict[str, list[float]]):
    from engines.api import SeededChance

    chance = SeededChance(seed)
    rng = random.Random(seed ^ 0x5EED)
    state = engine.setup(len(levels), {}, chance)
    for _ in range(50_000):
        due = engine.to_move(state)
        if not due:
            return engine.result(state)
        seat = min(due)
        legal = engine.legal_moves(state, seat)
        view = engine.view(state, seat)
        start = time.process_time()
        move = engine.bot_move(view, legal, rng, level=levels[seat])
        ms.setdefault(levels[seat], []).append(1000 * (time.process_time() - start))
        state = engine.apply(state, seat, move, chance)
    return None


def head_to_head(result, seat: int) -> float:
    """A seat's share of its pairings in one game (:func:`tests.bot_duel.pairing`: the
    winners first, then the scores; a tie half), over the other seats."""
    from tests.bot_duel import pairing

    others = [other for other in range(len(result.scores)) if other != seat]
    return sum(pairing(result, seat, other) for other in others) / len(others)


def gain_line(gains: list[float]) -> str:
    """The mean gain in head to head over the control, with its standard error."""
    if len(gains) < 2:
        return "-"
    mean = sum(gains) / len(gains)
    spread = (sum((g - mean) ** 2 for g in gains) / (len(gains) - 1) / len(gains)) ** 0.5
    return f"{mean:+.1%} ± {spread:.1%}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("slug")
    parser.add_argument("games", nargs="?", type=int, default=30)
    parser.add_argument("--players", type=int, action="append")
    parser.add_argument("--strong", default="hard")
    parser.add_argument("--weak", default="normal")
    parser.add_argument("--playouts", type=int)
    parser.add_argument("--set", action="append", default=[], help="NAME=NUMBER in bot_hard")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--progress", action="store_true", help="a line per game, on stderr")
    parser.add_argument("--paired", action="store_true", help="each deal also with weak bots only")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from engines import REGISTRY

    engine = REGISTRY[args.slug]
    hard = importlib.import_module(f"engines.{args.slug}.bot_hard")
    if args.playouts:
        hard.PLAYOUTS = args.playouts
    for setting in args.set:
        name, value = setting.split("=")
        setattr(hard, name, type(getattr(hard, name))(value))
    print(
        f"{'players':>7} {'games':>6} {'win':>7} {'baseline':>9} {'head-to-head':>13} "
        f"{'ms ' + args.strong + ' p50/p99':>18} {'ms ' + args.weak + ' p50/p99':>18}"
        + (f" {'gain over control':>20}" if args.paired else "")
    )
    for players in args.players or [engine.min_seats]:
        wins = pairs = pair_count = 0.0
        ms: dict[str, list[float]] = {}
        gains: list[float] = []
        controls: dict[int, object] = {}
        for game in range(args.games):
            seat = game % players
            levels = [args.strong if other == seat else args.weak for other in range(players)]
            deal = args.seed * 1_000_003 + game // players
            result = play(engine, levels, deal, ms)
            if result is None:
                continue
            if args.paired:
                if deal not in controls:
                    controls[deal] = play(engine, [args.weak] * players, deal, {})
                control = controls[deal]
                if control is not None:
                    gains.append(head_to_head(result, seat) - head_to_head(control, seat))
            if seat in result.winners:
                wins += 1 / len(result.winners)
            pairs += head_to_head(result, seat) * (players - 1)
            pair_count += players - 1
            if args.progress:
                print(
                    f"game {game + 1}: strong seat {seat}, scores {list(result.scores)}, "
                    f"winners {list(result.winners)}, "
                    f"wins {wins:.1f}, head to head {pairs:.1f}/{pair_count:.0f}",
                    file=sys.stderr,
                    flush=True,
                )
        strong, weak = ms.get(args.strong, []), ms.get(args.weak, [])
        print(
            f"{players:>7} {args.games:>6} {wins / args.games:>7.1%} {1 / players:>9.1%} "
            f"{pairs / max(pair_count, 1):>13.1%} "
            f"{quantile(strong, 0.5):>9.1f}/{quantile(strong, 0.99):<8.1f} "
            f"{quantile(weak, 0.5):>9.1f}/{quantile(weak, 0.99):<8.1f}"
            + (f" {gain_line(gains):>20}" if args.paired else ""),
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
