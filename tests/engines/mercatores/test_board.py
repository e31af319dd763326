"""The table as a player sees it: what changed since their last move is ringed and said in
words (and never depends on another player's hidden hand), and a finished table says the
game is over."""

from __future__ import annotations

import random
import re
from dataclasses import replace

import pytest
from flask import render_template

from engines.api import ScriptedChance, SeededChance
from engines.mercatores import ENGINE
from engines.mercatores.data import CARD_ORDER, SEAT_NAMES
from engines.mercatores.state import INVESTMENT, ordered
from pbem.games.service import SeatSpec
from pbem.runtime import build_runtime
from pbem.web import create_app
from tests.engines.mercatores.helpers import goods, position, profit_position

COLOURS = ("#D55E00", "#0072B2", "#009E73", "#F0E442")


@pytest.fixture
def runtime(sqlite_db, tmp_path):
    settings = {
        "security": {"secret_key": "test-secret"},
        "paths": {"var": str(tmp_path / "var")},
        "server": {"demo": False, "base_url": "http://localhost"},
    }
    return build_runtime(settings, db=sqlite_db, create_schema=False)


@pytest.fixture
def app(runtime):
    app = create_app(runtime=runtime)
    app.config["TESTING"] = True
    return app


def board(app, view: dict, changed=()) -> str:
    """The title's board for ``view``, as the turn page draws it (no moves to pick)."""
    players = [
        {
            "seat": seat,
            "name": f"P{seat}",
            "colour": COLOURS[seat],
            "letter": SEAT_NAMES[seat][0],
            "text": "#fff",
            "due": seat in view["to_move"],
        }
        for seat in range(len(view["players"]))
    ]
    with app.test_request_context("/"):
        return render_template(
            "mercatores/_board.html", view=view, players=players, groups=[], changed=changed
        )


def play_to_end(seats: int, seed: int):
    """Every state of a seeded bot game, first to last."""
    state = ENGINE.setup(seats, {}, SeededChance(seed))
    rng, chance = random.Random(seed), SeededChance(seed)
    states = [state]
    while ENGINE.to_move(state):
        seat = min(ENGINE.to_move(state))
        legal = ENGINE.legal_moves(state, seat)
        state = ENGINE.apply(
            state, seat, ENGINE.bot_move(ENGINE.view(state, seat), legal, rng), chance
        )
        states.append(state)
    return states


# ------------------------------------------------------------------ the end of the game


def test_a_finished_table_says_the_game_is_over_and_not_the_last_investment_turn(app):
    states = play_to_end(3, 4)
    last = states[-1]
    assert ENGINE.phase_line(last)[0] == "Game over"
    assert ENGINE.turn_line(last) == ("Game over", "")
    for viewer in (None, 0, 1, 2):
        html = board(app, ENGINE.view(last, viewer))
        assert "Last turn" not in html and "Investment ends" not in html
        winners = " and ".join(f"P{seat}" for seat in ENGINE.result(last).winners)
        assert f"The game is over: {winners} " in html
        assert ">Your hand</text>" not in html  # an empty hand is not drawn
        assert "No cards left in resources" in html
        assert "the market was discarded when the investment phase ended" in html
    # Once the investment phase is over, no profit-phase table speaks of its last turn.
    profit = [state for state in states if state.phase == "profit"]
    assert profit and profit[0].end  # the end was triggered, as it stays in the state
    html = board(app, ENGINE.view(profit[0], 0))
    assert "Last turn" not in html and "Profit phase: pay tax, then cash in one pile" in html


def test_the_last_turns_of_the_investment_phase_say_why_they_are_the_last(app):
    state = position(
        2,
        hands=[goods("corn", 2), goods("cotton", 2)],
        resources=[[], goods("cocoa", 3)],
        end="cards",
        last_turn=0,
    )
    assert "Last turns of the investment phase: one more each" in board(app, ENGINE.view(state, 0))
    state = replace(state, end="deck", deck=())
    assert "Last round of the investment phase: the deck ran out" in board(
        app, ENGINE.view(state, 0)
    )


# ------------------------------------------------------------------ what changed


def test_nothing_is_marked_without_an_earlier_view():
    state = ENGINE.setup(3, {}, SeededChance(1))
    assert ENGINE.changed_places(None, ENGINE.view(state, 0)) == set()
    assert ENGINE.changed_places(ENGINE.view(state, 0), ENGINE.view(state, 0)) == set()


def test_each_part_of_the_table_that_changed_is_named():
    # Blue trades and loads: cards come into the market, Blue's hand and Cocoa pile change.
    state = position(
        2,
        hands=[goods("corn", 2), goods("cocoa", 1) + goods("cotton", 1) + goods("tobacco", 1)],
        market=goods("cocoa", 2, skip=1) + goods("coffee", 1) + ["w1", "q1"],
        resources=[[], goods("cocoa", 2, skip=3)],
        turn=1,
    )
    old = ENGINE.view(state, 0)
    give = goods("cotton", 1)[0]
    take = goods("cocoa", 2, skip=1)
    state = ENGINE.apply(state, 1, {"type": "trade", "give": give, "take": take}, ScriptedChance())
    cocoa = ordered(goods("cocoa", 1) + take)
    refill = ScriptedChance([list(state.deck).index("t1")])
    state = ENGINE.apply(
        state, 1, {"type": "load", "way": "one_kind", "cards": list(cocoa)}, refill
    )
    new = ENGINE.view(state, 0)
    assert ENGINE.changed_places(old, new) == {
        "market:t1",
        f"market:{give}",
        "seat:1",
        "seat:1:hand",
        "seat:1:pile:cocoa",
    }


