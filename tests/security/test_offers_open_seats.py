"""Open seats as the attacker asks for them: junk requests that used to lock a seat for a
day, one requester flooding with +tag variants or from one client, and a reservation
nobody confirms. On SQLite and PostgreSQL (the counts live in the database)."""

from __future__ import annotations

import re

import pytest
from sqlmodel import Session, select

from pbem.errors import Gone, TooMany
from pbem.games.invitations import request_open_seat, take_seat
from pbem.games.tables import SeatOffer
from pbem.mail.models import Mail
from pbem.scheduler import dispatch, sweep
from tests.security.conftest import make_runtime, new_game, part

LINK = re.compile(r"/play/([A-Za-z0-9_-]{20,100})")
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
REPLACE = {"deadline_after_days": 1, "at_deadline": "replace"}


def web_app(runtime):
    """The web application (with the seat pages) for ``runtime``."""
    from pbem.web import create_app, mail_pages, rescue_pages

    app = create_app({"TESTING": True}, runtime=runtime)
    for blueprint in (mail_pages.bp, rescue_pages.bp):
        if blueprint.name not in app.blueprints:
            app.register_blueprint(blueprint)
    return app


def open_seats(runtime, clock, seats: int = 3) -> str:
    """A game whose first seat passed its deadline and is open to newcomers."""
    game = new_game(runtime, seats=seats, policy=REPLACE)
    clock.advance(days=1, minutes=1)
    sweep(runtime)
    return game.game_id


def ask(client, game_id: str, seat: int, email: str, remote: str, name: str = "X"):
    """Asks for ``seat`` through the game's public page, from client address ``remote``."""
    page = client.get(f"/games/{game_id}", environ_base={"REMOTE_ADDR": remote})
    token = CSRF.search(page.get_data(as_text=True)).group(1)
    return client.post(
        f"/games/{game_id}/seats/{seat}/take",
        data={"csrf_token": token, "name": name, "email": email},
        environ_base={"REMOTE_ADDR": remote},
    )


def mails_to(runtime, address: str) -> list[Mail]:
    with Session(runtime.db) as session:
        return list(session.exec(select(Mail).where(Mail.recipient == address)))


def test_junk_requests_by_others_do_not_block_a_real_newcomer(runtime, clock, mailbox, app):
    game_id = open_seats(runtime, clock)
    client = app.test_client()
    for number in range(6):  # junk from six addresses and six clients, all day long
        junk = ask(client, game_id, 0, f"junk{number}@example.net", f"198.51.100.{number}")
        assert junk.status_code == 303
    clock.advance(hours=1)
    asked = ask(client, game_id, 0, "nina@example.net", "203.0.113.9", name="Nina")
    assert asked.status_code == 303
    dispatch(runtime)
    invite = LINK.search(part(mailbox.to("nina@example.net")[-1], "plain")).group(1)
    assert take_seat(runtime, invite).done
    assert runtime.service.seat_for_token(invite).seat == 0
    assert runtime.service.seats(game_id)[0].name == "Nina"


def test_one_address_is_limited_whatever_its_case_and_plus_tags(runtime, clock):
    first, second = open_seats(runtime, clock), open_seats(runtime, clock)
    limit = runtime.config["limits"]["seat_requests_per_address_per_day"]
    assert limit == 3
    # Spread over two games' seats, so no seat's own count is reached.
    for game_id, email in [
        (first, "eve@example.net"),
        (second, "Eve+1@example.net"),
        (first, "eve+2@EXAMPLE.net"),
    ]:
        assert request_open_seat(runtime, game_id, 0, "Eve", email).done
    game_id = second
    with Session(runtime.db) as session:
        before = session.get(SeatOffer, (game_id, 0)).token_hash
    mails = len(mails_to(runtime, "eve+x@example.net"))
    clock.advance(hours=2)
    with pytest.raises(TooMany) as refused:
        request_open_seat(runtime, game_id, 0, "Eve", "eve+x@example.net")
    # Why, and until when in words: 22 hours on, when the first request is a day old.
    assert "at most 3" in refused.value.message
    assert "you can ask again from" in refused.value.message
    assert "in 22 hours" in refused.value.message
    with Session(runtime.db) as session:
        assert session.get(SeatOffer, (game_id, 0)).token_hash == before
    assert len(mails_to(runtime, "eve+x@example.net")) == mails
    # Somebody else is not touched by Eve's count.
    assert request_open_seat(runtime, game_id, 0, "Finn", "finn@example.net").done
    clock.advance(hours=22, minutes=1)
    assert request_open_seat(runtime, game_id, 0, "Eve", "eve+x@example.net").done


def test_one_client_is_limited_through_the_web(db, tmp_path, clock, smtp):
    runtime = make_runtime(
        db, tmp_path, clock, smtp[1], limits={"seat_requests_per_client_per_day": 2}
    )
    game_id = open_seats(runtime, clock)
    client = web_app(runtime).test_client()
    flood = [
        ask(client, game_id, 0, f"sock{number}@example.net", "203.0.113.7") for number in range(3)
    ]
    assert [answer.status_code for answer in flood] == [303, 303, 429]
    text = flood[-1].get_data(as_text=True)
    assert "from your network address" in text and "you can ask again from" in text
    assert mails_to(runtime, "sock2@example.net") == []
    assert ask(client, game_id, 0, "nina@example.net", "203.0.113.8").status_code == 303


def test_a_reservation_lapses_after_48_hours(runtime, clock, mailbox, app):
    game_id = open_seats(runtime, clock)
    client = app.test_client()
    assert ask(client, game_id, 0, "nina@example.net", "203.0.113.9").status_code == 303
    dispatch(runtime)
    mail = part(mailbox.to("nina@example.net")[-1], "plain")
    assert "The link works until" in mail
    link = LINK.search(mail).group(1)
    clock.advance(hours=47)
    assert client.get(f"/play/{link}").status_code == 200  # still the take form
    clock.advance(hours=1, minutes=1)
    lapsed = client.get(f"/play/{link}")
    text = lapsed.get_data(as_text=True)
    assert lapsed.status_code == 410
    assert "lapsed" in text and "48 hours" in text and "ask for it again" in text
    with pytest.raises(Gone):
        take_seat(runtime, link)
    token = CSRF.search(client.get(f"/games/{game_id}").get_data(as_text=True)).group(1)
    taken = client.post(f"/play/{link}/take", data={"csrf_token": token, "name": "Nina"})
    assert taken.status_code == 410
    assert runtime.service.seats(game_id)[0].email == ""
    # The seat is still open: asking again gives a fresh link that works.
    assert f"/games/{game_id}/seats/0/take" in client.get(f"/games/{game_id}").text
    again = request_open_seat(runtime, game_id, 0, "Nina", "nina@example.net")
    assert take_seat(runtime, again.token).done
