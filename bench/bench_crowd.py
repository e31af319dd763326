"""Twenty players moving at once on ``pbem serve``: SQLite (queue and busy handler) and PostgreSQL.

Run from the project root: ``.venv/bin/python bench/bench_crowd.py [--players 20]
[--seconds 10] [--rounds 3] [--databases sqlite,postgresql] [--server gunicorn]
[--title pig]``.

Each round serves a fresh database: a server process builds ``--players`` games of the
fixture engine ``pig`` (two seats each, mail on; or of a real title with ``--title``,
at its fewest seats), then serves them as ``pbem serve`` does
(:mod:`pbem.web.embedded`: gunicorn, one threaded worker, the scheduler and the mail
dispatcher running beside it; ``--server werkzeug`` serves with werkzeug's threaded
server instead, for comparison). This process then runs one client per game (a
keep-alive HTTP connection) posting its game's moves through the JSON API, one after
another, for ``--seconds``, and stops the server with SIGTERM. With ``pig`` a client
passes the turn ("stop") at once; with a real title it first reads the seat due's view
(``GET /api/play/<token>``, not timed) and posts one of its legal moves, chosen by a
seeded random draw, so every move is a real one with its mail.

On SQLite (a scratch file, ``synchronous = FULL``) rounds alternate between the
writers' queue on and off (``PBEM_DATABASE_SQLITE_WRITER_QUEUE``: off, each writer
waits in SQLite's busy handler, as before the queue); on PostgreSQL (a scratch schema
of the local server, dropped afterwards) there is one kind. It prints, per round and for
all rounds of each kind, moves per second, the moves' p50, p90, p99 and worst latency,
and the errors (an answer other than 200, or none).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def serve(players: int, database: str, port: int, ready: Path, server: str, title: str) -> int:
    """The server process: builds the games, writes their links to ``ready``, serves."""
    import logging

    from engines import REGISTRY
    from pbem.db import make_engine
    from pbem.games.service import SeatSpec
    from pbem.runtime import build_runtime
    from pbem.web import create_app
    from tests.fixture_engine import PIG

    REGISTRY.setdefault(PIG.slug, PIG)
    scratch = Path(tempfile.mkdtemp(prefix="pbem_crowd_"))
    overrides = {
        "paths": {"var": str(scratch / "var")},
        "security": {"secret_key": "bench-secret"},
        "server": {"demo": False},
    }
    db = None
    if database.startswith("postgresql"):
        url, schema = database.split("#", 1)
        db = make_engine(url, connect_args={"options": f"-csearch_path={schema}"})
    else:
        overrides["database"] = {"url": database}
    runtime = build_runtime(overrides, db=db)
    games = []
    engine = REGISTRY.get(title)
    seats = 2 if title == PIG.slug else engine.min_seats
    options = {"target": 10**9} if title == PIG.slug else {}
    for index in range(players):
        specs = [
            SeatSpec(f"P{index}-{seat}", f"p{index}.{seat}@example.org") for seat in range(seats)
        ]
        created = runtime.service.create_game(title, specs, options)
        games.append(created.tokens)
    app = create_app(runtime=runtime)
    ready.write_text(json.dumps(games))
    if server == "werkzeug":
        from werkzeug.serving import make_server

        from pbem import scheduler

        logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request
        background = scheduler.start_background(runtime)
        httpd = make_server("127.0.0.1", port, app, threaded=True)
        signal.signal(signal.SIGTERM, lambda *_: threading.Thread(target=httpd.shutdown).start())
        httpd.serve_forever()
        background.shutdown(wait=False)
        return 0
    from pbem.web.embedded import EmbeddedServer

    embedded = EmbeddedServer(app, runtime, "127.0.0.1", port)
    embedded.settings["accesslog"] = None  # no line per request
    try:
        embedded.run()
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 0
    return 0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def one_round(
    players: int, seconds: float, database: str, env: dict, server: str, title: str
) -> dict:
    """Starts a server process, plays against it for ``seconds``, stops it."""
    port = free_port()
    folder = Path(tempfile.mkdtemp(prefix="pbem_crowd_run_"))
    ready = folder / "games.json"
    command = [sys.executable, __file__, "--serve", database, "--port", str(port)]
    command += ["--players", str(players), "--ready", str(ready), "--server", server]
    command += ["--title", title]
    with open(folder / "server.log", "w") as log:
        child = subprocess.Popen(command, env=env, cwd=ROOT, stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 120
        while not ready.exists() or not _answers(port):
            if child.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError((folder / "server.log").read_text()[-2000:])
            time.sleep(0.1)
        return play(json.loads(ready.read_text()), port, seconds, title != "pig")
    finally:
        child.send_signal(signal.SIGTERM)
        try:
            child.wait(30)
        except subprocess.TimeoutExpired:
            child.kill()


def _answers(port: int) -> bool:
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        connection.request("GET", "/healthz")
        ok = connection.getresponse().status == 200
        connection.close()
        return ok
    except OSError:
        return False


def play(games: list[list[str]], port: int, seconds: float, real: bool) -> dict:
    """One client per game, all at once: each posts its game's moves one after another."""
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    barrier = threading.Barrier(len(games))

    def due(connection: http.client.HTTPConnection, tokens: list[str], draw: random.Random):
        """A real title's next move: (token, move, seq) of the first seat due, or None."""
        for token in tokens:
            connection.request("GET", f"/api/play/{token}")
            answer = json.loads(connection.getresponse().read())
            if answer["status"] != "active":
                return None
            if answer["legal_moves"]:
                move = draw.choice(answer["legal_moves"])["move"]
                return token, move, answer["seq"]
        return None

    def player(number: int, tokens: list[str]) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        draw = random.Random(number)
        seq = 0
        barrier.wait()
        stop_at = time.perf_counter() + seconds
        while time.perf_counter() < stop_at:
            # pig: "stop" passes the turn, the seats move in turn, 0, 1, 0...
            token, move = tokens[seq % 2], {"type": "stop"}
            if real:
                found = due(connection, tokens, draw)
                if found is None:
                    break  # the game has ended
                token, move, seq = found
            body = json.dumps({"move": move, "expected_seq": seq}).encode()
            start = time.perf_counter()
            try:
                connection.request(
                    "POST",
                    f"/api/play/{token}/moves",
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

    threads = [
        threading.Thread(target=player, args=(number, tokens))
        for number, tokens in enumerate(games)
    ]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {"latencies": latencies, "errors": errors, "elapsed": time.perf_counter() - began}


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
    parser.add_argument("--databases", default="sqlite,postgresql")
    parser.add_argument("--postgres", default=POSTGRES, help="PostgreSQL server's URL")
    parser.add_argument("--server", choices=("gunicorn", "werkzeug"), default="gunicorn")
    parser.add_argument("--title", default="pig", help="a title's slug (default: pig)")
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--ready", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(args.players, args.serve, args.port, args.ready, args.server, args.title)
    wanted = [name.strip() for name in args.databases.split(",") if name.strip()]
    print(
        f"{args.players} players at once, {args.seconds:g} s a round, "
        f"server: {args.server}, title: {args.title}"
    )
    totals: dict[str, dict] = {}
    admin = schema = None
    if "postgresql" in wanted:
        import sqlalchemy

        admin = sqlalchemy.create_engine(args.postgres, isolation_level="AUTOCOMMIT")
        schema = f"pbem_crowd_{os.getpid()}"
    try:
        for number in range(args.rounds):
            kinds = []
            if "sqlite" in wanted:
                pair = ["SQLite busy handler", "SQLite queue"]
                kinds += pair if number % 2 == 0 else pair[::-1]
            if "postgresql" in wanted:
                kinds.append("PostgreSQL")
            for kind in kinds:
                env = {**os.environ, "PYTHONPATH": str(ROOT)}
                if kind == "PostgreSQL":
                    with admin.connect() as connection:
                        connection.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
                        connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
                    database = f"{args.postgres}#{schema}"
                else:
                    folder = Path(tempfile.mkdtemp(prefix="pbem_crowd_db_"))
                    database = f"sqlite:///{folder / 'crowd.sqlite3'}"
                    queue = "true" if kind == "SQLite queue" else "false"
                    env["PBEM_DATABASE_SQLITE_WRITER_QUEUE"] = queue
                result = one_round(
                    args.players, args.seconds, database, env, args.server, args.title
                )
                total = totals.setdefault(kind, {"latencies": [], "errors": [], "elapsed": 0.0})
                for key in ("latencies", "errors"):
                    total[key] += result[key]
                total["elapsed"] += result["elapsed"]
                line = summary(result["latencies"], len(result["errors"]), result["elapsed"])
                print(f"round {number + 1} {kind:20}  {line}", flush=True)
                for error in sorted(set(result["errors"]))[:3]:
                    print(f"    error: {error}")
    finally:
        if admin is not None:
            with admin.connect() as connection:
                connection.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            admin.dispose()
    for kind, total in totals.items():
        line = summary(total["latencies"], len(total["errors"]), total["elapsed"])
        print(f"all     {kind:20}  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
