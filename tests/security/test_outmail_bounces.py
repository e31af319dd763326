"""Forged bounces: a delivery report counts only when it reaches the bounce address (VERP)
of the mail it is about and names that mail's recipient; anything else is recorded and
changes nothing."""

from __future__ import annotations

import uuid

import pytest
from sqlmodel import Session, select

from pbem.mail import outbox
from pbem.mail.dispatch import dispatch
from pbem.mail.inbound import bounces, lmtp, receive
from pbem.mail.models import InboundMessage, Mail, MailAddress
from tests.mail.conftest import free_port, new_game, take_turn
from tests.mail.inbound_helpers import REPLY, reply_runtime, send_lmtp


def report(failed: str, to: str) -> bytes:
    """A delivery status report (RFC 3464) saying that mail to ``failed`` failed."""
    boundary = "report-boundary"
    return (
        f"From: Mail Delivery System <MAILER-DAEMON@mx.example.org>\r\n"
        f"To: {to}\r\n"
        f"Subject: Undelivered Mail Returned to Sender\r\n"
        f"Message-ID: <{uuid.uuid4().hex}@mx.example.org>\r\n"
        f"Auto-Submitted: auto-replied\r\n"
        f"MIME-Version: 1.0\r\n"
        f'Content-Type: multipart/report; report-type=delivery-status; boundary="{boundary}"\r\n'
        f"\r\n--{boundary}\r\nContent-Type: text/plain\r\n\r\nYour mail could not be delivered.\r\n"
        f"\r\n--{boundary}\r\nContent-Type: message/delivery-status\r\n\r\n"
        f"Reporting-MTA: dns; mx.example.org\r\n\r\n"
        f"Final-Recipient: rfc822; {failed}\r\nAction: failed\r\nStatus: 5.1.1\r\n"
        f"Diagnostic-Code: smtp; 550 5.1.1 User unknown\r\n"
        f"\r\n--{boundary}--\r\n"
    ).encode()


@pytest.fixture
def world(db, tmp_path, clock, smtp):
    mailbox, port = smtp
    runtime = reply_runtime(db, tmp_path, clock, port)
    game = new_game(runtime)
    dispatch(runtime)
    return runtime, game, mailbox


def row_to(runtime, address: str) -> Mail:
    with Session(runtime.db) as session:
        return session.exec(
            select(Mail).where(Mail.recipient == address).order_by(Mail.id)  # type: ignore[arg-type]
        ).first()


def bounce_address(runtime, address: str) -> str:
    return bounces.envelope_sender(runtime.config, outbox.secret(runtime), row_to(runtime, address))


def test_each_mail_goes_out_from_its_own_bounce_address(world):
    runtime, _, mailbox = world
    senders = {rcpts[0]: mail_from for mail_from, rcpts in mailbox.envelopes}
    ben = row_to(runtime, "ben@example.org")
    assert senders["ben@example.org"] == bounce_address(runtime, "ben@example.org")
    assert senders["ben@example.org"].startswith(f"games+b-{ben.id}.")
    assert senders["ben@example.org"].endswith("@pbem.test")
    assert len(set(senders.values())) == 3  # one per mail
    # The From the player sees stays the server's.
    assert all(m["From"] == "pbem <games@pbem.test>" for m in mailbox.messages)


def forged_cases(runtime) -> dict[str, tuple[str, str]]:
    """(recipient of the report, address it names) for each forgery."""
    ben = bounce_address(runtime, "ben@example.org")
    anna = bounce_address(runtime, "anna@example.org")
    wrong_mac = ben[: ben.index(".") + 1] + "a" * 16 + "@pbem.test"
    local, _, domain = ben.rpartition("@")
    mail_id = int(local.split("-")[1].split(".")[0])
    return {
        "no tag (the sender's own address)": ("games@pbem.test", "ben@example.org"),
        "the reply address": (REPLY, "ben@example.org"),
        "a wrong tag": (wrong_mac, "ben@example.org"),
        "a tag of no row": (f"games+b-{mail_id + 999}.{'a' * 16}@pbem.test", "ben@example.org"),
        "the tag of another row": (anna, "ben@example.org"),
        "a report naming another address": (ben, "cleo@example.org"),
    }


@pytest.mark.parametrize(
    "case",
    [
        "no tag (the sender's own address)",
        "the reply address",
        "a wrong tag",
        "a tag of no row",
        "the tag of another row",
        "a report naming another address",
    ],
)
def test_a_forged_bounce_is_recorded_and_ignored(world, case):
    runtime, game, mailbox = world
    to, named = forged_cases(runtime)[case]
    taken = receive.take(runtime, report(named, to), [to], "")
    assert (taken.status, taken.outcome) == (0, "bounce_ignored"), taken
    with Session(runtime.db) as session:
        assert session.exec(select(MailAddress)).all() == []
        recorded = session.exec(select(InboundMessage)).all()
    assert [row.outcome for row in recorded] == ["bounce_ignored"]
    assert recorded[0].detail
    # Mail to Ben still goes out.
    take_turn(runtime, game.game_id)
    runtime.clock.advance(hours=1)
    dispatch(runtime)
    assert len(mailbox.to("ben@example.org")) == 2


def test_a_genuine_bounce_marks_the_address(world):
    runtime, game, mailbox = world
    to = bounce_address(runtime, "ben@example.org")
    taken = receive.take(runtime, report("Ben@Example.org", to), [to], "")
    assert (taken.status, taken.outcome, taken.detail) == (0, "bounce", "ben@example.org")
    with Session(runtime.db) as session:
        marked = session.get(MailAddress, "ben@example.org")
    assert marked is not None and marked.bouncing_since is not None
    assert "5.1.1" in marked.bounce_detail
    take_turn(runtime, game.game_id)
    runtime.clock.advance(hours=1)
    dispatch(runtime)
    assert len(mailbox.to("ben@example.org")) == 1  # the turn mail is held
    with Session(runtime.db) as session:
        held = session.exec(
            select(Mail).where(Mail.recipient == "ben@example.org", Mail.status == "bouncing")
        ).all()
    assert len(held) == 1


def test_lmtp_takes_bounce_addresses_and_checks_them_after_data(world):
    runtime, _, _ = world
    genuine = bounce_address(runtime, "ben@example.org")
    forged = genuine[: genuine.index(".") + 1] + "b" * 16 + "@pbem.test"
    port = free_port()
    listener = lmtp.start(runtime, f"127.0.0.1:{port}")
    try:
        assert send_lmtp(port, report("ben@example.org", forged), forged, "") == {}
        with Session(runtime.db) as session:
            assert session.get(MailAddress, "ben@example.org") is None
        assert send_lmtp(port, report("ben@example.org", genuine), genuine, "") == {}
    finally:
        listener.stop()
    with Session(runtime.db) as session:
        outcomes = sorted(row.outcome for row in session.exec(select(InboundMessage)))
        assert session.get(MailAddress, "ben@example.org").bouncing_since is not None
    assert outcomes == ["bounce", "bounce_ignored"]


def test_a_message_that_is_no_report_at_a_bounce_address_changes_nothing(world):
    runtime, _, _ = world
    to = bounce_address(runtime, "ben@example.org")
    raw = (
        b"From: ben@example.org\r\nTo: " + to.encode() + b"\r\nSubject: Out of office\r\n"
        b"Message-ID: <away@example.org>\r\n\r\nI am away.\r\n"
    )
    taken = receive.take(runtime, raw, [to], "ben@example.org")
    assert (taken.status, taken.outcome) == (0, "bounce_ignored")
    with Session(runtime.db) as session:
        assert session.get(MailAddress, "ben@example.org") is None
