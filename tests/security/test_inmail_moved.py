"""A reply to the mail of a game this server no longer holds (it moved to another
server): the tag proves the mail was ours, so the sender is told the game is not here
any more (once a day), and the MTA is not made to bounce it. Before, the reply got a
raw MTA bounce (exit 67, LMTP 550)."""

from __future__ import annotations

import pytest

from pbem.mail.inbound import receive
from tests.mail.inbound_helpers import send_lmtp, start_lmtp
from tests.security.inmail_world import (
    address,
    mail,
    make_cli_world,
    make_world,
    outbox,
    receive_command,
    records,
)

GONE = "moved00001"


@pytest.fixture
def runtime(db, tmp_path, clock):
    return make_world(db, tmp_path, clock)


def test_a_reply_to_a_game_no_longer_here_is_answered_once_a_day(runtime, clock):
    to = address(runtime, game=GONE)
    for _ in range(3):
        taken = receive.take(runtime, mail(to, "2"), [to])
        assert (taken.status, taken.outcome) == (0, "gone")
    (told,) = outbox(runtime, "answer_gone")
    assert told.recipient == "anna@example.org"
    assert "not on this server any more" in told.body_text
    assert [record.game_id for record in records(runtime)] == [GONE] * 3
    clock.advance(days=1, seconds=1)
    receive.take(runtime, mail(to, "2"), [to])
    assert len(outbox(runtime, "answer_gone")) == 2


def test_a_forged_tag_for_a_game_not_here_is_still_no_such_address(runtime):
    local, domain = address(runtime, game=GONE).split("@")
    forged = f"{local[:-16]}{'a' * 16}@{domain}"  # a made-up MAC
    assert receive.take(runtime, mail(forged, "2"), [forged]).status == 67
    assert outbox(runtime, "answer_gone") == []


def test_over_lmtp(runtime):
    to = address(runtime, game=GONE)
    listener, port = start_lmtp(runtime)
    try:
        assert send_lmtp(port, mail(to, "2"), to) == {}
    finally:
        listener.stop()
    assert len(outbox(runtime, "answer_gone")) == 1


def test_pbem_receive_exits_0(monkeypatch, tmp_path):
    runtime = make_cli_world(monkeypatch, tmp_path)
    to = address(runtime, game=GONE)
    assert receive_command(monkeypatch, mail(to, "2"), "--sender=anna@example.org", to) == 0
    assert len(outbox(runtime, "answer_gone")) == 1
