"""The second step: a move that cannot be taken back asks first (a confirm page without
script, a dialog with it), and nothing is applied until it is confirmed."""

from __future__ import annotations

import html
import json
import random
import re

import pytest

from pbem.games.service import SeatSpec
from pbem.games.takeback import take_back_target
from pbem.web import create_app
from pbem.web.play import second_step
from tests.web.conftest import form_fields, pig_game

CONFIRM = re.compile(
    r'class="final" data-confirm="([^"]+)">(?:\s*<input [^>]+>)+\s*<button type="submit">([^<]+)</button>'
)


@pytest.fixture
def client(sqlite_runtime):
    app = create_app(runtime=sqlite_runtime)
    app.config["TESTING"] = True
    return app.test_client()


def post(client, token, data):
    return client.post(f"/play/{token}/move", data=data)


def test_a_move_that_hands_the_turn_over_asks_for_a_confirmation_first(client, sqlite_runtime):
    runtime = sqlite_runtime
    created = pig_game(runtime)
    token = created.tokens[0]
    page = client.get(f"/play/{token}").text
    asked = {label: html.unescape(reason) for reason, label in CONFIRM.findall(page)}
    assert asked["Stop and bank"] == ("This hands the turn over to P1; it cannot be taken back.")
    assert asked["Roll the die"] == "This move draws at random, so it cannot be taken back."
    csrf, seq = form_fields(page)
    stop = {"csrf_token": csrf, "seq": seq, "move": json.dumps({"type": "stop"})}
    answer = post(client, token, stop)
    assert answer.status_code == 200
    assert "<h1>Confirm: Stop and bank</h1>" in answer.text
    assert "This hands the turn over to P1" in answer.text
    assert f'href="/play/{token}#moves">Cancel</a>' in answer.text
    assert runtime.service.head(created.game_id).seq == 0  # nothing applied yet
    # The confirm form carries the same CSRF token and seq, and the move as JSON.
    confirm_csrf, confirm_seq = form_fields(answer.text)
    assert (confirm_csrf, confirm_seq) == (csrf, seq)
    assert 'name="confirmed" value="1"' in answer.text
    forged = post(client, token, {**stop, "confirmed": "1", "csrf_token": "forged"})
    assert forged.status_code == 400 and runtime.service.head(created.game_id).seq == 0
    made = post(client, token, {**stop, "confirmed": "1"})
    assert made.status_code == 303
    assert runtime.service.head(created.game_id).seq == 1
    # The same confirm form again is stale: the fresh page, and nothing applied.
    again = post(client, created.tokens[1], {**stop, "confirmed": "1"})
    assert again.status_code == 409 and "moved on" in again.text
    # A second click on the confirmed form is the same move answered as made (303);
    # another move from the old page is stale and asks nothing.
    assert post(client, token, {**stop, "confirmed": "1"}).status_code == 303
    stale = post(client, token, {**stop, "move": json.dumps({"type": "roll"})})
    assert stale.status_code == 409 and "Confirm:" not in stale.text
    assert runtime.service.head(created.game_id).seq == 1


def test_a_move_that_can_be_taken_back_is_made_at_once(client, sqlite_runtime):
    seats = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(2)]
    created = sqlite_runtime.service.create_game("mercatores", seats, seed=b"\x01" * 32)
    due = sqlite_runtime.service.game(created.game_id).to_move[0]
    token = created.tokens[due]
    page = client.get(f"/play/{token}").text
    head = sqlite_runtime.service.head(created.game_id)
    trade = next(m for m in head.engine.legal_moves(head.state, due) if m["type"] == "trade")
    label_of = {label for _, label in CONFIRM.findall(page)}
    assert ">Trade" in page and not any(label.startswith("Trade") for label in label_of)
    csrf, seq = form_fields(page)
    answer = post(client, token, {"csrf_token": csrf, "seq": seq, "move": json.dumps(trade)})
    assert answer.status_code == 303
    assert "Take back my last move" in client.get(f"/play/{token}").text


def test_an_illegal_or_paused_move_is_refused_rather_than_confirmed(client, sqlite_runtime):
    created = pig_game(sqlite_runtime)
    token = created.tokens[0]
    csrf, seq = form_fields(client.get(f"/play/{token}").text)
    wrong = post(client, token, {"csrf_token": csrf, "seq": seq, "move": '{"type": "fly"}'})
    assert wrong.status_code == 422 and "That move was not made" in wrong.text


@pytest.mark.parametrize("slug", ["mare_balticum", "mercatores", "mare_nostrum"])
def test_the_second_step_is_asked_exactly_for_moves_take_back_cannot_undo(sqlite_runtime, slug):
    """Each move of a few positions of every title, made for real: take-back is possible
    afterwards exactly when the page did not ask for a second step."""
    service = sqlite_runtime.service
    seats = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(3)]
    created = service.create_game(slug, seats, seed=bytes([7]) * 32)
    rng = random.Random(3)
    checked = {"asked": 0, "not asked": 0}
    for _ in range(40):
        head = service.head(created.game_id)
        due = sorted(head.engine.to_move(head.state))
        if not due:
            break
        seat = due[0]
        legal = head.engine.legal_moves(head.state, seat)
        move = rng.choice(legal)
        names = [f"P{i}" for i in range(3)]
        reason = second_step(head.engine, head.state, seat, move, names)
        service.submit_move(created.game_id, seat, move, head.seq)
        takeable = take_back_target(service, created.game_id, seat) is not None
        assert bool(reason) != takeable, (move, reason)
        checked["asked" if reason else "not asked"] += 1
    assert checked["asked"] and checked["not asked"]


def test_choosing_a_place_no_move_names_says_so(client, sqlite_runtime):
    seats = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(3)]
    created = sqlite_runtime.service.create_game("mare_balticum", seats, seed=b"\x02" * 32)
    due = sqlite_runtime.service.game(created.game_id).to_move[0]
    token = created.tokens[due]
    missed = client.get(f"/play/{token}?pick=nowhere-at-all").text
    assert "None of your moves names what you chose; here is every move." in missed
    assert "None of your moves" not in client.get(f"/play/{token}").text
