"""The scheduler at scale: one sweep over 10,000 active games, and mail throughput.

Run: ``.venv/bin/python bench/bench_sweep.py [--games 10000] [--url postgresql+psycopg://...]``
(default: PostgreSQL at 127.0.0.1:5432/test, in a schema of its own, dropped at the end;
``--sqlite`` measures the embedded default in a temporary file instead).

Each game has four seats; one human seat per game is due with its reminder and deadline
at random times over the next week (the others wait). The read model is written in bulk
(the sweep reads only games, seats, seat clocks and the outbox). Measured:

- a sweep at "now" (about one seat due per minute: the cost of finding work),
- a sweep an hour later (about 60 reminders and deadlines to act on),
- the dispatcher sending the outbox to a real SMTP server on loopback (aiosmtpd, in its
  own process).
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import sqlalchemy  # noqa: E402
from sqlmodel import Session, select  # noqa: E402

from pbem.db import make_engine  # noqa: E402
from pbem.games.policy import DEFAULT_POLICY  # noqa: E402
from pbem.games.tables import SeatClock  # noqa: E402
from pbem.games.tokens import hash_token, new_token  # noqa: E402
from pbem.mail import outbox  # noqa: E402
from pbem.mail.dispatch import dispatch  # noqa: E402
from pbem.mail.models import Mail  # noqa: E402
from pbem.migrations import migrate  # noqa: E402
from pbem.models import Game, Seat  # noqa: E402
from pbem.runtime import build_runtime  # noqa: E402
from pbem.scheduler import sweep  # noqa: E402

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
MAILS = 2000
POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def smtp_server(port: int) -> subprocess.Popen:
    """aiosmtpd in a process of its own (as a real relay is), dropping what it gets."""
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "aiosmtpd",
            "-n",
            "-l",
            f"127.0.0.1:{port}",
            "-c",
            "aiosmtpd.handlers.Sink",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(100):
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return server
        time.sleep(0.1)
    server.kill()
    raise RuntimeError("the SMTP server did not start")


def populate(runtime, games: int, rng: random.Random) -> None:
    """Writes ``games`` active games of four seats, one of them due, in bulk."""
    policy = {**DEFAULT_POLICY, "deadline_after_days": 7}
    game_rows, seat_rows, clock_rows = [], [], []
    for index in range(games):
        game_id = f"b{index:09d}"
        due = rng.randrange(4)
        since = NOW - timedelta(minutes=rng.randrange(7 * 24 * 60))
        game_rows.append(
            dict(
                id=game_id,
                engine="pig",
                engine_version=1,
                title=f"Bench {index}",
                options={},
                seat_count=4,
                status="active",
                commitment="0" * 64,
                head_seq=5,
                head_hash="0" * 64,
                to_move=[due],
                phase="",
                policy=policy,
                creator_seat=0,
                created_at=since,
                updated_at=since,
                turn_started_at=since,
            )
        )
        for seat in range(4):
            token = new_token()
            seat_rows.append(
                dict(
                    game_id=game_id,
                    seat=seat,
                    name=f"Player {seat + 1}",
                    email=f"p{index}.{seat}@example.org",
                    token_hash=hash_token(token),
                    is_bot=False,
                    due=seat == due,
                    due_since=since if seat == due else None,
                    timezone="Europe/Berlin",
                    notify="every_turn",
                    created_at=since,
                )
            )
            remind = NOW + timedelta(seconds=rng.randrange(7 * 24 * 3600))
            clock_rows.append(
                dict(
                    game_id=game_id,
                    seat=seat,
                    turn_since=since if seat == due else None,
                    remind_at=remind if seat == due else None,
                    deadline_at=since + timedelta(days=7) if seat == due else None,
                    reminders=0,
                    paused_until=None,
                    vacation_days_used=0.0,
                )
            )
    with Session(runtime.db) as session:
        for model, rows in ((Game, game_rows), (Seat, seat_rows), (SeatClock, clock_rows)):
            for start in range(0, len(rows), 5000):
                session.execute(sqlalchemy.insert(model), rows[start : start + 5000])
        session.commit()
        session.execute(sqlalchemy.text("ANALYZE"))
        session.commit()


def fill(runtime, count: int) -> None:
    with Session(runtime.db) as session:
        for index in range(count):
            outbox.enqueue(
                session,
                runtime,
                "notice",
                key=f"bench:{index}",
                recipient=f"p{index}@example.org",
                context={"name": "P", "title": "Bench", "headline": "Hi", "lines": [], "link": ""},
            )
        session.commit()


def drain(runtime, now: datetime) -> int:
    batches = 0
    while dispatch(runtime, now, 100).claimed:
        batches += 1
    return batches


def timed(function, *args, **kwargs) -> tuple[float, object]:
    started = time.perf_counter()
    result = function(*args, **kwargs)
    return time.perf_counter() - started, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--url", default=os.environ.get("PBEM_BENCH_POSTGRES_URL", POSTGRES))
    parser.add_argument("--sqlite", action="store_true", help="the embedded SQLite instead")
    args = parser.parse_args()
    schema = f"bench_sweep_{os.getpid()}"
    folder = tempfile.TemporaryDirectory()
    admin = None
    if args.sqlite:
        db = make_engine(f"sqlite:///{folder.name}/bench.sqlite3")
    else:
        admin = sqlalchemy.create_engine(args.url, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
        db = make_engine(args.url, connect_args={"options": f"-csearch_path={schema}"})
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = smtp_server(port)
    clock = [NOW]
    try:
        migrate(db)
        runtime = build_runtime(
            {
                "mail": {"host": "127.0.0.1", "port": port, "security": "none"},
                "security": {"secret_key": secrets.token_hex(16)},
                "server": {"demo": False},
            },
            clock=lambda: clock[0],
            db=db,
            create_schema=False,
        )
        started = time.perf_counter()
        populate(runtime, args.games, random.Random(7))
        print(f"{args.games} games written in {time.perf_counter() - started:.1f} s")

        idle, acted = [], 0
        for minute in range(1, 11):
            seconds, report = timed(sweep, runtime, NOW + timedelta(minutes=minute))
            idle.append(seconds)
            acted += report.reminders + report.deadlines
        print(
            f"sweep every minute: median {statistics.median(idle) * 1000:.0f} ms, "
            f"max {max(idle) * 1000:.0f} ms over 10 sweeps ({acted} reminders and deadlines)"
        )
        clock[0] = NOW + timedelta(hours=1)
        seconds, report = timed(sweep, runtime, clock[0])
        print(f"sweep after an hour without one: {seconds * 1000:.0f} ms ({report})")
        with Session(db) as session:
            plan = session.execute(
                sqlalchemy.text(
                    ("EXPLAIN QUERY PLAN" if args.sqlite else "EXPLAIN")
                    + " SELECT * FROM seat_clocks JOIN games ON games.id = "
                    "seat_clocks.game_id WHERE remind_at <= :now AND games.status = 'active' "
                    "ORDER BY remind_at LIMIT 500"
                ),
                {"now": clock[0]},
            ).all()
            print("plan of the reminder query:")
            for row in plan:
                print("   ", row[-1])
            pending = len(session.exec(select(Mail.id)).all())
        fill(runtime, MAILS)
        seconds, batches = timed(drain, runtime, clock[0])
        with Session(db) as session:
            sent = len(session.exec(select(Mail.id).where(Mail.status == "sent")).all())
        print(
            f"dispatch: {sent} mails ({pending} from the sweeps, {MAILS} more) over SMTP "
            f"in {seconds:.2f} s, {batches} batches = {sent / seconds:.0f} mails/s"
        )
    finally:
        server.terminate()
        server.wait(timeout=10)
        db.dispose()
        if admin is not None:
            with admin.connect() as connection:
                connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
            admin.dispose()
        folder.cleanup()


if __name__ == "__main__":
    main()
