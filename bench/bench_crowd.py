"""Twenty players moving at once on SQLite: the writers' queue against SQLite's busy handler.

Run from the project root: ``.venv/bin/python bench/bench_crowd.py [--players 20]
[--seconds 10] [--rounds 3]``. Each round runs in a fresh process on a fresh SQLite file
(``synchronous = FULL``, the default): ``pbem.web.create_app()`` served by a threaded
WSGI server (werkzeug, one thread per request), ``--players`` games of the fixture
engine ``pig`` and one client per game (a keep-alive HTTP connection) posting its
game's moves through the JSON API, one after another, for ``--seconds``. Rounds
alternate between the writers' queue on and off (``PBEM_DATABASE_SQLITE_WRITER_QUEUE``:
each writer waits in SQLite's busy handler, as before the queue). It prints, per
round and for all rounds of each kind, moves per second and the moves' p50, p90, p99
and worst latency, and the errors (an answer other than 200, or none).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def one_round(players: int, seconds: float) -> dict:
    """Serves, plays and measures one round in this process."""
    import logging

    from werkzeug.serving import make_server

    from engines import REGISTRY
    from pbem.games.service import SeatSpec
    from pbem.runtime import build_runtime
    from pbem.web import create_app
    from tests.fixture_engine import PIG

    REGISTRY.setdefault(PIG.slug, PIG)
    scratch = Path(tempfile.mkdtemp(prefix="pbem_crowd_"))
    runtime = build_runtime(
        {
            "database": {"url": f"sqlite:///{scratch / 'crowd.sqlite3'}"},
            "paths": {"var": str(scratch / "var")},
            "security": {"secret_key": "bench-secret"},
        }
    )
    games = []
    for index in range(players):
        created = runtime.service.create_game(
            "pig",
            [SeatSpec(f"A{index}", f"a{index}@example.org"), SeatSpec(f"B{index}")],
            {"target": 10**9},
        )
        games.append(created.tokens)
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
    server = make_server("127.0.0.1", 0, create_app(runtime=runtime), threaded=True)
    port = server.server_port
    threading.Thread(target=server.serve_forever, daemon=True).start()

    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    barrier = threading.Barrier(players)

    def player(tokens: list[str]) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        seq = 0
        barrier.wait()
        stop_at = time.perf_counter() + seconds
        while time.perf_counter() < stop_at:
            # "stop" passes the turn: the seats move in turn, 0, 1, 0...
            body = json.dumps({"move": {"type": "stop"}, "expected_seq": seq}).encode()
            start = time.perf_counter()
            try:
                connection.request(
                    "POST",
                    f"/api/play/{tokens[seq % 2]}/moves",
                    body=body,
                    headers={"Content-Type": "application/json"},
                )
                response = connection.getresponse()
                payload = response.read()
            except (OSError, http.client.HTTPException) as error:
                with lock:
                    errors.append(type(error).__name__)
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
                continue
            took = time.perf_counter() - start
            with lock:
                if response.status == 200:
                    latencies.append(took)
                else:
                    errors.append(f"{response.status} {payload[:80]!r}")
            if response.status == 200:
                seq = json.loads(payload)["seq"]
        connection.close()

    threads = [threading.Thread(target=player, args=(tokens,)) for tokens in games]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    server.shutdown()
    runtime.db.dispose()
    return {"latencies": latencies, "errors": errors, "elapsed": elapsed}


def summary(latencies: list[float], errors: int, elapsed: float) -> str:
    if not latencies:
        return f"no move landed, {errors} errors"
    ordered = sorted(latencies)

    def at(share: float) -> float:
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))] * 1000

    return (
        f"{len(ordered) / elapsed:7.1f} moves/s  p50 {at(0.5):7.1f}  p90 {at(0.9):7.1f}  "
        f"p99 {at(0.99):7.1f}  worst {ordered[-1] * 1000:7.1f} ms  "
        f"({len(ordered)} moves, {errors} errors; mean {statistics.mean(ordered) * 1000:.1f} ms)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each kind")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(one_round(args.players, args.seconds)))
        return 0
    print(f"{args.players} players at once, {args.seconds:g} s a round, SQLite (FULL)")
    totals: dict[str, dict] = {}
    for number in range(args.rounds):
        for kind in ("busy handler", "queue") if number % 2 == 0 else ("queue", "busy handler"):
            env = {**os.environ, "PYTHONPATH": str(ROOT)}
            on = "false" if kind == "busy handler" else "true"
            env["PBEM_DATABASE_SQLITE_WRITER_QUEUE"] = on
            command = [sys.executable, __file__, "--child", "--players", str(args.players)]
            command += ["--seconds", str(args.seconds)]
            found = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True)
            if found.returncode:
                print(found.stderr[-2000:], file=sys.stderr)
                return 1
            result = json.loads(found.stdout.strip().splitlines()[-1])
            total = totals.setdefault(kind, {"latencies": [], "errors": [], "elapsed": 0.0})
            for key in ("latencies", "errors"):
                total[key] += result[key]
            total["elapsed"] += result["elapsed"]
            line = summary(result["latencies"], len(result["errors"]), result["elapsed"])
            print(f"round {number + 1} {kind:12}  {line}", flush=True)
            for error in sorted(set(result["errors"]))[:3]:
                print(f"    error: {error}")
    for kind, total in totals.items():
        print(
            f"all     {kind:12}  {summary(total['latencies'], len(total['errors']), total['elapsed'])}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
