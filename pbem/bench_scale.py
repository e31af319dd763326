"""``pbem bench --scale``: what a page, a move and a sweep cost at 100 and at 10,000 games.

On SQLite (scratch files) and on PostgreSQL (scratch schemas, dropped afterwards) it
makes two databases side by side: one with 100 running games of the fixture engine (two
players each, mail on), the other with the same 100 and 9,900 finished games,
bulk-inserted as copies of a real finished game (its game, seat, event, snapshot,
secret, clock and outbox rows under new ids). It then times, interleaved between the two
so that the machine's load weighs on both alike: the lobby page, the ``pbem games``
listing, a seat's turn page, a move (``submit_move`` with the mail listener), one
scheduler sweep and ``/metrics``; and prints the medians and the ratio 10,000/100
(target: each within 2x).
"""

from __future__ import annotations

import contextlib
import io
import statistics
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.engine import Engine as SqlEngine
from sqlmodel import SQLModel

from pbem.bench import DEFAULT_POSTGRES, bench_engine
from pbem.bench_game import RACE
from pbem.db import make_engine
from pbem.errors import BadInput
from pbem.games.context import Runtime
from pbem.games.service import SeatSpec

ACTIVE = 100
TOTAL = 10_000
CHUNK = 250  # finished games per insert transaction
# Rows that belong to no game, or that a copy must not repeat.
SKIPPED_TABLES = {"retired_links", "seat_requests", "worker_heartbeats", "schema_info"}


def _overrides(folder: Path) -> dict[str, Any]:
    return {
        "security": {"secret_key": "bench-scale-secret"},
        "paths": {"var": str(folder / "var")},
        "server": {"demo": False, "base_url": "http://localhost"},
    }


def _active_game(runtime: Runtime, number: int) -> tuple[str, list[str | None]]:
    created = runtime.service.create_game(
        RACE.slug,
        [SeatSpec("Ann", f"ann{number}@example.org"), SeatSpec("Bob", f"bob{number}@example.org")],
        {"target": 10**9},
        title="Running race",
    )
    return created.game_id, created.tokens


def _finished_game(runtime: Runtime) -> str:
    """A game played to its end by two bots: the template of the finished copies."""
    created = runtime.service.create_game(
        RACE.slug,
        [SeatSpec("Bot 1", is_bot=True), SeatSpec("Bot 2", is_bot=True)],
        {"target": 60},
        title="Finished race",
    )
    runtime.service.play_bots(created.game_id)
    assert runtime.service.game(created.game_id).status == "finished"
    return created.game_id


def _game_tables() -> list[Any]:
    return [
        table
        for table in SQLModel.metadata.sorted_tables
        if table.name not in SKIPPED_TABLES and ("game_id" in table.c or table.name == "games")
    ]


def copy_finished(db: SqlEngine, template: str, count: int) -> None:
    """``count`` copies of the finished game ``template`` under new ids, older than every
    running game, in bulk inserts of :data:`CHUNK` games."""
    tables = _game_tables()
    with db.connect() as connection:
        rows = {}
        for table in tables:
            key = table.c.id if table.name == "games" else table.c.game_id
            rows[table.name] = [
                dict(row._mapping)
                for row in connection.execute(select(table).where(key == template))
            ]
    (game,) = rows["games"]
    done = 0
    while done < count:
        batch = range(done, min(count, done + CHUNK))
        with db.begin() as connection:
            for table in tables:
                copies = []
                for number in batch:
                    new_id = f"scale-{number:06d}"
                    for row in rows[table.name]:
                        copy = dict(row)
                        copy["id" if table.name == "games" else "game_id"] = new_id
                        if table.name == "games":
                            moment = game["updated_at"] - timedelta(minutes=number + 1)
                            copy.update(updated_at=moment, finished_at=moment)
                            copy["title"] = f"Finished race {number}"
                        if "token_hash" in copy:
                            copy["token_hash"] = None
                        if table.name == "mail_outbox":
                            copy.pop("id")
                            copy["key"] = f"{new_id}:{row['id']}"
                        copies.append(copy)
                if copies:
                    connection.execute(table.insert(), copies)
        done = batch.stop


def _analyze(db: SqlEngine) -> None:
    """Fresh planner statistics, as a server's autovacuum (PostgreSQL) or a periodic
    ANALYZE (SQLite) keeps them; VACUUM also marks PostgreSQL's pages all-visible, which
    index-only counts need."""
    if db.dialect.name == "postgresql":
        with db.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text("VACUUM ANALYZE"))
        return
    with db.begin() as connection:
        connection.execute(text("ANALYZE"))


@dataclass
class Site:
    """One database under test: its runtime, a web client and its running games."""

    runtime: Runtime
    client: Any
    games: list[tuple[str, list[str | None]]]
    moved: int = 0


