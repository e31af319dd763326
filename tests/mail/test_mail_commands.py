"""Commands mailed to the general address: HELP, LIST, OPEN and JOIN, one answer a day per
person and command, unknown words answered with HELP, and the inbound checks (robots,
auto-replies, the null sender, failed SPF/DKIM/DMARC, the same message twice) kept. The
links LIST mails go to their own player's address only."""

from __future__ import annotations

import re
import uuid
from email.message import EmailMessage

import pytest

from pbem.games import open_games
from pbem.games.service import SeatSpec
from pbem.mail.inbound.receive import take
from pbem.scheduler import dispatch
from tests.mail.conftest import new_game
from tests.mail.inbound_helpers import REPLY, reply_runtime, start_lmtp, text_of

CONFIRM = re.compile(r"/open/confirm/([A-Za-z0-9_-]{20,100})")
PLAY = re.compile(r"/play/([A-Za-z0-9_-]{20,100})")


@pytest.fixture
def runtime(db, tmp_path, clock, smtp):
    return reply_runtime(db, tmp_path, clock, smtp[1])


def command(body: str, sender: str = "anna@example.org", subject: str = "", **headers) -> bytes:
    message = EmailMessage()
    message["From"] = f"Someone <{sender}>"
    message["To"] = REPLY
    message["Subject"] = subject or "hello"
    message["Message-ID"] = f"<{uuid.uuid4().hex}@mail.example.org>"
    for name, value in headers.items():
        message[name.replace("_", "-")] = value
    message.set_content(body + "\n")
    return bytes(message)


def answers(runtime, mailbox, address: str) -> list:
    dispatch(runtime)
    return mailbox.to(address)


def test_help_and_unknown_words_share_one_answer_a_day(runtime, clock, mailbox):
    assert take(runtime, command("help"), [REPLY]).outcome == "command"
    assert take(runtime, command("what can I do here?"), [REPLY]).detail.startswith("HELP (not")
    (answer,) = answers(runtime, mailbox, "anna@example.org")
    text = text_of(answer)
    assert "LIST" in text and "JOIN" in text and "/open" in text
    clock.advance(hours=24, minutes=1)
    take(runtime, command("HELP"), [REPLY])
    assert len(answers(runtime, mailbox, "anna@example.org")) == 2


def test_list_mails_each_running_game_s_link_to_its_own_player_only(runtime, mailbox):
    game = new_game(runtime, seats=3)  # Anna, Ben, Cleo at example.org
    other = runtime.service.create_game(
        "pig", [SeatSpec("Ben", "ben@example.org"), SeatSpec("Dan", "dan@example.org")], {}
    )
    dispatch(runtime)
    before = len(mailbox.messages)
    taken = take(runtime, command("LIST", sender="Ben@Example.org"), [REPLY])
    assert taken.outcome == "command", taken
    dispatch(runtime)
    (answer,) = mailbox.messages[before:]
    assert answer["To"] == "ben@example.org"
    tokens = PLAY.findall(text_of(answer))
    assert sorted(runtime.service.seat_for_token(t).game_id for t in tokens) == sorted(
        [game.game_id, other.game_id]
    )
    assert {runtime.service.seat_for_token(t).email for t in tokens} == {"ben@example.org"}
    # A stranger's LIST names no game.
    take(runtime, command("list", sender="eve@example.net"), [REPLY])
    (stranger,) = answers(runtime, mailbox, "eve@example.net")
    assert "no running game" in text_of(stranger) and not PLAY.search(text_of(stranger))
    # Once a day: a second LIST goes unanswered.
    assert (
        "not answered" in take(runtime, command("LIST", sender="ben@example.org"), [REPLY]).detail
    )


def test_open_and_join_by_mail_start_the_same_double_opt_in(runtime, mailbox):
    created = open_games.create_open(
        runtime, "pig", [SeatSpec("Zed", "zed@example.org"), None], {"target": 20}, title="Pig club"
    )
    take(runtime, command("OPEN", sender="nina@example.net"), [REPLY])
    (listing,) = answers(runtime, mailbox, "nina@example.net")
    assert created.game_id in text_of(listing) and "zed@example.org" not in text_of(listing)
    taken = take(
        runtime, command(f"JOIN {created.game_id} Nina", sender="nina@example.net"), [REPLY]
    )
    assert taken.outcome == "command" and created.game_id in taken.detail
    mails = answers(runtime, mailbox, "nina@example.net")
    assert len(mails) == 2  # the listing, then the link to confirm (the answer to JOIN)
    token = CONFIRM.search(text_of(mails[-1])).group(1)
    assert open_games.confirm(runtime, token).started
    assert [seat.name for seat in runtime.service.seats(created.game_id)] == ["Zed", "Nina"]
    # A JOIN that cannot be applied says why, once a day.
    take(runtime, command("JOIN nosuchgame", sender="olga@example.net"), [REPLY])
    take(runtime, command("JOIN nosuchgame", sender="olga@example.net"), [REPLY])
    (refused,) = answers(runtime, mailbox, "olga@example.net")
    assert "no such open game" in text_of(refused)


def test_mail_that_no_person_sent_or_that_failed_its_checks_is_not_answered(runtime, mailbox):
    cases = [
        command("HELP", sender="noreply@example.net"),
        command("HELP", sender="bob@example.net", Auto_Submitted="auto-replied"),
        command("HELP", sender="carl@example.net", Authentication_Results="mx.pbem.test; spf=fail"),
        command(
            "HELP", sender="dora@example.net", Authentication_Results="mx; dkim=pass; dmarc=fail"
        ),
        command("HELP", sender="MAILER-DAEMON@example.net"),
    ]
    outcomes = [take(runtime, raw, [REPLY]).outcome for raw in cases]
    assert outcomes == [
        "command",
        "auto_reply",
        "unauthenticated",
        "unauthenticated",
        "null_sender",
    ]
    null = take(runtime, command("HELP", sender="eva@example.net"), [REPLY], envelope_sender="<>")
    assert null.outcome == "null_sender"
    dispatch(runtime)
    assert mailbox.messages == []
    # The same message twice is taken once.
    raw = command("HELP", sender="finn@example.net")
    assert take(runtime, raw, [REPLY]).outcome == "command"
    assert take(runtime, raw, [REPLY]).outcome == "duplicate"
    assert len(answers(runtime, mailbox, "finn@example.net")) == 1


def test_the_lmtp_listener_takes_the_general_address(runtime, mailbox):
    import smtplib

    controller, port = start_lmtp(runtime)
    try:
        with smtplib.LMTP("127.0.0.1", port) as client:
            client.sendmail("gus@example.net", [REPLY], command("help", sender="gus@example.net"))
    finally:
        controller.stop()
    assert len(answers(runtime, mailbox, "gus@example.net")) == 1
