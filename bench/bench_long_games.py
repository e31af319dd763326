"""Long games cost like short ones: page and export times at 100 and 10,000 events.

Run from the project root: ``.venv/bin/python bench/bench_long_games.py [--runs N]
[--postgres [URL]]``. It records two games of the bench's own game (``pbem.bench_game``) (100 and
10,000 events, written in bulk as ``pbem bench`` does) in a scratch SQLite database (or
a scratch PostgreSQL schema) and serves them through the web app in process. For each
game it prints the median milliseconds of:

- a history step at the middle and at the end of the game (the spectator's page);
- a seat's export (``/play/TOKEN/export.json``) and the full export (the pieces the web
  route streams, written to memory: the game runs, so only ``--full`` would export it);
- the audit page: its first view, a repeat view, and a view after a move. The worker
  keeps long games' audit marks current (:func:`pbem.eventlog.audit.catch_up`, after each
  sweep); the bench runs that step once after writing the games, as the worker would
  have while they were played, and prints how long it took.

Except the audit's first and repeat views, each sample is taken right after a new move,
as players see them: nothing is served from a page cached for the same head. The two
games are sampled in turn (so a busy machine slows both alike); the last column is the
ratio of 10,000 events to 100. The 100-event game is short enough for its first view to
replay it whole; the 10,000-event one is verified from the worker's mark.
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pbem.bench import bench_engine, bulk_game, next_move  # noqa: E402
from pbem.db import make_engine  # noqa: E402
from pbem.eventlog.audit import catch_up  # noqa: E402
from pbem.games.portable import export_chunks  # noqa: E402
from pbem.migrations import migrate  # noqa: E402
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


def measure(client, service, games: dict[int, tuple[str, str]], runs: int) -> dict:
    """Median milliseconds per figure and game length, the lengths sampled in turn."""
    figures: dict[str, dict[int, list[float]]] = {}
    sink = io.StringIO()

    def history_at(fraction: float) -> Callable[[str, str], object]:
        def get(game_id: str, _token: str):
            at = int(service.game(game_id).head_seq * fraction)
            return client.get(f"/games/{game_id}/history?at={at}")

        return get

    class Built:
        status_code = 200

    def full_export(game_id: str, _token: str):
        for piece in export_chunks(service, game_id, full=True):
            sink.write(piece)
        return Built()

    def audit(game_id: str, _token: str):
        return client.get(f"/games/{game_id}/audit")

    def seat_export(_game_id: str, token: str):
        return client.get(f"/play/{token}/export.json")

    plan = [
        ("audit, first view", audit, False, 1),
        ("audit, repeat view", audit, False, runs),
        ("audit, after a move", audit, True, runs),
        ("history step, middle", history_at(0.5), True, runs),
        ("history step, end", history_at(1.0), True, runs),
        ("seat export", seat_export, True, runs),
        ("full export", full_export, True, runs),
    ]
    for name, get, after_move, count in plan:
        for _ in range(count):
            for length, (game_id, token) in games.items():
                if after_move:
                    move_on(service, game_id)
                elapsed = timed(partial(get, game_id, token))
                figures.setdefault(name, {}).setdefault(length, []).append(elapsed)
    return {
        name: {length: statistics.median(values) for length, values in by_length.items()}
        for name, by_length in figures.items()
    }


def run(url: str, runs: int, connect_args: dict | None = None) -> None:
    bench_engine()
    db = make_engine(url, connect_args=connect_args or {})
    migrate(db)
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
        games = {}
        for length in LENGTHS:
            game_id = bulk_game(service, length - 1)
            games[length] = (game_id, service.rotate_token(game_id, 0))
        began = time.perf_counter()
        caught = catch_up(service, seconds=600)  # as the worker would have over the games
        worker = time.perf_counter() - began
        results = measure(client, service, games, runs)
    db.dispose()
    short, long = LENGTHS
    print(f"median ms of {runs} runs, the two games in turn ({url.split(':', 1)[0]})")
    print(f"(the worker's audit catch-up beforehand: {caught} game(s) in {worker:.2f} s)")
    print(f"{'events':24}{short:>10,}{long:>10,}   ratio")
    for name, by_length in results.items():
        a, b = by_length[short], by_length[long]
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
