"""One test per rule of the rules file (``rules/mare_balticum.md``), in its order."""

from __future__ import annotations

import random

import pytest

from engines.api import IllegalMove, ScriptedChance, SeededChance
from engines.mare_balticum import ENGINE
from engines.mare_balticum.data import (
    AREA_IDS,
    AREAS,
    BAG_KINDS,
    CAPACITY,
    CIRCLES,
    CONTRACTS,
    FISH,
    GOODS,
    PORT_IDS,
)
from engines.mare_balticum.state import OVER, START, TIME, TURN

from .helpers import balance, craft, fresh, in_turn, invariant, no_refill, outcomes_for

# Picks that deal every port distinct kinds (circles in data order).
GOOD_DEAL = [0, 0, 0, 0, 0, 1, 0, 0]


def play(state, seat, move, chance=None):
    return ENGINE.apply(state, seat, move, chance or ScriptedChance([]))


# --------------------------------------------------------------------------- components
@pytest.mark.parametrize(("seats", "vessels"), [(3, 5), (4, 4), (5, 3)])
def test_vessels_per_player_depend_on_player_count(seats, vessels):
    state = fresh(seats)
    assert state.vessels == vessels
    assert all(
        player["vessels_off_board"] == vessels for player in ENGINE.view(state, 0)["players"]
    )


def test_only_three_to_five_players():
    for seats in (2, 6):
        with pytest.raises(ValueError):
            fresh(seats)


def test_bag_holds_68_goods_and_6_time_tokens():
    state = fresh(4)
    invariant(state)
    assert sum(state.bag[: len(GOODS)]) + sum(len(g) for g in state.goods.values()) == 68
    assert state.bag[BAG_KINDS.index("time")] == 6


def test_board_has_23_areas_5_ports_and_8_demand_circles():
    assert len(AREA_IDS) == 23
    assert sum(1 for area in AREAS if area["depth"] == "shallow") == 14
    assert len(PORT_IDS) == 5
    assert sum(len(circles) for circles in CIRCLES.values()) == 8
    assert len(CIRCLES["copenhagen"]) == len(CIRCLES["riga"]) == 1


def test_each_player_has_number_tokens_0_to_3_and_the_tax():
    view = ENGINE.view(fresh(3), 0)
    assert view["players"][0]["unplayed"] == [0, 1, 2, 3, "tax"]
    # the others' number tokens are face down and look alike (version 2)
    others = ["number", "number", "number", "number", "tax"]
    assert all(player["unplayed"] == others for player in view["players"][1:])
    assert all(player["face_down"] == 0 for player in view["players"])
    old = ENGINE.at_version(1)
    spectator = old.view(old.setup(3, {}, SeededChance(1)), None)
    assert all(player["unplayed"] == [0, 1, 2, 3, "tax"] for player in spectator["players"])


def test_module_2_has_six_contracts_of_four_tokens_worth_7():
    assert len(CONTRACTS) == 6
    for contract in CONTRACTS:
        assert sum(contract["needs"].values()) == 4 and contract["points"] == 7
        assert contract["needs"]["amber"] == 2


def test_demand_tokens_are_two_of_each_fish():
    state = fresh(3)
    shown = [kind for circles in state.demand.values() for kind in circles]
    assert sorted(shown) == sorted(FISH * 2)


def test_vessels_of_different_players_may_share_an_area():
    state = in_turn(5, fleets={0: ["riga", "gulf_riga"], 1: ["riga", "gulf_riga", "vainameri"]})
    after = play(state, 0, {"type": "sail", "to": "vainameri"})
    assert "vainameri" in after.fleets[0]


def test_a_player_never_has_two_vessels_in_one_area():
    state = in_turn(5, fleets={0: ["riga", "gulf_riga", "irbe_strait"]})
    with pytest.raises(IllegalMove, match="already have a vessel"):
        play(state, 0, {"type": "sail", "from": "riga", "to": "irbe_strait"})


def test_ports_hold_no_goods():
    state = fresh(3)
    assert all(port not in state.goods for port in PORT_IDS)
    state = in_turn(3, fleets={0: ["gdansk"]})
    with pytest.raises(IllegalMove, match="not from a port"):
        play(state, 0, {"type": "fish", "area": "gdansk", "kind": "amber"})


# --------------------------------------------------------------------------- setup
def test_seat_order_as_listed_makes_seat_0_first():
    state = fresh(4, {"seat_order": "as_listed"})
    assert state.order == (0, 1, 2, 3)
    assert ENGINE.to_move(state) == {0}


