"""Production load (and crash) test: gunicorn web workers + one `pbem worker` + PostgreSQL.

    .venv/bin/python bench/bench_load.py [--minutes 3] [--games 50] [--web-workers 2] [--crash]
        [--database URL] [--retry-5xx SECONDS] [--tolerate-5xx]

Sets up a fresh PostgreSQL schema, creates ``--games`` games of four human seats each
(200 players for 50 games, the three titles in turn), starts gunicorn and the worker
process against it and a real SMTP server (aiosmtpd) on loopback, then lets one client
thread per game play every seat through the JSON API, choosing moves with each engine's
bot from the seat's own view and legal moves. A dropped connection is retried with the
same expected seq (the server answers a move that already landed as the success it was).

With ``--crash``, a web worker and the worker process are SIGKILLed at random moments
(gunicorn replaces its worker; the bench restarts the worker process).

It prints moves per second, p50/p99 latency of GETs and POSTs, status counts, and then
checks that every game's chain verifies, that no move landed twice or got lost (each
accepted POST is exactly one move event), and that the outbox delivered what it owed.
Exits 1 when any check fails.

``--database`` takes any PostgreSQL URL, a multi-host one too; ``--retry-5xx`` makes the
clients retry an answer of 5xx (the same request, so the same expected seq) for up to
that many seconds, as a careful client does through an outage, and ``--tolerate-5xx``
reports such answers instead of failing on them. ``bench/bench_failover.py`` drives it
that way, with its own hooks (see :func:`main`).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import queue
import random
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, text  # noqa: E402

from engines import REGISTRY  # noqa: E402
from pbem.db import make_engine  # noqa: E402
from pbem.games.service import GameService, SeatSpec  # noqa: E402
from pbem.migrations import migrate  # noqa: E402

POSTGRES = os.environ.get(
    "PBEM_BENCH_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
TITLES = ["mercatores", "mare_balticum", "mare_nostrum"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.latency: dict[str, list[float]] = {"GET": [], "POST": []}
        self.status: Counter = Counter()
        self.accepted: Counter = Counter()  # game_id -> accepted non-duplicate moves
        self.duplicates = 0
        self.connection_errors = 0
        # (time answered, method, status) of every answer, and (game_id, seq, seat, move)
        # of every move answered 200.
        self.answers: list[tuple[float, str, int]] = []
        self.acknowledged: list[tuple[str, int, int, object]] = []

    def record(self, method: str, seconds: float, status: int) -> None:
        with self.lock:
            self.latency[method].append(seconds)
            self.status[status] += 1
            self.answers.append((time.perf_counter(), method, status))


class Client:
    """One keep-alive HTTP connection to the server."""

    def __init__(self, port: int, stats: Stats, retry_5xx: float = 0.0):
        self.port = port
        self.stats = stats
        self.retry_5xx = retry_5xx
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"} if body is not None else {}
        give_up = time.perf_counter() + self.retry_5xx
        dropped = 0
        while dropped < 50:
            start = time.perf_counter()
            try:
                self.connection.request(method, path, body=data, headers=headers)
                response = self.connection.getresponse()
                payload = response.read()
            except (OSError, http.client.HTTPException):
                dropped += 1
                with self.stats.lock:
                    self.stats.connection_errors += 1
                self.connection.close()
                self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
                time.sleep(0.2)
                continue
            self.stats.record(method, time.perf_counter() - start, response.status)
            if response.status >= 500 and time.perf_counter() < give_up:
                time.sleep(0.2)
                continue
            try:
                return response.status, json.loads(payload or b"{}")
            except json.JSONDecodeError:
                return response.status, {}
        raise RuntimeError(f"{method} {path}: no answer after 50 tries")


def play_games(
    port: int,
    games: queue.Queue,
    stats: Stats,
    stop: threading.Event,
    seed: int,
    retry_5xx: float = 0.0,
) -> None:
    """Takes games from the queue and plays each to its end, until time is up."""
    client = Client(port, stats, retry_5xx)
    rng = random.Random(seed)
    while not stop.is_set():
        try:
            game_id, tokens = games.get_nowait()
        except queue.Empty:
            return
        play_game(client, rng, game_id, tokens, stats, stop)


def play_game(
    client: Client,
    rng: random.Random,
    game_id: str,
    tokens: list[str],
    stats: Stats,
    stop: threading.Event,
) -> None:
    """Plays every seat of one game through the API until it ends or time is up."""
    while not stop.is_set():
        status, game = client.request("GET", f"/api/games/{game_id}")
        if status != 200 or game.get("status") != "active":
            return
        due = game.get("to_move") or []
        if not due:
            return
        seat = rng.choice(due)
        status, answer = client.request("GET", f"/api/play/{tokens[seat]}")
        if status != 200 or not answer.get("legal_moves"):
            continue
        engine = REGISTRY[answer["game"]]
        legal = [entry["move"] for entry in answer["legal_moves"]]
        move = engine.bot_move(answer["view"], legal, rng)
        body = {"move": move, "expected_seq": answer["seq"]}
        status, result = client.request("POST", f"/api/play/{tokens[seat]}/moves", body)
        if status == 200:
            # One 200 per intended move: a duplicate answer is a retry whose first try
            # landed but lost its answer when its web worker was killed.
            with stats.lock:
                stats.accepted[game_id] += 1
                stats.acknowledged.append((game_id, result.get("seq"), seat, move))
                if result.get("duplicate"):
                    stats.duplicates += 1


def start_smtp():
    from aiosmtpd.controller import Controller

    class Sink:
        def __init__(self):
            self.count = 0
            self.ids: Counter = Counter()

        async def handle_DATA(self, server, session, envelope):  # noqa: N802 - aiosmtpd API
            self.count += 1
            for line in envelope.content.decode("utf-8", "replace").splitlines():
                if line.lower().startswith("message-id:"):
                    self.ids[line.split(":", 1)[1].strip()] += 1
            return "250 OK"

    sink = Sink()
    controller = Controller(sink, hostname="127.0.0.1", port=free_port())
    controller.start()
    return controller, sink


def main(argv: list[str] | None = None, during=None, after=None) -> int:
    """Runs the load; ``during(stats, stop)`` runs in a thread beside the clients, and
    ``after(stats, service)`` returns further failures, checked before the schema goes."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--games", type=int, default=50, help="games played at once")
    parser.add_argument("--pool", type=int, default=0, help="games in all (default 4x --games)")
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--crash", action="store_true")
    parser.add_argument("--database", default=POSTGRES, help="PostgreSQL URL (multi-host too)")
    parser.add_argument(
        "--retry-5xx", type=float, default=0.0, metavar="SECONDS", help="clients retry 5xx"
    )
    parser.add_argument(
        "--tolerate-5xx", action="store_true", help="report 5xx answers, do not fail on them"
    )
    args = parser.parse_args(argv)

    schema = f"pbem_load_{os.getpid()}"
    admin = create_engine(args.database, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    joiner = "&" if "?" in args.database else "?"
    url = f"{args.database}{joiner}options=-csearch_path%3D{schema}"
    smtp, sink = start_smtp()
    processes: dict[str, subprocess.Popen] = {}
    var = Path(f"/tmp/{schema}")
    env = {
        **os.environ,
        "PBEM_DATABASE_URL": url,
        "PBEM_PATHS_VAR": str(var),
        "PBEM_SERVER_PRODUCTION": "true",
        "PBEM_MAIL_HOST": "127.0.0.1",
        "PBEM_MAIL_PORT": str(smtp.port),
        "PBEM_MAIL_SECURITY": "none",
        "PBEM_MAIL_DISPATCH_EVERY_SECONDS": "2",
        # Every "your turn" mail goes at once (no quiet window), so the run can check
        # that the outbox delivered all it owed by the end.
        "PBEM_MAIL_QUIET_MINUTES": "0",
        # A killed worker's claimed mails are taken up again after the lease.
        "PBEM_MAIL_LEASE_SECONDS": "30",
        "PBEM_SCHEDULER_SWEEP_EVERY_SECONDS": "10",
        "PBEM_SECURITY_SECRET_KEY": "bench-secret",
    }
    port = free_port()
    try:
        from pbem.mail import outbox  # noqa: F401 - its tables belong to the schema
        from pbem.runtime import build_runtime

        db = make_engine(url)
        migrate(db)
        # The same server key as the processes under test: seeds are sealed under it.
        runtime = build_runtime(
            {
                "database": {"url": url},
                "paths": {"var": str(var)},
                "security": {"secret_key": env["PBEM_SECURITY_SECRET_KEY"]},
            },
            db=db,
        )
        service: GameService = runtime.service
        games: list[tuple[str, list[str]]] = []
        for index in range(args.pool or 4 * args.games):
            slug = TITLES[index % len(TITLES)]
            options = {"turn_limit": 8} if slug == "mare_nostrum" else {}
            seats = [SeatSpec(f"P{index}-{s}", f"p{index}-{s}@example.org") for s in range(4)]
            created = service.create_game(slug, seats, options)
            games.append((created.game_id, created.tokens))
        print(
            f"{args.games} games at once ({4 * args.games} players), {len(games)} games in all; "
            f"PostgreSQL schema {schema}"
        )

        def start(name: str) -> None:
            if name == "web":
                command = [
                    str(ROOT / ".venv/bin/gunicorn"),
                    "-w",
                    str(args.web_workers),
                    "-b",
                    f"127.0.0.1:{port}",
                    "--graceful-timeout",
                    "5",
                    "pbem.web:create_app()",
                ]
            else:
                command = [str(ROOT / ".venv/bin/pbem"), "worker"]
            processes[name] = subprocess.Popen(
                command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            )

        start("web")
        start("worker")
        for _ in range(100):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                time.sleep(0.2)

        stats = Stats()
        stop = threading.Event()
        kills: Counter = Counter()

        def crasher() -> None:
            crash_rng = random.Random(7)
            while not stop.wait(crash_rng.uniform(8, 20)):
                if crash_rng.random() < 0.5:
                    children = subprocess.run(
                        ["pgrep", "-P", str(processes["web"].pid)], capture_output=True, text=True
                    ).stdout.split()
                    if children:
                        os.kill(int(crash_rng.choice(children)), signal.SIGKILL)
                        kills["web worker"] += 1
                else:
                    processes["worker"].send_signal(signal.SIGKILL)
                    processes["worker"].wait()
                    kills["worker process"] += 1
                    time.sleep(crash_rng.uniform(0.5, 3))
                    start("worker")

        waiting: queue.Queue = queue.Queue()
        for entry in games:
            waiting.put(entry)
        threads = [
            threading.Thread(
                target=play_games, args=(port, waiting, stats, stop, i, args.retry_5xx)
            )
            for i in range(args.games)
        ]
        began = time.perf_counter()
        for thread in threads:
            thread.start()
        if args.crash:
            threading.Thread(target=crasher, daemon=True).start()
        if during is not None:
            threading.Thread(target=during, args=(stats, stop), daemon=True).start()
        deadline = began + args.minutes * 60
        while time.perf_counter() < deadline and any(t.is_alive() for t in threads):
            time.sleep(0.5)
        stop.set()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - began

        moves = sum(stats.accepted.values())
        print(f"ran {elapsed:.0f} s with {args.web_workers} web workers + 1 worker process")
        print(
            f"moves accepted: {moves} ({moves / elapsed:.1f} per second), of which answered "
            f"as already landed after a retry: {stats.duplicates}"
        )
        for method, samples in stats.latency.items():
            if samples:
                ordered = sorted(samples)
                p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
                print(
                    f"{method}: {len(samples)} requests, p50 {statistics.median(samples) * 1000:.1f} ms, "
                    f"p99 {p99 * 1000:.1f} ms"
                )
        print(
            f"HTTP statuses: {dict(sorted(stats.status.items()))}; "
            f"dropped connections retried: {stats.connection_errors}"
        )
        if kills:
            print(f"SIGKILLs: {dict(kills)}")

        # Let the worker deliver what the outbox owes, then check everything.
        if processes["worker"].poll() is not None:
            start("worker")
        failures = []
        db.dispose()  # connections from before an outage are gone; start afresh
        with db.connect() as connection:
            for _ in range(180):
                owed = connection.execute(
                    text("SELECT count(*) FROM mail_outbox WHERE status IN ('pending', 'sending')")
                ).scalar()
                if not owed:
                    break
                time.sleep(1)
                connection.rollback()
            counts = dict(
                connection.execute(
                    text("SELECT status, count(*) FROM mail_outbox GROUP BY status")
                ).all()
            )
        print(f"outbox after the run: {counts}; SMTP server received {sink.count} mails")
        if owed:
            failures.append(f"{owed} mails still owed")
        doubled = {key: n for key, n in sink.ids.items() if n > 1}
        print(f"mails received more than once: {len(doubled)} (at most the one in flight per kill)")
        played = [(game_id, tokens) for game_id, tokens in games if service.game(game_id).head_seq]
        for game_id, _ in played:
            report = service.verify_game(game_id)
            if not report.ok:
                failures.append(f"{game_id}: {report.summary()}")
            rows = service.events(game_id)
            landed = sum(1 for row in rows if row["kind"] == "move")
            if landed != stats.accepted[game_id]:
                failures.append(
                    f"{game_id}: {landed} move events but {stats.accepted[game_id]} accepted POSTs"
                )
        server_errors = sum(n for status, n in stats.status.items() if status >= 500)
        if server_errors and not args.tolerate_5xx:
            failures.append(f"{server_errors} answers with status 5xx")
        if after is not None:
            failures.extend(after(stats, service))
        finished = sum(1 for game_id, _ in played if service.game(game_id).status == "finished")
        print(
            f"games played: {len(played)} ({finished} to the end), all verified; "
            f"failures: {len(failures)}"
        )
        for failure in failures[:20]:
            print(f"  {failure}")
        return 1 if failures else 0
    finally:
        for process in processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    process.kill()
        smtp.stop()
        admin.dispose()
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


if __name__ == "__main__":
    sys.exit(main())
