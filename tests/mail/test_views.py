"""The rescue page reached from a seat's link: forms, votes, bad input."""

from __future__ import annotations

import re

from sqlmodel import Session, select

from pbem.mail.models import Mail
from tests.mail.conftest import as_sent, new_game


def csrf(client, path: str) -> str:
    page = client.get(path)
    assert page.status_code == 200
    return re.search(rb'name="csrf_token" value="([^"]+)"', page.data).group(1).decode()


def test_rescue_page_vacation_and_seat_actions(runtime, app):
    created = new_game(runtime, seats=3, policy={"at_deadline": "bot_seat"})
    game, tokens = created.game_id, created.tokens
    client = app.test_client()
    page = client.get(f"/rescue/{tokens[1]}")
    assert b"a bot takes over the seat" in page.data and b"Hand my seat to a bot" in page.data
    token = csrf(client, f"/rescue/{tokens[1]}")
    answer = client.post(
        f"/rescue/{tokens[1]}", data={"action": "vacation", "days": "2", "csrf_token": token}
    )
    assert answer.status_code == 302
    assert runtime.service.events(game)[-1]["kind"] == "vacation"
    head = runtime.service.head(game).seq
    for voter in (1, 0):  # a player, then the creator, against present Cleo
        vote = client.post(
            f"/rescue/{tokens[voter]}", data={"action": "to_bot", "seat": "2", "csrf_token": token}
        )
        assert vote.status_code == 403 and b"present" in vote.data
    assert not runtime.service.seats(game)[2].is_bot
    own = {"action": "to_bot", "seat": "2", "csrf_token": token}
    asked = client.post(f"/rescue/{tokens[2]}", data=own)
    assert asked.status_code == 200 and b"Yes, hand my seat to a bot" in asked.data
    assert not runtime.service.seats(game)[2].is_bot and runtime.service.head(game).seq == head
    confirmed = client.post(f"/rescue/{tokens[2]}", data={**own, "confirm": "yes"})
    assert confirmed.status_code == 302 and runtime.service.seats(game)[2].is_bot
    back = client.post(
        f"/rescue/{tokens[2]}", data={"action": "reclaim", "seat": "2", "csrf_token": token}
    )
    assert back.status_code == 302
    fresh = back.headers["Location"].rsplit("/", 1)[-1]
    assert runtime.service.seat_for_token(fresh).seat == 2
    old = client.get(f"/rescue/{tokens[2]}")  # the old link says what happened
    assert old.status_code == 410 and b"newest mail from this game" in old.data


def test_bad_rescue_forms_get_a_clear_4xx_and_change_nothing(runtime, app):
    created = new_game(runtime, seats=3)
    game, tokens = created.game_id, created.tokens
    client = app.test_client()
    token = csrf(client, f"/rescue/{tokens[1]}")
    head = runtime.service.head(game).seq
    cases = [
        ({"action": "fly", "csrf_token": token}, 400),
        ({"action": "to_bot", "seat": "x", "csrf_token": token}, 400),
        ({"action": "to_bot", "seat": "9", "csrf_token": token}, 404),
        ({"action": "vacation", "days": "99", "csrf_token": token}, 400),
        ({"action": "replace", "seat": "2", "name": "E", "email": "e", "csrf_token": token}, 400),
        ({"action": "to_bot", "seat": "2"}, 400),
    ]
    for data, status in cases:
        answer = client.post(f"/rescue/{tokens[1]}", data=data)
        assert answer.status_code == status, data
    assert client.get("/rescue/" + "x" * 43).status_code == 404
    assert runtime.service.head(game).seq == head


def mails_to(runtime, address: str, kind: str) -> list[str]:
    with Session(runtime.db) as session:
        query = select(Mail).where(Mail.recipient == address, Mail.kind == kind)
        return [
            mail.body_text for mail in as_sent(runtime, list(session.exec(query.order_by(Mail.id))))
        ]
