"""CPU of one move through the service, per title: the median over a bot game's moves.

Run from the project root: ``.venv/bin/python bench/bench_move_cpu.py [--moves 300]
[--tree PATH] [--against PATH --rounds N]``

For each title a game between players with addresses is played on SQLite in a scratch
folder, every move chosen by the bot from the seat's view; only
``GameService.submit_move`` is measured (``time.process_time``): the rules, the state
hash, the event and read-model writes, the phase line and the mails it queues.
``--tree`` imports the project from another checkout; ``--against PATH`` runs this
script ``--rounds`` times for this checkout and for PATH, alternating, each run in a
process of its own, and prints the medians over the rounds side by side.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if "--tree" in sys.argv[:-1]:
    ROOT = Path(sys.argv[sys.argv.index("--tree") + 1]).resolve()
sys.path.insert(0, str(ROOT))

TITLES = [("mare_nostrum", 5, {"turn_limit": 3}), ("mare_balticum", 4, {}), ("mercatores", 3, {})]


def measure(folder: Path, slug: str, seats: int, options: dict, moves: int) -> list[float]:
    from pbem.db import make_engine
    from pbem.games.service import SeatSpec
    from pbem.migrations import migrate
    from pbem.runtime import build_runtime

    db = make_engine(f"sqlite:///{folder / (slug + '.sqlite3')}")
    migrate(db)
    runtime = build_runtime(
        {
            "security": {"secret_key": "bench"},
            "paths": {"var": str(folder / "var")},
            "server": {"demo": False, "base_url": "http://localhost"},
        },
        db=db,
        create_schema=False,
    )
    specs = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(seats)]
    created = runtime.service.create_game(slug, specs, options, seed=b"m" * 32)
    rng = random.Random(11)
    spent = []
    for _ in range(moves):
        head = runtime.service.head(created.game_id)
        due = sorted(head.engine.to_move(head.state))
        if head.game.status != "active" or not due:
            break
        view = head.engine.view(head.state, due[0])
        move = head.engine.bot_move(view, head.engine.legal_moves(head.state, due[0]), rng)
        start = time.process_time()
        runtime.service.submit_move(created.game_id, due[0], move, head.seq)
        spent.append((time.process_time() - start) * 1000)
    db.dispose()
    return spent


def run(moves: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as scratch:
        return {
            slug: statistics.median(measure(Path(scratch), slug, seats, options, moves))
            for slug, seats, options in TITLES
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=300, help="moves measured per title")
    parser.add_argument("--tree", help="the checkout to import the project from")
    parser.add_argument("--against", help="another checkout to compare with, alternating")
    parser.add_argument("--rounds", type=int, default=3, help="rounds with --against")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.against:
        found = run(args.moves)
        if args.json:
            print(json.dumps(found))
            return
        print(f"tree {ROOT}")
        for slug, median in found.items():
            print(f"{slug:<15}{median:>8.2f} ms")
        return
    trees = {"before": str(Path(args.against).resolve()), "after": str(ROOT)}
    figures: dict[str, list[dict]] = {name: [] for name in trees}
    for _ in range(args.rounds):
        for name, tree in trees.items():
            command = [sys.executable, __file__, "--json", "--tree", tree]
            command += ["--moves", str(args.moves)]
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            figures[name].append(json.loads(done.stdout))
    print(f"median CPU (ms) per move; {args.rounds} alternating rounds")
    print(f"before: {trees['before']}\nafter:  {trees['after']}")
    print(f"{'title':<15}{'before':>10}{'after':>10}")
    for slug, _, _ in TITLES:
        cells = [statistics.median(found[slug] for found in figures[name]) for name in trees]
        print(f"{slug:<15}" + "".join(f"{cell:>10.2f}" for cell in cells))


if __name__ == "__main__":
    main()
