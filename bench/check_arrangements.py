"""Checks that the boards' arrangements (chips spread, names placed: pbem.web.boards.
arrangement) are exactly another checkout's, and times them.

Run from the project root: ``.venv/bin/python bench/check_arrangements.py --against PATH
[--rounds 3]``

Seeded bot games of Mare Nostrum and Mare Balticum are played here and every third
state's board is laid out, collecting the distinct inputs of ``arrangement``. Each
checkout then arranges all of them in a process of its own (alternating, ``--rounds``
times): the results must be equal, tuple for tuple, and the median CPU per arrangement
(``time.process_time``) is printed side by side. Exit status 1 when any differs.
"""

from __future__ import annotations

import argparse
import importlib
import pickle
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

GAMES = [
    ("mare_nostrum", 5, {"turn_limit": 3}),
    ("mare_nostrum", 3, {"turn_limit": 3}),
    ("mare_balticum", 4, {}),
    ("mare_balticum", 3, {}),
]
COLOURS = ["#f00", "#0f0", "#00f", "#ff0", "#0ff"]


def collect(seeds: int) -> list[tuple]:
    """The distinct inputs of ``arrangement`` over the boards of seeded bot games."""
    from engines import REGISTRY
    from engines.api import SeededChance
    from pbem.web import boards

    found = []
    kept = boards.arrangement

    def collecting(width, height, described):
        found.append((width, height, described))
        return kept(width, height, described)

    for slug, seats, options in GAMES:
        board = importlib.import_module(f"engines.{slug}.board")
        board.finish.__globals__["arrangement"] = collecting
        engine = REGISTRY[slug]
        players = [
            {"name": f"P{i}", "colour": colour, "letter": colour[1], "text": "#000"}
            for i, colour in enumerate(COLOURS[:seats])
        ]
        for seed in range(seeds):
            rng = random.Random(seed)
            state = engine.setup(seats, options, SeededChance(seed))
            for number in range(5000):
                due = sorted(engine.to_move(state))
                if not due:
                    break
                if number % 3 == 0:
                    engine.board_layout(engine.view(state, None), players, [])
                view = engine.view(state, due[0])
                move = engine.bot_move(view, engine.legal_moves(state, due[0]), rng)
                state = engine.apply(state, due[0], move, SeededChance(rng.randrange(1 << 30)))
    return list(dict.fromkeys(found))


def arrange(inputs: Path, output: Path) -> float:
    """Arranges every input with this checkout; the results to ``output``; ms each."""
    from pbem.web import boards

    given = pickle.loads(inputs.read_bytes())
    start = time.process_time()
    done = [boards.arrangement.__wrapped__(*one) for one in given]
    spent = (time.process_time() - start) * 1000 / len(given)
    output.write_bytes(pickle.dumps(done))
    return spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", help="the other checkout")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--tree", help=argparse.SUPPRESS)
    parser.add_argument("--arrange", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.arrange:
        print(arrange(Path(args.arrange[0]), Path(args.arrange[1])))
        return
    with tempfile.TemporaryDirectory() as scratch:
        inputs = Path(scratch) / "inputs.pickle"
        inputs.write_bytes(pickle.dumps(collect(args.seeds)))
        trees = {"before": Path(args.against or ROOT).resolve(), "after": ROOT}
        spent: dict[str, list[float]] = {name: [] for name in trees}
        for _ in range(args.rounds):
            for name, tree in trees.items():
                output = Path(scratch) / f"{name}.pickle"
                command = [sys.executable, __file__, "--tree", str(tree)]
                command += ["--arrange", str(inputs), str(output)]
                done = subprocess.run(command, capture_output=True, text=True, check=True)
                spent[name].append(float(done.stdout))
        same = (Path(scratch) / "before.pickle").read_bytes() == (
            Path(scratch) / "after.pickle"
        ).read_bytes()
        count = len(pickle.loads(inputs.read_bytes()))
    print(f"{count} distinct arrangements; the same in both checkouts: {same}")
    print(f"median CPU per arrangement (ms), {args.rounds} alternating rounds")
    for name, tree in trees.items():
        print(f"{name:<8}{statistics.median(spent[name]):>8.2f}  {tree}")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
