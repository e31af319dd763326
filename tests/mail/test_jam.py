"""Mail that cannot be jammed, written as the attacker: a poison title or address (CR/LF)
and a recipient the server refuses for good, each in a batch with innocent mail; links
that stay sealed in the outbox; bodies purged after their retention."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from aiosmtpd.controller import Controller
from sqlmodel import Session, select

from pbem.games.service import SeatSpec
from pbem.mail.dispatch import dispatch, purge
from pbem.mail.models import Mail
from tests.mail.conftest import Mailbox, free_port, make_runtime, new_game, part

POISON_TITLE = "Friendly game\r\nBcc: everyone@evil.example"
POISON_ADDRESS = "anna@example.org\r\nBcc: everyone@evil.example"


def rows(runtime) -> list[Mail]:
    with Session(runtime.db) as session:
        return list(session.exec(select(Mail).order_by(Mail.id)))


def metrics(runtime) -> str:
    from pbem.web import create_app

    return create_app({"TESTING": True}, runtime=runtime).test_client().get("/metrics").text


def poison_games(runtime) -> None:
    """Games created past every input check (as an old database or a bug might hold
    them): a title and an address that would break a mail header."""
    service = runtime.service
    service.create_game(
        "pig",
        [SeatSpec("Eve", "eve@example.org"), SeatSpec("Bot", is_bot=True)],
        title=POISON_TITLE,
    )
    service.create_game(
        "pig", [SeatSpec("Anna", POISON_ADDRESS), SeatSpec("Bot", is_bot=True)], title="Plain"
    )


def test_poison_title_and_address_fail_alone_and_innocent_mail_goes_out(runtime, mailbox):
    poison_games(runtime)
    innocent = new_game(runtime, seats=2)
    report = dispatch(runtime)
    assert (report.claimed, report.sent, report.failed, report.retried) == (4, 2, 2, 0)
    assert sorted(m["To"] for m in mailbox.messages) == ["anna@example.org", "ben@example.org"]
    assert all("evil" not in str(m) for m in mailbox.messages)
    assert all(
        m["Subject"] == "Pig (test fixture): you are invited to play" for m in mailbox.messages
    )
    by_status = {row.recipient: row for row in rows(runtime)}
    assert by_status["eve@example.org"].status == "failed"
    assert by_status["eve@example.org"].last_error.startswith("unbuildable: ")
    assert by_status[POISON_ADDRESS].status == "failed"
    assert by_status[POISON_ADDRESS].last_error.startswith("unbuildable: ")
    # Nothing is left to claim: the poison is not retried, at lease expiry or ever.
    assert dispatch(runtime).claimed == 0
    assert Counter(row.status for row in rows(runtime)) == Counter(sent=2, failed=2)
    text = metrics(runtime)
    assert 'pbem_mails{status="failed"} 2' in text
    assert 'pbem_mails_failed{reason="unbuildable"} 2' in text
    assert 'pbem_mails_failed{reason="refused"} 0' in text
    assert innocent.game_id


class RefusingMailbox(Mailbox):
    """Refuses one address for good at RCPT (550) and one message at DATA (554)."""

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address == "gone@example.org":
            return "550 5.1.1 No such user here"
        if address == "busy@example.org":
            return "452 4.2.2 Mailbox full, try later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if "spam@example.org" in envelope.rcpt_tos:
            return "554 5.7.1 Message rejected as spam"
        return await super().handle_DATA(server, session, envelope)


@pytest.fixture
def refusing(db, tmp_path, clock):
    mailbox = RefusingMailbox()
    port = free_port()
    controller = Controller(mailbox, hostname="127.0.0.1", port=port)
    controller.start()
    yield mailbox, make_runtime(db, tmp_path, clock, port)
    controller.stop()


def seats(*addresses: str) -> list[SeatSpec]:
    return [SeatSpec(address.split("@")[0].title(), address) for address in addresses]


def test_a_permanent_refusal_fails_that_mail_and_the_batch_goes_on(refusing, clock):
    mailbox, runtime = refusing
    runtime.service.create_game("pig", seats("gone@example.org", "anna@example.org"))
    runtime.service.create_game("pig", seats("spam@example.org", "busy@example.org"))
    runtime.service.create_game("pig", seats("ben@example.org", "cleo@example.org"))
    report = dispatch(runtime)
    assert (report.claimed, report.sent, report.failed, report.retried) == (6, 3, 2, 1)
    assert sorted(m["To"] for m in mailbox.messages) == [
        "anna@example.org",
        "ben@example.org",
        "cleo@example.org",
    ]
    found = {row.recipient: row for row in rows(runtime)}
    assert found["gone@example.org"].status == "failed"
    assert found["gone@example.org"].last_error.startswith("refused: 550")
    assert found["spam@example.org"].status == "failed"
    assert found["spam@example.org"].last_error.startswith("refused: 554")
    # A temporary refusal (4xx) keeps the backoff.
    assert found["busy@example.org"].status == "pending"
    assert found["busy@example.org"].attempts == 1
    assert dispatch(runtime).claimed == 0
    clock.advance(seconds=31)
    assert dispatch(runtime).claimed == 1
    text = metrics(runtime)
    assert 'pbem_mails_failed{reason="refused"} 2' in text


def test_the_outbox_holds_no_usable_link_and_the_sent_mail_does(runtime, mailbox, app):
    created = new_game(runtime, seats=2)
    stored = " ".join(f"{row.body_text} {row.body_html} {row.unsubscribe}" for row in rows(runtime))
    assert "http://pbem.test/play/{sealed:g1." in stored
    assert not any(token in stored for token in created.tokens)
    assert "/mail/settings/" in stored
    assert not re.search(r"/mail/settings/[a-z0-9]+/\d+/(?!\{sealed:g1\.)", stored)
    dispatch(runtime)
    (anna,) = mailbox.to("anna@example.org")
    assert f"http://pbem.test/play/{created.tokens[0]}" in part(anna, "plain")
    assert f"http://pbem.test/play/{created.tokens[0]}" in part(anna, "html")
    unsubscribe = str(anna["List-Unsubscribe"]).strip().strip("<>")
    client = app.test_client()
    assert client.get(unsubscribe.removeprefix("http://pbem.test")).status_code == 200
    after = " ".join(f"{row.body_text} {row.body_html} {row.unsubscribe}" for row in rows(runtime))
    assert not any(token in after for token in created.tokens)


def test_a_link_sealed_under_another_key_fails_that_mail_only(runtime, smtp, tmp_path, clock):
    new_game(runtime, seats=2)
    other = make_runtime(runtime.db, tmp_path, clock, smtp[1], security={"secret_key": "other"})
    report = dispatch(other)
    assert (report.sent, report.failed) == (0, 2)
    assert all("another server key" in row.last_error for row in rows(runtime))


def test_bodies_are_blanked_after_their_retention(runtime, mailbox, clock):
    new_game(runtime, seats=2)
    with Session(runtime.db) as session:
        failed = session.get(Mail, 2)
        failed.status = "failed"
        failed.last_error = "refused: 550 no such user"
        session.add(failed)
        session.commit()
    assert dispatch(runtime).sent == 1
    clock.advance(days=29)
    assert purge(runtime, clock.now) == 0
    assert all(row.body_text and row.body_html for row in rows(runtime))
    clock.advance(days=2)
    assert purge(runtime, clock.now) == 1
    sent, kept = rows(runtime)
    assert (sent.body_text, sent.body_html, sent.unsubscribe) == ("", "", "")
    assert sent.status == "sent" and sent.subject
    assert kept.status == "failed" and kept.body_text
    clock.advance(days=60)
    dispatch(runtime)  # the dispatcher purges by itself now and then
    assert [row.body_text for row in rows(runtime)] == ["", ""]


def test_retention_is_configurable(db, tmp_path, clock, smtp):
    runtime = make_runtime(db, tmp_path, clock, smtp[1], mail={"retention_days": 2})
    new_game(runtime, seats=2)
    dispatch(runtime)
    clock.advance(days=1)
    assert purge(runtime, clock.now) == 0
    clock.advance(days=1, minutes=1)
    assert purge(runtime, clock.now) == 2


def test_a_server_down_for_good_is_given_up_after_the_last_attempt(runtime, tmp_path, clock):
    new_game(runtime, seats=1)
    down = make_runtime(runtime.db, tmp_path, clock, free_port(), mail={"max_attempts": 2})
    assert dispatch(down).retried == 1
    clock.advance(seconds=31)
    assert dispatch(down).failed == 1
    (row,) = rows(runtime)
    assert row.status == "failed" and row.last_error.startswith("gave up: cannot reach")
    assert 'pbem_mails_failed{reason="gave_up"} 1' in metrics(runtime)
