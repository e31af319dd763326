"""Long games cost like short ones: page and export times at 100 and 10,000 events.

Run from the project root: ``.venv/bin/python bench/bench_long_games.py [--runs N]
[--postgres [URL]]``. It records two games of the test fixture engine ``pig`` (100 and
10,000 events, written in bulk as ``pbem bench`` does) in a scratch SQLite database (or
a scratch PostgreSQL schema) and serves them through the web app in process. For each
game it prints the median milliseconds of:

- a history step at the middle and at the end of the game (the spectator's page);
- a seat's export and the full export (``/play/TOKEN/export.json``; the full one as the
  operator's ``pbem export --full`` builds it);
- the audit page: its first view (the whole log replayed once), a repeat view, and a
  view after a move.

Except the audit's first and repeat views, each sample is taken right after a new move,
as players see them: nothing is served from a page cached for the same head. The last
column is the ratio of 10,000 events to 100.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pbem.bench import bulk_game, fixture_engine, next_move  # noqa: E402
from pbem.db import init_db, make_engine  # noqa: E402
from pbem.runtime import build_runtime  # noqa: E402
from pbem.web import create_app  # noqa: E402

DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
LENGTHS = (100, 10_000)


def move_on(service, game_id: str) -> None:
    head = service.head(game_id)
    seat = min(head.engine.to_move(head.state))
    service.submit_move(game_id, seat, next_move(head.state), head.seq)


def timed(get: Callable[[], object]) -> float:
    start = time.perf_counter()
    response = get()
    elapsed = time.perf_counter() - start
    assert response.status_code == 200, response.status_code
    return elapsed * 1000


def measure(client, service, game_id: str, token: str, runs: int) -> dict[str, float]:
    figures: dict[str, list[float]] = {}

    def sample(name: str, get: Callable[[], object], after_move: bool = True) -> None:
        for _ in range(runs):
            if after_move:
                move_on(service, game_id)
            figures.setdefault(name, []).append(timed(get))

    def history_at(fraction: float) -> Callable[[], object]:
        def get():
            at = int(service.game(game_id).head_seq * fraction)
            return client.get(f"/games/{game_id}/history?at={at}")

        return get

    class Full:
        status_code = 200

    def full_export():
        service.export_text(game_id, full=True)
        return Full()

    audit = f"/games/{game_id}/audit"
    figures["audit, first view"] = [timed(lambda: client.get(audit))]
    sample("audit, repeat view", lambda: client.get(audit), after_move=False)
    sample("audit, after a move", lambda: client.get(audit))
    sample("history step, middle", history_at(0.5))
    sample("history step, end", history_at(1.0))
    sample("seat export", lambda: client.get(f"/play/{token}/export.json"))
    sample("full export", full_export)
    return {name: statistics.median(values) for name, values in figures.items()}


def run(url: str, runs: int, connect_args: dict | None = None) -> None:
    fixture_engine()
    db = make_engine(url, connect_args=connect_args or {})
    init_db(db)
    with tempfile.TemporaryDirectory() as var:
        runtime = build_runtime(
            {
                "security": {"secret_key": "bench"},
                "paths": {"var": var},
                "server": {"demo": False, "base_url": "http://localhost"},
            },
            db=db,
        )
        app = create_app(runtime=runtime)
        client = app.test_client()
        service = runtime.service
        results = {}
        for length in LENGTHS:
            game_id = bulk_game(service, length - 1)
            token = service.rotate_token(game_id, 0)
            results[length] = measure(client, service, game_id, token, runs)
    db.dispose()
    short, long = LENGTHS
    print(f"median ms of {runs} runs ({url.split(':', 1)[0]})")
    print(f"{'':24}{short:>10,}{long:>10,}   ratio")
    for name in results[short]:
        a, b = results[short][name], results[long][name]
        print(f"{name:24}{a:10.1f}{b:10.1f}   {b / a:5.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--postgres", nargs="?", const=DEFAULT_POSTGRES)
    args = parser.parse_args()
    if args.postgres:
        import sqlalchemy

        schema = f"pbem_long_{int(time.time())}"
        admin = sqlalchemy.create_engine(args.postgres, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        try:
            run(args.postgres, args.runs, {"options": f"-csearch_path={schema}"})
        finally:
            with admin.connect() as connection:
                connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
            admin.dispose()
        return
    with tempfile.TemporaryDirectory() as folder:
        run(f"sqlite:///{Path(folder) / 'long.sqlite3'}", args.runs)


if __name__ == "__main__":
    main()
