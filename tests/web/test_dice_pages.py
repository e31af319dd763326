"""A seat's contribution to the dice from its page, with or without script; a move by
the API or a page without one gets one drawn by the server first."""

from __future__ import annotations

from tests.web.conftest import csrf_of, pig_game


def test_a_seat_contributes_once_from_its_page(client, runtime):
    created = pig_game(runtime)
    game_id, token = created.game_id, created.tokens[1]
    page = client.get(f"/play/{token}").text
    assert 'id="contribute"' in page and "dice.js" in page
    creator_page = client.get(f"/play/{created.tokens[0]}").text
    assert 'id="contribute"' not in creator_page  # the creator gave hers at creation
    csrf = csrf_of(page)
    # Without script: the small form, and back to the page.
    answer = client.post(
        f"/play/{token}/contribute", data={"csrf_token": csrf, "contribution": "typed by P1"}
    )
    assert answer.status_code == 303
    (given,) = [row for row in runtime.service.events(game_id) if row["kind"] == "contribution"]
    assert given["seat"] == 1 and given["payload"]["contribution"] == "typed by P1"
    assert given["payload"]["by"] == "browser"
    assert 'id="contribute"' not in client.get(f"/play/{token}").text
    # A second one is refused, and changes nothing.
    again = client.post(
        f"/play/{token}/contribute",
        data={"csrf_token": csrf, "contribution": "again"},
        headers={"Accept": "application/json"},
    )
    assert again.status_code == 422 and "already" in again.get_json()["error"]
    assert runtime.service.game(game_id).head_seq == given["seq"]


def test_the_scripts_answer_names_the_new_event(client, runtime):
    created = pig_game(runtime)
    token = created.tokens[1]
    csrf = csrf_of(client.get(f"/play/{token}").text)
    answer = client.post(
        f"/play/{token}/contribute",
        data={"csrf_token": csrf, "contribution": "ab" * 32},
        headers={"Accept": "application/json"},
    )
    body = answer.get_json()
    assert answer.status_code == 200 and body["before"] == 0 and body["seq"] == 1
    assert body["head"] == runtime.service.game(created.game_id).head_hash


def test_a_first_move_by_the_api_gets_a_server_drawn_contribution(client, runtime):
    created = pig_game(runtime)
    runtime.service.submit_move(created.game_id, 0, {"type": "stop"}, 0)
    token = created.tokens[1]
    # Not the seat's turn yet would be refused: nothing is drawn for it.
    refused = client.post(
        f"/api/play/{token}/moves", json={"move": {"type": "fly"}, "expected_seq": 1}
    )
    assert refused.status_code == 422
    assert runtime.service.needs_contribution(created.game_id, 1)
    answer = client.post(
        f"/api/play/{token}/moves", json={"move": {"type": "roll"}, "expected_seq": 1}
    )
    assert answer.status_code == 200, answer.text
    kinds = [row["kind"] for row in runtime.service.events(created.game_id, after=1)]
    assert kinds[:2] == ["contribution", "move"]
    given = runtime.service.events(created.game_id, after=1)[0]
    assert given["payload"]["by"] == "server" and given["seat"] == 1
