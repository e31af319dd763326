"""Whatever arrives at the server's own sender address (where delivery reports come) or
at a ``+b-`` extension of it is taken and recorded, never refused: a refusal (exit 67,
LMTP 550) makes the MTA bounce a bounce. Before, a delivery report that was not RFC 3464
(qmail's, Exchange's plain text), or any report to a ``+b-`` address, was refused."""

from __future__ import annotations

import pytest

from pbem.mail.inbound import receive
from tests.mail.inbound_helpers import send_lmtp, start_lmtp
from tests.security.inmail_world import (
    SENDER_ADDRESS,
    corpus,
    events,
    mail,
    make_cli_world,
    make_world,
    outbox,
    receive_command,
    records,
)

REPORTS = ["bounce_qmail", "bounce_exchange_plain", "bounce_rfc3464"]
OURS = [SENDER_ADDRESS, "Games@PBEM.test", "games+b-3f2a.inmail0001.1@pbem.test"]


@pytest.fixture
def runtime(db, tmp_path, clock):
    return make_world(db, tmp_path, clock)


def unique(raw: bytes, mark: str) -> bytes:
    """The sample with a Message-ID of its own (each is recorded once)."""
    return raw.replace(b"Message-ID: <", f"Message-ID: <{mark}.".encode(), 1)


def test_a_report_to_our_address_is_taken(runtime):
    sent, logged = len(outbox(runtime)), len(events(runtime))
    count = 0
    for name in REPORTS:
        for recipient in OURS:
            for envelope in (None, "", "postmaster@corp.example.com"):
                count += 1
                raw = unique(corpus(name), str(count))
                taken = receive.take(runtime, raw, [recipient], envelope)
                assert taken.status == 0, (name, recipient, envelope, taken)
    assert len(outbox(runtime)) == sent and len(events(runtime)) == logged
    assert len(records(runtime)) == count


def test_a_person_writing_to_our_sender_address_is_not_bounced(runtime):
    """A reply to the sender address (not the tagged Reply-To): taken, not read."""
    taken = receive.take(runtime, mail(SENDER_ADDRESS, "2"), [SENDER_ADDRESS], "anna@example.org")
    assert (taken.status, taken.outcome) == (0, "to_sender")
    assert len(events(runtime)) == 1 and outbox(runtime, "answer") == []


def test_reports_over_lmtp_are_taken(runtime):
    listener, port = start_lmtp(runtime)
    try:
        for name in REPORTS:
            for recipient in OURS[::2]:
                raw = unique(corpus(name), recipient)
                assert send_lmtp(port, raw, recipient, "") == {}, (name, recipient)
    finally:
        listener.stop()
    assert len(records(runtime)) == len(REPORTS) * 2


@pytest.mark.parametrize("option", [[], ["--sender=MAILER-DAEMON"], ["--sender="]])
def test_pbem_receive_takes_reports(monkeypatch, tmp_path, option):
    make_cli_world(monkeypatch, tmp_path)
    for name in REPORTS:
        for recipient in OURS:
            raw = unique(corpus(name), recipient)
            assert receive_command(monkeypatch, raw, *option, recipient) == 0, (name, recipient)


def test_other_addresses_are_still_no_such_address(runtime):
    for recipient in ("games+x@pbem.test", "games@other.test", "anyone@pbem.test"):
        assert receive.take(runtime, corpus("bounce_qmail"), [recipient], "").status == 67
