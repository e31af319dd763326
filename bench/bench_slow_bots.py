"""A human against hard bots on a real ``pbem serve``: how long a move's request takes,
how long the hard bots take to answer after it, and what the turn page costs meanwhile.

    .venv/bin/python bench/bench_slow_bots.py [SLUG] [--moves N] [--bots K] [--road api|cli]

Starts ``pbem serve --no-demo`` on a free port over a fresh SQLite file in a temporary
folder, creates a game (``pbem new SLUG --seat Ann:... --seat bot:hard ...``: K hard
bots, 2 by default) and plays N of Ann's moves (the normal bot's choice from her view):
by the JSON API (``--road api``, the request of a move) or by ``pbem move`` (``--road
cli``, a process without a runner: the server's quick bots job finds the bots). For
each move it prints p50 and p99 of: the move's own answer (ms), the wait until Ann is
due again (s: the hard bots' thinking, on the server's runner), and the turn page's GET
while the bots think and while nothing runs (ms).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PBEM = [sys.executable, "-m", "pbem.cli"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def quantile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else 0.0


def get(url: str) -> tuple[float, bytes]:
    began = time.perf_counter()
    with urllib.request.urlopen(url, timeout=60) as answer:
        body = answer.read()
    return (time.perf_counter() - began) * 1000, body


def post_json(url: str, data: dict) -> tuple[float, dict]:
    request = urllib.request.Request(
        url, json.dumps(data).encode(), {"Content-Type": "application/json"}, method="POST"
    )
    began = time.perf_counter()
    with urllib.request.urlopen(request, timeout=60) as answer:
        body = json.loads(answer.read())
    return (time.perf_counter() - began) * 1000, body


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("slug", nargs="?", default="mercatores")
    parser.add_argument("--moves", type=int, default=5)
    parser.add_argument("--bots", type=int, default=2)
    parser.add_argument("--road", choices=("api", "cli"), default="api")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from engines import REGISTRY, bot_move

    engine = REGISTRY[args.slug]
    folder = Path(tempfile.mkdtemp(prefix="pbem-slow-bots-"))
    port = free_port()
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PBEM_PATHS_VAR": str(folder / "var"),
        "PBEM_DATABASE_URL": f"sqlite:///{folder / 'bench.sqlite3'}",
        "PBEM_SERVER_BASE_URL": f"http://127.0.0.1:{port}",
    }
    seats = ["--seat", "Ann:ann@example.org"] + ["--seat", "bot:hard"] * args.bots
    made = subprocess.run(
        [*PBEM, "new", args.slug, *seats], env=env, capture_output=True, text=True, check=True
    )
    game_id = made.stdout.split("Game ", 1)[1].split(" ", 1)[0]
    token = made.stdout.split("/play/", 1)[1].split()[0]
    server = subprocess.Popen(
        [*PBEM, "serve", "--no-demo", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    answers, waits, busy_pages, idle_pages = [], [], [], []
    rng = random.Random(1)
    try:
        for _ in range(200):
            try:
                get(f"{base}/healthz")
                break
            except OSError:
                time.sleep(0.1)

        def ann() -> dict:
            return json.loads(get(f"{base}/api/play/{token}")[1])

        def wait_for_ann() -> float:
            began = time.perf_counter()
            while True:
                seat = ann()
                if seat["status"] != "active" or 0 in seat["to_move"]:
                    return time.perf_counter() - began
                busy_pages.append(get(f"{base}/play/{token}")[0])
                time.sleep(0.1)
                if time.perf_counter() - began > 120:
                    raise SystemExit("the bots did not answer within 120 s")

        wait_for_ann()  # the bots that move before Ann (a command leaves them to the server)
        for _ in range(args.moves):
            seat = ann()
            if seat["status"] != "active":
                break
            for _ in range(3):
                idle_pages.append(get(f"{base}/play/{token}")[0])
            legal = [entry["move"] for entry in seat["legal_moves"]]
            move = bot_move(engine, seat["view"], legal, rng, "normal")
            if args.road == "api":
                ms, _ = post_json(
                    f"{base}/api/play/{token}/moves", {"move": move, "expected_seq": seat["seq"]}
                )
            else:
                began = time.perf_counter()
                subprocess.run(
                    [*PBEM, "move", game_id, "0", json.dumps(move)],
                    env=env,
                    capture_output=True,
                    check=True,
                )
                ms = (time.perf_counter() - began) * 1000
            answers.append(ms)
            waits.append(wait_for_ann())
    finally:
        server.terminate()
        server.wait(30)
    print(f"{args.slug}: {args.bots} hard bots, {len(answers)} moves by {args.road}")
    print(
        f"  the move's answer       p50 {quantile(answers, 0.5):8.1f} ms  p99 {quantile(answers, 0.99):8.1f} ms"
    )
    print(
        f"  until Ann is due again  p50 {quantile(waits, 0.5):8.2f} s   p99 {quantile(waits, 0.99):8.2f} s"
    )
    print(
        f"  turn page, bots think   p50 {quantile(busy_pages, 0.5):8.1f} ms  p99 {quantile(busy_pages, 0.99):8.1f} ms  ({len(busy_pages)} pages)"
    )
    print(
        f"  turn page, idle         p50 {quantile(idle_pages, 0.5):8.1f} ms  p99 {quantile(idle_pages, 0.99):8.1f} ms  ({len(idle_pages)} pages)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
