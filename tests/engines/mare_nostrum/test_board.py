"""What the Mediterranean board says at the end of the game."""

from __future__ import annotations

from tests.engines.board_pages import board_html
from tests.engines.mare_nostrum.helpers import ENGINE, play, start, with_hand

GREECE = 0


def test_a_finished_board_says_the_game_is_over_and_who_won():
    state = with_hand(start(4), GREECE, coin=12)
    state.update(phase="build", trade=None)
    state["build"] = {"done": [], "current": GREECE, "cleopatra": False, "hammurabi": False}
    running = board_html("mare_nostrum", ENGINE.view(state, GREECE))
    assert "The game is over" not in running
    state = play(state, GREECE, {"type": "build", "item": "pyramids", "pay": ["coin"] * 12})
    for viewer in (None, 0, 1):
        html = board_html("mare_nostrum", ENGINE.view(state, viewer))
        reason = ENGINE.result(state).reason
        assert f"<strong>The game is over.</strong> P0 (Greece) wins: {reason}." in html
