"""The headers every mail carries, read from the bytes that reached a real SMTP server
(aiosmtpd), the times mails show, and the receipt a notice gives."""

from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import select

from pbem import zones
from pbem.games.rescue import hand_to_bot, leave_game
from pbem.games.service import SeatSpec
from pbem.mail import outbox
from pbem.mail.models import Mail
from pbem.scheduler import dispatch
from tests.mail.conftest import make_runtime, new_game, part

SENDER = "pbem <games@pbem.example>"


@pytest.fixture
def runtime(db, tmp_path, clock, smtp):
    return make_runtime(db, tmp_path, clock, smtp[1], mail={"sender": SENDER})


def wire(mailbox, address: str, subject: str) -> tuple[bytes, email.message.EmailMessage]:
    """The bytes of the one message to ``address`` whose subject has ``subject``, as they
    crossed the wire, and the message parsed from them."""
    found = []
    for raw in mailbox.raw:
        message = email.message_from_bytes(raw, policy=email.policy.default)
        if message["To"] == address and subject in message["Subject"]:
            found.append((raw, message))
    assert len(found) == 1, [m["Subject"] for _, m in found]
    return found[0]


def header_lines(raw: bytes) -> list[str]:
    head = raw.split(b"\r\n\r\n", 1)[0].decode("ascii")
    return head.replace("\r\n ", " ").replace("\r\n\t", " ").split("\r\n")


