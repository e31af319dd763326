"""``pbem bench --scale``: what a page, a move and a sweep cost at 100 and at 10,000 games.

On SQLite (a scratch file) and on PostgreSQL (a scratch schema, dropped afterwards) it
creates 100 running games of the fixture engine, each with two players and mail on, and
measures, as the median of several runs: the lobby page, the ``pbem games`` listing, a
seat's turn page, a move (``submit_move`` with the mail listener) and one scheduler
sweep. Then it adds 9,900 finished games, bulk-inserted as copies of a real finished
game (its game, seat, event, snapshot, secret, clock and outbox rows under new ids),
and measures again. It prints both figures and the ratio 10,000/100; the target is each
within 2x. ``/metrics`` is measured the same way.
"""

from __future__ import annotations

import contextlib
import io
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.engine import Engine as SqlEngine
from sqlmodel import SQLModel

from pbem.bench import DEFAULT_POSTGRES, fixture_engine
from pbem.db import make_engine
from pbem.service import SeatSpec

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


def _median_ms(runs: int, measure: Callable[[], None]) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        measure()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def _active_game(runtime: Any, number: int) -> tuple[str, list[str | None]]:
    created = runtime.service.create_game(
        "pig",
        [SeatSpec("Ann", f"ann{number}@example.org"), SeatSpec("Bob", f"bob{number}@example.org")],
        {"target": 10**9},
        title="Running pig",
    )
    return created.game_id, created.tokens


def _finished_game(runtime: Any) -> str:
    """A game played to its end by two bots: the template of the finished copies."""
    created = runtime.service.create_game(
        "pig",
        [SeatSpec("Bot 1", is_bot=True), SeatSpec("Bot 2", is_bot=True)],
        {"target": 60},
        title="Finished pig",
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
                            copy["title"] = f"Finished pig {number}"
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
    with db.begin() as connection:
        connection.execute(text("ANALYZE"))


def measure(runtime: Any, client: Any, runs: int, games: list[tuple[str, list]]) -> dict:
    """The median milliseconds of each measured action."""
    from pbem import cli, scheduler

    service = runtime.service
    figures = {}
    figures["lobby page"] = _median_ms(runs, lambda: _ok(client.get("/")))

    def listing() -> None:
        with contextlib.redirect_stdout(io.StringIO()):
            cli.print_games(runtime, None, None, None, None)

    figures["pbem games"] = _median_ms(runs, listing)
    _, tokens = games[0]
    figures["turn page"] = _median_ms(runs, lambda: _ok(client.get(f"/play/{tokens[0]}")))
    turn = iter(games)

    def move() -> None:
        game_id, _ = next(turn)
        head = service.head(game_id)
        seat = min(head.engine.to_move(head.state))
        service.submit_move(game_id, seat, {"type": "roll"}, head.seq)

    samples = []
    for _ in range(runs):
        game_id, _ = games[len(samples) + 1]
        head = service.head(game_id)
        seat = min(head.engine.to_move(head.state))
        start = time.perf_counter()
        service.submit_move(game_id, seat, {"type": "roll"}, head.seq, actor="bench")
        samples.append((time.perf_counter() - start) * 1000)
    figures["move"] = statistics.median(samples)
    figures["sweep"] = _median_ms(runs, lambda: scheduler.sweep(runtime))
    figures["/metrics"] = _median_ms(runs, lambda: _ok(client.get("/metrics")))
    return figures


def _ok(response: Any) -> None:
    if response.status_code != 200:
        raise RuntimeError(f"{response.request.path} answered {response.status_code}")


def bench_scale(label: str, url: str, runs: int, folder: Path, connect_args: dict | None = None):
    from pbem.runtime import build_runtime
    from pbem.web import create_app

    db = make_engine(url, connect_args=connect_args or {})
    runtime = build_runtime(_overrides(folder), db=db)
    app = create_app(runtime=runtime)
    app.config["TESTING"] = True
    client = app.test_client()
    template = _finished_game(runtime)
    games = [_active_game(runtime, number) for number in range(ACTIVE)]
    _analyze(db)
    small = measure(runtime, client, runs, games)
    start = time.perf_counter()
    copy_finished(db, template, TOTAL - ACTIVE - 1)
    filled = time.perf_counter() - start
    _analyze(db)
    large = measure(runtime, client, runs, games[runs + 1 :] + games[: runs + 1])
    with db.connect() as connection:
        count = connection.execute(text("SELECT count(*) FROM games")).scalar_one()
        events = connection.execute(text("SELECT count(*) FROM events")).scalar_one()
    print(
        f"[{label}] {count:,} games ({events:,} events), filled in {filled:.1f} s; "
        f"median of {runs} runs, milliseconds:"
    )
    print(f"    {'':<12} {ACTIVE:>10,} {TOTAL:>10,}  ratio")
    for key in small:
        ratio = large[key] / small[key]
        flag = "" if ratio <= 2 else "  over 2x"
        print(f"    {key:<12} {small[key]:>10.2f} {large[key]:>10.2f}  {ratio:5.2f}x{flag}")
    db.dispose()


def main(runs: int = 7, postgres_url: str | None = None) -> None:
    fixture_engine()
    with tempfile.TemporaryDirectory() as folder:
        bench_scale("SQLite", f"sqlite:///{Path(folder) / 'scale.sqlite3'}", runs, Path(folder))
    url = postgres_url or DEFAULT_POSTGRES
    try:
        import sqlalchemy

        admin = sqlalchemy.create_engine(url, isolation_level="AUTOCOMMIT")
        schema = f"pbem_scale_{int(time.time())}"
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    except Exception as error:  # noqa: BLE001 - report and carry on without PostgreSQL
        print(f"[PostgreSQL] skipped: {error}")
        return
    try:
        with tempfile.TemporaryDirectory() as folder:
            bench_scale(
                "PostgreSQL", url, runs, Path(folder), {"options": f"-csearch_path={schema}"}
            )
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()
