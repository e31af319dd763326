"""A reply by mail: what ``pbem receive`` costs to start, and what one reply costs the
database.

Run from the project root: ``.venv/bin/python bench/bench_receive.py [--runs N]
[--postgres URL | --no-postgres]``. It prints two tables.

- **Start.** ``pbem receive`` run as an MTA's pipe runs it, ``--runs`` times, each with
  a one-line reply that plays a move of a two-person Mercatores game in a scratch SQLite
  database. For each run: the wall time from starting the process to the moment it has
  read the message (the pipe holding the message is empty: Linux's ``FIONREAD`` on the
  parent's end), and from start to exit (the whole message: load, apply, answer). Also
  the import time of the modules the command loads (``python -X importtime``, the sum
  of the top-level imports) and a bare interpreter's start. Medians.
- **Statements.** One one-line reply that plays a move, taken in the process
  (:func:`pbem.mail.inbound.receive.take`), with the statements the database was sent
  (SQLAlchemy's ``before_cursor_execute``, SQLite's own ``BEGIN`` left out as in
  ``tests/mail/test_statements.py``) and the transactions (``begin`` events), the answer
  mail and the next seat's turn mail included. On SQLite and, when reachable, on a
  scratch schema of PostgreSQL (127.0.0.1:5432/test, or ``--postgres URL``).
"""

from __future__ import annotations

import argparse
import fcntl
import os
import re
import secrets
import statistics
import subprocess
import sys
import tempfile
import termios
import time
import uuid
from collections import Counter
from email.message import EmailMessage
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
REPLY = "play@pbem.test"
SENDER = "pbem <games@pbem.test>"
PEOPLE = (("Anna", "anna@example.org"), ("Ben", "ben@example.org"))
# What ``pbem receive`` runs, as the console script would.
RECEIVE = "import sys; from pbem.cli import main; sys.exit(main())"


def settings(folder: Path, url: str) -> dict[str, str]:
    """The environment both this process and ``pbem receive`` build their runtime from."""
    return {
        "PBEM_DATABASE_URL": url,
        "PBEM_SECURITY_SECRET_KEY": "bench-key",
        "PBEM_MAIL_REPLY_ADDRESS": REPLY,
        "PBEM_MAIL_SENDER": SENDER,
        "PBEM_MAIL_HOST": "",
        "PBEM_MAIL_QUIET_MINUTES": "0",
        "PBEM_PATHS_VAR": str(folder / "var"),
        "PBEM_SERVER_DEMO": "false",
        "PBEM_SERVER_BASE_URL": "http://pbem.test",
    }


def new_game(runtime) -> str:
    from pbem.games.service import SeatSpec

    created = runtime.service.create_game(
        "mercatores", [SeatSpec(name, email) for name, email in PEOPLE]
    )
    return created.game_id


def reply(runtime, game_id: str) -> bytes:
    """A one-line reply from the seat that is due, to the mail of the game's head, that
    names the first move its mail lists (by code)."""
    from pbem.mail.inbound import tags
    from pbem.mail.outbox import secret

    head = runtime.service.head(game_id)
    seat = min(head.engine.to_move(head.state))
    name, address = PEOPLE[seat]
    message = EmailMessage()
    message["From"] = f"{name} <{address}>"
    message["To"] = tags.reply_address(runtime.config, secret(runtime), game_id, seat, head.seq)
    message["Subject"] = "Re: your turn"
    message["Message-ID"] = f"<{uuid.uuid4().hex}@mail.example.org>"
    message.set_content("1\n\nOn Monday, pbem wrote:\n> Your moves.\n")
    return bytes(message)


# Start -------------------------------------------------------------------------------


def pending(fd: int) -> int:
    """Bytes written to a pipe and not read yet (``fd``: its writing end)."""
    buffer = bytearray(4)
    fcntl.ioctl(fd, termios.FIONREAD, buffer)
    return int.from_bytes(buffer, sys.byteorder)


def run_receive(env: dict[str, str], raw: bytes) -> tuple[float, float, int]:
    """(seconds to the message read, seconds to exit, exit status) of one run."""
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-c", RECEIVE, "receive"],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    process.stdin.write(raw)
    process.stdin.flush()
    while pending(process.stdin.fileno()) and process.poll() is None:
        time.sleep(0.0005)
    read = time.perf_counter() - started
    process.stdin.close()
    error = process.stderr.read()
    status = process.wait()
    total = time.perf_counter() - started
    if status != 0:
        raise SystemExit(f"pbem receive failed ({status}): {error.decode()}")
    return read, total, status


