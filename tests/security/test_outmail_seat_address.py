"""When a genuine bounce marks a player's address: their seat page says so and takes
another address (mailed to say so; the seat's mail goes there), and the creator and
the other players read it in their next mails."""

from __future__ import annotations

import re

import pytest
from sqlmodel import Session, select

from pbem.mail import seat_mails
from pbem.mail.dispatch import dispatch
from pbem.mail.inbound import receive
from pbem.mail.models import Mail
from pbem.models import Seat
from pbem.scheduler import sweep
from pbem.web import create_app
from tests.mail.conftest import new_game, part
from tests.mail.inbound_helpers import reply_runtime
from tests.security.test_outmail_bounces import bounce_address, report

NOTICE = "Mail to your address bounces"


@pytest.fixture
def world(db, tmp_path, clock, smtp):
    mailbox, port = smtp
    runtime = reply_runtime(db, tmp_path, clock, port)
    game = new_game(runtime, policy={"reminder_after_hours": 1, "reminder_every_hours": 4})
    dispatch(runtime)
    client = create_app({"TESTING": True}, runtime=runtime).test_client()
    return runtime, game.game_id, mailbox, client


def link(runtime, game_id: str, seat: int) -> str:
    with Session(runtime.db) as session:
        token = seat_mails.seat_token(session, runtime, session.get(Seat, (game_id, seat)))
    return f"/play/{token}"


def bounce(runtime, address: str) -> None:
    to = bounce_address(runtime, address)
    assert receive.take(runtime, report(address, to), [to], "").outcome == "bounce"


def form_post(client, url: str, email: str):
    page = client.get(url).get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)[1]
    return client.post(f"{url}/address", data={"csrf_token": token, "email": email})


def test_the_seat_page_shows_the_bounce_and_takes_another_address(world, clock):
    runtime, game_id, mailbox, client = world
    url = link(runtime, game_id, 1)
    assert NOTICE not in client.get(url).get_data(as_text=True)
    bounce(runtime, "ben@example.org")
    page = client.get(url).get_data(as_text=True)
    assert NOTICE in page and f'action="{url}/address"' in page
    assert NOTICE not in client.get(link(runtime, game_id, 0)).get_data(as_text=True)

    answer = form_post(client, url, "ben.new@example.org")
    assert answer.status_code == 303
    with Session(runtime.db) as session:
        assert session.get(Seat, (game_id, 1)).email == "ben.new@example.org"
    after = client.get(answer.headers["Location"]).get_data(as_text=True)
    assert "Your address is changed" in after and NOTICE not in after
    dispatch(runtime)
    told = mailbox.to("ben.new@example.org")
    assert len(told) == 1 and "Your address for this game changed" in told[0]["Subject"]
    assert "ben.new@example.org" in part(told[0], "plain")
    assert url in part(told[0], "plain")  # the seat's link, to open it from there
    # The seat's mail goes to the new address now; the old one's mark holds it no more.
    runtime.service.submit_move(game_id, 0, {"type": "stop"}, runtime.service.head(game_id).seq)
    clock.advance(hours=1)
    dispatch(runtime)
    assert len(mailbox.to("ben.new@example.org")) == 2
    assert len(mailbox.to("ben@example.org")) == 1  # the invitation, before it bounced


@pytest.mark.parametrize(
    ("email", "status", "sentence"),
    [
        ("not an address", 400, "Give exactly one email address"),
        ("cleo@example.org", 422, "belongs to another player of this game"),
        ("Cleo+ben@Example.org", 422, "belongs to another player of this game"),
        ("ben@example.org", 400, "give another one"),
    ],
)
def test_a_bad_address_is_refused_with_a_sentence(world, email, status, sentence):
    runtime, game_id, mailbox, client = world
    url = link(runtime, game_id, 1)
    bounce(runtime, "ben@example.org")
    answer = form_post(client, url, email)
    assert answer.status_code == status
    assert sentence in answer.get_data(as_text=True)
    with Session(runtime.db) as session:
        assert session.get(Seat, (game_id, 1)).email == "ben@example.org"


def test_no_address_change_while_mail_works(world):
    runtime, game_id, _, client = world
    answer = form_post(client, link(runtime, game_id, 1), "ben.new@example.org")
    assert answer.status_code == 422
    assert "Mail to your address works" in answer.get_data(as_text=True)


def test_the_creator_and_the_others_read_it_in_their_next_mail(world, clock):
    runtime, game_id, mailbox, _ = world
    bounce(runtime, "ben@example.org")
    clock.advance(hours=1, minutes=1)
    sweep(runtime)  # Anna (the creator, due) gets a reminder
    dispatch(runtime)
    reminder = mailbox.to("anna@example.org", "reminder")
    assert reminder and "Mail to Ben bounces" in part(reminder[-1], "plain")
    assert "Mail to Ben bounces" in part(reminder[-1], "html")
    # Anna and then Ben move: Cleo's turn mail says so too.
    service = runtime.service
    service.submit_move(game_id, 0, {"type": "stop"}, service.head(game_id).seq)
    service.submit_move(game_id, 1, {"type": "stop"}, service.head(game_id).seq)
    clock.advance(minutes=30)
    dispatch(runtime)
    turn = mailbox.to("cleo@example.org")[-1]
    assert "Mail to Ben bounces" in part(turn, "plain")
    with Session(runtime.db) as session:
        to_ben = session.exec(select(Mail).where(Mail.recipient == "ben@example.org")).all()
    assert "bouncing" in {row.status for row in to_ben}