def test_seat_order_random_is_drawn_by_chance():
    chance = ScriptedChance([2, 0, 0, *[0] * 32, *GOOD_DEAL])
    state = ENGINE.setup(3, {"seat_order": "random"}, chance)
    assert state.order == (2, 0, 1)
    assert ENGINE.to_move(state) == {2}


def test_board_is_filled_in_data_order_then_time_tokens_are_added():
    kinds = [GOODS[i % len(GOODS)] for i in range(sum(CAPACITY.values()))]
    bag = tuple(12 if kind in FISH else 20 if kind == "amber" else 0 for kind in BAG_KINDS)
    draws = outcomes_for(bag, kinds)
    state = ENGINE.setup(3, {"demand_management": True}, ScriptedChance(draws))
    assert state.goods["oresund"] == ("salmon",)
    assert state.goods["belt_sea"] == ("flatfish",)
    assert state.goods["arkona"] == ("herring", "cod")
    assert state.goods["pomeranian_bay"] == ("amber",)
    assert state.bag[BAG_KINDS.index("time")] == 6
    invariant(state)


def test_demand_is_dealt_again_when_a_port_shows_a_kind_twice():
    # Always the first token left deals St Petersburg cod twice: the deal is made again.
    state = ENGINE.setup(3, {}, ScriptedChance([*[0] * 32, *[0] * 8, *GOOD_DEAL]))
    assert state.demand == {
        "copenhagen": ("salmon",),
        "stockholm": ("salmon", "flatfish"),
        "gdansk": ("flatfish", "herring"),
        "riga": ("cod",),
        "st_petersburg": ("herring", "cod"),
    }


def test_module_1_circles_start_empty():
    state = fresh(3, {"demand_management": True})
    assert all(kind is None for circles in state.demand.values() for kind in circles)


def test_starting_vessels_are_placed_in_seat_order_in_any_port():
    state = fresh(3)
    assert state.phase == START
    assert {move["port"] for move in ENGINE.legal_moves(state, 0)} == set(PORT_IDS)
    state = play(state, 0, {"type": "place_start", "port": "gdansk"})
    assert ENGINE.to_move(state) == {1}
    with pytest.raises(IllegalMove):
        play(state, 1, {"type": "place_start", "port": "riga_bay"})
    with pytest.raises(IllegalMove, match="ports"):
        play(state, 1, {"type": "place_start", "port": "oresund"})
    state = play(state, 1, {"type": "place_start", "port": "gdansk"})
    state = play(state, 2, {"type": "place_start", "port": "riga"})
    assert state.phase == TURN and state.round == 1
    assert ENGINE.to_move(state) == {0}
    assert state.fleets == (("gdansk",), ("gdansk",), ("riga",))


# --------------------------------------------------------------------------- a turn
def test_the_third_action_ends_the_turn():
    state = no_refill(in_turn(3, fleets={0: ["gdansk"]}))
    for to in ("gulf_gdansk", "bornholm"):
        state = play(state, 0, {"type": "sail", "to": to})
        assert ENGINE.to_move(state) == {0}
    state = play(state, 0, {"type": "sail", "to": "gdansk_deep"})
    assert ENGINE.to_move(state) == {1}
    assert state.actions == 0


def test_end_turn_ends_the_turn_early():
    state = no_refill(in_turn(3, fleets={0: ["gdansk"]}))
    state = play(state, 0, {"type": "end_turn"})
    assert ENGINE.to_move(state) == {1}


def test_sail_first_places_a_vessel_next_to_ones_fleet():
    state = in_turn(3, fleets={0: ["gdansk"]})
    targets = {move["to"] for move in ENGINE.legal_moves(state, 0) if move["type"] == "sail"}
    assert targets == {"gulf_gdansk"}
    with pytest.raises(IllegalMove, match="next to one of yours"):
        play(state, 0, {"type": "sail", "to": "bornholm"})
    with pytest.raises(IllegalMove, match="off the board"):
        play(state, 0, {"type": "sail", "from": "gdansk", "to": "gulf_gdansk"})
    after = play(state, 0, {"type": "sail", "to": "gulf_gdansk"})
    assert after.fleets[0] == ("gdansk", "gulf_gdansk")


def test_sail_moves_a_vessel_anywhere_if_the_fleet_stays_connected():
    state = in_turn(5, fleets={0: ["gdansk", "gulf_gdansk", "bornholm"]})
    # Gdańsk to Kalmar Sound is no single edge: only the final shape counts.
    after = play(state, 0, {"type": "sail", "from": "gdansk", "to": "kalmar_sound"})
    assert after.fleets[0] == ("bornholm", "gulf_gdansk", "kalmar_sound")
    with pytest.raises(IllegalMove, match="All your vessels are out"):
        play(state, 0, {"type": "sail", "to": "kalmar_sound"})