def test_every_seat_mail_carries_auto_submitted_list_id_and_one_click_unsubscribe(runtime, mailbox):
    created = runtime.service.create_game(
        "pig",
        [SeatSpec("Anna", "anna@example.org"), SeatSpec("Ben", "ben@example.org")],
        {"target": 30},
        title='The "Friday" game',
    )
    assert dispatch(runtime).sent == 2
    raw, message = wire(mailbox, "ben@example.org", "invited")
    lines = header_lines(raw)
    assert "Auto-Submitted: auto-generated" in lines
    list_id = f'List-Id: "The \\"Friday\\" game" <{created.game_id}.games.pbem.example>'
    assert list_id in lines
    unsubscribe = [line for line in lines if line.startswith("List-Unsubscribe: ")]
    assert len(unsubscribe) == 1
    url = unsubscribe[0].removeprefix("List-Unsubscribe: ")
    assert url.startswith(f"<http://pbem.test/mail/settings/{created.game_id}/1/")
    assert url.endswith(">")
    assert "List-Unsubscribe-Post: List-Unsubscribe=One-Click" in lines
    # The settings link in the body is the very page the header names.
    assert url[1:-1] in part(message, "plain")
    assert message["List-Id"].endswith(f"<{created.game_id}.games.pbem.example>")
    # RFC 8058: the mail provider POSTs the one-click body to that very URL, with no
    # cookie and no form token; the seat gets no more turn mail.
    from pbem.web import create_app

    client = create_app(runtime=runtime).test_client()
    path = url[1:-1].removeprefix("http://pbem.test")
    answer = client.post(
        path,
        data="List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )
    assert answer.status_code == 200
    assert runtime.service.seats(created.game_id)[1].notify == "none"
    assert runtime.service.seats(created.game_id)[0].notify == "every_turn"


def test_a_title_in_another_script_is_encoded_and_reads_back(runtime, mailbox):
    created = runtime.service.create_game(
        "pig",
        [SeatSpec("Anna", "anna@example.org"), SeatSpec("Ben", "ben@example.org")],
        {"target": 30},
        title="Spiel für Jürgen",
    )
    assert dispatch(runtime).sent == 2
    raw, message = wire(mailbox, "anna@example.org", "invited")
    assert raw.split(b"\r\n\r\n", 1)[0].isascii()
    assert str(message["List-Id"]) == f'"Spiel für Jürgen" <{created.game_id}.games.pbem.example>'


def test_a_mail_without_settings_has_no_unsubscribe_and_the_digest_has_the_server_list(
    runtime, mailbox, clock
):
    created = new_game(runtime, seats=3)
    game = created.game_id
    leave_game(runtime, game, 2, by=2)
    assert dispatch(runtime).sent >= 4
    # Cleo left: the notice to her carries no link and no settings, so no unsubscribe.
    raw, _ = wire(mailbox, "cleo@example.org", "leaves")
    lines = header_lines(raw)
    assert "Auto-Submitted: auto-generated" in lines
    assert not [line for line in lines if line.startswith("List-Unsubscribe")]
    assert f"<{game}.games.pbem.example>" in " ".join(lines)

    # A digest is about no one game: it belongs to the server's list.
    with runtime.service.session() as session:
        outbox.enqueue(
            session,
            runtime,
            "digest",
            key="digest:test",
            recipient="dora@example.org",
            context={"name": "Dora", "count": 0, "games": [], "settings": ""},
        )
        session.commit()
    assert dispatch(runtime).sent == 1
    raw, _ = wire(mailbox, "dora@example.org", "Your games")
    lines = header_lines(raw)
    assert "List-Id: <pbem.pbem.example>" in lines
    assert "Auto-Submitted: auto-generated" in lines


def test_the_receipt_in_a_notice_names_the_event_it_announces(runtime, mailbox):
    created = new_game(runtime, seats=3)
    game = created.game_id
    before = runtime.service.head(game)
    outcome = hand_to_bot(runtime, game, 1, by=1)
    announced = next(e for e in runtime.service.events(game) if e["kind"] == "seat_to_bot")
    assert announced["seq"] == outcome.seq == before.seq + 1
    assert announced["hash"] != before.hash
    dispatch(runtime)
    notices = [m for m in mailbox.messages if "takes over a seat" in m["Subject"]]
    assert {m["To"] for m in notices} == {
        "anna@example.org",
        "ben@example.org",
        "cleo@example.org",
    }
    for message in notices:
        text = part(message, "plain")
        assert f"Log receipt: event {announced['seq']}, head hash {announced['hash']}" in text
        assert before.hash not in text
    # The mail's key names that event too.
    with runtime.service.reading() as session:
        keys = set(session.exec(select(Mail.key).where(Mail.kind == "notice")))
    assert f"seat_to_bot:{game}:{announced['seq']}:0" in keys


NOW = datetime(2026, 12, 4, 11, 50, tzinfo=UTC)
DEADLINE = datetime(2026, 12, 6, 15, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("zone", "expected"),
    [
        ("Europe/Berlin", "Sun 6 Dec 2026, 16:00 CET (15:00 UTC), in 2 days 3 hours"),
        ("America/New_York", "Sun 6 Dec 2026, 10:00 EST (15:00 UTC), in 2 days 3 hours"),
        ("Asia/Tokyo", "Mon 7 Dec 2026, 00:00 JST (Sun 6 Dec, 15:00 UTC), in 2 days 3 hours"),
        (
            "Europe/Istanbul",
            "Sun 6 Dec 2026, 18:00 Europe/Istanbul (UTC+03, 15:00 UTC), in 2 days 3 hours",
        ),
        ("UTC", "Sun 6 Dec 2026, 15:00 UTC, in 2 days 3 hours"),
        ("Etc/UTC", "Sun 6 Dec 2026, 15:00 UTC, in 2 days 3 hours"),
        ("Not/AZone", "Sun 6 Dec 2026, 15:00 UTC, in 2 days 3 hours"),
        ("../../etc/passwd", "Sun 6 Dec 2026, 15:00 UTC, in 2 days 3 hours"),
    ],
)
def test_times_read_in_the_readers_zone_first_then_utc_and_how_long_is_left(zone, expected):
    assert zones.when(DEADLINE, zone, NOW) == expected


def test_summer_time_gets_its_own_name():
    summer = datetime(2026, 7, 1, 12, 0, tzinfo=UTC)
    assert zones.when(summer, "Europe/Berlin") == "Wed 1 Jul 2026, 14:00 CEST (12:00 UTC)"


@pytest.mark.parametrize(
    ("left", "words"),
    [
        (timedelta(days=1), "in 1 day"),
        (timedelta(days=1, hours=1, minutes=59), "in 1 day 1 hour"),
        (timedelta(hours=5, minutes=20, seconds=59), "in 5 hours 20 minutes"),
        (timedelta(hours=1), "in 1 hour"),
        (timedelta(minutes=1, seconds=30), "in 1 minute"),
        (timedelta(seconds=59), "in less than a minute"),
        (timedelta(0), ""),
        (timedelta(hours=-3), ""),
    ],
)
def test_how_long_is_left_rounds_down_and_says_nothing_once_passed(left, words):
    assert zones.time_left(DEADLINE, DEADLINE - left) == words
    text = zones.when(DEADLINE, "UTC", DEADLINE - left)
    assert text == ("Sun 6 Dec 2026, 15:00 UTC" + (f", {words}" if words else ""))


def test_without_now_a_time_has_no_countdown():
    assert zones.when(DEADLINE, "Europe/Berlin") == "Sun 6 Dec 2026, 16:00 CET (15:00 UTC)"
    assert zones.when(None, "Europe/Berlin") == ""
