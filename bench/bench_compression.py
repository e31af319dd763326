"""What each client is sent, and what bogus zoom values cost the turn-page cache.

Run from the project root: ``.venv/bin/python bench/bench_compression.py [--events N]
[--zooms N] [--tree PATH]``. It plays a 4-seat Mare Nostrum game (every move chosen by
the bot of the seat to move) in a scratch SQLite database up to ``--events`` events, then
asks the app (Flask's test client, the production factory) for ``style.css``, a seat's
turn page and the seat's export with each ``Accept-Encoding`` below, and prints the bytes
sent and the encoding chosen. Then it asks the turn page with ``--zooms`` different
bogus ``?zoom=`` values and prints how many pages were rendered and how much the page
cache grew. ``--tree`` imports the project from another checkout (to compare with it).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

ENCODINGS = (
    "identity",
    "gzip",
    "deflate",
    "br",
    "gzip, deflate, br",
    "br;q=0.5, gzip",
    "gzip;q=0",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=400)
    parser.add_argument("--zooms", type=int, default=200)
    parser.add_argument("--tree", default=str(Path(__file__).resolve().parents[1]))
    args = parser.parse_args()
    sys.path.insert(0, args.tree)

    from engines import REGISTRY
    from pbem.db import make_engine
    from pbem.games.service import SeatSpec
    from pbem.migrations import migrate
    from pbem.runtime import build_runtime
    from pbem.web import create_app, play

    folder = Path(tempfile.mkdtemp(prefix="pbem-bench-"))
    db = make_engine(f"sqlite:///{folder / 'bench'}.sqlite3")
    migrate(db)
    runtime = build_runtime(
        {
            "security": {"secret_key": "bench"},
            "paths": {"var": str(folder)},
            "server": {"demo": False, "base_url": "http://bench.invalid"},
        },
        db=db,
    )
    specs = [SeatSpec(name, f"{name.lower()}@example.org") for name in ("Ann", "Ben", "Cy")]
    created = runtime.service.create_game(
        "mare_nostrum", [*specs, SeatSpec("Hal", is_bot=True)], {"turn_limit": 40}
    )
    game_id, token = created.game_id, created.tokens[0]
    engine, rng = REGISTRY["mare_nostrum"], random.Random(1)
    while True:
        head = runtime.service.head(game_id)
        due = sorted(engine.to_move(head.state))
        if not due or head.seq + 1 >= args.events:
            break
        move = engine.bot_move(
            engine.view(head.state, due[0]), engine.legal_moves(head.state, due[0]), rng
        )
        runtime.service.submit_move(game_id, due[0], move, head.seq)
    app = create_app(runtime=runtime)
    client = app.test_client()
    print(
        f"tree {args.tree}; a Mare Nostrum game of {runtime.service.head(game_id).seq + 1} events"
    )
    urls = {
        "style.css": "/static/style.css",
        "turn page": f"/play/{token}",
        "seat export": f"/play/{token}/export.json",
    }
    print(f"{'Accept-Encoding':<20}" + "".join(f"{name:>24}" for name in urls))
    for accept in ENCODINGS:
        cells = []
        for url in urls.values():
            response = client.get(url, headers={"Accept-Encoding": accept})
            body = response.get_data()
            encoding = response.headers.get("Content-Encoding", "identity")
            cells.append(f"{len(body):>10,} B {encoding:<9}")
        print(f"{accept:<20}" + "".join(f"{cell:>24}" for cell in cells))

    play.PAGES.clear()
    renders = 0
    original = play.render_page

    def counting(*given, **named):
        nonlocal renders
        renders += 1
        return original(*given, **named)

    play.render_page = counting
    client.get(f"/play/{token}")
    before, renders = len(play.PAGES), 0
    started = time.perf_counter()
    for n in range(args.zooms):
        client.get(f"/play/{token}?zoom=bogus{n}")
    spent = time.perf_counter() - started
    print(
        f"{args.zooms} bogus zoom values: {renders} renders, page cache {before} -> "
        f"{len(play.PAGES)} entries, {spent * 1000 / args.zooms:.1f} ms a request"
    )


if __name__ == "__main__":
    main()
