"""A long game's history and spectator pages: milliseconds to first byte, before and after.

Run from the project root: ``.venv/bin/python bench/bench_history.py [--tree PATH]
[--rounds N] [--samples N]``. It plays two Mare Nostrum games of four seats with the
engine's bots (fixed seeds, so every run plays the same moves) in a scratch SQLite
database: one to its end (some 440 events) and one stopped at 300 events. Then, for this
checkout and (with ``--tree``) another one, each in a process of its own that imports
that checkout's pbem and opens a copy of the database, it times through the web app in
process (Flask renders a page whole before its first byte, so the time to the answer is
the time to first byte):

- the finished game's spectator page, history page (its head) and a history step in the
  middle: the first view (every cache of pages, states and lines emptied) and a repeat
  view;
- the running game's history and spectator pages right after a new move (as a player
  reads them: nothing served from a cache of the same head).

The checkouts take turns, ``--rounds`` times (so a busy machine slows both alike); each
figure is the median of all samples in milliseconds. A figure's process CPU is printed
beside it (``time.process_time``), since wall time is skewed by other load.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SLUG = "mare_nostrum"
SEATS = 4
RUNNING_AT = 300


def runtime_on(path: Path, var: str):
    from pbem.db import make_engine
    from pbem.migrations import migrate
    from pbem.runtime import build_runtime

    db = make_engine(f"sqlite:///{path}")
    migrate(db)
    config = {
        "security": {"secret_key": "bench"},
        "paths": {"var": var},
        "server": {"demo": False, "base_url": "http://localhost"},
    }
    return build_runtime(config, db=db)


def play(service, game_id: str, rng: random.Random, upto: int | None) -> None:
    """Bots' moves for every seat until the game ends (or reaches event ``upto``)."""
    from engines import get_engine

    engine = get_engine(SLUG)
    while True:
        head = service.head(game_id)
        due = sorted(head.engine.to_move(head.state))
        if not due or (upto is not None and head.seq >= upto):
            return
        legal = engine.legal_moves(head.state, due[0])
        move = engine.bot_move(engine.view(head.state, due[0]), legal, rng)
        service.submit_move(game_id, due[0], move, head.seq)


def build(path: Path) -> dict:
    """The two games, written to ``path``; their ids and a seat's link."""
    from pbem.games.service import SeatSpec

    with tempfile.TemporaryDirectory() as var:
        runtime = runtime_on(path, var)
        service = runtime.service
        games = {}
        for name, upto in (("finished", None), ("running", RUNNING_AT)):
            seats = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(SEATS)]
            created = service.create_game(SLUG, seats, seed=b"\x05" * 32)
            play(service, created.game_id, random.Random(5), upto)
            games[name] = {
                "id": created.game_id,
                "token": created.tokens[0],
                "events": service.game(created.game_id).head_seq,
            }
        runtime.db.dispose()
    return games


def forget() -> None:
    """Empties every cache a page may read from (a first view)."""
    from pbem.web import timeline

    timeline.clear_states()
    timeline._SERIES_CACHE.clear()
    try:
        from pbem.web import history

        history.clear_folds()
    except ImportError:
        pass
    try:
        from pbem.web import play as pages

        pages.PAGES.clear()
    except (ImportError, AttributeError):
        pass


def sample(path: Path, games: dict, samples: int) -> dict:
    """One checkout's figures (in this process, whose pbem is that checkout's)."""
    from pbem.web import create_app

    figures: dict[str, list[list[float]]] = {}

    def timed(name: str, url: str) -> None:
        wall, cpu = time.perf_counter(), time.process_time()
        answer = client.get(url)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        assert answer.status_code == 200, (url, answer.status_code)
        figures.setdefault(name, []).append([wall * 1000, cpu * 1000])

    with tempfile.TemporaryDirectory() as var:
        runtime = runtime_on(path, var)
        client = create_app(runtime=runtime).test_client()
        done, running = games["finished"], games["running"]
        middle = done["events"] // 2
        pages = {
            "spectator page": f"/games/{done['id']}",
            "history (head)": f"/games/{done['id']}/history",
            "history step (middle)": f"/games/{done['id']}/history?at={middle}",
            "seat's history (head)": f"/play/{done['token']}/history",
        }
        for _ in range(samples):
            forget()
            for name, url in pages.items():
                timed(f"{name}, first view", url)
            for name, url in pages.items():
                timed(f"{name}, repeat view", url)
        client.get(f"/games/{running['id']}/history")  # the page was read before the move
        for number in range(samples):
            move_on(runtime.service, running["id"], number)
            timed("running: history after a move", f"/games/{running['id']}/history")
            move_on(runtime.service, running["id"], number + 100)
            timed("running: spectator after a move", f"/games/{running['id']}")
        runtime.db.dispose()
    return figures


def move_on(service, game_id: str, number: int) -> None:
    from engines import get_engine

    engine = get_engine(SLUG)
    head = service.head(game_id)
    due = sorted(head.engine.to_move(head.state))
    if not due:
        return
    legal = engine.legal_moves(head.state, due[0])
    move = engine.bot_move(engine.view(head.state, due[0]), legal, random.Random(number))
    service.submit_move(game_id, due[0], move, head.seq)


def child(args: argparse.Namespace) -> None:
    """Runs in a checkout's own process: its figures as JSON on stdout."""
    games = json.loads(Path(args.games).read_text())
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "copy.sqlite3"
        shutil.copy(args.db, copy)
        figures = sample(copy, games, args.samples)
    print(json.dumps(figures))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", help="another checkout, timed in turn with this one")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--db", help=argparse.SUPPRESS)
    parser.add_argument("--games", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "games.sqlite3"
        began = time.perf_counter()
        games = build(db)
        built = time.perf_counter() - began
        listing = Path(folder) / "games.json"
        listing.write_text(json.dumps(games))
        trees = {"after": ROOT}
        if args.tree:
            trees = {"before": Path(args.tree).resolve(), "after": ROOT}
        results: dict[str, dict[str, list[list[float]]]] = {name: {} for name in trees}
        for _ in range(args.rounds):
            for name, tree in trees.items():
                env = {**os.environ, "PYTHONPATH": str(tree)}
                answer = subprocess.run(
                    [sys.executable, str(Path(__file__).resolve()), "--child"]
                    + ["--db", str(db), "--games", str(listing), "--samples", str(args.samples)],
                    env=env,
                    cwd=tree,
                    capture_output=True,
                    text=True,
                    check=True,
                )
                for figure, values in json.loads(answer.stdout.splitlines()[-1]).items():
                    results[name].setdefault(figure, []).extend(values)
    print(
        f"{SLUG}, {SEATS} seats: a finished game of {games['finished']['events']} events, "
        f"a running one from {games['running']['events']} (built in {built:.0f} s); "
        f"median ms over {args.rounds} rounds x {args.samples} samples, wall (process CPU)"
    )
    names = list(trees)
    print(f"{'page':44}" + "".join(f"{name:>20}" for name in names))
    for figure in results[names[-1]]:
        cells = []
        for name in names:
            values = results[name].get(figure, [])
            if not values:
                cells.append(f"{'-':>20}")
                continue
            wall = statistics.median(value[0] for value in values)
            cpu = statistics.median(value[1] for value in values)
            cells.append(f"{wall:>11.1f} ({cpu:5.1f})")
        print(f"{figure:44}" + "".join(cells))


if __name__ == "__main__":
    main()
