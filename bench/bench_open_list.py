"""What ``/open``'s list costs (:func:`pbem.games.open_games.list_open`) with N open
games of four seats, each with one pending hold, on SQLite in a temporary file.

Run from the project root: ``.venv/bin/python bench/bench_open_list.py [N]`` (500 by
default). Prints the mean of 20 runs per filter, in ms.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from engines import REGISTRY
from pbem.games import open_games
from pbem.games.service import SeatSpec
from pbem.runtime import build_runtime
from tests.databases import sqlite_engine
from tests.fixture_engine import PIG


def main(count: int) -> None:
    REGISTRY.setdefault(PIG.slug, PIG)
    folder = Path(tempfile.mkdtemp(prefix="pbem-open-"))
    many = 10**6
    runtime = build_runtime(
        {
            "security": {"secret_key": "bench"},
            "paths": {"var": str(folder)},
            "server": {"demo": False},
            "limits": {
                "open_games_per_address_per_day": many,
                "open_games_per_client_per_day": many,
            },
        },
        db=sqlite_engine(folder / "open.sqlite3"),
        create_schema=False,
    )
    runtime.service.notice_listeners.clear()  # no mail: the list alone is measured
    for number in range(count):
        seats = [SeatSpec("A", f"a{number}@example.org"), None, None, None]
        created = open_games.create_open(runtime, "pig", seats, {"target": 20})
        open_games.join(runtime, created.game_id, "B", f"b{number}@example.net")
    for label, filters in [
        ("no filter", {}),
        ("seats left >= 3", {"seats_left": 3}),
        ("no deadline", {"pace": "none"}),
    ]:
        runs = 20
        started = time.perf_counter()
        for _ in range(runs):
            open_games.list_open(runtime, **filters)
        print(
            f"{count} open games, {label}: {(time.perf_counter() - started) / runs * 1000:.1f} ms"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 500)
