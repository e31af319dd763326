"""Replies by mail that must change nothing: a forged tag, a reply from another
address, a replayed message, a reply to a turn that is over, and a reply to a seat
since given to someone else. Each is refused (or not even taken), no event is
appended, and nothing of the game is told to a stranger. On SQLite and PostgreSQL."""

from __future__ import annotations

import smtplib
import uuid
from email.message import EmailMessage

import pytest
from sqlmodel import Session, select

from pbem.games import invitations
from pbem.games.service import SeatSpec
from pbem.mail.inbound import receive, tags
from pbem.mail.models import InboundMessage, Mail
from pbem.models import Event
from tests.mail.conftest import as_sent
from tests.mail.inbound_helpers import reply_runtime, send_lmtp, start_lmtp

GAME = "secure0001"


@pytest.fixture
def runtime(db, tmp_path, clock):
    runtime = reply_runtime(db, tmp_path, clock, None)
    specs = [
        SeatSpec("Anna", "anna@example.org"),
        SeatSpec("Ben", "ben@example.org"),
        SeatSpec("Bot", is_bot=True),
    ]
    runtime.service.create_game("mare_balticum", specs, seed=b"secure" * 6, game_id=GAME)
    return runtime


def reply(to: str, body: str, sender: str = "anna@example.org", message_id: str = "") -> bytes:
    message = EmailMessage()
    message["From"] = sender
    message["To"] = to
    message["Subject"] = "Re: Mare Balticum: your turn"
    message["Message-ID"] = message_id or f"<{uuid.uuid4().hex}@example.org>"
    message.set_content(body + "\n")
    return bytes(message)


def anna_address(runtime, seq: int = 0, seat: int = 0) -> str:
    return tags.reply_address(runtime.config, runtime.secret_key, GAME, seat, seq)


def moves(runtime) -> list[Event]:
    with Session(runtime.db) as session:
        return list(session.exec(select(Event).where(Event.kind == "move")))


def answers(runtime, kind: str = "answer") -> list[Mail]:
    with Session(runtime.db) as session:
        return list(session.exec(select(Mail).where(Mail.kind == kind)))


def test_a_forged_tag_is_no_such_address(runtime):
    good = anna_address(runtime)
    local, domain = good.split("@")
    game, seat, seq, mac = local.split("+")[1].split(".")
    other_key = tags.reply_address(runtime.config, "another-key", GAME, 0, 0)
    forged = [
        f"play+{game}.{seat}.{seq}.{'a' * 16}@{domain}",  # a made-up MAC
        other_key,  # a MAC under another server's key
        f"play+{game}.1.{seq}.{mac}@{domain}",  # Anna's MAC on Ben's seat
        f"play+{game}.{seat}.{int(seq) + 1}.{mac}@{domain}",  # on another turn
        f"play+{game}@{domain}",
    ]
    for address in forged:
        taken = receive.take(runtime, reply(address, "2"), [address])
        assert (taken.status, taken.outcome) == (67, "bad_tag"), address
    listener, port = start_lmtp(runtime)
    try:
        with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
            send_lmtp(port, reply(forged[0], "2"), forged[0])
        assert refused.value.recipients[forged[0]][0] == 550
    finally:
        listener.stop()
    assert moves(runtime) == [] and answers(runtime) == []
    with Session(runtime.db) as session:
        assert session.exec(select(InboundMessage)).all() == []


@pytest.mark.parametrize(
    "sender",
    ["ben@example.org", "mallory@example.net", '"anna@example.org" <mallory@example.net>'],
)
def test_a_reply_from_another_address_is_refused(runtime, sender):
    taken = receive.take(runtime, reply(anna_address(runtime), "2", sender=sender))
    assert (taken.status, taken.outcome) == (0, "refused_sender")
    assert moves(runtime) == [] and answers(runtime) == []
    (told,) = answers(runtime, "answer_stranger")
    assert told.recipient != "anna@example.org"
    # The stranger learns nothing of the game: no moves, no history, no link.
    assert "Start in" not in told.body_text and "/play/" not in told.body_text


def test_a_replayed_message_applies_once(runtime):
    raw = reply(anna_address(runtime), "2", message_id="<once@example.org>")
    assert receive.take(runtime, raw).outcome == "applied"
    again = receive.take(runtime, raw)
    assert (again.status, again.outcome) == (0, "duplicate")
    assert len(moves(runtime)) == 1 and len(answers(runtime)) == 1
    # The same words in a new message, to the mail of a turn that is over: refused
    # with the current state, nothing applied.
    late = receive.take(runtime, reply(anna_address(runtime), "3"))
    assert late.outcome == "older_turn"
    assert len(moves(runtime)) == 1
    newest = as_sent(runtime, answers(runtime))[-1]
    assert "that turn is over" in newest.body_text and "It is not your turn" not in newest.body_text


