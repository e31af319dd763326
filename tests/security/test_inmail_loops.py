"""A loop is our own mail come back, known by what this server writes (a Message-ID the
outbox sent, our List-Id), never by the domain of a Message-ID. Before, a player's
reply whose mail program made its Message-ID on the server's own domain (a club that
hosts both ``play@`` and its members' mail) was taken for a loop and dropped."""

from __future__ import annotations

import pytest

from pbem.mail.dispatch import build_message
from pbem.mail.inbound import receive
from tests.mail.inbound_helpers import send_lmtp, start_lmtp
from tests.security.inmail_world import address, events, mail, make_world, outbox, records


@pytest.fixture
def runtime(db, tmp_path, clock):
    return make_world(db, tmp_path, clock)


def test_a_reply_with_a_message_id_on_our_domain_is_read(runtime):
    to = address(runtime)
    raw = mail(to, "2", message_id="<5e2b1c9a-7d3f-4a8e@pbem.test>")
    taken = receive.take(runtime, raw, [to])
    assert (taken.status, taken.outcome) == (0, "applied")
    assert [event.kind for event in events(runtime)][1] == "move"
    assert len(outbox(runtime, "answer")) == 1


def test_the_same_over_lmtp(runtime):
    to = address(runtime, seat=1)
    listener, port = start_lmtp(runtime)
    try:
        raw = mail(to, "say: see you Friday", "ben@example.org", message_id="<m.1@PBEM.test>")
        assert send_lmtp(port, raw, to, "ben@example.org") == {}
    finally:
        listener.stop()
    assert [record.outcome for record in records(runtime)] == ["talk"]


def test_our_own_mail_come_back_is_a_loop(runtime):
    """Even stripped of our List-Id and of ``Auto-Submitted``: its Message-ID is one the
    outbox sent."""
    (invitation,) = [row for row in outbox(runtime) if row.recipient == "anna@example.org"]
    message = build_message(runtime, invitation)
    for name in ("List-Id", "Auto-Submitted", "List-Unsubscribe", "List-Unsubscribe-Post"):
        del message[name]
    del message["To"]
    message["To"] = address(runtime)
    sent = len(outbox(runtime))
    taken = receive.take(runtime, bytes(message), [address(runtime)], "games@pbem.test")
    assert (taken.status, taken.outcome) == (0, "loop")
    assert len(outbox(runtime)) == sent and len(events(runtime)) == 1
