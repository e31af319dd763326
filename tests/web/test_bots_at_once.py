"""Bots answer at once on the web's roads: a bot seat that a move by form or by the API,
or a hand-over from the seats page, leaves due has moved before the call returns, with
no sweep (the response is not closed: nothing runs after it)."""

from __future__ import annotations

import json

from sqlmodel import Session, select

from pbem.models import Seat
from tests.web.conftest import csrf_of, form_fields, pig_game


def bot_answered(runtime, game_id: str, after: int) -> list[dict]:
    """The bot's moves after event ``after``; the game waits for seat 0 again."""
    head = runtime.service.head(game_id)
    assert head.game.status == "finished" or head.engine.to_move(head.state) == {0}
    moves = [row for row in runtime.service.events(game_id, after=after) if row["actor"] == "bot"]
    assert moves and all(row["kind"] == "auto_move" and row["seat"] == 1 for row in moves)
    return moves


def test_a_move_by_form_has_the_bot_answer_before_the_redirect(client, runtime):
    created = pig_game(runtime, bots=(1,))
    token = created.tokens[0]
    csrf, seq = form_fields(client.get(f"/play/{token}").text)
    data = {"csrf_token": csrf, "seq": seq, "move": json.dumps({"type": "stop"}), "confirmed": "1"}
    answer = client.post(f"/play/{token}/move", data=data)
    assert answer.status_code == 303
    bot_answered(runtime, created.game_id, seq + 1)
    answer.close()


def test_a_move_by_the_api_has_the_bot_answer_before_the_reply(client, runtime):
    created = pig_game(runtime, bots=(1,))
    made = client.post(
        f"/api/play/{created.tokens[0]}/moves", json={"move": {"type": "stop"}, "expected_seq": 0}
    )
    assert made.status_code == 200 and made.json["seq"] == 1
    bot_answered(runtime, created.game_id, 1)
    seat = client.get(f"/api/play/{created.tokens[0]}").json
    assert seat["to_move"] == [0] and seat["legal_moves"]
    made.close()


def test_a_hand_over_from_the_seats_page_has_the_bot_move_before_the_answer(client, runtime):
    created = pig_game(runtime)
    runtime.service.submit_move(created.game_id, 0, {"type": "stop"}, 0)  # P1 is due
    token = created.tokens[1]
    page = client.get(f"/rescue/{token}")
    form = {"csrf_token": csrf_of(page.text), "action": "to_bot", "seat": "1", "confirm": "yes"}
    answer = client.post(f"/rescue/{token}", data=form)
    assert answer.status_code in (302, 303)
    with Session(runtime.db) as session:
        # By seat: PostgreSQL returns rows in no set order (an updated row may come last).
        seats = session.exec(
            select(Seat).where(Seat.game_id == created.game_id).order_by(Seat.seat)
        ).all()
        assert seats[1].is_bot
    handed = runtime.service.events(created.game_id, after=1)[0]
    assert handed["kind"] == "seat_to_bot"
    bot_answered(runtime, created.game_id, handed["seq"])
    answer.close()


def test_a_bot_that_fails_leaves_the_move_standing_for_the_sweep(client, runtime, monkeypatch):
    from pbem import scheduler
    from pbem.games import service as service_mod

    created = pig_game(runtime, bots=(1,))

    def broken(*args):
        raise RuntimeError("the bot crashed")

    monkeypatch.setattr(service_mod, "engine_bot_move", broken)
    made = client.post(
        f"/api/play/{created.tokens[0]}/moves", json={"move": {"type": "stop"}, "expected_seq": 0}
    )
    assert made.status_code == 200 and made.json["seq"] == 1
    head = runtime.service.head(created.game_id)
    assert head.seq == 1 and head.engine.to_move(head.state) == {1}
    monkeypatch.undo()
    assert scheduler.sweep(runtime).bot_moves >= 1
    bot_answered(runtime, created.game_id, 1)