def test_coins_piles_specials_and_the_unloading_card_are_marked_in_the_profit_phase():
    state = profit_position(
        2,
        [
            goods("corn", 3) + goods("cotton", 2) + goods("tobacco", 1) + ["w1"],
            goods("cocoa", 2) + goods("coffee", 2) + ["q1"],
        ],
        0,
    )
    old = ENGINE.view(state, 1)
    state = ENGINE.apply(state, 0, {"type": "cash", "special": "w1"}, ScriptedChance())
    state = ENGINE.apply(state, 1, {"type": "tax", "card": goods("coffee", 1)[0]}, ScriptedChance())
    new = ENGINE.view(state, 1)
    assert ENGINE.changed_places(old, new) == {
        "seat:0",
        "seat:0:coins",
        "seat:0:special:w1",
        "seat:1",
        "seat:1:pile:coffee",
    }


def test_the_board_rings_what_changed_and_says_it_in_words(app):
    state = profit_position(
        2, [goods("corn", 6) + ["w1"], goods("cocoa", 2) + goods("coffee", 2) + ["q1"]], 0
    )
    old = ENGINE.view(state, 1)
    state = ENGINE.apply(state, 0, {"type": "cash", "pile": "corn"}, ScriptedChance())
    state = ENGINE.apply(state, 1, {"type": "tax", "card": goods("coffee", 1)[0]}, ScriptedChance())
    new = ENGINE.view(state, 1)
    changed = ENGINE.changed_places(old, new)
    html = board(app, new, changed)
    # Red's box and Blue's box and Blue's Coffee pile are ringed.
    assert html.count('class="changed-ring"') == 3
    assert re.search(
        r'<g class="player changed" data-seat="0"[^>]*aria-label="[^"]*'
        r'; changed since your last move: coins; gone: Corn pile"',
        html,
    )
    assert re.search(
        r'<g class="player changed" data-seat="1"[^>]*aria-label="[^"]*'
        r'; changed since your last move: Coffee pile"',
        html,
    )
    assert re.search(
        r'<g class="card changed" data-card="[^"]+" role="img" aria-label="Coffee, '
        r'[^"]*; changed since your last move"',
        html,
    )
    places = html.split('<details class="map-places">')[1].split("</details>")[0]
    assert places.count("changed since your last move") == 2
    assert "changed since your last move</li>" in html  # the legend explains the ring
    unchanged = board(app, new)
    assert "changed" not in unchanged.replace("changed since your last move", "")
    assert "changed since your last move" not in unchanged


def test_a_new_market_card_is_ringed_and_listed(app):
    state = position(2, hands=[goods("corn", 2), goods("cotton", 2)], market=["w1", "q1"])
    old = ENGINE.view(state, 0)
    new = ENGINE.view(replace(state, market=ordered(["w1", "q1", "t3"])), 0)
    html = board(app, new, ENGINE.changed_places(old, new))
    assert html.count('class="changed-ring"') == 1
    assert 'data-card="t3" role="img" aria-label="Trade Route: Cotton' in html
    assert "new since your last move: Trade Route: Cotton" in html


@pytest.mark.parametrize("seed", range(4))
def test_the_marks_a_seat_sees_do_not_depend_on_other_hands(app, seed):
    """Non-interference: two games that differ only in Blue's hidden hand (same size)
    give Red the same marks and the same board, turn after turn."""
    states = play_to_end(3, seed)
    rng = random.Random(seed)
    for _ in range(8):
        index = rng.randrange(1, len(states))
        before, after = states[index - 1], states[index]
        if after.phase != INVESTMENT or not after.hands[1]:
            continue
        hidden = set(after.deck)
        swapped_hand = list(after.hands[1])
        out = swapped_hand[0]
        into = sorted(hidden - set(before.hands[1]))[0]
        swapped_hand[0] = into
        deck = sorted((hidden - {into}) | {out}, key=CARD_ORDER.index)
        other = replace(
            after,
            hands=(after.hands[0], ordered(swapped_hand), *after.hands[2:]),
            deck=tuple(deck),
        )
        assert ENGINE.view(other, 0) == ENGINE.view(after, 0)
        old = ENGINE.view(before, 0)
        marks = ENGINE.changed_places(old, ENGINE.view(after, 0))
        assert ENGINE.changed_places(old, ENGINE.view(other, 0)) == marks
        assert board(app, ENGINE.view(other, 0), marks) == board(app, ENGINE.view(after, 0), marks)


# ------------------------------------------------------------------ the turn page


def test_the_turn_page_marks_what_changed_since_the_seats_last_move(app, runtime):
    client = app.test_client()
    specs = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(3)]
    created = runtime.service.create_game("mercatores", specs, {}, seed=b"c" * 32)
    first = client.get(f"/play/{created.tokens[0]}").text
    assert "changed-ring" not in first  # nothing before a first move
    rng = random.Random(2)
    while True:
        head = runtime.service.head(created.game_id)
        due = sorted(head.engine.to_move(head.state))
        if head.game.head_seq > 2 and due == [0]:
            break
        view = head.engine.view(head.state, due[0])
        move = head.engine.bot_move(view, head.engine.legal_moves(head.state, due[0]), rng)
        runtime.service.submit_move(created.game_id, due[0], move, head.game.head_seq, actor="web")
    html = client.get(f"/play/{created.tokens[0]}").text
    assert html.count('class="changed-ring"') >= 3  # the other two players and the market
    assert '<g class="player changed" data-seat="1"' in html
    assert '<g class="player changed" data-seat="2"' in html
    assert "new since your last move: " in html
