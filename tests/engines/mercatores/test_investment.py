"""Rules of setup and the investment phase, one test per rule."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engines.api import IllegalMove, ScriptedChance, SeededChance
from engines.mercatores import ENGINE
from engines.mercatores.data import CARD_ORDER
from engines.mercatores.state import END_BY_CARDS, END_BY_DECK, INVESTMENT, LOAD, PROFIT, TRADE
from tests.engines.mercatores.helpers import as_read, check_cards_accounted, goods, position

NO_DRAWS = ScriptedChance([])


def draws(count: int) -> ScriptedChance:
    """Always the first card of the deck (the deck is in canonical order)."""
    return ScriptedChance([0] * count)


def trade(state, seat, give, take):
    return ENGINE.apply(state, seat, {"type": "trade", "give": give, "take": take}, NO_DRAWS)


def load(state, seat, way, cards, chance=None):
    move = {"type": "load", "way": way, "cards": cards}
    return ENGINE.apply(state, seat, move, chance or draws(5))


def reason(state, seat, move, chance=NO_DRAWS) -> str:
    with pytest.raises(IllegalMove) as raised:
        ENGINE.apply(state, seat, move, chance)
    return raised.value.reason


# ---------------------------------------------------------------- setup


def test_setup_deals_five_secret_cards_each_then_a_market_of_five():
    state = ENGINE.setup(3, {}, SeededChance(1))
    assert [len(hand) for hand in state.hands] == [5, 5, 5]
    assert len(state.market) == 5 and len(state.deck) == 82 - 20
    assert ENGINE.to_move(state) == frozenset({0})
    assert (state.phase, state.step) == (INVESTMENT, TRADE)
    check_cards_accounted(state)


def test_setup_draws_one_card_at_a_time_from_the_ordered_deck():
    state = ENGINE.setup(2, {}, ScriptedChance([0] * 15))
    assert state.hands[0] == CARD_ORDER[0:5]
    assert state.hands[1] == CARD_ORDER[5:10]
    assert state.market == CARD_ORDER[10:15]
    last = ENGINE.setup(2, {}, ScriptedChance([81 - k for k in range(15)]))
    assert last.hands[0] == tuple(sorted(CARD_ORDER[-5:], key=CARD_ORDER.index))


def test_setup_accepts_two_to_four_players_only():
    for seats in (1, 5):
        with pytest.raises(ValueError):
            ENGINE.setup(seats, {}, SeededChance(0))


def test_setup_tolerates_a_missing_option():
    assert ENGINE.setup(2, {}, SeededChance(0)).end_cards == 15
    assert ENGINE.setup(2, {"end_cards": 12}, SeededChance(0)).end_cards == 12


# ---------------------------------------------------------------- trade


def test_trade_a_goods_card_takes_two_cards_from_the_market():
    market = ["w1", "q1", "t1", *goods("cocoa", 2)]
    state = position(2, hands=[goods("corn", 3), goods("cotton", 3)], market=market)
    after = trade(state, 0, "corn-01", ["w1", "q1"])
    assert set(after.hands[0]) == {"corn-02", "corn-03", "w1", "q1"}
    assert set(after.market) == {"t1", "cocoa-01", "cocoa-02", "corn-01"}
    assert after.step == LOAD and after.turn == 0


def test_trade_a_special_card_takes_three_cards():
    market = goods("cocoa", 5)
    state = position(2, hands=[["w1", "corn-01"], goods("cotton", 3)], market=market)
    after = trade(state, 0, "w1", ["cocoa-01", "cocoa-02", "cocoa-03"])
    assert len(after.hands[0]) == 4 and "w1" in after.market
    assert "take exactly 3" in reason(
        state, 0, {"type": "trade", "give": "w1", "take": ["cocoa-01", "cocoa-02"]}
    )


def test_trade_may_not_take_back_the_card_just_given():
    state = position(2, hands=[goods("corn", 3), goods("cotton", 3)], market=goods("cocoa", 5))
    move = {"type": "trade", "give": "corn-01", "take": ["corn-01", "cocoa-01"]}
    assert "take back" in reason(state, 0, move)


def test_trade_of_a_goods_card_may_not_take_three():
    state = position(2, hands=[goods("corn", 3), goods("cotton", 3)], market=goods("cocoa", 5))
    move = {"type": "trade", "give": "corn-01", "take": ["cocoa-01", "cocoa-02", "cocoa-03"]}
    assert "take exactly 2" in reason(state, 0, move)


def test_trade_from_a_short_market_takes_what_there_is():
    state = position(2, hands=[["w1", "corn-01"], goods("cotton", 3)], market=["cocoa-01"], deck=[])
    after = trade(state, 0, "w1", ["cocoa-01"])
    assert set(after.hands[0]) == {"corn-01", "cocoa-01"}
    move = {"type": "trade", "give": "w1", "take": []}
    assert "only one card: take it" in reason(state, 0, move)


def test_trade_needs_a_card_from_the_hand_and_cards_from_the_market():
    state = position(2, hands=[goods("corn", 3), goods("cotton", 3)], market=goods("cocoa", 5))
    move = {"type": "trade", "give": "cotton-01", "take": ["cocoa-01", "cocoa-02"]}
    assert "do not hold" in reason(state, 0, move)
    move = {"type": "trade", "give": "corn-01", "take": ["cocoa-01", "tobacco-01"]}
    assert "not in the market" in reason(state, 0, move)
    move = {"type": "trade", "give": "corn-01", "take": ["cocoa-01", "cocoa-01"]}
    assert "twice" in reason(state, 0, move)


def test_trade_comes_before_load_and_both_are_mandatory():
    state = position(2, hands=[goods("corn", 3), goods("cotton", 3)], market=goods("cocoa", 5))
    assert "First trade" in reason(
        state, 0, {"type": "load", "way": "one_kind", "cards": ["corn-01"]}
    )
    after = trade(state, 0, "corn-01", ["cocoa-01", "cocoa-02"])
    move = {"type": "trade", "give": "corn-02", "take": ["cocoa-03", "cocoa-04"]}
    assert "Now load" in reason(after, 0, move)


# ---------------------------------------------------------------- load


def traded(hand, **fields):
    """Seat 0 to load with ``hand`` (after its trade), market of 4 cocoa."""
    hands = [hand, goods("cotton", 3, skip=8)]
    return position(2, hands=hands, market=goods("cocoa", 4), step=LOAD, **fields)


def test_load_way_one_plays_any_number_of_one_goods_kind_onto_its_pile():
    state = traded(goods("corn", 4) + ["w1"], resources=(("corn-05",), ()))
    after = load(state, 0, "one_kind", goods("corn", 4))
    assert len(after.resources[0]) == 5
    assert ENGINE.view(after, 0)["players"][0]["resources"]["piles"] == {"corn": goods("corn", 5)}


def test_load_way_two_plays_two_goods_of_different_kinds():
    state = traded(["corn-01", "tobacco-01", "w1"])
    after = load(state, 0, "two_kinds", ["corn-01", "tobacco-01"])
    assert set(after.resources[0]) == {"corn-01", "tobacco-01"}


def test_load_way_two_rejects_two_cards_of_the_same_kind():
    state = traded(["corn-01", "corn-02", "w1"])
    move = {"type": "load", "way": "two_kinds", "cards": ["corn-01", "corn-02"]}
    assert "two different goods" in reason(state, 0, move, draws(5))
    move = {"type": "load", "way": "two_kinds", "cards": ["corn-01", "tobacco-01", "w1"]}
    state = traded(["corn-01", "tobacco-01", "w1", "w2"])
    assert "exactly two" in reason(state, 0, move, draws(5))


def test_load_way_one_rejects_mixed_kinds_and_special_cards():
    state = traded(["corn-01", "tobacco-01", "w1"])
    move = {"type": "load", "way": "one_kind", "cards": ["corn-01", "tobacco-01"]}
    assert "single kind" in reason(state, 0, move, draws(5))
    move = {"type": "load", "way": "one_kind", "cards": ["w1"]}
    assert "single kind" in reason(state, 0, move, draws(5))


def test_load_way_three_plays_exactly_one_special_card():
    state = traded(["corn-01", "w1", "q1"])
    after = load(state, 0, "special", ["w1"])
    assert after.resources[0] == ("w1",)
    move = {"type": "load", "way": "special", "cards": ["w1", "q1"]}
    assert "exactly one special" in reason(state, 0, move, draws(5))
    move = {"type": "load", "way": "special", "cards": ["corn-01"]}
    assert "exactly one special" in reason(state, 0, move, draws(5))


def test_load_only_cards_from_ones_own_hand():
    state = traded(["corn-01", "w1"])
    move = {"type": "load", "way": "one_kind", "cards": ["corn-02"]}
    assert "do not hold" in reason(state, 0, move, draws(5))
    assert "at least one" in reason(
        state, 0, {"type": "load", "way": "one_kind", "cards": []}, draws(5)
    )


def test_market_refills_to_five_after_loading():
    state = traded(["corn-01", "w1"])
    after = load(state, 0, "special", ["w1"], draws(1))
    assert len(after.market) == 5 and len(after.deck) == len(state.deck) - 1
    assert after.turn == 1 and after.step == TRADE


def test_hand_must_keep_a_card_at_the_end_of_a_turn():
    state = traded(goods("corn", 3))
    move = {"type": "load", "way": "one_kind", "cards": goods("corn", 3)}
    assert "Keep at least one card" in reason(state, 0, move, draws(5))
    assert all(len(m["cards"]) < 3 for m in ENGINE.legal_moves(state, 0))


def test_hand_may_empty_on_the_turn_that_reaches_fifteen_cards():
    state = traded(goods("corn", 3), resources=(tuple(goods("tobacco", 12)), ()))
    after = load(state, 0, "one_kind", goods("corn", 3), draws(1))
    assert after.hands[0] == () and after.end == END_BY_CARDS


def test_hand_may_empty_after_the_end_was_triggered():
    state = traded(goods("corn", 3), end=END_BY_CARDS, captain=1, unloading=1, last_turn=0)
    after = load(state, 0, "one_kind", goods("corn", 3), draws(1))
    assert after.hands[0] == () and after.phase == PROFIT


def test_fifteen_cards_take_captain_and_unloading_and_others_play_once_more():
    # Three players; Blue (seat 1) reaches 15: Green and then Red play once more.
    market = goods("cocoa", 5)
    hands = [goods("corn", 3), goods("cotton", 3), goods("tobacco", 3)]
    resources = [[], goods("coffee", 8) + goods("corn", 5, skip=5) + ["w1"], []]
    state = position(3, hands=hands, market=market, resources=resources, turn=1)
    state = trade(state, 1, "cotton-01", ["cocoa-01", "cocoa-02"])
    state = load(state, 1, "two_kinds", ["cotton-02", "cocoa-01"], draws(1))
    assert (state.end, state.captain, state.unloading) == (END_BY_CARDS, 1, 1)
    assert state.turn == 2 and state.phase == INVESTMENT
    state = trade(state, 2, "tobacco-01", list(state.market[:2]))
    state = load(state, 2, "one_kind", goods("tobacco", 2, skip=1), draws(2))
    assert state.turn == 0 and state.phase == INVESTMENT
    state = trade(state, 0, "corn-01", list(state.market[:2]))
    state = load(state, 0, "one_kind", ["corn-02"], draws(2))
    assert state.phase == PROFIT
    assert state.hands == ((), (), ()) and state.market == ()
    assert state.turn == 1 and state.step == "cash"  # the Unloading card skips the tax
    check_cards_accounted(state)


def test_end_count_follows_the_option():
    assert ENGINE.setup(2, {"end_cards": 10}, SeededChance(3)).end_cards == 10
    for end_cards, ended in ((10, END_BY_CARDS), (15, "")):
        state = traded(goods("corn", 3), resources=(tuple(goods("coffee", 8)), ()))
        state = replace(state, end_cards=end_cards)
        after = load(state, 0, "one_kind", goods("corn", 2), draws(1))
        assert after.end == ended


def deck_running_out(deck, blue=None):
    hands = [goods("corn", 3), goods("cotton", 3)]
    resources = [goods("tobacco", 4), blue or goods("cocoa", 6)]
    market = goods("coffee", 5)
    placed = set(deck + market + hands[0] + hands[1] + resources[0] + resources[1])
    discard = [card for card in CARD_ORDER if card not in placed]
    return position(2, hands=hands, market=market, resources=resources, deck=deck, discard=discard)


def test_empty_deck_ends_the_phase_with_the_round_and_most_cards_take_the_captain():
    state = deck_running_out([])
    state = trade(state, 0, "corn-01", ["coffee-01", "coffee-02"])
    state = load(state, 0, "one_kind", ["corn-02"], NO_DRAWS)
    assert state.end == END_BY_DECK and state.last_turn == 1 and len(state.market) == 4
    assert state.phase == INVESTMENT and state.turn == 1
    # Blue may now empty the hand: the end is in sight.
    state = trade(state, 1, "cotton-01", list(state.market[:2]))
    state = load(state, 1, "one_kind", ["cotton-02", "cotton-03"], NO_DRAWS)
    assert state.phase == PROFIT
    assert state.captain == 1 and state.unloading == 1  # Blue holds the most cards (8)
    check_cards_accounted(state)


def test_fifteen_cards_after_the_deck_ran_out_do_not_prolong_the_phase():
    state = deck_running_out([], blue=goods("cocoa", 10) + goods("corn", 3, skip=3))
    state = trade(state, 0, "corn-01", ["coffee-01", "coffee-02"])
    state = load(state, 0, "one_kind", ["corn-02"], NO_DRAWS)
    state = trade(state, 1, "cotton-01", ["coffee-03", "coffee-04"])
    state = load(state, 1, "one_kind", ["cotton-02", "cotton-03"], NO_DRAWS)
    assert len(state.resources[1]) == 15
    assert state.phase == PROFIT and state.end == END_BY_DECK
    assert state.captain == 1  # by the count of cards, as the deck ended the phase


def test_a_deck_emptied_by_a_full_refill_ends_nothing_yet():
    state = deck_running_out(["coffee-08"])
    state = trade(state, 0, "corn-01", ["coffee-01", "coffee-02"])
    state = load(state, 0, "one_kind", ["corn-02"], draws(1))
    assert state.end == "" and len(state.market) == 5 and state.deck == ()
    state = trade(state, 1, "cotton-01", list(state.market[:2]))
    state = load(state, 1, "one_kind", ["cotton-02"], NO_DRAWS)
    assert state.phase == PROFIT  # Blue's refill came up short in the round's last turn


def test_empty_deck_tie_for_most_cards_goes_to_the_earliest_seat():
    hands = [["corn-01", "corn-02"], ["cotton-01", "cotton-02"], ["tobacco-01", "tobacco-02"]]
    resources = [goods("cocoa", 3), goods("coffee", 3), ["w1", "w2"]]
    placed = {c for h in hands for c in h} | {c for r in resources for c in r}
    state = position(
        3,
        hands=hands,
        resources=resources,
        deck=[],
        discard=[c for c in CARD_ORDER if c not in placed],
        step=LOAD,
        turn=2,
        end=END_BY_DECK,
        last_turn=2,
    )
    move = {"type": "load", "way": "one_kind", "cards": ["tobacco-01"]}
    after = ENGINE.apply(state, 2, move, NO_DRAWS)
    assert after.phase == PROFIT
    assert after.captain == 0  # all three hold 3 cards: the tie goes to Red, seat 0
    assert as_read(ENGINE.describe(state, 2, move, after, None))[1:] == [
        "The investment phase is over: hands and market are discarded.",
        "Red, Blue and Green hold the most cards in resources (3); the tie goes to Red, "
        "first in seat order, who takes the Captain and the Unloading card.",
        "Profit round 1: Red starts with the Unloading card.",
    ]


def test_nothing_left_to_load_after_trading_ends_the_turn():
    hands = [["corn-01"], ["cotton-01", "cotton-02"]]
    placed = set(hands[0] + hands[1])
    state = position(
        2,
        hands=hands,
        deck=[],
        discard=[c for c in CARD_ORDER if c not in placed],
        end=END_BY_DECK,
        last_turn=1,
    )
    after = trade(state, 0, "corn-01", [])
    assert after.turn == 1 and after.step == TRADE and after.hands[0] == ()
    assert after.market == ("corn-01",)