def test_sail_that_splits_the_fleet_is_illegal():
    state = in_turn(5, fleets={0: ["gdansk", "gulf_gdansk", "bornholm"]})
    with pytest.raises(IllegalMove, match="split your fleet"):
        play(state, 0, {"type": "sail", "from": "gulf_gdansk", "to": "hano_bay"})


def test_fish_takes_a_fish_into_the_hold():
    state = in_turn(3, fleets={0: ["gdansk", "gulf_gdansk"]}, goods={"gulf_gdansk": ["cod"]})
    after = play(state, 0, {"type": "fish", "area": "gulf_gdansk", "kind": "cod"})
    assert after.holds[0][FISH.index("cod")] == 1
    assert after.goods["gulf_gdansk"] == ()


def test_fished_amber_goes_straight_to_the_warehouse():
    state = in_turn(3, fleets={0: ["gdansk", "gulf_gdansk"]}, goods={"gulf_gdansk": ["amber"]})
    after = play(state, 0, {"type": "fish", "area": "gulf_gdansk", "kind": "amber"})
    assert after.warehouses[0][GOODS.index("amber")] == 1
    assert sum(after.holds[0]) == 0


def test_fish_only_where_one_has_a_vessel_and_the_token_lies():
    state = in_turn(3, fleets={0: ["gdansk", "gulf_gdansk"]}, goods={"gulf_gdansk": ["cod"]})
    with pytest.raises(IllegalMove, match="no vessel"):
        play(state, 0, {"type": "fish", "area": "bornholm", "kind": "cod"})
    with pytest.raises(IllegalMove, match="no salmon"):
        play(state, 0, {"type": "fish", "area": "gulf_gdansk", "kind": "salmon"})


def test_a_full_hold_takes_no_fish_but_amber_still():
    state = in_turn(
        3,
        fleets={0: ["gdansk", "gulf_gdansk"]},
        goods={"gulf_gdansk": ["cod"], "bornholm": []},
        holds={0: {"salmon": 5}},
    )
    with pytest.raises(IllegalMove, match="Your hold is full: throw a fish overboard"):
        play(state, 0, {"type": "fish", "area": "gulf_gdansk", "kind": "cod"})
    assert not [m for m in ENGINE.legal_moves(state, 0) if m["type"] == "fish"]
    state = craft(state, goods={"gulf_gdansk": ["amber"]})
    after = play(state, 0, {"type": "fish", "area": "gulf_gdansk", "kind": "amber"})
    assert after.warehouses[0][GOODS.index("amber")] == 1


def test_unload_moves_demanded_fish_in_any_number():
    state = in_turn(
        3,
        fleets={0: ["gdansk"]},
        demand={"gdansk": ["cod", "herring"]},
        holds={0: {"cod": 3, "herring": 1}},
    )
    after = play(state, 0, {"type": "unload", "port": "gdansk", "fish": {"cod": 2}})
    assert after.holds[0][FISH.index("cod")] == 1
    assert after.warehouses[0][GOODS.index("cod")] == 2
    legal = [m for m in ENGINE.legal_moves(state, 0) if m["type"] == "unload"]
    assert len(legal) == 4 * 2 - 1  # 0-3 cod times 0-1 herring, not nothing


def test_unload_needs_a_vessel_in_that_port():
    state = in_turn(
        3, fleets={0: ["riga"]}, demand={"gdansk": ["cod", "herring"]}, holds={0: {"cod": 1}}
    )
    with pytest.raises(IllegalMove, match="no vessel in Gdańsk"):
        play(state, 0, {"type": "unload", "port": "gdansk", "fish": {"cod": 1}})


def test_take_contract_holds_at_most_one_and_returns_the_old():
    state = in_turn(3, {"trade_contracts": True}, contracts={1: "c2"})
    state = play(state, 0, {"type": "take_contract", "contract": "c1"})
    assert state.contracts[0] == "c1"
    with pytest.raises(IllegalMove, match="Another player"):
        play(state, 0, {"type": "take_contract", "contract": "c2"})
    with pytest.raises(IllegalMove, match="already hold"):
        play(state, 0, {"type": "take_contract", "contract": "c1"})
    state = play(state, 0, {"type": "take_contract", "contract": "c3"})
    assert state.contracts == ("c3", "c2", None)
    assert state.actions == 2


