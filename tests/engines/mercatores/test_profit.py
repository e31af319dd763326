"""Rules of the profit phase and scoring, one test per rule, with the rulebook's examples."""

from __future__ import annotations

import pytest

from engines.api import IllegalMove, ScriptedChance
from engines.mercatores import ENGINE
from engines.mercatores.data import CARDS
from engines.mercatores.state import CASH, OVER, TAX
from tests.engines.mercatores.helpers import as_read, check_cards_accounted, goods, profit_position

NO_DRAWS = ScriptedChance([])


def play(state, seat, move):
    return ENGINE.apply(state, seat, move, NO_DRAWS)


def cash(state, seat, **fields):
    return play(state, seat, {"type": "cash", **fields})


def reason(state, seat, move) -> str:
    with pytest.raises(IllegalMove) as raised:
        play(state, seat, move)
    return raised.value.reason


def with_ships(kind: str, ship_counts: list[int]) -> list[str]:
    """Goods cards of a kind with the given ship symbols, distinct cards."""
    chosen: list[str] = []
    for ships in ship_counts:
        chosen.append(
            next(
                card
                for card in CARDS
                if card.startswith(kind + "-")
                and CARDS[card]["ships"] == ships
                and card not in chosen
            )
        )
    return chosen


# ---------------------------------------------------------------- the rulebook's examples


def test_example_six_tobacco_cashed_in_pay_two_coins():
    state = profit_position(2, [goods("tobacco", 6), goods("corn", 2)])
    after = cash(state, 0, pile="tobacco")
    assert after.coins[0] == 2
    assert not any(card.startswith("tobacco") for card in after.resources[0])


def test_example_warehouse_with_three_different_goods_pays_one():
    own = goods("tobacco", 3) + goods("corn", 2) + goods("cotton", 5) + ["w1"]
    state = profit_position(2, [own, goods("cocoa", 1)])
    after = cash(state, 0, special="w1")
    assert after.coins[0] == 1 and "w1" not in after.resources[0]
    assert as_read(ENGINE.describe(state, 0, {"type": "cash", "special": "w1"}, after, 1))[0] == (
        "Red cashes in Warehouse: 3 kinds of goods, for 1 coin."
    )


def test_example_quay_counting_twelve_ships_pays_two():
    # Three players; q1 points at its owner and the left neighbour (seat 1).
    own = with_ships("corn", [2, 2, 1, 1]) + ["q1"]  # 6 ships
    left = with_ships("cotton", [2, 2, 1, 1])  # 6 ships
    right = with_ships("tobacco", [2, 2, 1])  # not counted
    state = profit_position(3, [own, left, right])
    after = cash(state, 0, special="q1")
    assert after.coins[0] == 2


def test_example_cotton_trade_route_with_three_own_and_five_opponent_cards_pays_three():
    own = goods("cotton", 3) + ["t3"]
    state = profit_position(3, [own, goods("cotton", 5, skip=3), goods("cotton", 1, skip=8)])
    after = cash(state, 0, special="t3", opponent=1)
    assert after.coins[0] == 3
    other = cash(state, 0, special="t3", opponent=2)
    assert other.coins[0] == 1  # 3 + 1 = 4 cotton pays 1


# ---------------------------------------------------------------- turn order and tax


def test_profit_starts_with_the_unloading_card_which_skips_the_tax():
    state = profit_position(3, [goods("corn", 2), goods("cotton", 2), goods("tobacco", 2)], 1)
    assert ENGINE.to_move(state) == frozenset({1}) and state.step == CASH
    assert "pay no tax" in reason(state, 1, {"type": "tax", "card": "cotton-01"})


def test_tax_discards_one_goods_card_of_ones_choice_then_cash_in():
    state = profit_position(
        2, [goods("corn", 2), goods("cotton", 3) + ["w1"]], unloading=0, turn=1, step=TAX
    )
    assert "First pay the tax" in reason(state, 1, {"type": "cash", "pile": "cotton"})
    after = play(state, 1, {"type": "tax", "card": "cotton-02"})
    assert after.resources[1] == ("cotton-01", "cotton-03", "w1")
    assert "cotton-02" in after.discard and after.step == CASH and after.turn == 1


def test_tax_is_one_goods_card_never_a_special_card():
    state = profit_position(2, [goods("corn", 2), goods("cotton", 3) + ["w1"]], 0, turn=1)
    assert "goods card, not a special" in reason(state, 1, {"type": "tax", "card": "w1"})
    assert "not in your resources" in reason(state, 1, {"type": "tax", "card": "corn-01"})
    assert all(CARDS[m["card"]]["kind"] == "goods" for m in ENGINE.legal_moves(state, 1))


def test_a_player_without_goods_pays_no_tax():
    state = profit_position(2, [goods("corn", 2), ["w1", "q1"]], unloading=0)
    state = cash(state, 0, pile="corn")
    assert state.turn == 1 and state.step == CASH


def test_a_tax_that_empties_the_resources_ends_the_turn():
    state = profit_position(3, [goods("corn", 2), ["cotton-01"], goods("tobacco", 2)], 0)
    state = cash(state, 0, pile="corn")
    state = play(state, 1, {"type": "tax", "card": "cotton-01"})
    assert state.turn == 2 and state.step == TAX


