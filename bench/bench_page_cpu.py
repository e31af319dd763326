"""Worker CPU of an uncached turn page, per title: the median over seats and states.

Run from the project root: ``.venv/bin/python bench/bench_page_cpu.py [--states 8]``

For each title with a board, a game between bots is played on SQLite in a scratch
folder; every ``--every`` moves, each seat's turn page is fetched through the app's test
client with the page cache emptied before every fetch, and the process CPU time of the
request is recorded (``time.process_time``). Two figures per title:

* ``cold``: the board's arrangement cache (chips and names, :mod:`pbem.web.boards`)
  emptied too, as for the first seat to open a new state;
* ``warm``: the arrangement already made for that state's board (every other seat,
  another zoom or ``?pick=``), which is what a busy game mostly serves.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pbem.db import make_engine  # noqa: E402
from pbem.games.service import SeatSpec  # noqa: E402
from pbem.migrations import migrate  # noqa: E402
from pbem.runtime import build_runtime  # noqa: E402
from pbem.web import boards, create_app, play  # noqa: E402

TITLES = [("mare_nostrum", 5, {"turn_limit": 3}), ("mare_balticum", 4, {}), ("mercatores", 3, {})]


def clear_arrangements() -> None:
    clear = getattr(boards, "clear_arrangements", None)  # absent before the cache existed
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
    cold: list[float] = []
    warm: list[float] = []
    for _ in range(states):
        clear_arrangements()
        for token in created.tokens:
            for sample in (cold, warm):
                play.PAGES.clear()
                if sample is cold:
                    clear_arrangements()
                start = time.process_time()
                answer = client.get(f"/play/{token}")
                sample.append((time.process_time() - start) * 1000)
                assert answer.status_code == 200, answer.status_code
        for _ in range(every):
            head = runtime.service.head(created.game_id)
            due = sorted(head.engine.to_move(head.state))
            if head.game.status != "active" or not due:
                break
            view = head.engine.view(head.state, due[0])
            move = head.engine.bot_move(view, head.engine.legal_moves(head.state, due[0]), rng)
            runtime.service.submit_move(created.game_id, due[0], move, head.game.head_seq)
    db.dispose()
    return cold, warm


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--states", type=int, default=8, help="states measured per title")
    parser.add_argument("--every", type=int, default=25, help="moves between states")
    args = parser.parse_args()
    print(f"{'title':<15}{'pages':>7}{'cold ms':>10}{'warm ms':>10}  (median CPU per page)")
    with tempfile.TemporaryDirectory() as scratch:
        for slug, seats, options in TITLES:
            cold, warm = measure(Path(scratch), slug, seats, options, args.states, args.every)
            print(
                f"{slug:<15}{len(cold):>7}{statistics.median(cold):>10.1f}"
                f"{statistics.median(warm):>10.1f}"
            )


if __name__ == "__main__":
    main()
