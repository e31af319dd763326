"""Names are unique within a game (case and spaces aside) on every road, and a note "to
NAME" in an older game where two players share a name is refused, never guessed."""

from __future__ import annotations

import re

import pytest

from pbem import cli
from pbem.errors import BadInput
from pbem.games import invitations, rescue
from pbem.games.service import SeatSpec
from pbem.games.talk import recipient_seat
from tests.security.conftest import new_game

CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def test_the_lobby_refuses_two_players_of_one_name(runtime, app):
    client = app.test_client()
    form = {
        "csrf_token": CSRF.search(client.get("/").text).group(1),
        "game": "pig",
        "let_server_draw": "on",
        "option_pig_target": "30",
        "seat_name_0": "Ann",
        "seat_email_0": "ann@example.org",
        "seat_name_1": " ANN ",
        "seat_email_1": "other@example.org",
    }
    answer = client.post("/games", data=form)
    assert answer.status_code == 400
    assert "Two seats are called &#39;ANN&#39;" in answer.text
    assert runtime.service.games() == []
    # Left empty, a name comes from the address: two addresses alike before "@" clash too.
    answer = client.post(
        "/games",
        data={**form, "seat_name_0": "", "seat_name_1": "", "seat_email_1": "ann@example.com"},
    )
    assert answer.status_code == 400 and "Two seats are called" in answer.text
    assert runtime.service.games() == []


def test_pbem_new_and_the_service_refuse_two_players_of_one_name(runtime, monkeypatch, capsys):
    monkeypatch.setattr(cli, "_runtime", lambda args: runtime)
    seats = ["--seat", "Ann:ann@example.org", "--seat", "ann:other@example.org"]
    assert cli.main(["new", "pig", *seats]) == 1
    assert "Two seats are called 'ann'" in capsys.readouterr().err
    with pytest.raises(BadInput, match="Two seats are called"):
        runtime.service.create_game(
            "pig", [SeatSpec("Bo", "a@example.org"), SeatSpec("BO", "b@example.org")], {}
        )
    assert runtime.service.games() == []


def test_a_newcomer_may_not_take_a_players_name(runtime):
    game = new_game(runtime, seats=3).game_id  # Anna, Ben, Cleo
    assert rescue.leave_game(runtime, game, 1, by=1).done
    with pytest.raises(BadInput, match="called 'anna' already"):
        invitations.request_open_seat(runtime, game, 1, "anna", "zoe@example.org")
    with pytest.raises(BadInput, match="called 'CLEO' already"):
        invitations.invite_replacement(runtime, game, 1, "CLEO", "zoe@example.org")
    asked = invitations.request_open_seat(runtime, game, 1, "Zoe", "zoe@example.org")
    head = runtime.service.head(game).seq
    with pytest.raises(BadInput, match="called 'Cleo' already"):
        invitations.take_seat(runtime, asked.token, "Cleo ")
    assert runtime.service.head(game).seq == head
    # Ben's old name is free for the seat's own newcomer.
    assert invitations.take_seat(runtime, asked.token, "Ben").done
    assert [seat.name for seat in runtime.service.seats(game)] == ["Anna", "Ben", "Cleo"]


def test_a_note_to_a_name_two_players_share_is_refused():
    names = ["Ann", "Ben", "ann"]  # an older game, from before names were unique
    with pytest.raises(BadInput, match="More than one player of this game is called"):
        recipient_seat("ANN", names, 1)
    assert recipient_seat("ann", names, 0) == 2  # Ann's note to the other Ann
    assert recipient_seat("Ben", names, 0) == 1
    with pytest.raises(BadInput, match="to yourself"):
        recipient_seat("ben", names, 1)
