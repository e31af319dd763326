"""Floods and bad text through the lobby, written as the attacker: games created as fast
as the server answers, invitations heaped on one address, titles and addresses that
would break a mail header. Each is refused with a sentence and changes nothing."""

from __future__ import annotations

import html
import re

import pytest
from sqlmodel import Session, func, select

from pbem.mail.dispatch import dispatch
from pbem.mail.models import Mail
from pbem.web import create_app
from tests.mail.conftest import make_runtime

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def lobby_client(runtime):
    client = create_app({"TESTING": True}, runtime=runtime).test_client()
    csrf = CSRF.search(client.get("/").text).group(1)
    return client, csrf


def create(client, csrf, *, title="A game", **seats):
    data = {
        "csrf_token": csrf,
        "game": "pig",
        "let_server_draw": "on",
        "option_pig_target": "30",
        "title": title,
    }
    data.update(seats)
    return client.post("/games", data=data)


def invitations(runtime, address: str) -> int:
    with Session(runtime.db) as session:
        return session.exec(
            select(func.count())
            .select_from(Mail)
            .where(Mail.kind == "invitation", Mail.recipient == address)
        ).one()


@pytest.fixture
def limited(db, tmp_path, clock, smtp):
    def build(**limits):
        return make_runtime(db, tmp_path, clock, smtp[1], limits=limits)

    return build


def test_game_creation_flood_from_one_client_gets_429(limited):
    runtime = limited(create_game="3 per hour", invitations_per_address_per_day=100)
    client, csrf = lobby_client(runtime)
    for index in range(3):
        answer = create(client, csrf, seat_name_0="Eve", seat_email_0=f"p{index}@example.org")
        assert answer.status_code == 303
    answer = create(client, csrf, seat_name_0="Eve", seat_email_0="p9@example.org")
    assert answer.status_code == 429
    assert "Too many requests from your address (at most 3 per 1 hour)" in answer.text
    assert int(answer.headers["Retry-After"]) > 0
    assert len(runtime.service.games()) == 3
    assert invitations(runtime, "p9@example.org") == 0
    # Another client is not held back by the first one's flood.
    other = client.application.test_client()
    other_csrf = CSRF.search(other.get("/", environ_base={"REMOTE_ADDR": "10.0.0.2"}).text)[1]
    answer = other.post(
        "/games",
        data={
            "csrf_token": other_csrf,
            "game": "pig",
            "let_server_draw": "on",
            "seat_email_0": "q@example.org",
            "option_pig_target": "30",
        },
        environ_base={"REMOTE_ADDR": "10.0.0.2"},
    )
    assert answer.status_code == 303, answer.text


def test_invitation_flood_to_one_address_stops_at_the_daily_limit(limited, mailbox, clock):
    runtime = limited(create_game="1000 per hour", invitations_per_address_per_day=3)
    client, csrf = lobby_client(runtime)
    seats = {"seat_name_0": "Eve", "seat_email_0": "eve@example.org", "seat_name_1": "Vic"}
    for _ in range(3):
        answer = create(client, csrf, seat_email_1="victim@example.org", **seats)
        assert answer.status_code == 303
    for address in ("victim@example.org", "VICTIM@example.org", "victim@EXAMPLE.org"):
        answer = create(client, csrf, seat_email_1=address, **seats)
        assert answer.status_code == 429, address
        assert "at most 3 invitations in 24 hours" in answer.text
        assert 'value="Vic"' in answer.text  # the form keeps what was typed
    assert len(runtime.service.games()) == 3
    assert invitations(runtime, "victim@example.org") == 3
    while dispatch(runtime).claimed:
        pass
    assert len(mailbox.to("victim@example.org")) == 3
    clock.advance(days=1, minutes=1)
    assert create(client, csrf, seat_email_1="victim@example.org", **seats).status_code == 303
    assert invitations(runtime, "victim@example.org") == 4


@pytest.mark.parametrize(
    ("fields", "sentence"),
    [
        ({"title": "Hi\r\nBcc: all@evil.example"}, "title may not contain line breaks"),
        ({"title": "x" * 500}, "title may be at most 120 characters"),
        ({"title": "nul\x00byte"}, "may not contain NUL characters"),
        ({"seat_email_0": "eve@example.org\r\nBcc: all@evil.example"}, "Seat 1:"),
        ({"seat_email_0": "eve@example.org,all@evil.example"}, "exactly one email address"),
        ({"seat_email_0": "Eve <eve@example.org>"}, "exactly one email address"),
        ({"seat_email_0": "eve@"}, "not an email address we can send to"),
        ({"seat_name_0": "Eve\nBcc"}, "name may not contain line breaks"),
        ({"seat_name_0": "E" * 61}, "name may be at most 60 characters"),
    ],
)
def test_lobby_refuses_text_that_would_break_a_mail(runtime, fields, sentence):
    client, csrf = lobby_client(runtime)
    data = {"seat_name_0": "Eve", "seat_email_0": "eve@example.org", **fields}
    answer = create(client, csrf, **{"title": "A game", **data})
    assert answer.status_code == 400
    assert sentence in answer.text
    assert runtime.service.games() == []
    with Session(runtime.db) as session:
        assert session.exec(select(func.count()).select_from(Mail)).one() == 0


def test_a_refused_form_keeps_what_was_typed(runtime):
    client, csrf = lobby_client(runtime)
    answer = create(
        client,
        csrf,
        title="Tuesday game",
        seat_name_0="Eve",
        seat_email_0="eve@example.org",
        seat_name_1="Bob",
        seat_email_1="bob@example.org, carl@example.org",
    )
    assert answer.status_code == 400
    assert "Seat 2: Give exactly one email address" in answer.text
    for typed in ("Tuesday game", "eve@example.org", "Bob", "bob@example.org, carl@example.org"):
        assert f'value="{typed}"' in answer.text


def test_a_refusal_under_the_api_is_json(runtime):
    app = create_app({"TESTING": True}, runtime=runtime)
    limiter = app.extensions["pbem_limiter"]

    def ping():
        return {"ok": True}

    app.add_url_rule("/api/ping", view_func=limiter.limit("1 per hour")(ping))
    client = app.test_client()
    assert client.get("/api/ping").status_code == 200
    answer = client.get("/api/ping")
    assert answer.status_code == 429 and answer.is_json
    assert answer.json == {
        "error": {
            "status": 429,
            "message": "Too many requests from your address (at most 1 per 1 hour). "
            "Please wait a while and try again.",
        }
    }


def test_a_game_made_in_two_steps_counts_once_against_the_creation_limit(limited):
    runtime = limited(create_game="2 per hour", invitations_per_address_per_day=100)
    client, csrf = lobby_client(runtime)
    field = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')
    for index in range(2):
        data = {"csrf_token": csrf, "game": "pig", "option_pig_target": "30"}
        data.update(seat_name_0="Eve", seat_email_0=f"p{index}@example.org")
        first = client.post("/games", data=data)  # the commitment, and a field to add to it
        assert first.status_code == 200 and 'name="pending"' in first.text
        second = {name: html.unescape(value) for name, value in field.findall(first.text)}
        assert second["pending"]
        second["contribution"] = f"Eve's {index}"
        assert client.post("/games", data=second).status_code == 303
    assert len(runtime.service.games()) == 2
    # A third first step is over the limit.
    answer = create(client, csrf, seat_name_0="Eve", seat_email_0="p9@example.org")
    assert answer.status_code == 429
