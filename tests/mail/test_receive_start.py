"""``pbem receive`` starts once per message, so it loads only what a message needs.

The command takes a reply that plays a move, in a process of its own as an MTA's pipe
runs it, and lists the modules it loaded as it exits: no web application (Flask,
Werkzeug, ``pbem.web``), no templates (the answer is rendered by the dispatcher), no
migrations (Alembic, Mako), no scheduler, no web server, no browser, no SMTP server, no
address validation of the lobby's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import engines
from pbem.games.service import SeatSpec
from pbem.mail.inbound import tags
from pbem.runtime import build_runtime
from tests.mail.inbound_helpers import reply_env

ROOT = Path(__file__).resolve().parents[2]
HEAVY = (
    "flask",
    "werkzeug",
    "jinja2",
    "alembic",
    "mako",
    "apscheduler",
    "gunicorn",
    "playwright",
    "aiosmtpd",
    "email_validator",
    "pbem.web",
    "pbem.migrations",
    "pbem.scheduler",
    "pbem.demo",
)
RECEIVE = (
    "import atexit, sys\n"
    "atexit.register(lambda: print(' '.join(sorted(sys.modules))))\n"
    "from pbem.cli import main\n"
    "sys.exit(main(['receive']))\n"
)


def test_pbem_receive_plays_a_move_without_loading_what_it_does_not_need(monkeypatch, tmp_path):
    env = reply_env(monkeypatch, tmp_path, "start-key")
    runtime = build_runtime()
    people = [SeatSpec("Anna", "anna@example.org"), SeatSpec("Ben", "ben@example.org")]
    created = runtime.service.create_game("mercatores", people)
    head = runtime.service.head(created.game_id)
    seat = min(head.engine.to_move(head.state))
    move = head.engine.legal_moves(head.state, seat)[0]
    to = tags.reply_address(runtime.config, runtime.secret_key, created.game_id, seat, head.seq)
    raw = (
        f"From: {people[seat].name} <{people[seat].email}>\nTo: {to}\n"
        "Subject: Re: your turn\nMessage-ID: <start@mail.example.org>\n\n"
        f"{json.dumps(move)}\n"
    ).encode()
    done = subprocess.run(
        [sys.executable, "-c", RECEIVE],
        input=raw,
        capture_output=True,
        env={**os.environ, **env, "PYTHONPATH": str(ROOT)},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr.decode()
    moves = [row for row in runtime.service.events(created.game_id) if row["kind"] == "move"]
    assert [(row["seat"], row["actor"]) for row in moves] == [(seat, "mail")]
    loaded = set(done.stdout.decode().split())
    assert "pbem.mail.inbound.receive" in loaded and "sqlalchemy" in loaded
    heavy = sorted(
        name for name in loaded if any(name == top or name.startswith(f"{top}.") for top in HEAVY)
    )
    assert heavy == []
    # Only the title of the game the reply is about is imported.
    titles = {
        name.split(".")[1]
        for name in loaded
        if name.count(".") >= 1 and name.startswith("engines.")
    }
    shared = {path.stem for path in (Path(engines.__file__).parent).glob("*.py")}
    assert "notation" in shared and "mercatores" not in shared
    assert titles - shared == {"mercatores"}
