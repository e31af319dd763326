"""A malformed message (MIME parts nested 2,000 deep, or deeper than the server reads)
is taken and recorded as malformed, and nothing else: no move, no answer. Before,
``pbem receive`` exited 75 (the MTA retried it for days) and the LMTP listener said 451."""

from __future__ import annotations

import pytest

from pbem.mail.inbound import message as msg
from pbem.mail.inbound import receive
from tests.mail.inbound_helpers import send_lmtp, start_lmtp
from tests.security.inmail_world import (
    address,
    events,
    make_cli_world,
    make_world,
    outbox,
    receive_command,
    records,
)


def nested(depth: int, to: str, mark: str = "deep") -> bytes:
    """A reply whose one text part ("2": a move) sits ``depth`` multiparts deep."""
    opening = b"".join(
        b"--b%d\r\nContent-Type: multipart/mixed; boundary=b%d\r\n\r\n" % (level, level + 1)
        for level in range(depth)
    )
    inner = b"--b%d\r\nContent-Type: text/plain\r\n\r\n2\r\n--b%d--\r\n" % (depth, depth)
    closing = b"".join(b"--b%d--\r\n" % level for level in reversed(range(depth)))
    head = (
        f"From: anna@example.org\r\nTo: {to}\r\nSubject: Re: your turn\r\n"
        f"Message-ID: <{mark}@example.org>\r\nMIME-Version: 1.0\r\n"
        "Content-Type: multipart/mixed; boundary=b0\r\n\r\n"
    ).encode()
    return head + opening + inner + closing


@pytest.fixture
def runtime(db, tmp_path, clock):
    return make_world(db, tmp_path, clock)


@pytest.mark.parametrize("depth", [2000, msg.MAX_DEPTH + 1])
def test_a_message_nested_too_deep_is_taken_as_malformed(runtime, depth):
    sent = len(outbox(runtime))
    for recipients in ([address(runtime)], None):  # the envelope's, or the headers'
        taken = receive.take(runtime, nested(depth, address(runtime)), recipients)
        assert (taken.status, taken.outcome) == (0, "malformed")
    assert [record.outcome for record in records(runtime)] == ["malformed"]
    assert len(events(runtime)) == 1 and len(outbox(runtime)) == sent


def test_nesting_a_reader_can_follow_is_read(runtime):
    taken = receive.take(runtime, nested(5, address(runtime)), [address(runtime)])
    assert taken.outcome == "applied"


def test_malformed_to_someone_else_is_still_no_such_address(runtime):
    assert (
        receive.take(runtime, nested(2000, "x@elsewhere.test"), ["x@elsewhere.test"]).status == 67
    )


def test_over_lmtp_it_is_taken(runtime):
    listener, port = start_lmtp(runtime)
    try:
        assert send_lmtp(port, nested(2000, address(runtime)), address(runtime)) == {}
    finally:
        listener.stop()
    assert [record.outcome for record in records(runtime)] == ["malformed"]


def test_pbem_receive_exits_0(monkeypatch, tmp_path):
    runtime = make_cli_world(monkeypatch, tmp_path)
    raw = nested(2000, address(runtime))
    assert receive_command(monkeypatch, raw, "--sender=anna@example.org", address(runtime)) == 0
    assert [record.outcome for record in records(runtime)] == ["malformed"]
