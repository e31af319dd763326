"""``pbem bench --scale``: what the server's everyday work costs with 100 and with 10,000
running games, each with a mail history and table talk.

On SQLite (scratch files) and on PostgreSQL (scratch schemas, dropped afterwards) it
makes two servers side by side. Each holds a game (of the first listed title that seats
two: :func:`bench_title`) played a few turns by two
people who talked at the table and were mailed (the template), copies of it under new
ids up to the size (:data:`SMALL`, and ``--running``, 10,000 by default), bulk-inserted
(every row of the game: seats, log, snapshots, clocks, the talk's rows, its seed sealed
anew under the copy's id) with :data:`MAILS_PER_GAME` mails each in the outbox: mostly
sent (their bodies blanked, as the dispatcher's retention does after 30 days), two
pending and two failed. A few fresh games, made the ordinary way, serve the moves and
the replies, one game each.

It then times, interleaved between the two servers (the order alternating, so the
machine's load weighs on both alike): the lobby page, the ``pbem games`` listing, a
seat's turn page, a move (``submit_move`` with the mail listener), one scheduler sweep,
``/metrics``, a command's start (``pbem games --limit 1`` in a process of its own: it
opens the runtime as every command does) and ``pbem receive`` of a reply that plays a
move (as an MTA's pipe runs it). It prints the medians of wall time and of CPU time
(this process's for the first six, the child's for the commands: the load of other
processes does not skew CPU) and the ratio large/small; the target is 1.5x.

``--tree PATH`` runs the same bench with the ``pbem`` of another checkout (this file is
loaded from here, the package and the commands from PATH), for the figures before a
change.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.engine import Engine as SqlEngine
from sqlmodel import SQLModel

SMALL = 100
LARGE = 10_000
MAILS_PER_GAME = 30
CHUNK = 250  # copied games per insert transaction
TARGET = 1.5
PEOPLE = (("Anna", "anna@example.org"), ("Ben", "ben@example.org"))
REPLY = "play@pbem.test"
SECRET = "bench-scale-secret"
DEFAULT_POSTGRES = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
# Rows that belong to no game, or that a copy must not repeat.
SKIPPED_TABLES = {"retired_links", "worker_heartbeats", "schema_info", "inbound_messages"}
# The failed mails of each copy, as the dispatcher words them.
FAILED = ("gave up: 421 try again later", "refused: 550 no such user")


def settings(folder: Path, url: str) -> dict[str, str]:
    """The configuration of one server, as environment variables: what this process's
    runtime and the commands it starts both read."""
    return {
        "PBEM_DATABASE_URL": url,
        "PBEM_SECURITY_SECRET_KEY": SECRET,
        "PBEM_MAIL_REPLY_ADDRESS": REPLY,
        "PBEM_MAIL_SENDER": "pbem <games@pbem.test>",
        "PBEM_MAIL_HOST": "",
        "PBEM_MAIL_QUIET_MINUTES": "0",
        "PBEM_PATHS_VAR": str(folder / "var"),
        "PBEM_SERVER_DEMO": "false",
        "PBEM_SERVER_BASE_URL": "http://pbem.test",
    }


def _overrides(env: dict[str, str]) -> dict[str, Any]:
    return {
        "security": {"secret_key": SECRET},
        "paths": {"var": env["PBEM_PATHS_VAR"]},
        "server": {"demo": False, "base_url": "http://pbem.test"},
        "mail": {"reply_address": REPLY, "host": "", "quiet_minutes": 0},
    }


# Building a server ---------------------------------------------------------------------


def _due_move(runtime: Any, game_id: str) -> tuple[int, dict[str, Any], int]:
    head = runtime.service.head(game_id)
    seat = min(head.engine.to_move(head.state))
    return seat, head.engine.legal_moves(head.state, seat)[0], head.seq


def bench_title() -> Any:
    """The title the servers play: the first listed one that seats two (found through the
    registry, as the server finds every title)."""
    from engines import listed_engines

    for engine in listed_engines():
        if engine.min_seats <= len(PEOPLE) <= engine.max_seats:
            return engine
    raise RuntimeError("No listed title seats two players.")


def new_game(runtime: Any, number: int) -> tuple[str, list[str | None]]:
    from pbem.games.service import SeatSpec

    # Addresses of their own: the server invites one address at most 20 times a day.
    created = runtime.service.create_game(
        bench_title().slug,
        [SeatSpec(name, email.replace("@", f".{number}@")) for name, email in PEOPLE],
        title=f"Running {bench_title().title} {number}",
    )
    return created.game_id, created.tokens


def template_game(runtime: Any) -> str:
    """A game a few turns in, with table talk and its mail partly sent."""
    from pbem import scheduler
    from pbem.games import talk

    game_id, _ = new_game(runtime, 0)
    chooser = random.Random(1)
    for turn in range(8):
        head = runtime.service.head(game_id)
        seat = min(head.engine.to_move(head.state))
        legal = head.engine.legal_moves(head.state, seat)
        move = head.engine.bot_move(head.engine.view(head.state, seat), legal, chooser)
        runtime.service.submit_move(game_id, seat, move, head.seq)
        if turn % 3 == 0:
            talk.post(runtime, game_id, seat, None, f"Grain for cloth, anyone? ({turn})")
    talk.post(runtime, game_id, 0, 1, "A word between us: I hold the salt.")
    scheduler.dispatch(runtime)
    return game_id


def _game_tables() -> list[Any]:
    return [
        table
        for table in SQLModel.metadata.sorted_tables
        if table.name not in SKIPPED_TABLES and ("game_id" in table.c or table.name == "games")
    ]


def _template_rows(db: SqlEngine, template: str) -> dict[str, list[dict[str, Any]]]:
    rows = {}
    with db.connect() as connection:
        for table in _game_tables():
            key = table.c.id if table.name == "games" else table.c.game_id
            rows[table.name] = [
                dict(row._mapping)
                for row in connection.execute(select(table).where(key == template))
            ]
    return rows


def _copy_rows(
    table: str, rows: list[dict[str, Any]], new_id: str, number: int, seed: bytes, now: datetime
) -> list[dict[str, Any]]:
    from pbem.eventlog.seeds import seal_seed

    if table == "mail_outbox":
        return _mail_history(rows, new_id, number, now)
    copies = []
    for row in rows:
        copy = dict(row)
        copy["id" if table == "games" else "game_id"] = new_id
        if table == "games":
            copy["title"] = f"Running {bench_title().title} {number}"
            copy["updated_at"] = row["updated_at"] - timedelta(minutes=number + 1)
        elif table == "seats":
            name, address = PEOPLE[row["seat"] % len(PEOPLE)]
            copy["email"] = address.replace("@", f"{number}@")
        elif table == "seat_clocks":
            # Due some day after the bench: no copy's reminder or deadline falls in it.
            later = now + timedelta(days=2, minutes=number)
            copy.update(
                remind_at=later if row["remind_at"] else None,
                deadline_at=later + timedelta(days=5) if row["deadline_at"] else None,
            )
        elif table == "game_secrets":
            copy["seed"] = seal_seed(SECRET, new_id, seed)
        if "token_hash" in copy and table != "seat_links":
            copy["token_hash"] = None
        if table in ("seat_requests", "former_players"):
            copy.pop("id")
        copies.append(copy)
    return copies


def _mail_history(
    rows: list[dict[str, Any]], new_id: str, number: int, now: datetime
) -> list[dict[str, Any]]:
    """:data:`MAILS_PER_GAME` mails from the template's: sent ones first (bodies blanked
    by retention), then two pending and two failed (their bodies kept)."""
    mails = []
    for index in range(MAILS_PER_GAME):
        copy = dict(rows[index % len(rows)])
        copy.pop("id")
        copy.update(game_id=new_id, key=f"{new_id}:{index}", lease_owner="", lease_until=None)
        made = now - timedelta(days=60, minutes=number) + timedelta(hours=index)
        copy.update(created_at=made, next_attempt_at=made, attempts=0, last_error="")
        failed = index - (MAILS_PER_GAME - len(FAILED))
        if failed >= 0:
            copy.update(status="failed", attempts=12, last_error=FAILED[failed])
        elif index >= MAILS_PER_GAME - len(FAILED) - 2:
            copy.update(status="pending", next_attempt_at=now + timedelta(days=1), sent_at=None)
        else:
            copy.update(status="sent", sent_at=made, body_text="", body_html="", unsubscribe="")
        mails.append(copy)
    return mails


def copy_running(db: SqlEngine, template: str, count: int) -> None:
    """``count`` copies of the running game ``template`` under new ids, each with its
    mail history, in bulk inserts of :data:`CHUNK` games."""
    from pbem.eventlog.seeds import open_seed

    tables = _game_tables()
    rows = _template_rows(db, template)
    (secret,) = rows["game_secrets"]
    seed = open_seed(SECRET, template, secret["seed"])
    now = datetime.now(UTC)
    done = 0
    while done < count:
        batch = range(done, min(count, done + CHUNK))
        with db.begin() as connection:
            for table in tables:
                copies = [
                    copy
                    for number in batch
                    for copy in _copy_rows(
                        table.name, rows[table.name], f"scale-{number:06d}", number, seed, now
                    )
                ]
                if copies:
                    connection.execute(table.insert(), copies)
        done = batch.stop


def _analyze(db: SqlEngine) -> None:
    """Fresh planner statistics, as a server's autovacuum (PostgreSQL) or a periodic
    ANALYZE (SQLite) keeps them; VACUUM also marks PostgreSQL's pages all-visible, which
    index-only reads need."""
    if db.dialect.name == "postgresql":
        with db.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text("VACUUM ANALYZE"))
        return
    with db.begin() as connection:
        connection.execute(text("ANALYZE"))


@dataclass
class Site:
    """One server under test: its runtime, a web client, the environment its commands
    start with, and fresh games for the moves and the replies."""

    runtime: Any
    client: Any
    env: dict[str, str]
    for_moves: list[tuple[str, list[str | None]]]
    for_replies: list[str]
    used: dict[str, int] = field(default_factory=lambda: {"move": 0, "reply": 0})


def setup(db: SqlEngine, url: str, folder: Path, running: int, fresh: int) -> Site:
    """A server with ``running`` running games: the template, its copies and ``2 *
    fresh`` fresh games (the newest), with fresh planner statistics."""
    from pbem.runtime import build_runtime
    from pbem.web import create_app

    env = settings(folder, url)
    runtime = build_runtime(_overrides(env), db=db)
    # The template's mails go to files; their copies on the console would drown the figures.
    logging.getLogger("pbem.mail.dispatch").setLevel(logging.WARNING)
    app = create_app(runtime=runtime)
    app.config["TESTING"] = True
    template = template_game(runtime)
    copies = running - 1 - 2 * fresh
    if copies < 0:
        raise ValueError(f"{running} running games leave no room for {2 * fresh} fresh ones.")
    copy_running(db, template, copies)
    games = [new_game(runtime, number) for number in range(1, 2 * fresh + 1)]
    _analyze(db)
    return Site(runtime, app.test_client(), env, games[:fresh], [g for g, _ in games[fresh:]])


# What is timed -------------------------------------------------------------------------


def reply(site: Site, game_id: str) -> bytes:
    """A one-line reply from the seat that is due, to the mail of the game's head, that
    names the first move its mail lists."""
    from pbem.mail.inbound import tags

    runtime = site.runtime
    head = runtime.service.head(game_id)
    seat = min(head.engine.to_move(head.state))
    name, _ = PEOPLE[seat]
    with runtime.db.connect() as connection:
        address = connection.execute(
            text("SELECT email FROM seats WHERE game_id = :g AND seat = :s"),
            {"g": game_id, "s": seat},
        ).scalar_one()
    message = EmailMessage()
    message["From"] = f"{name} <{address}>"
    message["To"] = tags.reply_address(runtime.config, SECRET, game_id, seat, head.seq)
    message["Subject"] = "Re: your turn"
    message["Message-ID"] = f"<{uuid.uuid4().hex}@mail.example.org>"
    message.set_content("1\n\nOn Monday, pbem wrote:\n> Your moves.\n")
    return bytes(message)


def run_command(env: dict[str, str], argv: list[str], stdin: bytes = b"") -> None:
    """Runs ``pbem ARGV`` in a process of its own, as the console script would (its CPU
    is read from this process's children's usage). A failure stops the bench."""
    done = subprocess.run(
        [sys.executable, "-c", "import sys; from pbem.cli import main; sys.exit(main())", *argv],
        input=stdin,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        check=False,
    )
    if done.returncode:
        raise RuntimeError(f"pbem {' '.join(argv)} failed: {done.stderr.decode()[-500:]}")


def _child_cpu(action: Callable[[], None]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    action()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def actions(site: Site) -> dict[str, tuple[Callable[[], None], bool]]:
    """Each timed action, and whether it runs in a child process."""
    from pbem import scheduler
    from pbem.games import listing as game_listing

    runtime, client = site.runtime, site.client
    token = site.for_moves[0][1][0]
    command_env = {**os.environ, **site.env, "PYTHONPATH": str(_tree())}

    def listing() -> None:
        with contextlib.redirect_stdout(io.StringIO()):
            print(*game_listing.page_lines(runtime.service, None, None, None, None), sep="\n")

    def move() -> None:  # each run a turn of another game
        site.used["move"] += 1
        game_id, _ = site.for_moves[site.used["move"]]
        seat, chosen, seq = _due_move(runtime, game_id)
        runtime.service.submit_move(game_id, seat, chosen, seq, actor="bench")

    def receive() -> None:  # each run a reply to another game
        game_id = site.for_replies[site.used["reply"]]
        site.used["reply"] += 1
        raw = reply(site, game_id)
        run_command(command_env, ["receive"], raw)
        if runtime.service.head(game_id).seq == 0:
            raise RuntimeError(f"the reply to {game_id} moved nothing")

    return {
        "lobby page": (lambda: _ok(client.get("/")), False),
        "pbem games": (listing, False),
        "turn page": (lambda: _ok(client.get(f"/play/{token}")), False),
        "move": (move, False),
        "sweep": (lambda: scheduler.sweep(runtime), False),
        "/metrics": (lambda: _ok(client.get("/metrics")), False),
        "command start": (lambda: run_command(command_env, ["games", "--limit", "1"]), True),
        "pbem receive": (receive, True),
    }


def _tree() -> Path:
    """The checkout whose ``pbem`` this process runs (the commands run the same)."""
    import pbem

    return Path(pbem.__file__).resolve().parent.parent


def _ok(response: Any) -> None:
    if response.status_code != 200:
        raise RuntimeError(f"{response.request.path} answered {response.status_code}")


def compare(label: str, small: Site, large: Site, sizes: tuple[int, int], runs: int) -> None:
    """Medians of ``runs`` timings of each action on both servers, interleaved (the
    order alternating) so that the machine's load weighs on both alike."""
    small_actions, large_actions = actions(small), actions(large)
    figures = {}
    for name, (_, child) in small_actions.items():
        wall: dict[int, list[float]] = {0: [], 1: []}
        cpu: dict[int, list[float]] = {0: [], 1: []}
        for run in range(runs):
            pair = [(0, small_actions[name][0]), (1, large_actions[name][0])]
            for side, action in pair if run % 2 == 0 else pair[::-1]:
                started, used = time.perf_counter(), time.process_time()
                if child:
                    spent = _child_cpu(action)
                else:
                    action()
                    spent = time.process_time() - used
                wall[side].append((time.perf_counter() - started) * 1000)
                cpu[side].append(spent * 1000)
        figures[name] = [
            statistics.median(values[side]) for values in (wall, cpu) for side in (0, 1)
        ]
    with large.runtime.db.connect() as connection:
        events = connection.execute(text("SELECT count(*) FROM events")).scalar_one()
        mails = connection.execute(text("SELECT count(*) FROM mail_outbox")).scalar_one()
    print(
        f"[{label}] {sizes[0]:,} against {sizes[1]:,} running games ({events:,} events, "
        f"{mails:,} mails); pbem from {_tree()}; median of {runs} interleaved runs, ms:"
    )
    print(
        f"    {'':<14} {'wall':>9} {'':>9} {'':>6}   {'CPU':>9} {'':>9} {'':>6}\n"
        f"    {'':<14} {sizes[0]:>9,} {sizes[1]:>9,} {'ratio':>6}   "
        f"{sizes[0]:>9,} {sizes[1]:>9,} {'ratio':>6}"
    )
    for name, (few, many, few_cpu, many_cpu) in figures.items():
        ratio, cpu_ratio = many / few, many_cpu / few_cpu if few_cpu else float("nan")
        flag = "" if max(ratio, cpu_ratio) <= TARGET else f"  over {TARGET}x"
        print(
            f"    {name:<14} {few:>9.2f} {many:>9.2f} {ratio:>5.2f}x   "
            f"{few_cpu:>9.2f} {many_cpu:>9.2f} {cpu_ratio:>5.2f}x{flag}"
        )