def import_seconds(env: dict[str, str]) -> float:
    """Seconds spent importing what ``pbem receive`` imports (``-X importtime``)."""
    probe = (
        "import sys; sys.argv = ['pbem', 'receive']; from pbem import cli; "
        "from pbem.mail.inbound import receive; from pbem import runtime"
    )
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", probe],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    total = 0
    for line in done.stderr.splitlines():
        match = re.match(r"import time:\s+\d+ \|\s+(\d+) \| (\S.*)$", line)
        if match and not match[2].startswith(" "):
            total += int(match[1])
    return total / 1e6


def bare_start(env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], env=env, check=True)
    return time.perf_counter() - started


def bench_start(runs: int) -> list[tuple[str, str]]:
    from pbem.runtime import build_runtime

    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        env = {
            **os.environ,
            **settings(folder, f"sqlite:///{folder / 'pbem.sqlite3'}"),
            "PYTHONPATH": str(ROOT),
        }
        os.environ.update(settings(folder, f"sqlite:///{folder / 'pbem.sqlite3'}"))
        runtime = build_runtime()
        game_id = new_game(runtime)
        reads, totals, imports, bare = [], [], [], []
        for _ in range(runs):
            read, total, _ = run_receive(env, reply(runtime, game_id))
            reads.append(read)
            totals.append(total)
            imports.append(import_seconds(env))
            bare.append(bare_start(env))
        runtime.db.dispose()
    return [
        ("interpreter alone (python -c pass)", f"{statistics.median(bare):.3f} s"),
        ("imports of the receive path (-X importtime)", f"{statistics.median(imports):.3f} s"),
        ("start to the message read", f"{statistics.median(reads):.3f} s"),
        ("start to exit (one reply: a move)", f"{statistics.median(totals):.3f} s"),
    ]


# Statements --------------------------------------------------------------------------


def count_reply(runtime, game_id: str) -> tuple[int, int, Counter, str]:
    """(statements, transactions, statements by first word, outcome) of one reply."""
    from sqlalchemy import event

    from pbem.mail.inbound.receive import take

    raw = reply(runtime, game_id)
    words: Counter = Counter()
    begun = [0]

    def statement(_conn, _cursor, sql, *_):
        word = sql.split()[0].upper()
        if word != "BEGIN":
            words[word] += 1

    def begin(_conn):
        begun[0] += 1

    event.listen(runtime.db, "before_cursor_execute", statement)
    event.listen(runtime.db, "begin", begin)
    try:
        taken = take(runtime, raw)
    finally:
        event.remove(runtime.db, "before_cursor_execute", statement)
        event.remove(runtime.db, "begin", begin)
    return sum(words.values()), begun[0], words, taken.outcome


def bench_statements(url: str, folder: Path, replies: int = 3) -> list[tuple[str, str]]:
    from pbem.runtime import build_runtime

    os.environ.update(settings(folder, url))
    runtime = build_runtime()
    try:
        game_id = new_game(runtime)
        take_one = count_reply(runtime, game_id)  # the first: caches, kept connections
        found = [take_one] + [count_reply(runtime, game_id) for _ in range(replies - 1)]
    finally:
        runtime.db.dispose()
    worst = max(found, key=lambda entry: (entry[0], entry[1]))
    statements, transactions, words, outcome = worst
    detail = ", ".join(f"{count} {word}" for word, count in sorted(words.items()))
    return [
        ("outcome", outcome),
        ("statements (most of the replies)", f"{statements} ({detail})"),
        ("transactions", str(transactions)),
    ]


def postgres_schema(url: str):
    """A scratch schema on PostgreSQL: (url with its search path, drop), or None."""
    import sqlalchemy

    schema = f"pbem_bench_{secrets.token_hex(4)}"
    try:
        admin = sqlalchemy.create_engine(url, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    except Exception as error:  # noqa: BLE001 - no PostgreSQL here
        print(f"(PostgreSQL not reachable: {error.__class__.__name__})")
        return None

    def drop() -> None:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()

    separator = "&" if "?" in url else "?"
    return f"{url}{separator}options=-csearch_path%3D{schema}", drop


def table(title: str, rows: list[tuple[str, str]]) -> None:
    width = max(len(name) for name, _ in rows)
    print(f"\n{title}")
    for name, value in rows:
        print(f"  {name.ljust(width)}  {value}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--postgres", default=DEFAULT_POSTGRES)
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        rows = bench_statements(f"sqlite:///{Path(scratch) / 'pbem.sqlite3'}", Path(scratch))
        table("One one-line reply that plays a move, on SQLite", rows)
    if not args.no_postgres:
        found = postgres_schema(args.postgres)
        if found is not None:
            url, drop = found
            try:
                with tempfile.TemporaryDirectory() as scratch:
                    rows = bench_statements(url, Path(scratch))
                table("The same on PostgreSQL", rows)
            finally:
                drop()
    table(f"pbem receive (median of {args.runs} runs)", bench_start(args.runs))


if __name__ == "__main__":
    main()