def test_take_contract_only_with_module_2():
    state = in_turn(3)
    with pytest.raises(IllegalMove, match="not used"):
        play(state, 0, {"type": "take_contract", "contract": "c1"})
    assert not [m for m in ENGINE.legal_moves(state, 0) if m["type"] == "take_contract"]


def test_throw_overboard_is_free_and_removes_the_fish():
    state = in_turn(3, holds={0: {"herring": 3}})
    after = play(state, 0, {"type": "overboard", "kind": "herring", "count": 2})
    assert after.holds[0][FISH.index("herring")] == 1
    assert after.removed[GOODS.index("herring")] == 2
    assert after.actions == 0
    with pytest.raises(IllegalMove, match="does not have 2"):
        play(after, 0, {"type": "overboard", "kind": "herring", "count": 2})
    other = craft(state, turn=1)
    with pytest.raises(IllegalMove, match="not your turn"):
        play(other, 0, {"type": "overboard", "kind": "herring", "count": 1})


# --------------------------------------------------------------------------- refill
def test_refill_fills_empty_areas_without_vessels_in_data_order():
    state = no_refill(in_turn(3, fleets={0: ["copenhagen", "oresund"]}))
    state = balance(craft(state, goods={"oresund": [], "arkona": [], "bornholm": []}))
    draws = outcomes_for(state.bag, ["cod", "salmon", "herring", "amber"])
    after = play(state, 0, {"type": "end_turn"}, ScriptedChance(draws))
    assert after.goods["oresund"] == ()  # a vessel lies there
    assert after.goods["arkona"] == ("salmon", "cod")
    assert after.goods["bornholm"] == ("herring", "amber")
    lines = ENGINE.describe(state, 0, {"type": "end_turn"}, after, None)
    assert "Refill: Arkona Basin gets cod and salmon." in lines


def test_a_deep_area_refilled_with_two_of_a_kind_reads_as_a_count():
    state = no_refill(in_turn(3, fleets={0: ["copenhagen"]}))
    state = balance(craft(state, goods={"arkona": []}))
    draws = outcomes_for(state.bag, ["amber", "amber"])
    after = play(state, 0, {"type": "end_turn"}, ScriptedChance(draws))
    assert after.goods["arkona"] == ("amber", "amber")
    lines = ENGINE.describe(state, 0, {"type": "end_turn"}, after, None)
    assert "Refill: Arkona Basin gets 2 amber." in lines


def test_a_time_token_drawn_in_the_refill_is_a_passage_of_time_then_the_draw_goes_on():
    state = no_refill(in_turn(3, fleets={0: ["copenhagen"]}))
    state = balance(craft(state, goods={"arkona": []}))
    draws = outcomes_for(state.bag, ["cod", "time"])
    after = play(state, 0, {"type": "end_turn"}, ScriptedChance(draws))
    assert after.phase == TIME and after.time_track == 1
    assert after.goods["arkona"] == ("cod",)
    assert ENGINE.to_move(after) == {0, 1, 2}
    for seat in (0, 1):
        after = play(after, seat, {"type": "produce", "token": 1, "kind": "cod"})
    last = outcomes_for(after.bag, ["herring"])
    after = play(after, 2, {"type": "produce", "token": 2, "kind": "cod"}, ScriptedChance(last))
    assert after.goods["arkona"] == ("herring", "cod")
    assert after.phase == TURN and ENGINE.to_move(after) == {1}


def test_refill_stops_when_the_bag_is_empty():
    state = no_refill(in_turn(3, fleets={0: ["copenhagen"]}, time_track=6, final_turns=9))
    state = balance(craft(state, goods={"arkona": [], "bornholm": []}))
    state = craft(state, removed=tuple(state.removed[i] + state.bag[i] for i in range(5)))
    state = craft(state, bag=(0,) * len(BAG_KINDS))
    invariant(state)
    after = play(state, 0, {"type": "end_turn"})
    assert after.goods["arkona"] == () and after.goods["bornholm"] == ()
    assert "The bag is empty" in " ".join(ENGINE.describe(state, 0, {"type": "end_turn"}, after, 1))


# --------------------------------------------------------------------------- time passes
def time_passes(seats=3, time_track=1, **fields):
    """A passage of time (the first, unless told otherwise) awaiting every choice."""
    state = no_refill(in_turn(seats))
    state = craft(state, phase=TIME, pending=(None,) * seats, time_track=time_track, **fields)
    return balance(craft(state, bag=state.bag[:-1] + (6 - time_track,)))


