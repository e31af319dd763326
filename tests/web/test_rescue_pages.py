"""The rescue page reached from a seat's link, and admin events in the history."""

from __future__ import annotations

from pbem.games.rescue import hand_to_bot, reclaim
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
