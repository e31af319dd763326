"""What the Baltic board says at the end of the game."""

from __future__ import annotations

from engines.mare_balticum import ENGINE
from tests.engines.board_pages import board_html

from .helpers import craft, in_turn


def test_a_finished_board_says_the_game_is_over_and_who_won():
    state = craft(
        in_turn(
            3, markets={1: {"salmon": 3}}, warehouses={1: {"salmon": 2}}, holds={0: {"cod": 1}}
        ),
        phase="over",
        time_track=6,
    )
    assert ENGINE.phase_line(state)[0] == "Game over"
    assert ENGINE.turn_line(state) == ("Game over", "")
    for viewer in (None, 0, 2):
        html = board_html("mare_balticum", ENGINE.view(state, viewer))
        assert (
            "<strong>The sea has frozen over: the game is over.</strong> P1 (Blue) wins: "
            "most points after the final scoring." in html
        )
        assert "hold 1 cod (lost: fish left in a hold do not score)" in html
    running = board_html("mare_balticum", ENGINE.view(in_turn(3), 0))
    assert "the game is over" not in running and "lost:" not in running


def test_a_ports_circle_values_are_named_only_with_demand_management():
    """The 0 and -1 on the circles mean something only with module 1 (rules 'Module 1')."""
    basic = ENGINE.view(in_turn(3), 0)
    port, kinds = next((port, kinds) for port, kinds in basic["demand"].items() if any(kinds))
    html = board_html("mare_balticum", basic)
    assert "circle)" not in html
    managed = in_turn(3, {"demand_management": True})
    managed = craft(managed, demand={**managed.demand, port: tuple(kinds)})
    html = board_html("mare_balticum", ENGINE.view(managed, 0))
    kind = next(kind for kind in kinds if kind)
    assert f"{kind} ({basic['circles'][port][list(kinds).index(kind)]} circle)" in html


def test_the_board_says_who_holds_which_contract_and_at_the_end_what_it_scored():
    """Module 2: a held contract lies face up before its player (public); at the end the
    board says how many sets the engine's split filled and what they scored."""
    playing = in_turn(3, {"trade_contracts": True}, contracts={0: "c6", 2: "c1"})
    for viewer in (None, 0, 1):
        html = board_html("mare_balticum", ENGINE.view(playing, viewer))
        assert "ashore · contract c6 (flatfish + cod + 2 amber)</li>" in html
        assert "ashore · contract c1 (salmon + herring + 2 amber)</li>" in html
        assert html.count("· contract ") == 2
    over = craft(
        playing,
        phase="over",
        time_track=6,
        markets={0: {"salmon": 1, "herring": 1, "flatfish": 0, "cod": 0}},
        warehouses={0: {"flatfish": 2, "cod": 3, "amber": 5}},
    )
    html = board_html("mare_balticum", ENGINE.view(over, None))
    assert "contract c6 (flatfish + cod + 2 amber): 2 sets filled for 14 points</li>" in html
    assert "contract c1 (salmon + herring + 2 amber): no set filled</li>" in html
    assert "· contract " not in board_html("mare_balticum", ENGINE.view(in_turn(3), 0))
