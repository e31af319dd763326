"""Every page draws every state: bot games of each title, with its options, seen by each
seat and a spectator along the way (turn page, spectator page and history steps)."""

from __future__ import annotations

import random

import pytest

from pbem.games.service import SeatSpec
from pbem.web import create_app

MOVES = 3000
GAMES = [
    ("mercatores", 2, {}),
    ("mercatores", 4, {"end_cards": 10}),
    ("mare_balticum", 3, {}),
    ("mare_balticum", 5, {"demand_management": True, "trade_contracts": True}),
    ("mare_nostrum", 3, {}),
    ("mare_nostrum", 5, {"civilisations": "choose", "setup": "experienced"}),
]


@pytest.mark.parametrize(("slug", "seats", "options"), GAMES)
def test_pages_draw_every_state_of_a_bot_game(sqlite_runtime, slug, seats, options):
    runtime = sqlite_runtime
    app = create_app(runtime=runtime)
    app.config["TESTING"] = True
    client = app.test_client()
    specs = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(seats)]
    created = runtime.service.create_game(slug, specs, options, seed=bytes([seats]) * 32)
    game_id = created.game_id
    rng = random.Random(seats)
    for step in range(MOVES):
        head = runtime.service.head(game_id)
        due = sorted(head.engine.to_move(head.state))
        if step % 40 == 0 or not due:
            for token in created.tokens:
                assert client.get(f"/play/{token}").status_code == 200
            assert client.get(f"/games/{game_id}").status_code == 200
            assert client.get(f"/games/{game_id}/history?at={head.seq}").status_code == 200
        if not due:
            break
        seat = due[0]
        move = head.engine.bot_move(
            head.engine.view(head.state, seat),
            head.engine.legal_moves(head.state, seat),
            rng,
        )
        runtime.service.submit_move(game_id, seat, move, head.seq)
    game = runtime.service.game(game_id)
    assert game.status == "finished" or game.head_seq >= MOVES
    if game.status == "finished":
        page = client.get(f"/games/{game_id}").text
        assert "Result" in page and "wins" in page


def test_mare_nostrum_player_lines_name_heroes_and_titles_as_printed(sqlite_runtime):
    app = create_app(runtime=sqlite_runtime)
    app.config["TESTING"] = True
    specs = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(4)]
    created = sqlite_runtime.service.create_game("mare_nostrum", specs, seed=b"\x04" * 32)
    page = app.test_client().get(f"/games/{created.game_id}").text
    lines = page[page.index("provinces ·") - 200 :]
    assert "owns Julius Caesar" in lines and "owns julius" not in lines
    assert "· Great General</li>" in lines and "· general</li>" not in lines