# ---------------------------------------------------------------- cash in


def test_cash_in_a_whole_pile_paid_by_its_table():
    state = profit_position(2, [goods("corn", 7) + goods("coffee", 1), goods("cocoa", 1)])
    after = cash(state, 0, pile="corn")
    assert after.coins[0] == 2  # 7 corn: at least 6 pays 2
    assert after.resources[0] == tuple(goods("coffee", 1))


def test_cash_in_exactly_one_thing_per_turn():
    state = profit_position(2, [goods("corn", 8) + ["w1"], goods("cocoa", 1)])
    move = {"type": "cash", "pile": "corn", "special": "w1"}
    with pytest.raises(IllegalMove) as raised:
        play(state, 0, move)
    assert "exactly one thing" in raised.value.reason
    after = cash(state, 0, pile="corn")
    assert after.turn == 1
    assert "not your turn" in reason(after, 0, {"type": "cash", "special": "w1"})


def test_cash_in_one_special_card_even_with_two_alike():
    state = profit_position(2, [goods("corn", 3) + goods("cotton", 1) + ["w1", "w2"], ["t1"]])
    after = cash(state, 0, special="w1")
    assert "w2" in after.resources[0] and after.turn == 1


def test_special_cards_count_at_the_moment_they_are_cashed():
    # The tax takes Blue's only cocoa: the Warehouse then counts two kinds, not three.
    own = goods("corn", 3) + goods("cotton", 1) + goods("cocoa", 1) + ["w1"]
    state = profit_position(2, [goods("tobacco", 2), own], unloading=0, turn=1, step=TAX)
    state = play(state, 1, {"type": "tax", "card": "cocoa-01"})
    after = cash(state, 1, special="w1")
    assert after.coins[1] == 0


def test_quay_self_and_right_counts_the_right_neighbour():
    own = with_ships("corn", [2, 2]) + ["q3"]  # 4 ships
    left = with_ships("cotton", [2, 2, 1])  # 5, not counted
    right = with_ships("tobacco", [1, 1])  # 2 ships (seat 2 is seat 0's right)
    state = profit_position(3, [own, left, right])
    assert cash(state, 0, special="q3").coins[0] == 1  # 6 ships


def test_quay_left_and_right_counts_both_neighbours_not_oneself():
    own = with_ships("corn", [2, 2, 1]) + ["q5"]  # 5, not counted
    left = with_ships("cotton", [2, 2, 1])  # 5
    right = with_ships("tobacco", [2, 2, 1])  # 5
    state = profit_position(3, [own, left, right])
    assert cash(state, 0, special="q5").coins[0] == 2  # 10 ships


def test_two_player_quay_left_and_right_counts_both_players_twice():
    own = with_ships("corn", [2, 1]) + ["q5"]  # 3
    other = with_ships("cotton", [2, 2])  # 4
    state = profit_position(2, [own, other])
    assert cash(state, 0, special="q5").coins[0] == 3  # (3 + 4) * 2 = 14


def test_two_player_quay_self_and_left_counts_both_once():
    own = with_ships("corn", [2, 1]) + ["q1"]  # 3
    other = with_ships("cotton", [2, 2])  # 4
    state = profit_position(2, [own, other])
    assert cash(state, 0, special="q1").coins[0] == 1  # 7


def test_trade_route_names_one_other_player():
    state = profit_position(3, [goods("cotton", 3) + ["t3", "w1"], ["corn-01"], ["corn-02"]])
    assert "Name the opponent" in reason(state, 0, {"type": "cash", "special": "t3"})
    move = {"type": "cash", "special": "t3", "opponent": 0}
    assert "other players" in reason(state, 0, move)
    move = {"type": "cash", "special": "t3", "opponent": 3}
    assert "other players" in reason(state, 0, move)
    move = {"type": "cash", "special": "w1", "opponent": 1}
    assert "Only a Trade Route" in reason(state, 0, move)
    listed = [m for m in ENGINE.legal_moves(state, 0) if m.get("special") == "t3"]
    assert [m["opponent"] for m in listed] == [1, 2]


def test_nothing_that_pays_is_discarded_for_nothing():
    state = profit_position(2, [goods("corn", 2) + ["t9"], goods("cocoa", 1)])
    after = cash(state, 0, pile="corn")
    assert after.coins[0] == 0 and after.resources[0] == ("t9",)
    lines = as_read(ENGINE.describe(state, 0, {"type": "cash", "pile": "corn"}, after, None))
    assert lines[0] == "Red cashes in their Corn pile of 2 cards for nothing."


def test_cash_only_what_one_holds():
    state = profit_position(2, [goods("corn", 2) + ["w1"], goods("cocoa", 1) + ["w2"]])
    assert "no Cotton" in reason(state, 0, {"type": "cash", "pile": "cotton"})
    assert "not in your resources" in reason(state, 0, {"type": "cash", "special": "w2"})
    assert "whole pile" in reason(state, 0, {"type": "cash", "special": "corn-01"})