def test_production_choices_are_simultaneous_and_revealed_together():
    state = time_passes()
    state = play(state, 2, {"type": "produce", "token": 3, "kind": "salmon"})
    assert ENGINE.to_move(state) == {0, 1}
    assert state.markets[2] == (None,) * 4
    assert "market" not in ENGINE.view(state, 0)["players"][2]
    assert ENGINE.view(state, 2)["my_choice"] == {"token": 3, "kind": "salmon"}
    state = play(state, 0, {"type": "produce", "token": 0, "kind": "cod"})
    state = play(state, 1, {"type": "produce", "token": 3, "kind": "salmon"})
    assert state.markets[2][FISH.index("salmon")] == 3
    assert state.markets[0][FISH.index("cod")] == 0
    assert state.played == ((0,), (3,), (3,))
    assert ENGINE.to_move(state) == {1}


def test_a_number_token_goes_on_an_empty_market_space():
    state = time_passes(markets={0: {"salmon": 2}}, played={0: [2]})
    with pytest.raises(IllegalMove, match="already holds"):
        play(state, 0, {"type": "produce", "token": 3, "kind": "salmon"})
    with pytest.raises(IllegalMove, match="already played"):
        play(state, 0, {"type": "produce", "token": 2, "kind": "cod"})
    kinds = {m["kind"] for m in ENGINE.legal_moves(state, 0) if m["token"] != "tax"}
    assert kinds == {"flatfish", "herring", "cod"}


def test_the_tax_discards_two_goods_from_hold_and_or_warehouse():
    state = time_passes(holds={0: {"cod": 1}}, warehouses={0: {"amber": 3}})
    move = {
        "type": "produce",
        "token": "tax",
        "discard": {"hold": {"cod": 1}, "warehouse": {"amber": 1}},
    }
    for seat, choice in ((0, move), (1, {"type": "produce", "token": 0, "kind": "cod"})):
        state = play(state, seat, choice)
    state = play(state, 2, {"type": "produce", "token": 0, "kind": "cod"})
    assert state.holds[0] == (0, 0, 0, 0)
    assert state.warehouses[0][GOODS.index("amber")] == 2
    assert state.removed[GOODS.index("cod")] == 1
    invariant(state)


def test_the_tax_costs_exactly_two_goods():
    state = time_passes(warehouses={0: {"amber": 3}})
    with pytest.raises(IllegalMove, match="exactly 2"):
        play(state, 0, {"type": "produce", "token": "tax", "discard": {"warehouse": {"amber": 3}}})
    with pytest.raises(IllegalMove, match="does not have"):
        play(state, 0, {"type": "produce", "token": "tax", "discard": {"hold": {"cod": 2}}})


def test_the_tax_needs_two_goods_unless_it_is_the_last_token():
    state = time_passes(warehouses={0: {"amber": 1}})
    with pytest.raises(IllegalMove, match="at least 2 goods"):
        play(state, 0, {"type": "produce", "token": "tax", "discard": {"warehouse": {"amber": 1}}})
    assert all(m["token"] != "tax" for m in ENGINE.legal_moves(state, 0))
    last = time_passes(
        time_track=5,
        warehouses={0: {"amber": 1}},
        played={seat: [0, 1, 2, 3] for seat in range(3)},
        markets={seat: {"salmon": 0, "flatfish": 1, "herring": 2, "cod": 3} for seat in range(3)},
    )
    assert ENGINE.legal_moves(last, 0) == [
        {"type": "produce", "token": "tax", "discard": {"warehouse": {"amber": 1}}}
    ]
    assert ENGINE.legal_moves(last, 1) == [{"type": "produce", "token": "tax", "discard": {}}]


def test_the_fifth_passage_of_time_uses_every_players_last_token():
    state = time_passes(
        time_track=5,
        played={seat: [0, 1, 2, "tax"] for seat in range(3)},
        markets={seat: {"salmon": 0, "flatfish": 1, "herring": 2} for seat in range(3)},
    )
    for seat in range(3):
        assert ENGINE.legal_moves(state, seat) == [{"type": "produce", "token": 3, "kind": "cod"}]
        state = play(state, seat, {"type": "produce", "token": 3, "kind": "cod"})
    assert all(len(played) == 5 for played in state.played)


