"""Answers that refuse mail cannot be turned on anyone: at most one a day per person
(canonical address) and kind, counted in the database; never to robots (the null
sender, MAILER-DAEMON, postmaster, abuse, no-reply and bounce addresses) nor to
auto-submitted mail; and an answer to a stranger names nothing the game's creator chose.
Before, 20 forged mails to one reply tag queued 20 answers to the forged address, each
subject carrying the game's title, and answers went to mailer-daemon and postmaster."""

from __future__ import annotations

import pytest

from pbem.mail.inbound import receive
from tests.security.inmail_world import TITLE, address, events, mail, make_world, outbox


@pytest.fixture
def runtime(db, tmp_path, clock):
    return make_world(db, tmp_path, clock)


def test_forged_mails_to_one_tag_get_one_answer_a_day(runtime, clock):
    to = address(runtime)
    for number in range(20):
        sender = "Mallory@Example.net" if number % 2 else f"mallory+{number}@example.net"
        taken = receive.take(runtime, mail(to, "2", sender=sender), [to])
        assert (taken.status, taken.outcome) == (0, "refused_sender")
    (told,) = outbox(runtime, "answer_stranger")
    assert told.recipient == "mallory+0@example.net"
    for chosen in (TITLE, "Anna", "Ben"):  # the title, the players' names
        assert chosen not in told.subject and chosen not in told.body_text
    assert len(events(runtime)) == 1  # the game's start alone
    clock.advance(hours=23)
    receive.take(runtime, mail(to, "2", sender="mallory@example.net"), [to])
    assert len(outbox(runtime, "answer_stranger")) == 1
    clock.advance(hours=1, seconds=1)
    receive.take(runtime, mail(to, "2", sender="mallory@example.net"), [to])
    assert len(outbox(runtime, "answer_stranger")) == 2


@pytest.mark.parametrize(
    "robot",
    [
        "MAILER-DAEMON@mx.example.net",
        "postmaster@example.net",
        "Abuse@example.net",
        "noreply@example.net",
        "no-reply@example.net",
        "do-not-reply@example.net",
        "DoNotReply@example.net",
        "bounce@example.net",
        "list-bounces+anna=example.org@lists.example.net",
        "notifications-noreply@example.net",
    ],
)
def test_robots_get_no_answer(runtime, robot):
    to = address(runtime)
    taken = receive.take(runtime, mail(to, "2", sender=robot), [to], robot)
    assert taken.status == 0 and taken.outcome in ("refused_sender", "null_sender")
    assert outbox(runtime, "answer_stranger") == []


def test_auto_submitted_mail_gets_no_answer(runtime):
    to = address(runtime)
    raw = mail(to, "2", sender="mallory@example.net", Auto_Submitted="auto-replied")
    assert receive.take(runtime, raw, [to]).outcome == "auto_reply"
    assert outbox(runtime, "answer_stranger") == [] and outbox(runtime, "answer") == []


def test_a_players_refusals_go_once_a_day_for_one_position(runtime, clock):
    """Ben (not to move) replying again and again to the same position: one refusal."""
    to = address(runtime, seat=1)
    for _ in range(5):
        taken = receive.take(runtime, mail(to, "1", sender="ben@example.org"), [to])
        assert taken.outcome == "refused" and "not your turn" in taken.detail
    assert len(outbox(runtime, "answer")) == 1
    clock.advance(days=1, seconds=1)
    receive.take(runtime, mail(to, "1", sender="ben@example.org"), [to])
    assert len(outbox(runtime, "answer")) == 2
    # The game moves on (Anna places a ship): a new position, a new answer.
    anna = address(runtime)
    assert receive.take(runtime, mail(anna, "2"), [anna]).outcome == "applied"
    assert len(outbox(runtime, "answer")) == 3
    for _ in range(2):
        taken = receive.take(runtime, mail(to, "1", sender="ben@example.org"), [to])
        assert taken.outcome == "refused"
    assert len(outbox(runtime, "answer")) == 4


def test_an_answer_is_counted_once_across_kinds(runtime):
    """A stranger's answer does not use up the player's, nor the other way round."""
    to = address(runtime, seat=1)
    receive.take(runtime, mail(to, "1", sender="ben@example.org"), [to])
    receive.take(runtime, mail(address(runtime), "1", sender="ben@example.org"), [address(runtime)])
    assert len(outbox(runtime, "answer")) == 1
    assert len(outbox(runtime, "answer_stranger")) == 1
