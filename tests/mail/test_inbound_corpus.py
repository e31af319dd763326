"""A corpus of real-looking mail (``inbound_corpus/``): replies in the styles of Gmail,
Outlook, Apple Mail, Thunderbird and mutt (top-posted and inline, plain and HTML-only,
with signatures and the quoted turn mail), auto-replies, our own mail come back, and an
RFC 3464 delivery report. Each goes through ``pbem receive`` (the command, stdin and
exit status) and through the LMTP listener driven by ``smtplib.LMTP``, with the
expected outcome: the move it makes, the refusal it gets, or nothing at all.

The game: Mare Balticum, Anna (seat 0) to place her first ship; ``{{reply_to}}`` in a
file stands for the Reply-To her invitation carries.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from sqlmodel import Session, select

from pbem.cli import main
from pbem.games.service import SeatSpec
from pbem.mail.dispatch import dispatch
from pbem.mail.inbound import bounces, lmtp, tags
from pbem.mail.models import InboundMessage, Mail, MailAddress
from pbem.models import Event
from pbem.runtime import build_runtime
from tests.mail.conftest import as_sent, free_port
from tests.mail.inbound_helpers import reply_env, send_lmtp

CORPUS = Path(__file__).parent / "inbound_corpus"
GAME = "corpus0001"
ROOT = Path(__file__).resolve().parents[2]

# file -> (outcome recorded, the move made (its label) or None, answered by mail)
CASES = {
    "gmail_top_posted": ("applied", "Start in Stockholm", True),
    "gmail_html_only": ("applied", "Start in Riga", True),
    "gmail_android_russian": ("applied", "Start in Stockholm", True),
    "outlook_top_posted": ("applied", "Start in Gdańsk", True),
    "outlook_html_only": ("applied", "Start in Sankt Peterburg (St Petersburg)", True),
    "apple_mail_signature": ("applied", "Start in København (Copenhagen)", True),
    "thunderbird_inline": ("applied", "Start in Stockholm", True),
    "mutt_inline_json": ("applied", "Start in Riga", True),
    "not_a_move": ("refused", None, True),
    "code_out_of_range": ("refused", None, True),
    "vacation_auto_submitted": ("auto_reply", None, False),
    "outlook_out_of_office": ("auto_reply", None, False),
    "x_autoreply": ("auto_reply", None, False),
    "precedence_bulk": ("auto_reply", None, False),
    "loop_our_own_mail": ("loop", None, False),
    "bounce_rfc3464": ("bounce", None, False),
}


@pytest.fixture
def world(tmp_path, monkeypatch):
    """Configuration in the environment (so `pbem receive` builds the same runtime),
    a database, and the game with Anna to move."""
    env = reply_env(monkeypatch, tmp_path, "corpus-key")
    runtime = build_runtime()
    specs = [
        SeatSpec("Anna", "anna@example.org"),
        SeatSpec("Ben", "ben@example.org"),
        SeatSpec("Bot", is_bot=True),
    ]
    runtime.service.create_game("mare_balticum", specs, seed=b"corpus" * 6, game_id=GAME)
    return runtime, env


def _raw(runtime, name: str) -> tuple[bytes, str]:
    address = tags.reply_address(runtime.config, runtime.secret_key, GAME, 0, 0)
    raw = (CORPUS / f"{name}.eml").read_bytes().replace(b"{{reply_to}}", address.encode())
    recipient = bounce_address(runtime) if name.startswith("bounce") else address
    return raw, recipient


def bounce_address(runtime) -> str:
    """The bounce address (VERP) Ben's invitation went out from: reports come back to it."""
    with Session(runtime.db) as session:
        invitation = session.exec(select(Mail).where(Mail.recipient == "ben@example.org")).one()
    return bounces.envelope_sender(runtime.config, runtime.secret_key, invitation)


def _check(runtime, name: str) -> None:
    outcome, label, answered = CASES[name]
    with Session(runtime.db) as session:
        records = session.exec(select(InboundMessage)).all()
        moves = session.exec(select(Event).where(Event.game_id == GAME, Event.kind == "move")).all()
        answers = session.exec(select(Mail).where(Mail.kind == "answer")).all()
        bouncing = session.get(MailAddress, "ben@example.org")
    assert [record.outcome for record in records] == [outcome]
    if label is None:
        assert moves == []
    else:
        assert [(move.seat, move.actor) for move in moves] == [(0, "mail")]
        engine = runtime.service.head(GAME).engine
        assert engine.move_label(moves[0].payload["move"]) == label
    assert len(answers) == (1 if answered else 0)
    if answered and label is not None:
        # One move, nothing more: the quote's attribution line is not read as a second.
        text = as_sent(runtime, answers)[0].body_text
        assert "no longer your turn" not in text and "Nothing was applied" not in text
    if answered and label is None:
        # A refusal says why and lists the moves again.
        text = as_sent(runtime, answers)[0].body_text
        assert "Nothing was applied" in text and "Start in Riga" in text
    if name.startswith("bounce"):
        assert bouncing is not None and bouncing.bouncing_since is not None
        assert "5.1.1" in bouncing.bounce_detail
        dispatch(runtime)
        with Session(runtime.db) as session:
            to_ben = session.exec(select(Mail).where(Mail.recipient == "ben@example.org")).all()
        assert to_ben and {mail.status for mail in to_ben} == {"bouncing"}
    else:
        assert bouncing is None


@pytest.mark.parametrize("name", sorted(CASES))
def test_corpus_through_pbem_receive(world, monkeypatch, capsys, name):
    runtime, _ = world
    raw, recipient = _raw(runtime, name)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    assert main(["receive", recipient]) == 0
    _check(runtime, name)


@pytest.mark.parametrize("name", sorted(CASES))
def test_corpus_through_lmtp(world, name):
    runtime, _ = world
    raw, recipient = _raw(runtime, name)
    port = free_port()
    listener = lmtp.start(runtime, f"127.0.0.1:{port}")
    try:
        sender = "" if name.startswith("bounce") else "anna@example.org"
        assert send_lmtp(port, raw, recipient, sender) == {}
    finally:
        listener.stop()
    _check(runtime, name)


def test_the_command_itself_and_its_exit_statuses(world, tmp_path):
    """`pbem receive` as an MTA runs it: a reply is taken (0); a forged tag is "no
    such address" (67); a database that cannot be reached is "try again later" (75)."""
    runtime, env = world
    raw, recipient = _raw(runtime, "gmail_top_posted")
    command = [sys.executable, "-m", "pbem.cli", "receive"]

    def run(*args, extra=None):
        return subprocess.run(
            [*command, *args],
            input=raw,
            capture_output=True,
            cwd=ROOT,
            env={**env, "PATH": "/usr/bin:/bin", **(extra or {})},
            timeout=120,
        )

    forged = recipient.replace(recipient.split(".")[3][:4], "aaaa")
    assert run(forged).returncode == 67
    broken = {"PBEM_DATABASE_URL": "postgresql+psycopg://nobody@127.0.0.1:9/none"}
    assert run(recipient, extra=broken).returncode == 75
    with Session(runtime.db) as session:
        assert session.exec(select(Event).where(Event.kind == "move")).all() == []
    assert run(recipient).returncode == 0
    with Session(runtime.db) as session:
        assert len(session.exec(select(Event).where(Event.kind == "move")).all()) == 1
