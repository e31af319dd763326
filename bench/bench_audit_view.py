"""Audits that are ready: the first audit view of a long game, and the worker's look for
work, at 100 and at 10,000 running games.

Run from the project root: ``.venv/bin/python bench/bench_audit_view.py [--runs N]
[--postgres [URL]]`` (PostgreSQL in a schema of its own, dropped at the end; SQLite in a
temporary file otherwise).

1. **The first audit view** (``/games/ID/audit`` through the web app in process) of a
   game of 10,000 events and of one of 100, written in bulk as ``pbem bench`` does (its
   own small game, :mod:`pbem.bench_game`). "mark absent" is the view as it was for any
   game the worker had not caught up (imported, long-lived, its mark old, or fewer
   than 100 events behind): it verifies at most ``VIEW_BUDGET`` events and shows a
   partial result. "worker caught up" is the view once :func:`pbem.eventlog.audit.catch_up`
   went through the queue (its time is printed apart). Before each sample the mark is
   deleted and the process's roster cache emptied (a first view in a web worker that
   never saw the game). The four cases are sampled in turn, ``--runs`` times; medians of
   wall and CPU (``time.thread_time``: the test client serves in this thread) in ms.
   Then the worker's usual work: a pass over 50 games with one new event each, per game.
2. **Finding the work**: the worker's query on a database of 100 and of 10,000 running
   games (each with a mark, 20 of them with new events), median of 200 runs each,
   the queries alternating in blocks of 20: before (e5bad2d: every game changed in the
   last two days joined with its mark, the furthest behind first) and after (a page of
   the audit queue by its key). In blocks, because the old query's pages push the
   queue's out of SQLite's page cache: run one for one, the new query's median at
   10,000 games was 0.23 ms against 0.13 ms alone (0.13 ms at 100 games either way).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import and_, delete, func, insert, or_, text  # noqa: E402
from sqlmodel import Session, col, select  # noqa: E402

from pbem.bench import bench_engine, bulk_game, next_move  # noqa: E402
from pbem.db import for_reads, make_engine  # noqa: E402
from pbem.eventlog import roster_log  # noqa: E402
from pbem.eventlog.audit import catch_up, listed_query  # noqa: E402
from pbem.migrations import migrate  # noqa: E402
from pbem.models import AuditMark, Game  # noqa: E402
from pbem.runtime import build_runtime  # noqa: E402
from pbem.web import create_app  # noqa: E402

DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
LENGTHS = (100, 10_000)
GAME_COUNTS = (100, 10_000)
BEHIND = 20


def ms(seconds: float) -> float:
    return seconds * 1000


def forget(service, game_id: str) -> None:
    """The game as the worker had not caught it up: no mark, listed, no roster kept."""
    with Session(service.db) as session:
        session.exec(delete(AuditMark).where(col(AuditMark.game_id) == game_id))
        session.exec(
            text(
                "INSERT INTO audit_queue (game_id) VALUES (:id) ON CONFLICT (game_id) DO NOTHING"
            ).bindparams(id=game_id)
        )
        session.commit()
    roster_log._KEPT.clear()


def first_views(url: str, connect_args: dict, runs: int) -> None:
    bench_engine()
    db = make_engine(url, connect_args=connect_args)
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
        client = create_app(runtime=runtime).test_client()
        service = runtime.service
        games = {length: bulk_game(service, length - 1) for length in LENGTHS}
        walls: dict[tuple[str, int], list[float]] = {}
        cpus: dict[tuple[str, int], list[float]] = {}
        partial: dict[tuple[str, int], bool] = {}
        worker: list[float] = []
        for _ in range(runs):
            for case in ("mark absent", "worker caught up"):
                for length, game_id in games.items():
                    forget(service, game_id)
                    if case == "worker caught up":
                        began = time.perf_counter()
                        catch_up(service, seconds=600)
                        if length == LENGTHS[-1]:
                            worker.append(time.perf_counter() - began)
                        roster_log._KEPT.clear()
                    wall, cpu = time.perf_counter(), time.thread_time()
                    page = client.get(f"/games/{game_id}/audit")
                    cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
                    assert page.status_code == 200, page.status_code
                    walls.setdefault((case, length), []).append(ms(wall))
                    cpus.setdefault((case, length), []).append(ms(cpu))
                    partial[(case, length)] = "Still to check" in page.text
        per_game = worker_pass(service, runs)
    db.dispose()
    short, long = LENGTHS
    print(f"\nFirst audit view, median ms of {runs} runs, the cases in turn")
    print(f"(the worker's catch-up of the {long:,}-event game: {statistics.median(worker):.2f} s)")
    print(f"{'case':20}{'events':>8}{'wall':>10}{'CPU':>10}{'CPU / short':>13}   result")
    for case in ("mark absent", "worker caught up"):
        base = statistics.median(cpus[(case, short)])
        for length in LENGTHS:
            cpu = statistics.median(cpus[(case, length)])
            wall = statistics.median(walls[(case, length)])
            shown = "partial" if partial[(case, length)] else "complete"
            print(f"{case:20}{length:>8,}{wall:10.1f}{cpu:10.1f}{cpu / base:12.2f}x   {shown}")
    print(
        f"the worker's pass, per game with one new event: {per_game[0]:.1f} ms wall, "
        f"{per_game[1]:.1f} ms CPU"
    )


def worker_pass(service, runs: int, count: int = 50) -> tuple[float, float]:
    """The worker's pass over ``count`` games with one new event each (a sweep's usual
    work): median ms per game, wall and CPU."""
    ids = [bulk_game(service, 20) for _ in range(count)]
    catch_up(service, seconds=600)
    walls, cpus = [], []
    for _ in range(runs):
        for game_id in ids:
            move_on(service, game_id)
        wall, cpu = time.perf_counter(), time.thread_time()
        assert catch_up(service, seconds=600) == count
        walls.append(ms(time.perf_counter() - wall) / count)
        cpus.append(ms(time.thread_time() - cpu) / count)
    return statistics.median(walls), statistics.median(cpus)


def move_on(service, game_id: str) -> None:
    head = service.head(game_id)
    seat = min(head.engine.to_move(head.state))
    service.submit_move(game_id, seat, next_move(head.state), head.seq)


def old_query(now: datetime):
    """The worker's look for work before the queue (e5bad2d, ``catch_up``)."""
    since = now - timedelta(days=2)
    behind = Game.head_seq - func.coalesce(AuditMark.seq, -1)
    return (
        select(Game.id)
        .outerjoin(AuditMark, col(AuditMark.game_id) == col(Game.id))
        .where(
            Game.updated_at >= since,
            Game.head_seq >= 99,
            or_(
                behind >= 100,
                and_(Game.status == "finished", col(AuditMark.whole_at_end).is_not(True)),
            ),
        )
        .order_by(behind.desc())
        .limit(20)
    )


