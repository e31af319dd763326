"""Table talk by mail: ``say:``, ``to NAME:`` and plain text in replies, through
``pbem receive`` and the LMTP listener; a talk mail's reply address talks back; a
stranger, a mistyped move and an unknown name post nothing."""

from __future__ import annotations

import io
import sys
import uuid
from email.message import EmailMessage

import pytest
from sqlmodel import Session, select

from pbem.cli import main
from pbem.games.service import SeatSpec
from pbem.mail.inbound import tags
from pbem.mail.models import InboundMessage, Mail
from pbem.models import Event
from pbem.runtime import build_runtime
from tests.mail.conftest import as_sent
from tests.mail.inbound_helpers import reply_env, send_lmtp, start_lmtp

GAME = "talkmail01"


@pytest.fixture
def world(tmp_path, monkeypatch):
    """Configuration in the environment (so `pbem receive` builds the same runtime)."""
    reply_env(monkeypatch, tmp_path, "talk-key")
    runtime = build_runtime()
    specs = [
        SeatSpec("Anna", "anna@example.org"),
        SeatSpec("Ben", "ben@example.org"),
        SeatSpec("Cleo", "cleo@example.org"),
    ]
    runtime.service.create_game("pig", specs, {"target": 30}, game_id=GAME)
    return runtime


def address(runtime, seat: int, seq: int = 0) -> str:
    return tags.reply_address(runtime.config, runtime.secret_key, GAME, seat, seq)


def reply(to: str, body: str, sender: str) -> bytes:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = "Re: Pig: your turn"
    message["Message-ID"] = f"<{uuid.uuid4().hex}@example.org>"
    message.set_content(
        body
        + "\n\nOn Mon, 2 Mar 2026 at 09:00, pbem <games@pbem.test> wrote:\n> Hello\n> 1  Roll\n"
    )
    return bytes(message)


def through_receive(monkeypatch, raw: bytes, recipient: str) -> int:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    return main(["receive", recipient])


def talk_events(runtime) -> list[Event]:
    with Session(runtime.db) as session:
        return list(session.exec(select(Event).where(Event.kind == "talk").order_by(Event.seq)))


def mails(runtime, kind: str) -> list[Mail]:
    with Session(runtime.db) as session:
        return list(session.exec(select(Mail).where(Mail.kind == kind).order_by(Mail.id)))


def outcomes(runtime) -> list[str]:
    with Session(runtime.db) as session:
        return [row.outcome for row in session.exec(select(InboundMessage))]


def test_talk_by_mail_through_pbem_receive_and_lmtp(world, monkeypatch):
    runtime = world
    controller, port = start_lmtp(runtime)
    try:
        # Anna, whose turn it is, writes to the table over LMTP (two paragraphs).
        raw = reply(
            address(runtime, 0), "say: Hello all!\n\nMay the dice be kind.", "anna@example.org"
        )
        assert send_lmtp(port, raw, address(runtime, 0)) == {}
        # Ben, not due, answers Anna privately through `pbem receive`.
        raw = reply(address(runtime, 1), "to anna: grain for coin?", "ben@example.org")
        assert through_receive(monkeypatch, raw, address(runtime, 1)) == 0
        # Cleo writes plain text that names no move: it goes to the table.
        raw = reply(address(runtime, 2), "Nice weather for sailing.", "cleo@example.org")
        assert through_receive(monkeypatch, raw, address(runtime, 2)) == 0
    finally:
        controller.stop()
    said = talk_events(runtime)
    assert [(event.seat, event.payload["to"], event.actor) for event in said] == [
        (0, None, "mail"),
        (1, 0, "mail"),
        (2, None, "mail"),
    ]
    assert said[0].payload["text"] == "Hello all!\n\nMay the dice be kind."
    assert said[1].payload["sealed"]["text"] == "grain for coin?"
    assert said[2].payload["text"] == "Nice weather for sailing."
    assert outcomes(runtime) == ["talk", "talk", "talk"]
    # Each talker is answered; the talk mails reach the audience only.
    answers = mails(runtime, "answer")
    assert [(mail.recipient, mail.subject) for mail in answers] == [
        ("anna@example.org", "Pig (test fixture): your message went to the table"),
        ("ben@example.org", "Pig (test fixture): your message went to Anna alone"),
        ("cleo@example.org", "Pig (test fixture): your message went to the table"),
    ]
    heard = [(mail.recipient, mail.subject) for mail in mails(runtime, "talk")]
    assert heard == [
        ("ben@example.org", "Pig (test fixture): Anna said to the table"),
        ("cleo@example.org", "Pig (test fixture): Anna said to the table"),
        ("anna@example.org", "Pig (test fixture): Ben wrote to you privately"),
        ("anna@example.org", "Pig (test fixture): Cleo said to the table"),
        ("ben@example.org", "Pig (test fixture): Cleo said to the table"),
    ]
    everything_cleo_got = "".join(
        mail.body_text + mail.body_html
        for mail in mails(runtime, "talk") + as_sent(runtime, mails(runtime, "answer"))
        if mail.recipient == "cleo@example.org"
    )
    assert "grain for coin" not in everything_cleo_got


def test_replying_to_a_talk_mail_talks_back(world, monkeypatch):
    runtime = world
    raw = reply(address(runtime, 1), "say: Who wants a deal?", "ben@example.org")
    assert through_receive(monkeypatch, raw, address(runtime, 1)) == 0
    to_anna = next(mail for mail in mails(runtime, "talk") if mail.seat == 0)
    reply_to = tags.for_mail(runtime, to_anna)
    assert tags.read_tag(runtime.config, runtime.secret_key, reply_to).seat == 0
    raw = reply(reply_to, "to Ben: me, if you give up a roll", "anna@example.org")
    assert through_receive(monkeypatch, raw, reply_to) == 0
    said = talk_events(runtime)
    assert [(event.seat, event.payload["to"]) for event in said] == [(1, None), (0, 1)]


def test_a_stranger_a_mistyped_move_and_an_unknown_name_post_nothing(world, monkeypatch):
    runtime = world
    head = runtime.service.head(GAME).seq
    cases = [
        (address(runtime, 0), "say: I am Anna, honestly", "eve@example.org"),
        (address(runtime, 1), "say: Ben's address, Cleo's mail", "cleo@example.org"),
        (address(runtime, 0), "Rol the dice", "anna@example.org"),  # Anna's turn: a typo
        (address(runtime, 1), "to Zed: hello", "ben@example.org"),
        (address(runtime, 1), "say: \x07", "ben@example.org"),
    ]
    for recipient, body, sender in cases:
        assert through_receive(monkeypatch, reply(recipient, body, sender), recipient) == 0
    assert outcomes(runtime) == [
        "refused_sender",
        "refused_sender",
        "refused",
        "refused",
        "refused",
    ]
    assert talk_events(runtime) == [] and runtime.service.head(GAME).seq == head
    texts = [
        (mail.recipient, mail.body_text) for mail in as_sent(runtime, mails(runtime, "answer"))
    ]
    assert 'start your reply with "say:"' in texts[0][1] and texts[0][0] == "anna@example.org"
    assert "no player called 'Zed'" in texts[1][1]
    # Ben's second refusal at the same position of the game, the same day: recorded,
    # not answered (refusal answers go once a day per person and position).
    assert len(texts) == 2
    with Session(runtime.db) as session:
        details = [row.detail for row in session.exec(select(InboundMessage))]
    assert "control characters" in details[4] and "not answered" in details[4]
    assert mails(runtime, "talk") == []
