"""Moving a game: the full export (with the game's people) and its import elsewhere.

Run from the project root: ``.venv/bin/python bench/bench_portable.py [--runs N]
[--events N]``. It plays a 4-seat Mare Nostrum game (three people with addresses and
time zones, one bot; every move chosen by the bot of the seat to move) in a scratch
SQLite database up to ``--events`` events or its end, then, ``--runs`` times: exports it
with ``--full`` (the personal section included) and imports the file into a fresh
scratch database through the runtime, which verifies the whole log, restores the people
and mails each person a fresh link. It prints the median milliseconds of each.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engines import REGISTRY  # noqa: E402
from pbem.db import make_engine  # noqa: E402
from pbem.games.portable import import_full  # noqa: E402
from pbem.games.service import SeatSpec  # noqa: E402
from pbem.migrations import migrate  # noqa: E402
from pbem.runtime import build_runtime  # noqa: E402


def scratch_runtime(folder: Path, name: str):
    db = make_engine(f"sqlite:///{folder / name}.sqlite3")
    migrate(db)
    config = {
        "security": {"secret_key": "bench"},
        "paths": {"var": str(folder)},
        "server": {"demo": False, "base_url": "http://bench.invalid"},
    }
    return build_runtime(config, db=db)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--events", type=int, default=600)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="pbem-bench-"))
    source = scratch_runtime(folder, "source")
    specs = [
        SeatSpec("Ann", "ann@example.org", timezone="Asia/Tokyo"),
        SeatSpec("Ben", "ben@example.org"),
        SeatSpec("Cy", "cy@example.org", timezone="America/New_York"),
        SeatSpec("Hal", is_bot=True),
    ]
    game_id = source.service.create_game("mare_nostrum", specs, {"turn_limit": 40}).game_id
    engine, rng = REGISTRY["mare_nostrum"], random.Random(1)
    while True:
        head = source.service.head(game_id)
        due = sorted(engine.to_move(head.state))
        if not due or head.seq + 1 >= args.events:
            break
        seat = due[0]
        move = engine.bot_move(
            engine.view(head.state, seat), engine.legal_moves(head.state, seat), rng
        )
        source.service.submit_move(game_id, seat, move, head.seq)
    exports, imports = [], []
    for run in range(args.runs):
        started = time.perf_counter()
        text = source.service.export_text(game_id, full=True)
        exports.append(time.perf_counter() - started)
        target = scratch_runtime(folder, f"target{run}")
        started = time.perf_counter()
        import_full(target.service, json.loads(text), runtime=target, mail=True)
        imports.append(time.perf_counter() - started)
    events = source.service.head(game_id).seq + 1
    print(f"{events} events, a file of {len(text) // 1024} KiB, {args.runs} runs (median):")
    print(f"  export --full: {statistics.median(exports) * 1000:.0f} ms (kept after the first)")
    print(
        f"  import (verify, restore the people, mail 3 links): "
        f"{statistics.median(imports) * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
