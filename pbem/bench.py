"""``pbem bench``: figures for the event store, as medians of several runs.

- events appended per second through the game service (SQLite, and PostgreSQL when
  reachable), one move per transaction as in play;
- the same with the mail listener installed (every move a player's turn, as in play),
  against raw durable inserts of rows of the same size (one INSERT per transaction, the
  same ``synchronous`` setting), the two in alternating blocks of each run: the ratio
  says how close a move is to the hardware;
- replay speed: events folded per second through the engine from recorded draws;
- the time to load the head state of games with 100, 1,000 and 10,000 events: from the
  cached head state, from the newest snapshot plus the events after it, and by replaying
  the whole log without snapshots.

It plays the bench's own small game (:mod:`pbem.bench_game`) so the figures measure
the platform, not a game's rules.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pbem.bench_game import RACE, register
from pbem.db import make_engine
from pbem.eventlog.chance import RecordingChance
from pbem.eventlog.log import fold, timestamp
from pbem.games.service import GameService, SeatSpec
from pbem.migrations import migrate

BENCH_SEED = b"\x01" * 32
DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"


def bench_engine():
    """The bench's game, registered in this process (:func:`pbem.bench_game.register`)."""
    return register()


def median_of(runs: int, measure: Callable[[], float]) -> float:
    return statistics.median(measure() for _ in range(runs))


def next_move(state: dict) -> dict:
    return {"type": "stop"} if state["pot"] >= 6 else {"type": "roll"}


def bulk_game(service: GameService, events: int) -> str:
    """A game of ``events`` events, written in large transactions (setup for the bench)."""
    engine = bench_engine()
    created = service.create_game(
        engine.slug, [SeatSpec("A"), SeatSpec("B")], {"target": 10**9}, seed=BENCH_SEED
    )
    game_id = created.game_id
    head = service.head(game_id)
    state, prev, seq = head.state, head.hash, head.seq
    seed = BENCH_SEED
    while seq < events:
        rows, states = [], []
        with service.session() as session:
            game = service.store.game(session, game_id)
            for _ in range(min(1000, events - seq)):
                seq += 1
                seat = min(engine.to_move(state))
                move = next_move(state)
                chance = RecordingChance(seed, game_id, seq)
                state = engine.apply(state, seat, move, chance)
                row = service.store.new_row(
                    game_id=game_id,
                    seq=seq,
                    prev_hash=prev,
                    kind="move",
                    seat=seat,
                    payload={"move": move},
                    chance=chance.drawn,
                    state_digest=service.store.digest(seed, engine, state),
                    actor="bench",
                    created_at=timestamp(service.clock()),
                )
                prev = row["hash"]
                rows.append(row)
                states.append(state)
            service.store.add_rows(session, engine, rows, states)
            game.head_seq, game.head_hash, game.head_state = seq, prev, engine.dump(state)
            session.add(game)
            session.commit()
    return game_id


def append_rate(service: GameService, moves: int = 300) -> float:
    """Moves per second through ``submit_move`` (one transaction each)."""
    created = service.create_game(RACE.slug, [SeatSpec("A"), SeatSpec("B")], {"target": 10**9})
    head = service.head(created.game_id)
    state, seq = head.state, head.seq
    start = time.perf_counter()
    for _ in range(moves):
        seat = min(head.engine.to_move(state))
        outcome = service.submit_move(created.game_id, seat, next_move(state), seq)
        state, seq = outcome.state, outcome.seq
    return moves / (time.perf_counter() - start)


class ListenerMoves:
    """A game of two players with addresses on a runtime with the mail listener, whose
    moves go through ``submit_move`` (each move's event is a turn for one of them)."""

    def __init__(self, db, folder: Path):
        from pbem.runtime import build_runtime

        runtime = build_runtime(
            {
                "security": {"secret_key": "bench-" + "0" * 58},
                "paths": {"var": str(folder / "var")},
                "server": {"demo": False},
            },
            db=db,
        )
        self.service = runtime.service
        seats = [SeatSpec("A", "a@example.org"), SeatSpec("B", "b@example.org")]
        self.game_id = self.service.create_game(RACE.slug, seats, {"target": 10**9}).game_id
        head = self.service.head(self.game_id)
        self.engine, self.state, self.seq, self.size = head.engine, head.state, head.seq, 0

    def run(self, moves: int) -> float:
        """Seconds for ``moves`` moves; ``size`` becomes the bytes of one move's event."""
        start = time.perf_counter()
        for _ in range(moves):
            seat = min(self.engine.to_move(self.state))
            outcome = self.service.submit_move(self.game_id, seat, next_move(self.state), self.seq)
            self.state, self.seq = outcome.state, outcome.seq
        spent = time.perf_counter() - start
        self.size = len(json.dumps(outcome.events[0]))
        return spent


