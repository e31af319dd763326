"""One person is one address (case and ``+tags`` aside) for every "one seat per person"
rule and every per-address limit; mail still goes to the address as given."""

from __future__ import annotations

import re

import pytest
from sqlmodel import Session, func, select

from pbem.errors import NotAllowed
from pbem.games import invitations, rescue
from pbem.games.tables import FormerPlayer
from pbem.mail.models import Mail
from pbem.web import create_app
from tests.security.conftest import make_runtime, new_game

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def open_seats(runtime, *seats: int):
    """A game of Anna, Ben and Cleo in which ``seats`` left (open to newcomers)."""
    created = new_game(runtime, seats=3)
    for seat in seats:
        assert rescue.leave_game(runtime, created.game_id, seat, by=seat).done
    return created.game_id


def test_a_player_cannot_take_a_second_seat_under_a_plus_address(runtime):
    game = open_seats(runtime, 1)
    for address in ("anna+2@example.org", "ANNA@example.org", "Anna+seat-2@Example.org"):
        with pytest.raises(NotAllowed, match="belongs to a player of this game"):
            invitations.request_open_seat(runtime, game, 1, "Nobody", address)
        with pytest.raises(NotAllowed, match="belongs to a player of this game"):
            invitations.invite_replacement(runtime, game, 2, "Nobody", address)
    assert [seat.email for seat in runtime.service.seats(game)] == [
        "anna@example.org",
        "",
        "cleo@example.org",
    ]
    kinds = [event["kind"] for event in runtime.service.events(game)]
    assert kinds.count("seat_taken") == 0 and kinds.count("seat_offered") == 0


def test_a_newcomer_cannot_hold_two_seats_by_taking_both_invitations(runtime):
    game = open_seats(runtime, 1, 2)
    first = invitations.request_open_seat(runtime, game, 1, "Zoe", "zoe@example.org")
    second = invitations.request_open_seat(runtime, game, 2, "Zed", "zoe+2@example.org")
    assert invitations.take_seat(runtime, first.token).done
    head = runtime.service.head(game).seq
    with pytest.raises(NotAllowed, match="belongs to a player of this game"):
        invitations.take_seat(runtime, second.token)
    assert runtime.service.head(game).seq == head
    seats = runtime.service.seats(game)
    assert seats[1].email == "zoe@example.org" and seats[2].email == ""


def test_a_former_player_returns_under_another_form_of_their_address(runtime):
    game = open_seats(runtime, 1)
    outcome = invitations.request_open_seat(runtime, game, 1, "Ben", "BEN+back@example.org")
    assert invitations.take_seat(runtime, outcome.token).done
    taken = runtime.service.events(game)[-1]
    assert taken["kind"] == "seat_taken" and taken["payload"]["returning"] is True
    # Mail goes to the address as given.
    assert runtime.service.seats(game)[1].email == "BEN+back@example.org"
    with Session(runtime.db) as session:
        formers = session.exec(select(FormerPlayer).where(FormerPlayer.game_id == game)).all()
    assert formers == []


def invitation_mails(runtime) -> int:
    with Session(runtime.db) as session:
        return session.exec(
            select(func.count()).select_from(Mail).where(Mail.kind == "invitation")
        ).one()


def test_the_invitation_limit_counts_one_person_under_every_form(db, tmp_path, clock, smtp):
    runtime = make_runtime(
        db,
        tmp_path,
        clock,
        smtp[1],
        limits={"create_game": "1000 per hour", "invitations_per_address_per_day": 3},
    )
    client = create_app({"TESTING": True}, runtime=runtime).test_client()
    csrf = CSRF.search(client.get("/").text).group(1)

    creators = iter(range(100))

    def create(victim: str):
        data = {
            "csrf_token": csrf,
            "game": "pig",
            "let_server_draw": "on",
            "option_pig_target": "30",
            "seat_name_0": "Eve",
            "seat_email_0": f"eve{next(creators)}@example.org",
            "seat_name_1": "Vic",
            "seat_email_1": victim,
        }
        return client.post("/games", data=data)

    for address in ("victim+1@example.org", "Victim+2@example.org", "victim@example.org"):
        assert create(address).status_code == 303
    for address in ("victim+4@example.org", "VICTIM@example.org", "victim+a+b@EXAMPLE.org"):
        answer = create(address)
        assert answer.status_code == 429, address
        assert "at most 3 invitations in 24 hours" in answer.text
    # Wildcards in an address are letters, not patterns: v_ctim is someone else.
    assert create("v_ctim@example.org").status_code == 303
    assert create("v%ctim+x@example.org").status_code == 303
    assert invitation_mails(runtime) == 2 * 5
