"""Turn-page speed under load, with the server run as in production.

Run from the project root: ``.venv/bin/python bench/bench_web.py``. It makes a scratch
schema in PostgreSQL (127.0.0.1:5432/test, or ``--postgres URL``), records two games of
the test fixture engine ``pig`` (50 and 2,000 events), starts gunicorn with 2 workers
(4 threads each, so one worker's wait on the database does not stall it) against that
database, and lets 20 concurrent clients (keep-alive HTTP connections that keep their
session cookie, as a browser does) fetch one seat's turn page for ``--seconds`` per
game, in rounds alternating between the two games. It prints requests per second and
p50/p99 latency per game length, then stops gunicorn and drops the schema.

gunicorn loads ``bench.bench_web:application()``: the production factory
``pbem.web.create_app()`` with the fixture engine registered (the product games cannot
be driven to an exact event count).
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
CLIENTS = 20
ROUNDS = 5
LENGTHS = (50, 2000)


def application():
    """The WSGI app gunicorn serves: the production factory, plus the fixture engine."""
    from engines import REGISTRY
    from pbem.web import create_app
    from tests.fixture_engine import PIG

    REGISTRY.setdefault(PIG.slug, PIG)
    return create_app()


def record_game(service, events: int) -> str:
    """A two-seat pig game with exactly ``events`` events, the turn with seat 0."""
    from pbem.games.service import SeatSpec

    created = service.create_game(
        "pig",
        [SeatSpec("Ann", "ann@example.org"), SeatSpec("Bob", "bob@example.org")],
        {"target": 10**9},
    )
    rng = random.Random(events)
    head = service.head(created.game_id)
    while head.seq < events - 1:
        seat = min(head.engine.to_move(head.state))
        move = {"type": "stop"} if rng.random() < 0.3 else {"type": "roll"}
        service.submit_move(created.game_id, seat, move, head.seq)
        head = service.head(created.game_id)
    while 0 not in head.engine.to_move(head.state):
        service.submit_move(created.game_id, 1, {"type": "stop"}, head.seq)
        head = service.head(created.game_id)
    return created.tokens[0]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_for(port: int, deadline: float) -> None:
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("gunicorn did not start")


def load(port: int, path: str, seconds: float) -> tuple[list[float], int]:
    """``CLIENTS`` threads fetching ``path`` for ``seconds``; (latencies in s, errors)."""
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine = []
        headers: dict[str, str] = {}
        while time.monotonic() < stop:
            start = time.perf_counter()
            connection.request("GET", path, headers=headers)
            answer = connection.getresponse()
            answer.read()
            cookie = answer.getheader("Set-Cookie")
            if cookie:  # like a browser, keep the session (and its CSRF token)
                headers["Cookie"] = cookie.split(";", 1)[0]
            mine.append(time.perf_counter() - start)
            if answer.status != 200:
                errors[0] += 1
        connection.close()
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, errors[0]


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", default=DEFAULT_POSTGRES)
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args()

    import sqlalchemy

    from pbem.runtime import build_runtime

    schema = f"pbem_bench_web_{os.getpid()}"
    admin = sqlalchemy.create_engine(args.postgres, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    separator = "&" if "?" in args.postgres else "?"
    url = f"{args.postgres}{separator}options={quote(f'-csearch_path={schema}')}"
    application()  # registers the fixture engine here too
    gunicorn = None
    try:
        runtime = build_runtime({"database": {"url": url}})
        tokens = {events: record_game(runtime.service, events) for events in LENGTHS}
        runtime.db.dispose()
        port = free_port()
        environment = {**os.environ, "PBEM_DATABASE_URL": url, "PBEM_SERVER_DEMO": "false"}
        gunicorn = subprocess.Popen(
            [
                str(ROOT / ".venv" / "bin" / "gunicorn"),
                "-w",
                "2",
                "--threads",
                "4",
                "-b",
                f"127.0.0.1:{port}",
                "--log-level",
                "warning",
                "bench.bench_web:application()",
            ],
            cwd=ROOT,
            env=environment,
        )
        wait_for(port, time.monotonic() + 30)
        print(
            f"gunicorn, 2 workers x 4 threads, PostgreSQL; {CLIENTS} concurrent clients, turn page"
        )
        print(f"{'events':>7} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>7}")
        results: dict[int, tuple[list[float], int]] = {events: ([], 0) for events in tokens}
        for token in tokens.values():
            load(port, f"/play/{token}", 2.0)  # warm up both workers
        for _ in range(ROUNDS):  # alternate, so a change in the machine's load hits both
            for events, token in tokens.items():
                latencies, errors = load(port, f"/play/{token}", args.seconds / ROUNDS)
                results[events][0].extend(latencies)
                results[events] = (results[events][0], results[events][1] + errors)
        for events, (latencies, errors) in results.items():
            print(
                f"{events:>7} {len(latencies) / args.seconds:>8.1f} "
                f"{statistics.median(latencies) * 1000:>8.1f} "
                f"{percentile(latencies, 0.99) * 1000:>8.1f} {errors:>7}"
            )
    finally:
        if gunicorn is not None:
            gunicorn.terminate()
            gunicorn.wait(timeout=30)
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


if __name__ == "__main__":
    main()