def test_a_reply_to_a_seat_since_replaced_is_refused(runtime):
    outcome = invitations.invite_replacement(runtime, GAME, 0, "Zoe", "zoe@example.org")
    invitations.take_seat(runtime, outcome.token)
    # Anna's reply to her own turn mail: she no longer holds the seat.
    taken = receive.take(runtime, reply(anna_address(runtime), "2"))
    assert taken.outcome == "refused_sender"
    # Zoe answering Anna's old mail: that mail was for a turn before the seat changed.
    taken = receive.take(runtime, reply(anna_address(runtime), "2", sender="zoe@example.org"))
    assert taken.outcome == "older_turn"
    assert moves(runtime) == []
    # Zoe's own mail (made after she took the seat) is answered normally.
    head = runtime.service.head(GAME).seq
    taken = receive.take(runtime, reply(anna_address(runtime, head), "2", sender="zoe@example.org"))
    assert taken.outcome == "applied" and len(moves(runtime)) == 1


def test_not_your_turn_and_several_lines(runtime):
    """Ben's reply while Anna is to move is refused; Anna's reply of several lines
    applies them in order and stops at the first refusal."""
    ben = tags.reply_address(runtime.config, runtime.secret_key, GAME, 1, 0)
    taken = receive.take(runtime, reply(ben, "1", sender="ben@example.org"))
    assert taken.outcome == "refused" and "not your turn" in taken.detail
    taken = receive.take(runtime, reply(anna_address(runtime), "Start in Riga\nEnd the turn"))
    assert taken.outcome == "partly" and taken.applied == ["Start in Riga"]
    assert "no longer your turn" in taken.detail
    assert len(moves(runtime)) == 1


def test_a_message_over_a_megabyte_is_ignored(runtime):
    """Over 1 MB: `pbem receive` takes it and drops it (no move, no answer); the LMTP
    listener refuses it (552: at MAIL FROM when the client declares its SIZE, else at
    DATA) without keeping it."""
    address = anna_address(runtime)
    big = reply(address, "2\n\n" + ("padding " * 20 + "\n") * 7000)
    assert len(big) > 1024 * 1024
    taken = receive.take(runtime, big, [address])
    assert (taken.status, taken.outcome) == (0, "too_big")
    listener, port = start_lmtp(runtime)
    try:
        with pytest.raises((smtplib.SMTPSenderRefused, smtplib.SMTPDataError)) as refused:
            send_lmtp(port, big, address)
        assert refused.value.smtp_code == 552
    finally:
        listener.stop()
    assert moves(runtime) == [] and answers(runtime) == []


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\x00\xff\xfe garbage \r\n\r\n\x80",
        b"From: anna@example.org\r\nContent-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\n",
        b'From: =?utf-8?q?broken\r\nSubject: =?x?y?z?=\r\nMessage-ID: <\r\n\r\n{"type": 1}\r\n',
        b"From: anna@example.org\r\nContent-Type: multipart/report; report-type=delivery-status;"
        b" boundary=b\r\n\r\n--b\r\nContent-Type: message/delivery-status\r\n\r\n\r\n--b--\r\n",
    ],
)
def test_malformed_mail_is_answered_without_a_traceback(runtime, raw):
    taken = receive.take(runtime, raw, [anna_address(runtime)])
    assert taken.status in (0, 67)
    assert moves(runtime) == []


def test_without_a_reply_address_mail_has_no_reply_to_and_nothing_is_taken(
    sqlite_db, tmp_path, clock
):
    from pbem.mail.dispatch import build_message
    from tests.mail.conftest import make_runtime

    runtime = make_runtime(sqlite_db, tmp_path, clock)
    specs = [SeatSpec("Anna", "anna@example.org"), SeatSpec("Ben", "ben@example.org")]
    runtime.service.create_game("mercatores", specs, seed=b"off" * 11, game_id="off0000001")
    with Session(runtime.db) as session:
        invitation = session.exec(select(Mail).where(Mail.recipient == "anna@example.org")).one()
    message = build_message(runtime, invitation)
    assert message["Reply-To"] is None
    assert "Your moves." not in message.get_body(preferencelist=("plain",)).get_content()
    address = "play+off0000001.0.0.aaaaaaaaaaaaaaaa@pbem.test"
    assert receive.take(runtime, reply(address, "1"), [address]).status == 67
