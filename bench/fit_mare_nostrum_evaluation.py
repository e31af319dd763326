"""Fits the Mare Nostrum hard bot's evaluation on games of normal bots.

    .venv/bin/python bench/fit_mare_nostrum_evaluation.py [GAMES] [--players N ...]
        [--every K] [--seed S]

Plays GAMES games (default 300) per player count (3, 4 and 5 unless told) with the
normal bot in every seat (the hard bot's rollout policy), and keeps every K-th position
(default 6) with who won in the end. It fits a conditional logit on
``bot_hard.features``: a player's chance to win is its share of ``exp(w . features)``
over the players (Newton's method, a small ridge). Every fifth game is held out; on those
it prints the log loss and how often the favourite won, for the fitted weights, for the
weights the bot ships (``bot_hard.WEIGHTS``), for the hand-set standing (``TEMPER``) and
for an even guess, then the fitted weights to paste into ``bot_hard.WEIGHTS``.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def positions(engine, players: int, seed: int, every: int) -> tuple[list, list[float]]:
    """Every ``every``-th state of one game of normal bots, and each seat's share of
    the win."""
    from engines.api import SeededChance

    chance = SeededChance(seed)
    rng = random.Random(seed ^ 0x5EED)
    state = engine.setup(players, {}, chance)
    kept = []
    for step in range(50_000):
        due = engine.to_move(state)
        if not due:
            break
        if step % every == 0:
            kept.append(engine.load(engine.dump(state)))
        seat = min(due)
        legal = engine.legal_moves(state, seat)
        move = engine.bot_move(engine.view(state, seat), legal, rng, level="normal")
        state = engine.apply(state, seat, move, chance)
    result = engine.result(state)
    if result is None:
        return [], []
    share = [1 / len(result.winners) if s in result.winners else 0.0 for s in range(players)]
    return kept, share


def probabilities(weights, rows) -> list[float]:
    from engines.mare_nostrum.bot_hard import shares, weighed

    return shares([weighed(weights, row) for row in rows])


def solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """``matrix`` x = ``vector`` by Gaussian elimination with partial pivoting."""
    n = len(vector)
    a = [row[:] + [vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(n):
            if r != col and a[col][col]:
                factor = a[r][col] / a[col][col]
                for c in range(col, n + 1):
                    a[r][c] -= factor * a[col][c]
    return [a[i][n] / a[i][i] if a[i][i] else 0.0 for i in range(n)]


def fit(groups, size: int, ridge: float = 1.0, rounds: int = 25) -> list[float]:
    """Newton's method on the conditional logit's log likelihood, less ``ridge`` |w|²/2."""
    weights = [0.0] * size
    for _ in range(rounds):
        gradient = [-ridge * w for w in weights]
        hessian = [[ridge if i == j else 0.0 for j in range(size)] for i in range(size)]
        for rows, share in groups:
            p = probabilities(weights, rows)
            mean = [sum(p[k] * rows[k][i] for k in range(len(rows))) for i in range(size)]
            for k, row in enumerate(rows):
                for i in range(size):
                    gradient[i] += (share[k] - p[k]) * row[i]
                    centred_i = row[i] - mean[i]
                    for j in range(size):
                        hessian[i][j] += p[k] * centred_i * (row[j] - mean[j])
        step = solve(hessian, gradient)
        weights = [w + s for w, s in zip(weights, step, strict=True)]
        if max(abs(s) for s in step) < 1e-6:
            break
    return weights


def scores(predict, groups) -> tuple[float, float]:
    """Mean log loss of the winners' predicted chances, and the favourite's share of wins."""
    loss = hits = 0.0
    for rows, share in groups:
        p = predict(rows)
        loss -= sum(s * math.log(max(q, 1e-12)) for s, q in zip(share, p, strict=True))
        hits += share[max(range(len(p)), key=p.__getitem__)]
    return loss / len(groups), hits / len(groups)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="?", type=int, default=300)
    parser.add_argument("--players", type=int, action="append")
    parser.add_argument("--every", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    from engines import REGISTRY
    from engines.mare_nostrum import bot_hard

    engine = REGISTRY["mare_nostrum"]
    train, test = [], []
    hand_set = []
    for players in args.players or [3, 4, 5]:
        for game in range(args.games):
            kept, share = positions(
                engine, players, args.seed * 1_000_003 + 7919 * players + game, args.every
            )
            for state in kept:
                rows = [bot_hard.features(state, seat) for seat in range(players)]
                standing = [bot_hard.standing(state, seat) for seat in range(players)]
                (test if game % 5 == 0 else train).append((rows, share))
                if game % 5 == 0:
                    hand_set.append((standing, share))
    size = len(bot_hard.FEATURES)
    weights = fit(train, size)
    print(f"positions: {len(train)} to fit, {len(test)} held out")
    print(f"{'evaluation':<28} {'log loss':>9} {'favourite wins':>15}")
    rows = [
        ("fitted", lambda r: probabilities(weights, r), test),
        ("shipped WEIGHTS", lambda r: probabilities(bot_hard.WEIGHTS, r), test),
        (
            "hand-set standing / TEMPER",
            lambda r: probabilities([1 / bot_hard.TEMPER], [[m] for m in r]),
            hand_set,
        ),
        ("even", lambda r: [1 / len(r)] * len(r), test),
    ]
    for name, predict, groups in rows:
        loss, hits = scores(predict, groups)
        favourite = f"{hits:.1%}" if name != "even" else "-"
        print(f"{name:<28} {loss:>9.4f} {favourite:>15}")
    print("WEIGHTS = (" + ", ".join(f"{w:.3f}" for w in weights) + ")")
    for name, w in zip(bot_hard.FEATURES, weights, strict=True):
        print(f"  {name:<26} {w:+.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