def setup(db: SqlEngine, folder: Path, finished: int) -> Site:
    """:data:`ACTIVE` running games and ``finished`` finished ones (one played, the rest
    its copies), with fresh planner statistics."""
    bench_engine()
    from pbem.runtime import build_runtime
    from pbem.web import create_app

    runtime = build_runtime(_overrides(folder), db=db)
    app = create_app(runtime=runtime)
    app.config["TESTING"] = True
    template = _finished_game(runtime)
    if finished > 1:
        copy_finished(db, template, finished - 1)
    games = [_active_game(runtime, number) for number in range(ACTIVE)]
    _analyze(db)
    return Site(runtime, app.test_client(), games)


def actions(site: Site) -> dict[str, Callable[[], None]]:
    from pbem import scheduler
    from pbem.games import listing as game_listing

    runtime, client = site.runtime, site.client
    token = site.games[0][1][0]

    def listing() -> None:
        with contextlib.redirect_stdout(io.StringIO()):
            print(*game_listing.page_lines(runtime.service, None, None, None, None), sep="\n")

    def move() -> None:  # each run a turn of another game (seat 0 of a fresh game)
        site.moved += 1
        game_id, _ = site.games[site.moved]
        runtime.service.submit_move(game_id, 0, {"type": "roll"}, 0, actor="bench")

    return {
        "lobby page": lambda: _ok(client.get("/")),
        "pbem games": listing,
        "turn page": lambda: _ok(client.get(f"/play/{token}")),
        "move": move,
        "sweep": lambda: scheduler.sweep(runtime),
        "/metrics": lambda: _ok(client.get("/metrics")),
    }


def _ok(response: Any) -> None:
    if response.status_code != 200:
        raise RuntimeError(f"{response.request.path} answered {response.status_code}")


def compare(label: str, small: Site, large: Site, runs: int) -> dict[str, tuple[float, float]]:
    """Medians of ``runs`` timings of each action on both sites, interleaved A/B (the
    order alternating) so that the machine's load weighs on both alike."""
    small_actions, large_actions = actions(small), actions(large)
    figures = {}
    for name in small_actions:
        samples: dict[int, list[float]] = {0: [], 1: []}
        for run in range(runs):
            pair = [(0, small_actions[name]), (1, large_actions[name])]
            for side, action in pair if run % 2 == 0 else pair[::-1]:
                start = time.perf_counter()
                action()
                samples[side].append((time.perf_counter() - start) * 1000)
        figures[name] = (statistics.median(samples[0]), statistics.median(samples[1]))
    with large.runtime.db.connect() as connection:
        count = connection.execute(text("SELECT count(*) FROM games")).scalar_one()
        events = connection.execute(text("SELECT count(*) FROM events")).scalar_one()
    print(
        f"[{label}] {ACTIVE:,} running games against {count:,} ({events:,} events); "
        f"median of {runs} interleaved runs, milliseconds:"
    )
    print(f"    {'':<12} {ACTIVE:>10,} {TOTAL:>10,}  ratio")
    for name, (few, many) in figures.items():
        ratio = many / few
        flag = "" if ratio <= 2 else "  over 2x"
        print(f"    {name:<12} {few:>10.2f} {many:>10.2f}  {ratio:5.2f}x{flag}")
    return figures


def bench_scale(label: str, make_db: Callable[[str], SqlEngine], runs: int) -> None:
    if runs + 1 >= ACTIVE:
        raise BadInput(f"At most {ACTIVE - 2} runs: each move needs a game of its own.")
    with tempfile.TemporaryDirectory() as folder:
        small_db, large_db = make_db("small"), make_db("large")
        try:
            small = setup(small_db, Path(folder) / "small", 1)
            start = time.perf_counter()
            large = setup(large_db, Path(folder) / "large", TOTAL - ACTIVE)
            print(f"[{label}] {TOTAL:,} games made in {time.perf_counter() - start:.1f} s")
            compare(label, small, large, runs)
        finally:
            small_db.dispose()
            large_db.dispose()


def main(runs: int = 7, postgres_url: str | None = None) -> None:
    bench_engine()
    with tempfile.TemporaryDirectory() as folder:
        bench_scale("SQLite", lambda name: make_engine(f"sqlite:///{folder}/{name}.sqlite3"), runs)
    url = postgres_url or DEFAULT_POSTGRES
    stamp = int(time.time())
    schemas = [f"pbem_scale_{stamp}_{name}" for name in ("small", "large")]
    try:
        import sqlalchemy

        admin = sqlalchemy.create_engine(url, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            for schema in schemas:
                connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    except Exception as error:  # noqa: BLE001 - report and carry on without PostgreSQL
        print(f"[PostgreSQL] skipped: {error}")
        return
    try:
        bench_scale(
            "PostgreSQL",
            lambda name: make_engine(
                url, connect_args={"options": f"-csearch_path=pbem_scale_{stamp}_{name}"}
            ),
            runs,
        )
    finally:
        with admin.connect() as connection:
            for schema in schemas:
                connection.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        admin.dispose()
