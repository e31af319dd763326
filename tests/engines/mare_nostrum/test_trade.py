"""Rules 'Trade': income, the Navigator's number, secret offers, the picking chain."""

from __future__ import annotations

import pytest

from engines.api import IllegalMove
from engines.mare_nostrum.income import pay_income
from engines.mare_nostrum.state import clone, empty_hand
from engines.mare_nostrum.war import update_occupation
from tests.engines.mare_nostrum.helpers import (
    ENGINE,
    give_cards,
    play,
    put_legions,
    start,
    with_hand,
)

GREECE, CARTHAGE, ROME, EGYPT = range(4)


def income_of(state: dict) -> list[dict]:
    """Runs the income alone, from empty hands, and returns what each seat received."""
    state = clone(state)
    for seat in range(state["seats"]):
        state = with_hand(state, seat)
    state["log"] = []
    pay_income(state)
    return [{k: n for k, n in hand.items() if n} for hand in state["hands"]]


def test_income_cities_temples_caravans_and_markets():
    paid = income_of(start(4))
    # Egypt: Alexandria and Memphis with a temple (4), Thebae, Paraetonium; two caravans.
    assert paid[EGYPT] == {"coin": 6, "papyrus": 1, "grain": 1}
    # Carthage: the market doubles the grain caravan of Africa.
    assert paid[CARTHAGE] == {"coin": 1, "grain": 2, "cattle": 1, "oil": 1}


def test_the_bank_pays_in_seat_order_from_the_navigator_and_an_empty_bank_pays_nothing():
    state = start(4)
    for seat in range(4):
        state = with_hand(state, seat)
    state["bank"]["coin"] = 3  # the other 32 coins are out of play for this test
    state["log"] = []
    pay_income(state)
    coins = [hand["coin"] for hand in state["hands"]]
    # Carthage (the Navigator) is paid first, then Rome, Egypt (short) and Greece (none).
    assert coins == [0, 1, 1, 1]


def occupied_egypt(legions: int) -> dict:
    state = start(4)
    aegyptus = state["provinces"]["aegyptus"]
    aegyptus["legions"] = {}
    aegyptus["fortress"] = None
    state["supply"]["egypt"]["legion"] += 1
    state["supply"]["egypt"]["fortress"] += 1
    state = put_legions(state, "rome", "aegyptus", legions)
    update_occupation(state, "aegyptus")
    return state


def test_occupied_buildings_pay_their_occupier_and_a_held_temple_doubles_only_held_cities():
    state = occupied_egypt(2)
    assert state["provinces"]["aegyptus"]["occupier"] == "rome"
    paid = income_of(state)
    # Two legions hold both cities; the unheld temple doubles nothing for Egypt.
    assert paid[ROME]["coin"] == 1 + 2
    assert paid[EGYPT] == {"coin": 2, "papyrus": 1, "grain": 1}
    paid = income_of(occupied_egypt(3))  # cities and temple held: 4 coins to Rome
    assert paid[ROME]["coin"] == 1 + 4


def test_solomon_pays_two_extra_coins():
    paid = income_of(give_cards(start(4), GREECE, "solomon"))
    assert paid[GREECE]["coin"] == 2 + 2


def test_neutral_powers_earn_nothing():
    state = start(3)
    state["provinces"]["latium"]["cities"] = ["Roma"]
    state["pool"]["city"] -= 1
    paid = income_of(state)
    assert sum(sum(hand.values()) for hand in paid) == sum(
        sum(h.values()) for h in income_of(start(3))
    )


def test_temple_of_artemis_lets_its_owner_choose_a_goods_card():
    state = give_cards(start(4), ROME, "temple_of_artemis")
    state = clone(state)
    state["log"] = []
    from engines.mare_nostrum.flow import enter_trade

    enter_trade(state)
    assert state["phase"] == "artemis" and ENGINE.to_move(state) == {ROME}
    with pytest.raises(IllegalMove, match="goods"):
        play(state, ROME, {"type": "choose_good", "good": "coin"})
    before = state["hands"][ROME]["gems"]
    state = play(state, ROME, {"type": "choose_good", "good": "gems"})
    assert state["hands"][ROME]["gems"] == before + 1 and state["phase"] == "trade_number"


def trading(hands: dict[int, dict]) -> dict:
    state = start(4)
    for seat in range(4):
        state = with_hand(state, seat, **hands.get(seat, {}))
    return state


def test_the_navigator_names_a_number_up_to_their_own_hand():
    state = trading({CARTHAGE: {"coin": 2}, GREECE: {"grain": 3}})
    assert ENGINE.to_move(state) == {CARTHAGE}
    with pytest.raises(IllegalMove, match="from 0 to 2"):
        play(state, CARTHAGE, {"type": "set_trade", "n": 3})
    assert [m["n"] for m in ENGINE.legal_moves(state, CARTHAGE)] == [0, 1, 2]


def test_zero_means_no_trading():
    state = trading({CARTHAGE: {"coin": 2}, GREECE: {"grain": 3}})
    state = play(state, CARTHAGE, {"type": "set_trade", "n": 0})
    assert state["phase"] in ("name_builder", "build") and state["trade"] is None


