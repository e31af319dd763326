"""The rescue page reached from a seat's link, and admin events in the history."""

from __future__ import annotations

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
