"""Worker CPU of an uncached turn page, per title: the median over seats and states.

Run from the project root: ``.venv/bin/python bench/bench_page_cpu.py [--states 8]
[--tree PATH] [--against PATH --rounds N]``

For each title with a board, a game between bots is played on SQLite in a scratch
folder; every ``--every`` moves, each seat's turn page is fetched through the app's test
client with the page cache emptied before every fetch, and the process CPU time of the
request is recorded (``time.process_time``). Three figures per title:

* ``cold``: nothing kept: the board's arrangement cache (chips and names,
  :mod:`pbem.web.boards`) and the states kept after recent events
  (:class:`pbem.web.timeline.KeptStates`) emptied, as after a restart;
* ``first``: the first seat to open a new state right after a move: the arrangements
  emptied, what the pages opened before that move kept still there (one page is opened,
  unmeasured, one move before each measured state);
* ``warm``: the arrangement already made for that state's board (every other seat,
  another zoom or ``?pick=``), which is what a busy game mostly serves.

``--tree`` imports the project from another checkout (its figures for the same games;
what it does not keep is simply not emptied). ``--against PATH`` runs this script
``--rounds`` times for this checkout and for PATH, alternating, each run in a process of
its own, and prints the medians over the rounds side by side.
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

from pbem.db import make_engine  # noqa: E402
from pbem.games.service import SeatSpec  # noqa: E402
from pbem.migrations import migrate  # noqa: E402
from pbem.runtime import build_runtime  # noqa: E402
from pbem.web import boards, create_app, play, timeline  # noqa: E402

TITLES = [("mare_nostrum", 5, {"turn_limit": 3}), ("mare_balticum", 4, {}), ("mercatores", 3, {})]
KINDS = ("cold", "first", "warm")


def clear_arrangements() -> None:
    clear = getattr(boards, "clear_arrangements", None)  # absent before the cache existed
    if clear is not None:
        clear()


def clear_states() -> None:
    clear = getattr(timeline, "clear_states", None)  # absent before states were kept
    if clear is not None:
        clear()


def measure(folder: Path, slug: str, seats: int, options: dict, states: int, every: int):
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
    app = create_app(runtime=runtime)
    client = app.test_client()
    specs = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(seats)]
    created = runtime.service.create_game(slug, specs, options, seed=b"b" * 32)
    rng = random.Random(3)
    samples: dict[str, list[float]] = {kind: [] for kind in KINDS}

    def fetch(token: str) -> float:
        play.PAGES.clear()
        start = time.process_time()
        answer = client.get(f"/play/{token}")
        spent = (time.process_time() - start) * 1000
        assert answer.status_code == 200, answer.status_code
        return spent

    def move() -> bool:
        head = runtime.service.head(created.game_id)
        due = sorted(head.engine.to_move(head.state))
        if head.game.status != "active" or not due:
            return False
        view = head.engine.view(head.state, due[0])
        chosen = head.engine.bot_move(view, head.engine.legal_moves(head.state, due[0]), rng)
        runtime.service.submit_move(created.game_id, due[0], chosen, head.game.head_seq)
        return True

    for number in range(states):
        if number:  # the moves up to the last one, a page, then the last move
            if not all(move() for _ in range(every - 1)):
                break
            fetch(created.tokens[0])
            if not move():
                break
        for token in created.tokens:
            clear_arrangements()
            samples["first"].append(fetch(token))
            clear_arrangements()
            clear_states()
            samples["cold"].append(fetch(token))
            samples["warm"].append(fetch(token))
    db.dispose()
    return [samples[kind] for kind in KINDS]


def run(states: int, every: int) -> dict[str, list[float]]:
    """Each title's median cold, first and warm CPU (ms) in this process's tree."""
    found = {}
    with tempfile.TemporaryDirectory() as scratch:
        for slug, seats, options in TITLES:
            samples = measure(Path(scratch), slug, seats, options, states, every)
            found[slug] = [statistics.median(sample) for sample in samples]
    return found


def compare(against: str, rounds: int, states: int, every: int) -> None:
    """This script for this checkout and ``against``, alternating, in processes of their
    own; the medians over the rounds side by side."""
    trees = {"before": str(Path(against).resolve()), "after": str(ROOT)}
    figures: dict[str, list[dict]] = {name: [] for name in trees}
    for _ in range(rounds):
        for name, tree in trees.items():
            command = [sys.executable, __file__, "--json", "--tree", tree]
            command += ["--states", str(states), "--every", str(every)]
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            figures[name].append(json.loads(done.stdout))
    print(f"median CPU (ms) per uncached turn page; {rounds} alternating rounds")
    print(f"before: {trees['before']}\nafter:  {trees['after']}")
    print(f"{'title':<15}" + "".join(f"{f'{kind} {name}':>14}" for kind in KINDS for name in trees))
    for slug, _, _ in TITLES:
        cells = [
            statistics.median(found[slug][index] for found in figures[name])
            for index in range(len(KINDS))
            for name in trees
        ]
        print(f"{slug:<15}" + "".join(f"{cell:>14.1f}" for cell in cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=8, help="states measured per title")
    parser.add_argument("--every", type=int, default=25, help="moves between states")
    parser.add_argument("--tree", help="the checkout to import the project from")
    parser.add_argument("--against", help="another checkout to compare with, alternating")
    parser.add_argument("--rounds", type=int, default=3, help="rounds with --against")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.against:
        compare(args.against, args.rounds, args.states, args.every)
        return
    found = run(args.states, args.every)
    if args.json:
        print(json.dumps(found))
        return
    print(f"tree {ROOT}")
    print(f"{'title':<15}" + "".join(f"{kind + ' ms':>10}" for kind in KINDS))
    for slug, figures in found.items():
        print(f"{slug:<15}" + "".join(f"{figure:>10.1f}" for figure in figures))


if __name__ == "__main__":
    main()
