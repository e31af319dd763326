"""The pages over HTTP: lobby, turn page and its forms, spectator, history and audit."""

from __future__ import annotations

import json
import re

import pytest
from markupsafe import escape

from tests.web.conftest import csrf_of, form_fields, pig_game


def post_move(client, token, move, seq, csrf):
    """Posts a listed move, already confirmed (tests/web/test_confirm.py: the second step)."""
    data = {"csrf_token": csrf, "seq": seq, "move": json.dumps(move), "confirmed": "1"}
    return client.post(f"/play/{token}/move", data=data)


def test_lobby_creates_a_game_with_invitations_and_bots(client, runtime):
    lobby = client.get("/")
    assert lobby.status_code == 200 and "Start a game" in lobby.text
    csrf = csrf_of(lobby.text)
    answer = client.post(
        "/games",
        data={
            "csrf_token": csrf,
            "game": "pig",
            "let_server_draw": "on",
            "option_pig_target": "30",
            "seat_name_0": "Ann",
            "seat_email_0": "ann@example.org",
            "seat_name_1": "",
            "seat_email_1": "bot",
            "seat_email_2": "bot:easy",
            "reminder_after_hours": "12",
            "reminder_every_hours": "24",
            "deadline_after_days": "3",
            "at_deadline": "bot_turn",
        },
    )
    assert answer.status_code == 303 and "/play/" in answer.location
    (game,) = runtime.service.games()
    assert game.options["target"] == 30 and game.policy["at_deadline"] == "bot_turn"
    seats = runtime.service.seats(game.id)
    assert [seat.is_bot for seat in seats] == [False, True, True]
    assert [seat.bot_level for seat in seats[1:]] == ["normal", "easy"]
    assert client.get(answer.location).status_code == 200


def test_lobby_refuses_bad_input_and_creates_nothing(client, runtime):
    csrf = csrf_of(client.get("/").text)
    for data in (
        {"game": "chess"},
        {
            "game": "pig",
            "let_server_draw": "on",
            "seat_name_0": "Ann",
            "seat_email_0": "not an address",
        },
        {"game": "pig", "let_server_draw": "on", "seat_email_0": "bot"},
        {
            "game": "pig",
            "let_server_draw": "on",
            "seat_email_0": "a@b.org",
            "option_pig_target": "many",
        },
        {
            "game": "pig",
            "let_server_draw": "on",
            "seat_email_0": "a@b.org",
            "deadline_after_days": "-1",
        },
        {
            "game": "pig",
            "let_server_draw": "on",
            "seat_email_0": "a@b.org",
            "seat_email_1": "bot",
            "seat_level_1": "hard",
        },
    ):
        answer = client.post("/games", data={"csrf_token": csrf, **data})
        assert answer.status_code == 400, data
    assert runtime.service.games() == []


def test_a_move_by_form_changes_the_page(client, runtime):
    created = pig_game(runtime)
    token = created.tokens[0]
    page = client.get(f"/play/{token}")
    assert "It is your turn" in page.text and "Roll the die" in page.text
    csrf, seq = form_fields(page.text)
    answer = post_move(client, token, {"type": "stop"}, seq, csrf)
    assert answer.status_code == 303
    page = client.get(answer.location)
    assert "Waiting for P1" in page.text and "stops and banks 0 points" in page.text


def test_stale_form_answers_that_the_game_moved_on(client, runtime):
    created = pig_game(runtime)
    token = created.tokens[0]
    csrf, seq = form_fields(client.get(f"/play/{token}").text)
    runtime.service.submit_move(created.game_id, 0, {"type": "stop"}, seq)
    answer = post_move(client, token, {"type": "roll"}, seq, csrf)
    assert answer.status_code == 409 and "moved on" in answer.text
    assert runtime.service.head(created.game_id).seq == 1
    assert "(event 1)" in answer.text


def test_illegal_move_shows_the_engines_reason(client, runtime):
    created = pig_game(runtime)
    token = created.tokens[1]
    csrf, _ = form_fields(client.get(f"/play/{created.tokens[0]}").text)
    answer = post_move(client, token, {"type": "roll"}, 0, csrf)
    assert answer.status_code == 422 and "It is not your turn." in answer.text
    answer = post_move(client, created.tokens[0], {"type": "fly"}, 0, csrf)
    assert answer.status_code == 422 and "Unknown move type" in answer.text
    assert runtime.service.head(created.game_id).seq == 0


def test_bots_answer_after_a_human_move(client, runtime):
    created = pig_game(runtime, seats=2, bots=(1,))
    token = created.tokens[0]
    csrf, seq = form_fields(client.get(f"/play/{token}").text)
    with client:
        answer = post_move(client, token, {"type": "stop"}, seq, csrf)
        answer.close()
    head = runtime.service.head(created.game_id)
    assert head.seq > 1 and 0 in head.engine.to_move(head.state) or head.game.status == "finished"