# --------------------------------------------------------------------------- the end
def last_token_at_turn(turn):
    """Seat ``turn`` ends a turn and the refill draws the 6th time token."""
    state = no_refill(in_turn(3, fleets={0: ["copenhagen"], 1: ["riga"], 2: ["gdansk"]}))
    state = craft(
        state,
        turn=turn,
        time_track=5,
        played={seat: [0, 1, 2, 3, "tax"] for seat in range(3)},
        markets={seat: {"salmon": 0, "flatfish": 1, "herring": 2, "cod": 3} for seat in range(3)},
        goods={"arkona": []},
    )
    state = balance(craft(state, bag=state.bag[:-1] + (1,)))
    draws = outcomes_for(state.bag, ["time", "amber", "amber"])
    return ENGINE.apply(state, turn, {"type": "end_turn"}, ScriptedChance(draws))


def turns_until_over(state):
    seats = []
    while ENGINE.to_move(state):
        (seat,) = ENGINE.to_move(state)
        seats.append(seat)
        state = ENGINE.apply(state, seat, {"type": "end_turn"}, SeededChance(seat))
    return seats, state


def test_sixth_time_token_after_the_last_seat_gives_everyone_one_more_turn():
    state = last_token_at_turn(2)
    assert state.time_track == 6 and state.phase == TURN
    assert state.goods["arkona"] == ("amber", "amber")
    seats, state = turns_until_over(state)
    assert seats == [0, 1, 2]
    assert state.phase == OVER and ENGINE.result(state) is not None


def test_sixth_time_token_mid_round_finishes_the_round_then_one_more_turn_each():
    state = last_token_at_turn(0)
    assert state.phase == TURN  # no production after the 6th token
    seats, _ = turns_until_over(state)
    assert seats == [1, 2, 0, 1, 2]


def test_game_over_rejects_every_move():
    _, state = turns_until_over(last_token_at_turn(2))
    assert ENGINE.to_move(state) == frozenset()
    assert ENGINE.legal_moves(state, 0) == []
    with pytest.raises(IllegalMove, match="game is over"):
        play(state, 0, {"type": "end_turn"})


# --------------------------------------------------------------------------- scoring
def final(seats=3, **fields):
    state = craft(in_turn(seats), phase=OVER, time_track=6, **fields)
    return ENGINE.result(state)


MARKET = {"salmon": 3, "herring": 2, "flatfish": 1, "cod": 0}


def test_fish_left_in_the_hold_are_lost():
    result = final(markets={0: MARKET}, holds={0: {"salmon": 5}})
    assert result.scores[0] == 0
    assert result.breakdown["seats"][0]["lost_in_hold"] == 5


def test_each_fish_scores_its_multiplier_and_amber_scores_one():
    result = final(markets={0: MARKET}, warehouses={0: {"salmon": 1, "cod": 4, "amber": 2}})
    assert result.scores[0] == 3 + 0 + 2


def test_contract_split_is_chosen_by_the_engine_for_the_best_score():
    market = {"salmon": 3, "herring": 3, "flatfish": 0, "cod": 0}
    # Normal scoring of salmon + herring + 2 amber is 8 here: better than the contract's 7.
    result = final(
        markets={0: market},
        contracts={0: "c1"},
        warehouses={0: {"salmon": 2, "herring": 2, "amber": 4}},
    )
    assert result.scores[0] == 16
    assert result.breakdown["seats"][0]["contract_sets"] == 0
    # With cod and flatfish worth nothing, two sets of c6 score 14.
    result = final(
        markets={0: market},
        contracts={0: "c6"},
        warehouses={0: {"flatfish": 2, "cod": 3, "amber": 5}},
    )
    assert result.scores[0] == 14 + 1
    assert result.breakdown["seats"][0]["contract_sets"] == 2


def test_a_partial_contract_set_scores_nothing():
    result = final(
        markets={0: MARKET},
        contracts={0: "c6"},
        warehouses={0: {"flatfish": 1, "cod": 1, "amber": 1}},
    )
    assert result.scores[0] == 1 + 0 + 1
    assert result.breakdown["seats"][0]["contract_sets"] == 0


def test_most_points_wins():
    result = final(
        markets={0: MARKET, 1: MARKET, 2: MARKET}, warehouses={0: {"amber": 3}, 1: {"salmon": 2}}
    )
    assert result.scores == (3, 6, 0) and result.winners == (1,)


def test_a_tie_goes_to_the_most_tokens_in_the_warehouse():
    result = final(
        markets={0: MARKET, 1: MARKET, 2: MARKET}, warehouses={0: {"salmon": 1}, 1: {"amber": 3}}
    )
    assert result.scores[:2] == (3, 3) and result.winners == (1,)