def bench_scale(
    label: str, make_db: Callable[[str], tuple[SqlEngine, str]], runs: int, running: int
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        (small_db, small_url), (large_db, large_url) = make_db("small"), make_db("large")
        try:
            small = setup(small_db, small_url, Path(folder) / "small", SMALL, runs + 1)
            start = time.perf_counter()
            large = setup(large_db, large_url, Path(folder) / "large", running, runs + 1)
            print(
                f"[{label}] {running:,} running games made in {time.perf_counter() - start:.1f} s"
            )
            compare(label, small, large, (SMALL, running), runs)
        finally:
            small_db.dispose()
            large_db.dispose()


def main(
    runs: int = 7,
    postgres_url: str | None = None,
    running: int = LARGE,
    tree: str | None = None,
) -> None:
    from pbem.errors import BadInput

    if not 1 <= runs <= (SMALL - 3) // 2 - 1:
        raise BadInput(f"Between 1 and {(SMALL - 3) // 2 - 1} runs: each move needs a game.")
    if running < SMALL:
        raise BadInput(f"--running is at least {SMALL}, the small server's size.")
    if tree:
        _main_in(Path(tree), runs, postgres_url, running)
        return
    from pbem.db import make_engine

    with tempfile.TemporaryDirectory() as folder:

        def sqlite(name: str) -> tuple[SqlEngine, str]:
            url = f"sqlite:///{folder}/{name}.sqlite3"
            return make_engine(url), url

        bench_scale("SQLite", sqlite, runs, running)
    url = postgres_url or DEFAULT_POSTGRES
    stamp = f"{int(time.time())}_{os.getpid()}"
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

    def postgres(name: str) -> tuple[SqlEngine, str]:
        joiner = "&" if "?" in url else "?"
        scoped = f"{url}{joiner}options=-csearch_path%3Dpbem_scale_{stamp}_{name}"
        return make_engine(scoped), scoped

    try:
        bench_scale("PostgreSQL", postgres, runs, running)
    finally:
        with admin.connect() as connection:
            for schema in schemas:
                connection.exec_driver_sql(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        admin.dispose()


def _main_in(tree: Path, runs: int, postgres_url: str | None, running: int) -> None:
    """This bench, run by a process whose ``pbem`` (and ``engines``) come from ``tree``."""
    if not (tree / "pbem" / "__init__.py").is_file():
        from pbem.errors import BadInput

        raise BadInput(f"{tree} is not a pbem checkout (no pbem/__init__.py).")
    loader = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('scale_bench', {str(Path(__file__))!r})\n"
        "module = importlib.util.module_from_spec(spec)\n"
        "sys.modules['scale_bench'] = module\n"
        "spec.loader.exec_module(module)\n"
        f"module.main(runs={runs}, postgres_url={postgres_url!r}, running={running})\n"
    )
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run([sys.executable, "-c", loader], env=env, check=True, cwd=tree)