def listener_rate(db, folder: Path, moves: int = 300) -> tuple[float, int]:
    """Moves per second through ``submit_move`` with the mail listener installed
    (:class:`ListenerMoves`), and the size in bytes of one move's event row."""
    game = ListenerMoves(db, folder)
    spent = game.run(moves)
    return moves / spent, game.size


class RawInserts:
    """Plain durable INSERTs of ``size``-byte rows, one transaction each, straight
    through the driver (the same database, ``synchronous`` setting included)."""

    def __init__(self, db, size: int):
        self.sqlite = db.dialect.name == "sqlite"
        self.body = "x" * size
        self.connection = db.raw_connection()
        self.cursor = self.connection.cursor()
        self.cursor.execute("DROP TABLE IF EXISTS bench_raw")
        key = "INTEGER PRIMARY KEY" if self.sqlite else "BIGSERIAL PRIMARY KEY"
        self.cursor.execute(f"CREATE TABLE bench_raw (id {key}, body TEXT NOT NULL)")
        self.connection.commit()
        mark = "?" if self.sqlite else "%s"
        self.insert = f"INSERT INTO bench_raw (body) VALUES ({mark})"

    def run(self, rows: int) -> float:
        """Seconds for ``rows`` inserts."""
        cursor, insert, body = self.cursor, self.insert, (self.body,)
        start = time.perf_counter()
        for _ in range(rows):
            if self.sqlite:
                cursor.execute("BEGIN IMMEDIATE")
            cursor.execute(insert, body)
            if self.sqlite:
                cursor.execute("COMMIT")
            else:
                self.connection.commit()
        return time.perf_counter() - start

    def close(self) -> None:
        try:
            self.cursor.execute("DROP TABLE bench_raw")
            self.connection.commit()
        finally:
            self.connection.close()


def interleaved(db, folder: Path, blocks: int = 8, moves: int = 50, rows: int = 150):
    """Moves with the mail listener and raw inserts in alternating blocks, so that a
    busy moment of the machine (or of its disk) weighs on both alike: the moves and the
    inserts per second over all the blocks, and the event's size."""
    game = ListenerMoves(db, folder)
    game.run(moves)  # warm-up: statements compiled, tables past their first pages
    inserts = RawInserts(db, game.size)
    try:
        inserts.run(rows)
        moved = inserted = 0.0
        for _ in range(blocks):
            moved += game.run(moves)
            inserted += inserts.run(rows)
    finally:
        inserts.close()
    return blocks * moves / moved, blocks * rows / inserted, game.size


def replay_rate(service: GameService, game_id: str, *, check_hashes: bool = False) -> float:
    engine = bench_engine()
    rows = service.events(game_id)
    start = time.perf_counter()
    fold(engine, rows, seed=BENCH_SEED if check_hashes else None)
    return len(rows) / (time.perf_counter() - start)


def head_times(service: GameService, game_id: str) -> dict[str, float]:
    """Seconds to load the head state three ways."""
    times = {}
    with service.session() as session:
        start = time.perf_counter()
        service.store.head(session, game_id, use_cache=True)
        times["cached head"] = time.perf_counter() - start
        game = service.store.game(session, game_id)
        engine = bench_engine()
        start = time.perf_counter()
        service.store.state_at(session, game, engine, game.head_seq, use_snapshots=True)
        times["snapshot + tail"] = time.perf_counter() - start
        start = time.perf_counter()
        service.store.state_at(session, game, engine, game.head_seq, use_snapshots=False)
        times["full replay"] = time.perf_counter() - start
    return times


