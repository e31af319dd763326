"""Mare Nostrum's "hard" bot against the "normal" one, head to head, seats rotated.

    .venv/bin/python bench/bench_mare_nostrum_hard.py [GAMES] [--players N]
        [--strong hard] [--weak normal] [--playouts P] [--depth D]
        [--first G] [--out FILE] [--table FILE ...]

Plays GAMES games (default 40) at N players (default 4, turn limit 30): one ``strong``
seat against ``weak`` seats, the strong seat rotating so that each deal is played once
with it in every seat. Prints one line a game as it ends, then the table: games, the
strong bot's share of wins (a shared win counts as a share) against the baseline
(1/players), its head-to-head record against each weak seat (more heroes and wonders,
then provinces, as the result ranks; ties half), and the CPU time a strong move takes
(p50 and p99 over every move of the strong seat, in milliseconds; the weak bot's mean).

``--first G`` starts at game G and ``--out FILE`` appends each game's figures as a JSON
line, so that parts run in separate processes; ``--table FILE ...`` prints the table of
such files together without playing.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def play(players: int, game: int, strong: str, weak: str, search: dict) -> dict:
    from engines.api import SeededChance
    from engines.mare_nostrum import ENGINE, bot_hard

    seat = game % players
    deal = game // players
    chance, rng = SeededChance(deal), random.Random(deal ^ 0x5EED)
    state = ENGINE.setup(players, {"turn_limit": 30}, chance)
    strong_ms, weak_ms = [], []
    for _ in range(50_000):
        due = ENGINE.to_move(state)
        if not due:
            break
        mover = min(due)
        legal = ENGINE.legal_moves(state, mover)
        view = ENGINE.view(state, mover)
        level = strong if mover == seat else weak
        start = time.process_time()
        if level == "hard" and search:
            move = bot_hard.choose_move(view, legal, rng, **search)
        else:
            move = ENGINE.bot_move(view, legal, rng, level=level)
        (strong_ms if mover == seat else weak_ms).append(1000 * (time.process_time() - start))
        state = ENGINE.apply(state, mover, move, chance)
    result = ENGINE.result(state)
    figures = {"game": game, "players": players, "seat": seat, "strong_ms": strong_ms}
    figures["weak_ms_mean"] = sum(weak_ms) / len(weak_ms) if weak_ms else 0.0
    if result is None:
        return {**figures, "finished": False}
    win = 1 / len(result.winners) if seat in result.winners else 0.0
    ranks = {
        other: (
            result.breakdown[str(other)]["heroes_and_wonders"],
            result.breakdown[str(other)]["provinces"],
        )
        for other in range(players)
    }
    pairs = [
        1.0 if ranks[seat] > ranks[o] else 0.5 if ranks[seat] == ranks[o] else 0.0
        for o in range(players)
        if o != seat
    ]
    civ = result.breakdown[str(seat)]["civilisation"]
    return {**figures, "finished": True, "win": win, "pairs": pairs, "civ": civ}


def table(rows: list[dict], strong: str, weak: str) -> str:
    if not rows:
        return "no games"
    players = rows[0]["players"]
    done = [row for row in rows if row["finished"]]
    wins = sum(row["win"] for row in done)
    pairs = [p for row in done for p in row["pairs"]]
    ms = sorted(m for row in rows for m in row["strong_ms"])
    weak_ms = sum(row["weak_ms_mean"] for row in rows) / len(rows)
    p50 = ms[len(ms) // 2] if ms else 0.0
    p99 = ms[min(len(ms) - 1, int(0.99 * len(ms)))] if ms else 0.0
    lines = [
        f"{'players':>7} {'games':>6} {strong + ' wins':>12} {'baseline':>9} "
        f"{'head-to-head':>13} {'ms p50':>8} {'ms p99':>8} {'ms worst':>9} "
        f"{'ms ' + weak:>10} {'unfinished':>10}",
        f"{players:>7} {len(rows):>6} {wins:>5.1f} {wins / max(1, len(rows)):>6.1%} "
        f"{1 / players:>9.1%} {sum(pairs) / max(1, len(pairs)):>13.1%} {p50:>8.0f} {p99:>8.0f} "
        f"{(ms[-1] if ms else 0):>9.0f} {weak_ms:>10.2f} {len(rows) - len(done):>10}",
    ]
    by_seat: dict[int, list[float]] = {}
    for row in done:
        by_seat.setdefault(row["seat"], []).append(row["win"])
    lines.append(
        "wins by seat: "
        + ", ".join(f"{s}: {sum(w):.1f}/{len(w)}" for s, w in sorted(by_seat.items()))
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="?", type=int, default=40)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--strong", default="hard")
    parser.add_argument("--weak", default="normal")
    parser.add_argument(
        "--playouts", type=int, help="the hard bot's paired determinizations a move"
    )
    parser.add_argument("--depth", type=int, help="the hard bot's moves a playout")
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("--out", help="append each game's figures (JSON lines) here")
    parser.add_argument("--table", nargs="+", help="print the table of these files")
    args = parser.parse_args(argv)
    if args.table:
        rows = [json.loads(line) for name in args.table for line in open(name) if line.strip()]
        print(table(rows, args.strong, args.weak))
        return 0
    sys.path.insert(0, str(ROOT))
    search = {
        key: value
        for key, value in (("playouts", args.playouts), ("depth", args.depth))
        if value is not None
    }
    rows = []
    for game in range(args.first, args.first + args.games):
        row = play(args.players, game, args.strong, args.weak, search)
        rows.append(row)
        ms = sorted(row["strong_ms"])
        print(
            f"game {game}: seat {row['seat']} ({row.get('civ')}) "
            f"{'won' if row.get('win') else 'lost'}, {len(ms)} moves, "
            f"p99 {ms[min(len(ms) - 1, int(0.99 * len(ms)))]:.0f} ms",
            flush=True,
        )
        if args.out:
            with open(args.out, "a") as out:
                out.write(json.dumps(row) + "\n")
    print(table(rows, args.strong, args.weak))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