def test_spectator_history_and_audit(client, runtime):
    created = pig_game(runtime, target=5, bots=(0, 1))
    game_id = created.game_id
    runtime.service.play_bots(game_id)
    game = runtime.service.game(game_id)
    assert game.status == "finished"
    page = client.get(f"/games/{game_id}")
    assert page.status_code == 200 and "Result" in page.text and "<svg" in page.text
    for at in (0, 1, game.head_seq, 10_000, -3, "x"):
        step = client.get(f"/games/{game_id}/history?at={at}")
        assert step.status_code == 200 and 'id="event-line"' in step.text
    audit = client.get(f"/games/{game_id}/audit")
    assert game.commitment in audit.text and "pbem verify" in audit.text
    revealed = runtime.service.events(game_id)[-1]["payload"]["seed"]
    assert revealed in audit.text
    export = client.get(f"/games/{game_id}/export.json")
    assert export.status_code == 200 and export.json["scope"] == "full"


def test_running_game_keeps_its_seed_and_full_log(client, runtime):
    created = pig_game(runtime)
    audit = client.get(f"/games/{created.game_id}/audit")
    assert audit.status_code == 200 and "stays secret" in audit.text
    assert client.get(f"/games/{created.game_id}/export.json").status_code == 422
    own = client.get(f"/play/{created.tokens[0]}/export.json")
    assert own.status_code == 200 and own.json["scope"] == "seat" and "seed" not in own.json


def test_pages_fit_a_phone_and_carry_letters_with_colours(client, runtime):
    created = pig_game(runtime)
    page = client.get(f"/play/{created.tokens[0]}").text
    assert 'name="viewport"' in page and 'class="chip"' in page


def test_sent_mail_page_lists_the_invitations(client, runtime):
    created = pig_game(runtime)
    listing = client.get("/dev/mail")
    assert listing.status_code == 200
    assert created.game_id in listing.text or "p0@example.org" in listing.text


def test_cards_chosen_by_clicking_make_a_move(client, runtime):
    from pbem.games.service import SeatSpec

    seats = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(2)]
    created = runtime.service.create_game("mercatores", seats, seed=b"\x02" * 32)
    due = runtime.service.game(created.game_id).to_move[0]
    token = created.tokens[due]
    page = client.get(f"/play/{token}")
    assert 'name="l.take"' in page.text
    csrf, seq = form_fields(page.text)
    base = {"csrf_token": csrf, "seq": seq, "move_type": "trade", "lists": "take"}
    nothing = client.post(f"/play/{token}/move", data=base)
    assert nothing.status_code == 422 and "That move was not made" in nothing.text
    move = next(
        m
        for m in client.get(f"/api/play/{token}").json["legal_moves"]
        if m["move"]["type"] == "trade"
    )["move"]
    chosen = client.post(
        f"/play/{token}/move", data={**base, "f.give": move["give"], "l.take": move["take"]}
    )
    assert chosen.status_code == 303
    assert runtime.service.events(created.game_id)[-1]["payload"]["move"] == move


@pytest.mark.parametrize("slug", ["mercatores", "mare_balticum", "mare_nostrum"])
def test_the_lobby_offers_each_games_options_and_creates_it(client, runtime, slug):
    from engines import get_engine

    engine = get_engine(slug)
    lobby = client.get("/").text
    data = {"csrf_token": csrf_of(lobby), "game": slug}
    for option in engine.options:
        field = f"option_{slug}_{option.name}"
        assert f'name="{field}"' in lobby and str(escape(option.help[:40])) in lobby
        if isinstance(option.default, bool):
            if not option.default:
                data[field] = "on"
        else:
            data[field] = str(option.choices[-1] if option.choices else option.default)
    for index in range(engine.min_seats):
        data[f"seat_name_{index}"] = f"P{index}"
        data[f"seat_email_{index}"] = "bot" if index else "p0@example.org"
    # The first step: the server shows its seed's commitment; nothing is made yet.
    step = client.post("/games", data=data)
    assert step.status_code == 200 and runtime.service.games() == []
    commitment = re.search(r'<code class="hash">([0-9a-f]{64})</code>', step.text)[1]
    pending = re.search(r'name="pending" value="([0-9a-z]+)"', step.text)[1]
    assert 'name="contribution"' in step.text and "dice.js" in step.text
    # The second: the creator's contribution (the page's script fills in random hex).
    answer = client.post("/games", data={**data, "pending": pending, "contribution": "f00d" * 8})
    assert answer.status_code == 303, answer.text
    (game,) = runtime.service.games()
    assert game.engine == slug and game.commitment == commitment and game.id == pending
    created = runtime.service.events(game.id)[0]["payload"]
    assert created["contributions"][0]["by"] == "browser"
    assert created["contributions"][0]["contribution"] == "f00d" * 8
    assert client.get(answer.location).status_code == 200
    # The same second step again (a double click, a forged or replayed form): refused,
    # nothing more made.
    again = client.post("/games", data={**data, "pending": pending, "contribution": "x"})
    assert again.status_code == 422 and "made already" in again.text
    forged = client.post("/games", data={**data, "pending": "zzzz", "contribution": "x"})
    assert forged.status_code == 422 and "not one the server gave" in forged.text
    assert len(runtime.service.games()) == 1