def test_a_tie_on_points_and_tokens_stands():
    result = final(
        markets={0: MARKET, 1: MARKET, 2: MARKET}, warehouses={0: {"amber": 3}, 1: {"amber": 3}}
    )
    assert result.winners == (0, 1)


def test_contract_tokens_count_in_the_tie_break():
    result = final(
        markets={seat: {"salmon": 1, "herring": 1, "flatfish": 1, "cod": 1} for seat in range(3)},
        contracts={0: "c1"},
        warehouses={0: {"salmon": 1, "herring": 1, "amber": 2}, 1: {"amber": 7}},
    )
    assert result.scores[:2] == (7, 7) and result.winners == (1,)


# --------------------------------------------------------------------------- module 1
DM = {"demand_management": True}


def test_module_1_first_unloading_of_a_kind_places_its_demand():
    state = in_turn(3, DM, fleets={0: ["stockholm"]}, holds={0: {"cod": 2}})
    moves = [m for m in ENGINE.legal_moves(state, 0) if m["type"] == "unload"]
    assert {
        "type": "unload",
        "port": "stockholm",
        "fish": {"cod": 2},
        "demand": {"cod": 0},
    } in moves
    with pytest.raises(IllegalMove, match="Choose the circle"):
        play(state, 0, {"type": "unload", "port": "stockholm", "fish": {"cod": 2}})
    after = play(
        state, 0, {"type": "unload", "port": "stockholm", "fish": {"cod": 2}, "demand": {"cod": 0}}
    )
    assert after.demand["stockholm"] == ("cod", None)
    assert after.warehouses[0][GOODS.index("cod")] == 2


def test_module_1_a_minus_one_circle_loses_one_fish_at_every_unloading():
    state = in_turn(
        3, DM, fleets={0: ["stockholm"]}, holds={0: {"cod": 3}}, demand={"stockholm": [None, "cod"]}
    )
    after = play(state, 0, {"type": "unload", "port": "stockholm", "fish": {"cod": 1}})
    assert after.warehouses[0][GOODS.index("cod")] == 0
    after = play(after, 0, {"type": "unload", "port": "stockholm", "fish": {"cod": 2}})
    assert after.warehouses[0][GOODS.index("cod")] == 1
    assert after.removed[GOODS.index("cod")] == 2


def test_module_1_no_demand_on_minus_one_with_a_single_fish():
    state = in_turn(3, DM, fleets={0: ["stockholm"]}, holds={0: {"cod": 1}})
    with pytest.raises(IllegalMove, match="single fish"):
        play(
            state,
            0,
            {"type": "unload", "port": "stockholm", "fish": {"cod": 1}, "demand": {"cod": 1}},
        )


def test_module_1_each_kind_is_demanded_in_two_ports_at_most():
    state = in_turn(
        3,
        DM,
        fleets={0: ["stockholm"]},
        holds={0: {"cod": 2}},
        demand={"riga": ["cod"], "copenhagen": ["cod"]},
    )
    assert not [m for m in ENGINE.legal_moves(state, 0) if m["type"] == "unload"]
    with pytest.raises(IllegalMove, match="two ports"):
        play(
            state,
            0,
            {"type": "unload", "port": "stockholm", "fish": {"cod": 2}, "demand": {"cod": 0}},
        )


def test_module_1_a_port_never_shows_a_kind_twice_nor_more_kinds_than_circles():
    state = in_turn(
        3, DM, fleets={0: ["riga"]}, holds={0: {"cod": 2, "salmon": 1}}, demand={"riga": ["cod"]}
    )
    with pytest.raises(IllegalMove, match="already buys"):
        play(state, 0, {"type": "unload", "port": "riga", "fish": {"cod": 2}, "demand": {"cod": 0}})
    with pytest.raises(IllegalMove, match="no free demand circle"):
        play(
            state,
            0,
            {"type": "unload", "port": "riga", "fish": {"salmon": 1}, "demand": {"salmon": 0}},
        )


def test_module_1_one_unloading_may_place_two_demand_tokens():
    state = in_turn(3, DM, fleets={0: ["gdansk"]}, holds={0: {"cod": 2, "flatfish": 2}})
    after = play(
        state,
        0,
        {
            "type": "unload",
            "port": "gdansk",
            "fish": {"cod": 2, "flatfish": 2},
            "demand": {"cod": 1, "flatfish": 0},
        },
    )
    assert after.demand["gdansk"] == ("flatfish", "cod")
    assert after.warehouses[0][: len(FISH)] == (0, 2, 0, 1)
    with pytest.raises(IllegalMove, match="not free"):
        play(
            state,
            0,
            {
                "type": "unload",
                "port": "gdansk",
                "fish": {"cod": 2, "flatfish": 2},
                "demand": {"cod": 1, "flatfish": 1},
            },
        )