def running_games(db, count: int) -> None:
    """``count`` running games of 120 events, each with a mark at its head but
    ``BEHIND`` of them, five events behind (moved since the worker's last pass)."""
    now = datetime.now(UTC)
    games, marks = [], []
    for number in range(count):
        game_id = f"g{number:06d}"
        head = 120
        games.append(
            {
                "id": game_id,
                "engine": "bench-race",
                "engine_version": 1,
                "title": "",
                "options": {},
                "seat_count": 2,
                "status": "active",
                "commitment": "0" * 64,
                "head_seq": head,
                "head_hash": "1" * 64,
                "to_move": [0],
                "phase": "",
                "policy": {},
                "private": False,
                "created_at": now,
                "updated_at": now - timedelta(minutes=number % 600),
            }
        )
        marks.append(
            {
                "game_id": game_id,
                "seq": head - 5 if number < BEHIND else head,
                "hash": "1" * 64,
                "engine_version": 1,
                "commitment": "0" * 64,
                "state": {},
                "draws": 0,
                "seed_revealed": False,
                "whole_at_end": False,
                "verified_at": now,
            }
        )
    with db.begin() as connection:
        connection.execute(insert(Game.__table__), games)
        connection.execute(insert(AuditMark.__table__), marks)
        connection.execute(
            text("DELETE FROM audit_queue WHERE game_id >= :first"),
            {"first": f"g{BEHIND:06d}"},
        )
        connection.execute(text("ANALYZE"))
    if db.dialect.name == "postgresql":
        # The queue as autovacuum keeps it: the setup listed every game, then took all
        # but BEHIND off, and left their dead rows.
        with db.execution_options(isolation_level="AUTOCOMMIT").connect() as connection:
            connection.exec_driver_sql("VACUUM ANALYZE audit_queue")
    if db.dialect.name == "sqlite":
        # The setup's pages into the file: reads then search no long WAL.
        raw = db.raw_connection()
        try:
            raw.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            raw.close()