# ---------------------------------------------------------------- rounds and the end


def test_unloading_card_passes_left_after_each_round_and_its_holder_starts():
    resources = [goods("corn", 3) + ["w1"], goods("cotton", 3) + ["w2"], goods("tobacco", 3)]
    state = profit_position(3, resources, unloading=0)
    state = cash(state, 0, special="w1")
    state = play(state, 1, {"type": "tax", "card": "cotton-01"})
    state = cash(state, 1, special="w2")
    state = play(state, 2, {"type": "tax", "card": "tobacco-01"})
    before = state
    state = cash(state, 2, pile="tobacco")
    assert (state.unloading, state.round, state.turn, state.step) == (1, 2, 1, CASH)
    lines = as_read(ENGINE.describe(before, 2, {"type": "cash", "pile": "tobacco"}, state, 0))
    assert "The Unloading card passes to Blue." in lines


def test_a_player_with_empty_resources_is_skipped():
    state = profit_position(3, [goods("corn", 3), [], goods("tobacco", 3)], unloading=0)
    state = cash(state, 0, pile="corn")
    assert state.turn == 2


def test_an_unloading_holder_without_resources_is_skipped_too():
    state = profit_position(3, [goods("corn", 3), goods("cotton", 3), []], unloading=1)
    state = cash(state, 1, pile="cotton")
    state = play(state, 0, {"type": "tax", "card": "corn-01"})
    state = cash(state, 0, pile="corn")
    assert state.phase == OVER
    state = profit_position(3, [goods("corn", 3), goods("cotton", 3) + ["w1"], []], unloading=1)
    state = cash(state, 1, pile="cotton")
    state = play(state, 0, {"type": "tax", "card": "corn-01"})
    before = state
    state = cash(state, 0, pile="corn")
    # Green now holds the Unloading card but has nothing: Blue opens round 2.
    assert (state.unloading, state.round, state.turn, state.step) == (2, 2, 1, CASH)
    lines = as_read(ENGINE.describe(before, 0, {"type": "cash", "pile": "corn"}, state, None))
    assert lines[-1] == (
        "Profit round 2: Blue starts, since Green holds the Unloading card but has no resources "
        "left."
    )


def test_game_ends_when_every_resource_is_empty_and_the_captain_adds_two():
    state = profit_position(2, [goods("tobacco", 5), goods("corn", 8)], unloading=0)
    state = cash(state, 0, pile="tobacco")  # 2 coins
    state = play(state, 1, {"type": "tax", "card": "corn-01"})
    before = state
    state = cash(state, 1, pile="corn")  # 7 corn: 2 coins
    assert state.phase == OVER and ENGINE.to_move(state) == frozenset()
    lines = as_read(ENGINE.describe(before, 1, {"type": "cash", "pile": "corn"}, state, None))
    assert lines[-1] == (
        "Every player's resources are empty: the game is over. Red wins with 4 coins "
        "(the Captain's 2 included)."
    )
    result = ENGINE.result(state)
    assert result.scores == (4, 2) and result.winners == (0,)
    assert result.breakdown["seats"][0] == {"coins": 2, "captain": 2, "total": 4}
    assert ENGINE.legal_moves(state, 0) == []
    assert "game is over" in reason(state, 0, {"type": "cash", "pile": "corn"})
    check_cards_accounted(state)


def test_ties_stand():
    state = profit_position(2, [goods("cocoa", 2), goods("corn", 9)], unloading=0)
    state = cash(state, 0, pile="cocoa")  # 1 coin, plus the Captain's 2
    state = play(state, 1, {"type": "tax", "card": "corn-01"})
    state = cash(state, 1, pile="corn")  # 8 corn: 3 coins
    result = ENGINE.result(state)
    assert result.scores == (3, 3) and result.winners == (0, 1)
    assert result.reason == "most coins (3 each); the tie stands"


def test_history_names_a_pile_and_a_trade_route_that_counts_nothing_in_plain_words():
    state = profit_position(2, [goods("corn", 2) + ["t1"], goods("cocoa", 1)])
    after = cash(state, 0, special="t1", opponent=1)
    lines = as_read(
        ENGINE.describe(state, 0, {"type": "cash", "special": "t1", "opponent": 1}, after, None)
    )
    assert lines[0] == (
        "Red cashes in Trade Route: Corn: 2 of their own and 0 of Blue make 2 Corn cards, "
        "for nothing."
    )
    state = profit_position(2, [["t3"], goods("cocoa", 1)])
    move = {"type": "cash", "special": "t3", "opponent": 1}
    lines = as_read(ENGINE.describe(state, 0, move, cash(state, 0, special="t3", opponent=1), 1))
    assert lines[0] == (
        "Red cashes in Trade Route: Cotton: neither they nor Blue hold Cotton cards, for nothing."
    )
    state = profit_position(2, [["w1"], goods("cocoa", 1)])
    lines = as_read(
        ENGINE.describe(
            state, 0, {"type": "cash", "special": "w1"}, cash(state, 0, special="w1"), 1
        )
    )
    assert lines[0] == "Red cashes in Warehouse: no kinds of goods, for nothing."
