"""The world of the inbound-mail attack tests (``test_inmail_*``): a runtime that takes
replies (``play@pbem.test``, the sender ``games@pbem.test``), a game of Mare Balticum
with Anna to move, Ben waiting and a bot, and what the tests count: the outbox, the
events and the inbound record."""

from __future__ import annotations

import io
import sys
import uuid
from email.message import EmailMessage
from pathlib import Path

from sqlmodel import Session, select

from pbem.cli import main
from pbem.games.service import SeatSpec
from pbem.mail.inbound import tags
from pbem.mail.models import InboundMessage, Mail
from pbem.models import Event
from tests.mail.inbound_helpers import reply_runtime

GAME = "inmail0001"
TITLE = "Friday at Anna's"  # the game's title, as its creator chose it
CORPUS = Path(__file__).resolve().parents[1] / "mail" / "inbound_corpus"
SENDER_ADDRESS = "games@pbem.test"


def make_world(db, tmp_path, clock):
    """The runtime, with the game made (Anna, seat 0, to move)."""
    runtime = reply_runtime(db, tmp_path, clock, None)
    _new_game(runtime)
    return runtime


def _new_game(runtime) -> None:
    specs = [
        SeatSpec("Anna", "anna@example.org"),
        SeatSpec("Ben", "ben@example.org"),
        SeatSpec("Bot", is_bot=True),
    ]
    runtime.service.create_game(
        "mare_balticum", specs, seed=b"inmail" * 6, game_id=GAME, title=TITLE
    )


def address(runtime, seat: int = 0, seq: int = 0, game: str = GAME) -> str:
    """A seat's reply address, as its mail made at event ``seq`` carries it."""
    return tags.reply_address(runtime.config, runtime.secret_key, game, seat, seq)


def mail(
    to: str,
    body: str,
    sender: str = "anna@example.org",
    subject: str = "Re: Mare Balticum: your turn",
    message_id: str = "",
    **headers: str,
) -> bytes:
    """A plain mail, as a person's mail program writes it."""
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    message["Message-ID"] = message_id or f"<{uuid.uuid4().hex}@example.org>"
    for name, value in headers.items():
        message[name.replace("_", "-")] = value
    message.set_content(body + "\n")
    return bytes(message)


def corpus(name: str, runtime=None, seat: int = 1) -> bytes:
    """A corpus sample, ``{{reply_to}}`` standing for the seat's reply address."""
    raw = (CORPUS / f"{name}.eml").read_bytes()
    if runtime is not None:
        raw = raw.replace(b"{{reply_to}}", address(runtime, seat).encode())
    return raw


def outbox(runtime, kind: str | None = None) -> list[Mail]:
    with Session(runtime.db) as session:
        query = select(Mail).order_by(Mail.id)
        if kind is not None:
            query = query.where(Mail.kind == kind)
        return list(session.exec(query))


def events(runtime) -> list[Event]:
    with Session(runtime.db) as session:
        return list(session.exec(select(Event).where(Event.game_id == GAME).order_by(Event.seq)))


def records(runtime) -> list[InboundMessage]:
    with Session(runtime.db) as session:
        return list(session.exec(select(InboundMessage)))


def receive_command(monkeypatch, raw: bytes, *args: str) -> int:
    """``pbem receive ARGS`` with ``raw`` on its standard input; its exit status."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    return main(["receive", *args])


def make_cli_world(monkeypatch, tmp_path):
    """The world in a SQLite file named by the environment, so that ``pbem receive``
    (:func:`receive_command`) builds the same runtime as the test."""
    from pbem.runtime import build_runtime
    from tests.mail.inbound_helpers import reply_env

    reply_env(monkeypatch, tmp_path, "inmail-key")
    runtime = build_runtime()
    _new_game(runtime)
    return runtime
