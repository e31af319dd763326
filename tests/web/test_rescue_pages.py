"""The rescue page reached from a seat's link, and admin events in the history."""

from __future__ import annotations

import re

from sqlmodel import Session

from pbem import zones
from pbem.games import vacations
from pbem.games.rescue import hand_to_bot, reclaim
from pbem.games.vacations import end_vacation, start_vacation
from pbem.models import Seat
from tests.web.conftest import csrf_of, pig_game


def test_a_seat_reaches_the_rescue_page_and_its_vacation_shows_in_the_history(runtime, client):
    created = pig_game(runtime)
    token = created.tokens[0]
    page = client.get(f"/play/{token}").get_data(as_text=True)
    assert f"/rescue/{token}" in page
    rescue_page = client.get(f"/rescue/{token}")
    assert rescue_page.status_code == 200
    answer = client.post(
        f"/rescue/{token}",
        data={
            "csrf_token": csrf_of(rescue_page.get_data(as_text=True)),
            "action": "vacation",
            "days": "3",
        },
    )
    assert answer.status_code in (302, 303)
    history = client.get(f"/play/{token}/history").get_data(as_text=True)
    assert "on vacation until" in history


def test_a_forged_link_gets_no_rescue_page(client):
    assert client.get("/rescue/" + "x" * 43).status_code == 404


def test_a_reclaimed_seats_old_link_explains_what_happened_and_what_to_do(runtime, client):
    created = pig_game(runtime, seats=3)
    game, old = created.game_id, created.tokens[1]
    hand_to_bot(runtime, game, 1, by=1)
    fresh = reclaim(runtime, game, 1, by=1).token
    assert client.get(f"/play/{fresh}").status_code == 200
    for path in (f"/play/{old}", f"/play/{old}/history"):
        answer = client.get(path)
        assert answer.status_code == 410, path
        page = answer.get_data(as_text=True)
        assert "taken back from the bot" in page and "newest mail from this game" in page
        assert "ask the game&#39;s creator" in page
    page = client.get(f"/play/{old}").get_data(as_text=True)
    assert "This link no longer opens a seat" in page and f"/games/{game}" in page


def test_a_seat_on_vacation_is_marked_in_the_players_list_until_when(runtime, client):
    created = pig_game(runtime, seats=2)
    game = created.game_id
    assert start_vacation(runtime, game, 1, 2).done
    until = vacations.away_until(runtime, game)[1]
    with Session(runtime.db) as session:
        bob = session.get(Seat, (game, 0))
        bob.timezone = "Asia/Tokyo"
        session.add(bob)
        session.commit()
    seat_page = client.get(f"/play/{created.tokens[0]}").get_data(as_text=True)
    local = zones.stamp(until, "Asia/Tokyo")
    assert local.endswith("JST")
    assert re.search(rf"on vacation until <time datetime=\"[^\"]+\">{local}</time>", seat_page)
    public = client.get(f"/games/{game}").get_data(as_text=True)
    stamp = zones.stamp(until, "UTC")
    assert re.search(
        rf"on vacation until <time datetime=\"[^\"]+\" data-local>{stamp}</time>", public
    )
    assert public.count("· on vacation until") == 1  # the players list; the history has its line
    end_vacation(runtime, game, 1)
    for path in (f"/play/{created.tokens[0]}", f"/games/{game}"):
        assert "· on vacation" not in client.get(path).get_data(as_text=True)
