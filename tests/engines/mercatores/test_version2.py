"""Version 2 of Mercatores: three rule points settled by the rulebook's natural reading.

Each test names the rulebook passage it follows; version 1 keeps playing as before.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engines.api import IllegalMove, ScriptedChance, SeededChance, resolve_options
from engines.mercatores import ENGINE
from engines.mercatores.state import END_BY_CARDS, END_BY_DECK, INVESTMENT, PROFIT, dump_state
from tests.engines.mercatores.helpers import as_read, check_cards_accounted, goods, profit_position
from tests.engines.mercatores.test_investment import deck_running_out, load, trade

V1 = ENGINE.at_version(1)
NO_DRAWS = ScriptedChance([])


def v2(state):
    return replace(state, rules_version=2)


# Rulebook, "Further Turn Rules": a player discards a pile or special card for nothing
# only "if a player has no cards in their resources that they could cash in".


def test_zero_pay_cash_in_only_when_nothing_pays():
    # corn x2 pays nothing; the Warehouse (corn, cocoa, tobacco: 3 kinds) pays a coin
    own = goods("corn", 2) + goods("cocoa", 1) + goods("tobacco", 1) + ["w1"]
    state = profit_position(2, [own, goods("coffee", 1)])
    old = ENGINE.legal_moves(state, 0)
    assert {"type": "cash", "pile": "corn"} in old
    assert ENGINE.apply(state, 0, {"type": "cash", "pile": "corn"}, NO_DRAWS).coins[0] == 0
    new = v2(state)
    legal = ENGINE.legal_moves(new, 0)
    assert legal == [{"type": "cash", "special": "w1"}]
    with pytest.raises(IllegalMove, match="only when nothing would pay"):
        ENGINE.apply(new, 0, {"type": "cash", "pile": "corn"}, NO_DRAWS)
    assert ENGINE.apply(new, 0, {"type": "cash", "special": "w1"}, NO_DRAWS).coins[0] == 1


def test_a_trade_route_that_pays_only_against_one_opponent_must_name_that_one():
    own = goods("cotton", 3)
    route = next(card for card in ("t1", "t2", "t3", "t4", "t5") if route_kind(card) == "cotton")
    state = v2(profit_position(3, [own + [route], goods("cotton", 5, skip=3), goods("corn", 1)]))
    legal = [m for m in ENGINE.legal_moves(state, 0) if m.get("special") == route]
    assert [m["opponent"] for m in legal] == [1]
    with pytest.raises(IllegalMove, match="pays nothing"):
        ENGINE.apply(state, 0, {"type": "cash", "special": route, "opponent": 2}, NO_DRAWS)


def route_kind(card):
    from engines.mercatores.data import CARDS

    return CARDS[card]["goods"]


def test_when_nothing_pays_anything_may_still_be_discarded_for_nothing():
    state = v2(profit_position(2, [goods("corn", 2) + ["w1"], goods("cocoa", 1)]))
    legal = ENGINE.legal_moves(state, 0)
    assert {"type": "cash", "pile": "corn"} in legal and {"type": "cash", "special": "w1"} in legal
    after = ENGINE.apply(state, 0, {"type": "cash", "pile": "corn"}, NO_DRAWS)
    assert after.coins[0] == 0 and after.resources[0] == ("w1",)


# Rulebook, "End of the Investment Phase": "when one of the players has 15 or more cards
# in their resources at the end of their turn" the phase ends and every other player
# plays one more turn; the first to do so takes the Captain, deck or no deck.


def test_the_first_to_fifteen_takes_the_captain_even_after_the_deck_ran_out():
    state = v2(deck_running_out([], blue=goods("cocoa", 10) + goods("corn", 3, skip=3)))
    state = trade(state, 0, "corn-01", ["coffee-01", "coffee-02"])
    state = load(state, 0, "one_kind", ["corn-02"], NO_DRAWS)
    assert state.end == END_BY_DECK
    state = trade(state, 1, "cotton-01", ["coffee-03", "coffee-04"])
    before = state
    move = {"type": "load", "way": "one_kind", "cards": ["cotton-02", "cotton-03"]}
    state = ENGINE.apply(state, 1, move, NO_DRAWS)
    assert len(state.resources[1]) == 15
    lines = as_read(ENGINE.describe(before, 1, move, state, None))
    assert any("Blue has 15 cards in resources and takes the Captain" in line for line in lines)
    # Blue takes the Captain and Unloading card; Red gets the one more turn
    assert (state.end, state.captain, state.unloading) == (END_BY_CARDS, 1, 1)
    assert state.phase == INVESTMENT and state.turn == 0
    state = trade(state, 0, "corn-03", list(state.market[:2]))
    state = load(state, 0, "one_kind", [state.hands[0][0]], NO_DRAWS)
    assert state.phase == PROFIT and state.captain == 1 and state.turn == 1
    check_cards_accounted(state)


def test_version_one_keeps_the_deck_ending_the_phase():
    state = deck_running_out([], blue=goods("cocoa", 10) + goods("corn", 3, skip=3))
    state = trade(state, 0, "corn-01", ["coffee-01", "coffee-02"])
    state = load(state, 0, "one_kind", ["corn-02"], NO_DRAWS)
    state = trade(state, 1, "cotton-01", ["coffee-03", "coffee-04"])
    state = load(state, 1, "one_kind", ["cotton-02", "cotton-03"], NO_DRAWS)
    assert state.phase == PROFIT and state.end == END_BY_DECK


# Rulebook, "Setup": the players pick the first player (the one "most recently in a
# colonial goods shop"); the engine offers seat order, a random draw or a chosen seat.


def test_first_player_option_seat_order_random_or_chosen():
    assert ENGINE.setup(3, {}, SeededChance(1)).turn == 0
    chosen = ENGINE.setup(3, resolve_options(ENGINE, {"first_player": "3"}), SeededChance(1))
    assert (chosen.turn, chosen.first, chosen.round) == (2, 2, 1)
    # random: the seat is the very first draw of the game
    drawn = ENGINE.setup(3, {"first_player": "random"}, ScriptedChance([1] + [0] * 20))
    assert drawn.turn == 1 and drawn.first == 1
    with pytest.raises(ValueError, match="from 1 to 3"):
        ENGINE.setup(3, {"first_player": "4"}, SeededChance(1))
    with pytest.raises(ValueError, match="no option 'first_player'"):
        resolve_options(V1, {"first_player": "random"})


def test_rounds_and_the_deck_end_count_from_the_first_player():
    state = ENGINE.setup(3, {"first_player": "2"}, SeededChance(4))
    assert state.turn == 1
    seen = []
    chance, rng = SeededChance(5), random.Random(0)
    while state.phase == INVESTMENT and len(seen) < 4:
        seat, before_round = state.turn, state.round
        move = ENGINE.bot_move(ENGINE.view(state, seat), ENGINE.legal_moves(state, seat), rng)
        state = ENGINE.apply(state, seat, move, chance)
        if move["type"] == "load":
            seen.append((seat, before_round))
    assert seen == [(1, 1), (2, 1), (0, 1), (1, 2)]
    # Blue started: an empty deck on Blue's turn ends the phase after Red's turn
    state = v2(replace(deck_running_out([]), first=1, turn=1))
    state = trade(state, 1, "cotton-01", ["coffee-01", "coffee-02"])
    state = load(state, 1, "one_kind", ["cotton-02"], NO_DRAWS)
    assert state.end == END_BY_DECK and state.last_turn == 0 and state.turn == 0


def test_version_two_state_records_its_version_and_version_one_dumps_as_before():
    old = V1.setup(2, {}, SeededChance(2))
    assert "rules_version" not in dump_state(old) and "first" not in dump_state(old)
    new = ENGINE.setup(2, {}, SeededChance(2))
    assert dump_state(new)["rules_version"] == 2 and ENGINE.load(ENGINE.dump(new)) == new
    assert ENGINE.upgrade_state(old).rules_version == 2
    assert V1.load(V1.dump(old)) == old
