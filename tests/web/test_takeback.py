"""Taking back a misclick: allowed while nothing was seen or drawn, shown in the history."""

from __future__ import annotations

import json

from pbem.games.service import SeatSpec
from tests.web.conftest import form_fields


def trade_move(runtime, game_id, seat):
    head = runtime.service.head(game_id)
    return next(m for m in head.engine.legal_moves(head.state, seat) if m["type"] == "trade")


def test_a_trade_can_be_taken_back_until_the_turn_ends(client, runtime):
    seats = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(2)]
    created = runtime.service.create_game("mercatores", seats, seed=b"\x01" * 32)
    game_id = created.game_id
    due = runtime.service.game(game_id).to_move[0]
    token = created.tokens[due]
    before = client.get(f"/api/play/{token}").json["view"]
    page = client.get(f"/play/{token}")
    assert "Take back" not in page.text
    csrf, seq = form_fields(page.text)
    move = trade_move(runtime, game_id, due)
    answer = client.post(
        f"/play/{token}/move", data={"csrf_token": csrf, "seq": seq, "move": json.dumps(move)}
    )
    assert answer.status_code == 303
    page = client.get(f"/play/{token}")
    assert "Take back my last move" in page.text
    other = created.tokens[1 - due]
    refused = client.post(f"/play/{other}/take-back", data={"csrf_token": csrf, "seq": seq + 1})
    assert refused.status_code == 422
    stale = client.post(f"/play/{token}/take-back", data={"csrf_token": csrf, "seq": seq})
    assert stale.status_code == 409
    taken = client.post(f"/play/{token}/take-back", data={"csrf_token": csrf, "seq": seq + 1})
    assert taken.status_code == 303
    assert client.get(f"/api/play/{token}").json["view"] == before
    history = client.get(f"/play/{token}/history?at={seq + 2}")
    assert "took back a move" in history.text
    # Trade again, then load: loading refills the market from the deck, which is final.
    runtime.service.submit_move(game_id, due, move, seq + 2)
    head = runtime.service.head(game_id)
    load = next(m for m in head.engine.legal_moves(head.state, due) if m["type"] == "load")
    runtime.service.submit_move(game_id, due, load, head.seq)
    page = client.get(f"/play/{token}")
    assert "Take back" not in page.text
    refused = client.post(
        f"/play/{token}/take-back", data={"csrf_token": csrf, "seq": head.seq + 1}
    )
    assert refused.status_code == 422 and "can no longer be taken back" in refused.text


def test_table_talk_after_a_move_does_not_stop_its_take_back(runtime):
    from pbem.games import talk
    from pbem.games.takeback import take_back, take_back_target

    seats = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(2)]
    created = runtime.service.create_game("mercatores", seats, seed=b"\x01" * 32)
    game_id = created.game_id
    due = runtime.service.game(game_id).to_move[0]
    before = runtime.service.head(game_id)
    runtime.service.submit_move(game_id, due, trade_move(runtime, game_id, due), before.seq)
    talk.post(runtime, game_id, 1 - due, None, "Good trade.")
    talk.post(runtime, game_id, due, 1 - due, "Oops, wrong card.")
    assert take_back_target(runtime.service, game_id, due) == before.seq
    assert take_back_target(runtime.service, game_id, 1 - due) is None
    head = runtime.service.head(game_id)
    take_back(runtime.service, game_id, due, head.seq)
    after = runtime.service.head(game_id)
    assert after.engine.dump(after.state) == before.engine.dump(before.state)
    kinds = [row["kind"] for row in runtime.service.events(game_id)[-4:]]
    assert kinds == ["move", "talk", "talk", "take_back"]  # the notes stay in the log
    assert runtime.service.verify_game(game_id).ok
