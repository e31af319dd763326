"""A delivery report (RFC 3464) marks the failed address bouncing: the dispatcher sends
it nothing more (status ``bouncing``), the game's page says so by the player's name, and
the game's creator reads it in her mails."""

from __future__ import annotations

from pathlib import Path

from sqlmodel import Session, select

from pbem.games.service import SeatSpec
from pbem.mail import deferred, seat_mails
from pbem.mail.dispatch import dispatch
from pbem.mail.inbound import bounces, receive, tags
from pbem.mail.models import Mail
from pbem.web import create_app
from tests.mail.inbound_helpers import reply_runtime

BOUNCE = Path(__file__).parent / "inbound_corpus" / "bounce_rfc3464.eml"
GAME = "bounce0001"


def outbox_token(runtime, seat: int) -> str:
    """A seat's link token, as its mails carry it."""
    from pbem.models import Seat

    with Session(runtime.db) as session:
        return seat_mails.seat_token(session, runtime, session.get(Seat, (GAME, seat)))


def test_a_bounce_stops_mail_and_is_shown(sqlite_db, tmp_path, clock, smtp):
    mailbox, port = smtp
    runtime = reply_runtime(sqlite_db, tmp_path, clock, port)
    specs = [
        SeatSpec("Anna", "anna@example.org"),
        SeatSpec("Ben", "ben@example.org"),
        SeatSpec("Bot", is_bot=True),
    ]
    runtime.service.create_game("mare_balticum", specs, seed=b"bounce" * 6, game_id=GAME)
    dispatch(runtime)
    assert len(mailbox.to("ben@example.org")) == 1  # the invitation went out

    # The report comes back to the bounce address the invitation was sent from (VERP).
    with Session(runtime.db) as session:
        invitation = session.exec(select(Mail).where(Mail.recipient == "ben@example.org")).one()
    verp = bounces.envelope_sender(runtime.config, runtime.secret_key, invitation)
    taken = receive.take(runtime, BOUNCE.read_bytes(), [verp], "")
    assert (taken.status, taken.outcome, taken.detail) == (0, "bounce", "ben@example.org")

    client = create_app({"TESTING": True}, runtime=runtime).test_client()
    anna_page = f"/play/{outbox_token(runtime, 0)}"
    for url in (f"/games/{GAME}", anna_page):  # the spectator's page and Anna's turn page
        html = client.get(url).get_data(as_text=True)
        ben = html[html.index("Ben") : html.index("</li>", html.index("Ben"))]
        assert "mail to this player bounces" in ben, url
        assert html.count("mail to this player bounces") == 1, url

    # Anna (the creator) moves by mail; Ben's turn mail is not sent; Anna is told.
    address = tags.reply_address(runtime.config, runtime.secret_key, GAME, 0, 0)
    raw = (
        b"From: anna@example.org\r\nTo: " + address.encode() + b"\r\nSubject: Re\r\n"
        b"Message-ID: <m1@example.org>\r\n\r\n2\r\n"
    )
    assert receive.take(runtime, raw).outcome == "applied"
    dispatch(runtime)
    assert len(mailbox.to("ben@example.org")) == 1
    with Session(runtime.db) as session:
        held = session.exec(select(Mail).where(Mail.recipient == "ben@example.org")).all()
        answer = session.exec(select(Mail).where(Mail.kind == "answer")).one()
    assert {mail.status for mail in held} == {"sent", "bouncing"}
    assert "Mail to Ben bounces" in deferred.opened(runtime, answer)[0]

    # Ben replies from that address: it works again, so the mark goes.
    head = runtime.service.head(GAME)
    address = tags.reply_address(runtime.config, runtime.secret_key, GAME, 1, head.seq)
    raw = (
        b"From: Ben <ben@example.org>\r\nTo: " + address.encode() + b"\r\nSubject: Re\r\n"
        b"Message-ID: <b1@example.org>\r\n\r\nsay: my mail works again\r\n"
    )
    assert receive.take(runtime, raw).outcome in ("talk", "applied", "refused", "older_turn")
    with Session(runtime.db) as session:
        assert bounces.bouncing(session, ["ben@example.org"]) == {}
    html = client.get(f"/games/{GAME}").get_data(as_text=True)
    assert "mail to this player bounces" not in html
