"""The null sender is no person: mail from ``MAIL FROM:<>`` (which Postfix's pipe hands
over as ``--sender=MAILER-DAEMON``) is never table talk, never a move and never
answered, whichever road it comes by. Before, an out-of-office sent from the null
sender to a player's reply address went to the whole table as talk."""

from __future__ import annotations

import pytest

from pbem.mail.inbound import message as msg
from pbem.mail.inbound import receive
from tests.mail.inbound_helpers import send_lmtp, start_lmtp
from tests.security.inmail_world import (
    address,
    corpus,
    events,
    mail,
    make_cli_world,
    make_world,
    outbox,
    receive_command,
    records,
)

NULL_SENDERS = ["MAILER-DAEMON", "mailer-daemon", "MAILER-DAEMON@mx.example.org", "", "<>"]


@pytest.fixture
def runtime(db, tmp_path, clock):
    return make_world(db, tmp_path, clock)


@pytest.mark.parametrize("null", NULL_SENDERS)
def test_an_out_of_office_from_the_null_sender_is_not_talk(runtime, null):
    """Ben's out-of-office (Ben is not to move: before, his words went to the table)."""
    sent, logged = len(outbox(runtime)), len(events(runtime))
    raw = corpus("out_of_office_null_sender", runtime, seat=1)
    taken = receive.take(runtime, raw, [address(runtime, seat=1)], null)
    assert (taken.status, taken.outcome) == (0, "null_sender")
    assert len(outbox(runtime)) == sent and len(events(runtime)) == logged
    assert [record.outcome for record in records(runtime)] == ["null_sender"]


@pytest.mark.parametrize("null", NULL_SENDERS)
def test_a_move_from_the_null_sender_is_not_made(runtime, null):
    sent, logged = len(outbox(runtime)), len(events(runtime))
    taken = receive.take(runtime, mail(address(runtime), "2"), [address(runtime)], null)
    assert (taken.status, taken.outcome) == (0, "null_sender")
    assert len(outbox(runtime)) == sent and len(events(runtime)) == logged


def test_without_an_envelope_the_headers_say_null_sender(runtime):
    """No envelope sender known (``pbem receive`` without ``--sender``): a
    ``Return-Path: <>`` or a ``From: MAILER-DAEMON`` is the null sender too."""
    for raw in (
        corpus("out_of_office_null_sender", runtime).replace(
            b"From:", b"Return-Path: <>\nFrom:", 1
        ),
        mail(address(runtime, seat=1), "I am away", sender="MAILER-DAEMON@mx.example.org"),
    ):
        taken = receive.take(runtime, raw, [address(runtime, seat=1)])
        assert (taken.status, taken.outcome) == (0, "null_sender")
    assert outbox(runtime, "talk") == [] and outbox(runtime, "answer_stranger") == []


def test_the_null_sender_over_lmtp(runtime):
    """``MAIL FROM:<>`` and ``MAIL FROM:<MAILER-DAEMON@...>``: taken (250), nothing done."""
    sent, logged = len(outbox(runtime)), len(events(runtime))
    listener, port = start_lmtp(runtime)
    try:
        for null in ("", "MAILER-DAEMON@mx.example.org"):
            raw = corpus("out_of_office_null_sender", runtime, seat=1).replace(
                b"<ooo.5511", f"<ooo.{len(null)}".encode()
            )
            assert send_lmtp(port, raw, address(runtime, seat=1), null) == {}
    finally:
        listener.stop()
    assert len(outbox(runtime)) == sent and len(events(runtime)) == logged
    assert [record.outcome for record in records(runtime)] == ["null_sender"] * 2


@pytest.mark.parametrize("option", ["--sender=MAILER-DAEMON", "--sender=", "--sender=<>"])
def test_pbem_receive_with_the_null_sender(monkeypatch, tmp_path, option):
    """The README's pipe line: ``pbem receive --sender=${sender} ${original_recipient}``."""
    runtime = make_cli_world(monkeypatch, tmp_path)
    sent, logged = len(outbox(runtime)), len(events(runtime))
    raw = corpus("out_of_office_null_sender", runtime, seat=1)
    assert receive_command(monkeypatch, raw, option, address(runtime, seat=1)) == 0
    assert len(outbox(runtime)) == sent and len(events(runtime)) == logged
    assert [record.outcome for record in records(runtime)] == ["null_sender"]


def test_what_is_the_null_sender():
    for null in NULL_SENDERS + [" <> ", "Mailer-Daemon@Example.ORG"]:
        assert msg.is_null_sender(null), null
    for person in (None, "anna@example.org", "daemon@example.org", "mailer@example.org"):
        assert not msg.is_null_sender(person), person
