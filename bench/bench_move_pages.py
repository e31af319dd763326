"""What a move writes on SQLite: the pages each move adds to the log (the WAL), by table
and index, against one raw durable insert of a row of the same size.

Run: ``.venv/bin/python bench/bench_move_pages.py [--moves 300]``

A game of the fixture engine between two players with addresses (each turn mails the
next player, as ``pbem bench`` measures), played ``--moves`` moves after a warm-up, with
automatic checkpoints off so that every page written stays in the WAL. Each WAL frame
names its page; SQLite's ``dbstat`` table names the table or index that page belongs
to. A commit syncs what it added to the WAL, so the pages a move writes are what its
fsync waits for (``pbem bench`` prints the rate it comes to).
"""

from __future__ import annotations

import argparse
import sqlite3
import struct
import sys
import tempfile
from collections import Counter
from pathlib import Path

from sqlalchemy import event

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pbem.bench import bench_engine, listener_rate  # noqa: E402
from pbem.db import make_engine  # noqa: E402
from pbem.migrations import migrate  # noqa: E402

HEADER, FRAME_HEADER = 32, 24


def frames(wal: Path) -> list[int]:
    """The page number of each frame of a WAL file, in order."""
    data = wal.read_bytes()
    if len(data) < HEADER:
        return []
    page_size = struct.unpack(">I", data[8:12])[0]
    found, offset = [], HEADER
    while offset + FRAME_HEADER + page_size <= len(data):
        found.append(struct.unpack(">I", data[offset : offset + 4])[0])
        offset += FRAME_HEADER + page_size
    return found


def checkpoint(path: Path) -> None:
    """Everything in the WAL copied into the database and the WAL emptied."""
    connection = sqlite3.connect(path)
    try:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()


def owners(path: Path) -> dict[int, str]:
    """Page number -> the table or index it belongs to (``dbstat``)."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return {page: name for name, page in connection.execute("SELECT name, pageno FROM dbstat")}
    except sqlite3.OperationalError:  # an SQLite built without dbstat: numbers only
        return {}
    finally:
        connection.close()


def move_pages(moves: int, folder: Path) -> tuple[list[int], dict[int, str], int]:
    """The WAL pages of ``moves`` moves with the mail listener, their owners, and an
    event row's size (read while a connection is open: the last one to close empties
    the WAL)."""
    path = folder / "pages.sqlite3"
    db = make_engine(f"sqlite:///{path}")

    @event.listens_for(db, "connect")
    def _no_checkpoints(dbapi_connection, _record):
        dbapi_connection.execute("PRAGMA wal_autocheckpoint=0")

    migrate(db)
    listener_rate(db, folder, 50)  # warm-up: the tables past their first pages
    db.dispose()
    checkpoint(path)
    _, size = listener_rate(db, folder, moves)
    found = frames(path.with_name(path.name + "-wal")), owners(path), size
    db.dispose()
    return found


def raw_pages(rows: int, size: int, folder: Path) -> list[int]:
    """The WAL pages of ``rows`` single-row durable inserts of ``size`` bytes."""
    path = folder / "raw.sqlite3"
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=FULL")
        connection.execute("PRAGMA wal_autocheckpoint=0")
        connection.execute("CREATE TABLE bench_raw (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        for _ in range(rows):
            connection.execute("BEGIN IMMEDIATE")
            connection.execute("INSERT INTO bench_raw (body) VALUES (?)", ("x" * size,))
            connection.execute("COMMIT")
        return frames(path.with_name(path.name + "-wal"))
    finally:
        connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=300)
    args = parser.parse_args()
    bench_engine()
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        pages, names, size = move_pages(args.moves, folder)
        raw = raw_pages(args.moves, size, folder)
    print(f"WAL pages per move (submit_move with the mail listener, {args.moves} moves):")
    by_owner = Counter(names.get(page, f"page {page}") for page in pages)
    for owner, count in by_owner.most_common():
        if count / args.moves >= 0.05:
            print(f"    {count / args.moves:5.2f}  {owner}")
    rest = sum(count for count in by_owner.values() if count / args.moves < 0.05)
    print(f"    {rest / args.moves:5.2f}  others")
    print(f"    {len(pages) / args.moves:5.2f}  in all")
    print(f"WAL pages per raw insert of a {size}-byte row: {len(raw) / args.moves:.2f}")


if __name__ == "__main__":
    main()