def test_players_with_fewer_cards_sit_out_and_offers_are_secret_until_all_chose():
    state = trading(
        {
            CARTHAGE: {"coin": 2},
            GREECE: {"grain": 1, "fish": 1},
            ROME: {"oil": 1},
            EGYPT: {"iron": 2},
        }
    )
    state = play(state, CARTHAGE, {"type": "set_trade", "n": 2})
    assert state["trade"]["in"] == [GREECE, CARTHAGE, EGYPT]  # Rome holds one card only
    assert ENGINE.to_move(state) == {GREECE, CARTHAGE, EGYPT}
    state = play(state, GREECE, {"type": "offer", "cards": ["grain", "fish"]})
    for viewer in (None, CARTHAGE, ROME, EGYPT):
        shown = ENGINE.view(state, viewer)["trade"]
        assert "offers" not in shown and "my_offer" not in shown
    assert ENGINE.view(state, GREECE)["trade"]["my_offer"] == {"grain": 1, "fish": 1}
    state = play(state, CARTHAGE, {"type": "offer", "cards": ["coin", "coin"]})
    state = play(state, EGYPT, {"type": "offer", "cards": ["iron", "iron"]})
    assert ENGINE.view(state, ROME)["trade"]["offers"][GREECE] == {"grain": 1, "fish": 1}
    assert state["phase"] == "take" and ENGINE.to_move(state) == {CARTHAGE}


def four_offers(n: int = 1) -> dict:
    hands = {seat: {"coin": n} for seat in range(4)}
    hands[GREECE] = {"grain": n}
    hands[ROME] = {"wine": n}
    hands[EGYPT] = {"gold": n}
    state = play(trading(hands), CARTHAGE, {"type": "set_trade", "n": n})
    for seat, card in ((GREECE, "grain"), (CARTHAGE, "coin"), (ROME, "wine"), (EGYPT, "gold")):
        state = play(state, seat, {"type": "offer", "cards": [card] * n})
    return state


def test_the_player_who_lost_a_card_takes_next():
    state = four_offers()
    state = play(state, CARTHAGE, {"type": "take", "from_seat": EGYPT, "card": "gold"})
    assert state["hands"][CARTHAGE]["gold"] == 1 and ENGINE.to_move(state) == {EGYPT}
    with pytest.raises(IllegalMove):
        play(state, CARTHAGE, {"type": "take", "from_seat": ROME, "card": "wine"})


def test_two_players_may_not_exchange_a_third_time_in_a_row():
    state = four_offers(2)
    state = play(state, CARTHAGE, {"type": "take", "from_seat": GREECE, "card": "grain"})
    state = play(state, GREECE, {"type": "take", "from_seat": CARTHAGE, "card": "coin"})
    with pytest.raises(IllegalMove, match="twice in a row"):
        play(state, CARTHAGE, {"type": "take", "from_seat": GREECE, "card": "grain"})
    state = play(state, CARTHAGE, {"type": "take", "from_seat": ROME, "card": "wine"})
    assert ENGINE.to_move(state) == {ROME}


def test_trading_stops_when_one_offer_is_left_and_untaken_cards_go_back():
    state = trading({CARTHAGE: {"coin": 1}, GREECE: {"grain": 1}, ROME: {"wine": 1}})
    state = play(state, CARTHAGE, {"type": "set_trade", "n": 1})
    for seat, card in ((GREECE, "grain"), (CARTHAGE, "coin"), (ROME, "wine")):
        state = play(state, seat, {"type": "offer", "cards": [card]})
    state = play(state, CARTHAGE, {"type": "take", "from_seat": GREECE, "card": "grain"})
    state = play(state, GREECE, {"type": "take", "from_seat": CARTHAGE, "card": "coin"})
    # Only Rome's offer is left: trading ends and Rome gets its wine back.
    assert state["trade"] is None or state["phase"] != "take"
    assert state["hands"][ROME]["wine"] == 1
    assert state["hands"][GREECE]["coin"] == 1 and state["hands"][CARTHAGE]["grain"] == 1


def test_trading_stops_when_the_taker_has_nothing_it_may_take():
    state = trading({CARTHAGE: {"coin": 2}, GREECE: {"grain": 2}})
    state = play(state, CARTHAGE, {"type": "set_trade", "n": 2})
    state = play(state, GREECE, {"type": "offer", "cards": ["grain", "grain"]})
    state = play(state, CARTHAGE, {"type": "offer", "cards": ["coin", "coin"]})
    state = play(state, CARTHAGE, {"type": "take", "from_seat": GREECE, "card": "grain"})
    state = play(state, GREECE, {"type": "take", "from_seat": CARTHAGE, "card": "coin"})
    # Carthage may not take from Greece a third time in a row: trading ends early.
    assert state["phase"] not in ("take", "compensate")
    assert state["hands"][GREECE] == {**empty_hand(), "grain": 1, "coin": 1}


def test_the_navigator_compensates_the_player_left_one_card_short():
    state = four_offers()
    state = play(state, CARTHAGE, {"type": "take", "from_seat": GREECE, "card": "grain"})
    state = play(state, GREECE, {"type": "take", "from_seat": ROME, "card": "wine"})
    state = play(state, ROME, {"type": "take", "from_seat": EGYPT, "card": "gold"})
    # Only Carthage's offer is left; Egypt lost one card more than it took.
    assert state["phase"] == "compensate" and ENGINE.to_move(state) == {CARTHAGE}
    with pytest.raises(IllegalMove, match="goes to {seat:3}"):
        play(state, CARTHAGE, {"type": "compensate", "to_seat": GREECE, "card": "gold"})
    state = play(state, CARTHAGE, {"type": "compensate", "to_seat": EGYPT, "card": "grain"})
    assert state["hands"][EGYPT]["grain"] == 1 and state["phase"] in ("name_builder", "build")