def test_without_module_1_no_demand_is_placed():
    state = in_turn(
        3, fleets={0: ["gdansk"]}, demand={"gdansk": ["cod", "herring"]}, holds={0: {"salmon": 2}}
    )
    with pytest.raises(IllegalMove, match="does not buy salmon"):
        play(
            state,
            0,
            {"type": "unload", "port": "gdansk", "fish": {"salmon": 2}, "demand": {"salmon": 0}},
        )


# --------------------------------------------------------------------------- hidden information
def test_views_show_a_market_to_its_owner_only_until_the_end():
    state = in_turn(3, markets={1: {"salmon": 3}}, played={1: [3]})
    assert ENGINE.view(state, 1)["players"][1]["market"]["salmon"] == 3
    for viewer in (None, 0, 2):
        # version 2: the covered space is seen, the number on it is not
        player = ENGINE.view(state, viewer)["players"][1]
        assert "market" not in player and player["covered"] == ["salmon"]
        assert player["unplayed"] == ["number", "number", "number", "tax"]
        assert player["played"] == ["number"] and player["face_down"] == 1
        # version 1: a count of face-down tokens, and the numbers played
        player = ENGINE.view(craft(state, rules_version=1), viewer)["players"][1]
        assert "market" not in player and "covered" not in player
        assert player["unplayed"] == [0, 1, 2, "tax"] and player["face_down"] == 1
    over = craft(state, phase=OVER, time_track=6)
    assert ENGINE.view(over, 0)["players"][1]["market"]["salmon"] == 3


def test_views_show_the_bag_by_counts_and_warehouses_to_everyone():
    state = in_turn(3, warehouses={2: {"amber": 2}})
    view = ENGINE.view(state, None)
    assert view["players"][2]["warehouse"] == {"amber": 2}
    assert sum(view["bag"].values()) == view["bag_count"] == sum(state.bag)


def test_circle_values_matter_in_module_1_only():
    state = in_turn(
        3, fleets={0: ["gdansk"]}, demand={"gdansk": ["cod", "herring"]}, holds={0: {"herring": 2}}
    )
    after = play(state, 0, {"type": "unload", "port": "gdansk", "fish": {"herring": 2}})
    assert after.warehouses[0][GOODS.index("herring")] == 2


def table_splits(warehouse: dict[str, int], needs: dict[str, int]):
    """Every way a player at the table could move tokens from the warehouse onto the
    contract card (rulebook, module 2: any tokens, or none), as (card, rest)."""
    kinds = list(needs)
    ranges = [range(warehouse.get(kind, 0) + 1) for kind in kinds]

    def walk(index: int, card: dict[str, int]):
        if index == len(kinds):
            yield dict(card), {k: warehouse.get(k, 0) - card.get(k, 0) for k in GOODS}
            return
        for n in ranges[index]:
            yield from walk(index + 1, {**card, kinds[index]: n})

    yield from walk(0, {})


def table_score(card, rest, market, contract):
    sets = min(card[kind] // n for kind, n in contract["needs"].items())
    fish = sum(rest[kind] * (market.get(kind) or 0) for kind in FISH)
    return fish + rest["amber"] + sets * contract["points"]


def test_no_split_a_player_could_choose_beats_the_engines_and_none_moves_the_tie_break():
    """Rules file, 'Scoring', module 2: the engine picks the split that scores most. At the
    table the player may put any tokens on the card (rulebook, module 2); none of those
    choices scores more than the engine's, and the tie-break counts the warehouse with the
    card's tokens whatever the split, so the engine's choice is the one a player wants."""
    rng = random.Random(29)
    markets = [None, 0, 1, 2, 3]
    for _ in range(150):
        contract = rng.choice(CONTRACTS)
        warehouse = {kind: rng.randint(0, 9) for kind in GOODS}
        market = {kind: rng.choice(markets) for kind in FISH}
        result = final(
            markets={0: market}, contracts={0: contract["id"]}, warehouses={0: warehouse}
        )
        seat = result.breakdown["seats"][0]
        best = max(
            table_score(card, rest, market, contract)
            for card, rest in table_splits(warehouse, contract["needs"])
        )
        assert result.scores[0] == best
        assert seat["tokens"] == sum(warehouse.values())
        sets = seat["contract_sets"]
        used = {kind: n * sets for kind, n in contract["needs"].items()}
        assert all(used[kind] <= warehouse[kind] for kind in used)