def bench_database(
    label: str, url: str, runs: int, connect_args: dict | None = None, target: float = 0.2
) -> None:
    db = make_engine(url, connect_args=connect_args or {})
    migrate(db)
    service = GameService(db, snapshot_every=50)
    rate = median_of(runs, lambda: append_rate(service))
    print(f"[{label}] events appended per second (submit_move, one per transaction): {rate:,.0f}")
    bench_ratio(label, db, runs, target)
    bench_heads(label, service, runs)
    db.dispose()


def bench_ratio(label: str, db, runs: int, target: float) -> None:
    """A move with the mail listener against raw durable inserts, and their ratio: the
    median of ``runs`` runs, each of moves and inserts in alternating blocks."""
    moves, raws = [], []
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(runs):
            rate, raw, size = interleaved(db, Path(folder))
            moves.append(rate)
            raws.append(raw)
    moved, raw = statistics.median(moves), statistics.median(raws)
    ratios = [m / r for m, r in zip(moves, raws, strict=True)]
    print(f"[{label}] submit_move with the mail listener: {moved:,.0f} per second")
    print(f"[{label}] raw durable inserts of {size}-byte rows: {raw:,.0f} per second")
    print(ratio_line(label, ratios, target))


def ratio_line(label: str, ratios: list[float], target: float) -> str:
    """The ratio's line: the median of the runs' ratios, their range and the verdict. One
    decimal, or two where one would show a miss as the target itself."""
    ratio = statistics.median(ratios)
    verdict = "meets" if ratio >= target else "misses"
    shown = f"{ratio:.1%}"
    if ratio < target and shown == f"{target:.1%}":
        shown = f"{ratio:.2%}"
    return (
        f"[{label}] ratio, move with mail / raw insert (median of {len(ratios)}, "
        f"{min(ratios):.1%} to {max(ratios):.1%}): {shown} "
        f"({verdict} the target of {target:.0%})"
    )


def bench_heads(label: str, service: GameService, runs: int) -> None:
    """Replay speed and the time to load the head state of long games."""
    games = {size: bulk_game(service, size) for size in (100, 1_000, 10_000)}
    rate = median_of(runs, lambda: replay_rate(service, games[10_000]))
    print(f"[{label}] replay speed: {rate:,.0f} events per second (10,000-event log)")
    rate = median_of(runs, lambda: replay_rate(service, games[10_000], check_hashes=True))
    print(f"[{label}] replay checking every state hash: {rate:,.0f} events per second")
    print(f"[{label}] time to load the head state (median of {runs} runs, milliseconds):")
    results = {}
    for size, game_id in games.items():
        samples = [head_times(service, game_id) for _ in range(runs)]
        results[size] = {key: statistics.median(s[key] for s in samples) for key in samples[0]}
        cells = "  ".join(f"{key}: {value * 1000:8.2f}" for key, value in results[size].items())
        print(f"    {size:>6} events  {cells}")
    for key in ("cached head", "snapshot + tail"):
        ratio = results[10_000][key] / results[100][key]
        print(f"[{label}] 10,000 vs 100 events, {key}: {ratio:.2f}x")


def bench_ratio_only(
    label: str, url: str, runs: int, connect_args: dict | None = None, target: float = 0.2
) -> None:
    db = make_engine(url, connect_args=connect_args or {})
    migrate(db)
    bench_ratio(label, db, runs, target)
    db.dispose()


def main(runs: int = 5, postgres_url: str | None = None, *, ratio_only: bool = False) -> None:
    """All figures; ``ratio_only``: just a move with mail against raw inserts."""
    bench_engine()
    run = bench_ratio_only if ratio_only else bench_database
    with tempfile.TemporaryDirectory() as folder:
        run("SQLite", f"sqlite:///{Path(folder) / 'bench.sqlite3'}", runs, target=0.2)
    url = postgres_url or DEFAULT_POSTGRES
    try:
        import sqlalchemy

        admin = sqlalchemy.create_engine(url, isolation_level="AUTOCOMMIT")
        schema = f"pbem_bench_{int(time.time())}"
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE SCHEMA "{schema}"')
    except Exception as error:  # noqa: BLE001 - report and carry on without PostgreSQL
        print(f"[PostgreSQL] skipped: {error}")
        return
    try:
        run("PostgreSQL", url, runs, {"options": f"-csearch_path={schema}"}, target=0.3)
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()