def query_cost(fresh) -> None:
    """``fresh()``: the (url, connect_args) of an empty database, for each size."""
    print("\nFinding the work, median ms of 200 runs, the queries in blocks of 20 in turn")
    print(f"{'running games':>14}{'before':>10}{'after':>10}   listed")
    for count in GAME_COUNTS:
        url, connect_args = fresh()
        db = make_engine(url, connect_args=connect_args)
        migrate(db)
        running_games(db, count)
        reads = for_reads(db)
        now = datetime.now(UTC)
        times: dict[str, list[float]] = {"before": [], "after": []}
        found = {}
        for _ in range(10):
            for name, query in (("before", old_query(now)), ("after", listed_query())):
                for _ in range(20):
                    with Session(reads) as session:
                        began = time.perf_counter()
                        found[name] = list(session.exec(query))
                        times[name].append(ms(time.perf_counter() - began))
        plans = {name: plan(db, query) for name, query in (("after", listed_query()),)}
        db.dispose()
        before, after = (statistics.median(times[name]) for name in ("before", "after"))
        print(f"{count:>14,}{before:10.3f}{after:10.3f}   {len(found['after'])}")
    print(f"the query's plan at {count:,} games:")
    print("    " + plans["after"].replace("\n", "\n    "))


def plan(db, query) -> str:
    """The database's plan for ``query`` (EXPLAIN QUERY PLAN on SQLite, EXPLAIN else)."""
    sql = str(query.compile(db, compile_kwargs={"literal_binds": True}))
    with db.connect() as connection:
        if db.dialect.name == "sqlite":
            rows = connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}")
            return "\n".join(row[-1] for row in rows)
        return "\n".join(row[0] for row in connection.exec_driver_sql(f"EXPLAIN {sql}"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--postgres", nargs="?", const=DEFAULT_POSTGRES)
    args = parser.parse_args()
    if args.postgres:
        import sqlalchemy

        schema = f"pbem_audit_view_{int(time.time())}"
        admin = sqlalchemy.create_engine(args.postgres, isolation_level="AUTOCOMMIT")
        connect_args = {"options": f"-csearch_path={schema}"}

        def fresh() -> tuple[str, dict]:
            with admin.connect() as connection:
                connection.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
                connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
            return args.postgres, connect_args

        try:
            print("PostgreSQL")
            first_views(*fresh(), args.runs)
            query_cost(fresh)
        finally:
            with admin.connect() as connection:
                connection.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
            admin.dispose()
        return
    with tempfile.TemporaryDirectory() as folder:
        files = iter(range(1_000))

        def fresh() -> tuple[str, dict]:
            return f"sqlite:///{Path(folder) / f'bench{next(files)}.sqlite3'}", {}

        print("SQLite")
        first_views(*fresh(), args.runs)
        query_cost(fresh)


if __name__ == "__main__":
    main()
