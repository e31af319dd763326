"""Views, history lines and labels; hidden information; dump/load."""

from __future__ import annotations

import json
import random

import pytest

from engines.api import SeededChance, canonical_json
from tests.engines.mare_nostrum.helpers import ENGINE, OPTIONS, play, start, with_hand

GREECE, CARTHAGE, ROME, EGYPT = range(4)
VIEWERS = (None, GREECE, CARTHAGE, ROME, EGYPT)


def same_for_others(a: dict, b: dict, secret_seat: int) -> None:
    for viewer in VIEWERS:
        if viewer == secret_seat:
            continue
        assert canonical_json(ENGINE.view(a, viewer)) == canonical_json(ENGINE.view(b, viewer))


def test_views_differing_only_in_one_seats_hand_are_identical_to_everyone_else():
    a = with_hand(start(4), GREECE, grain=2, coin=1)
    b = with_hand(start(4), GREECE, fish=1, gold=1, coin=1)
    same_for_others(a, b, GREECE)
    assert ENGINE.view(a, GREECE)["hand"] != ENGINE.view(b, GREECE)["hand"]
    # And after the same public moves, still nothing leaks.
    move = {"type": "set_trade", "n": 2}
    after_a, after_b = play(a, CARTHAGE, move), play(b, CARTHAGE, move)
    same_for_others(after_a, after_b, GREECE)
    for viewer in VIEWERS[2:]:
        assert ENGINE.describe(a, CARTHAGE, move, after_a, viewer) == ENGINE.describe(
            b, CARTHAGE, move, after_b, viewer
        )


def test_a_secret_offer_is_invisible_to_others_before_the_reveal():
    state = with_hand(start(4), GREECE, grain=2, fish=1)
    state = play(state, CARTHAGE, {"type": "set_trade", "n": 2})
    offers = (
        {"type": "offer", "cards": ["grain", "fish"]},
        {"type": "offer", "cards": ["grain", "grain"]},
    )
    a, b = (play(state, GREECE, offer) for offer in offers)
    same_for_others(a, b, GREECE)
    for viewer in VIEWERS[2:]:
        assert ENGINE.describe(state, GREECE, offers[0], a, viewer) == ENGINE.describe(
            state, GREECE, offers[1], b, viewer
        )
    assert ENGINE.view(a, GREECE)["trade"]["my_offer"] == {"grain": 1, "fish": 1}
    assert "You offer 1 grain card, 1 fish card." in ENGINE.describe(
        state, GREECE, offers[0], a, GREECE
    )


def test_the_view_has_the_protocol_keys_and_the_board():
    state = start(4)
    shown = ENGINE.view(state, GREECE)
    for key in (
        "game",
        "seat",
        "to_move",
        "phase",
        "players",
        "finished",
        "scores",
        "provinces",
        "seas",
        "titles",
        "hand",
    ):
        assert key in shown
    assert shown["game"] == "mare_nostrum" and shown["seat"] == GREECE
    assert shown["to_move"] == [CARTHAGE] and shown["phase"] == "Turn 1 — trade"
    assert shown["players"][EGYPT]["hand_size"] == 8 and "hand" not in shown["players"][EGYPT]
    assert shown["provinces"]["attica"]["fortress"] == "greece"
    assert "hand" not in ENGINE.view(state, None)
    json.dumps(shown)


def test_a_finished_game_shows_its_result():
    state = with_hand(start(4), GREECE, coin=12)
    state.update(phase="build", trade=None)
    state["build"] = {"done": [], "current": GREECE, "cleopatra": False, "hammurabi": False}
    state = play(state, GREECE, {"type": "build", "item": "pyramids", "pay": ["coin"] * 12})
    shown = ENGINE.view(state, None)
    assert shown["finished"] and shown["result"]["winners"] == [GREECE]


def test_dump_and_load_round_trip_through_json_during_a_game():
    rng = random.Random(3)
    state = ENGINE.setup(5, OPTIONS, SeededChance(3))
    for _ in range(400):
        due = sorted(ENGINE.to_move(state))
        if not due:
            break
        seat = due[0]
        legal = ENGINE.legal_moves(state, seat)
        move = ENGINE.bot_move(ENGINE.view(state, seat), legal, rng)
        state = ENGINE.apply(state, seat, move, SeededChance(rng.randrange(1000)))
        again = ENGINE.load(json.loads(json.dumps(ENGINE.dump(state))))
        assert again == state
        # A snapshot stored with sorted keys lists the same moves in the same order.
        snapshot = ENGINE.load(json.loads(canonical_json(ENGINE.dump(state))))
        for seat in ENGINE.to_move(state):
            assert ENGINE.legal_moves(snapshot, seat) == ENGINE.legal_moves(state, seat)


def test_every_legal_move_has_a_label_and_describes_itself():
    rng = random.Random(5)
    state = ENGINE.setup(4, OPTIONS, SeededChance(5))
    kinds = set()
    for _ in range(300):
        due = sorted(ENGINE.to_move(state))
        if not due:
            break
        seat = due[0]
        legal = ENGINE.legal_moves(state, seat)
        for move in legal:
            assert ENGINE.move_label(move)
        move = ENGINE.bot_move(ENGINE.view(state, seat), legal, rng)
        after = ENGINE.apply(state, seat, move, SeededChance(rng.randrange(1000)))
        assert all(
            isinstance(line, str) for line in ENGINE.describe(state, seat, move, after, None)
        )
        kinds.add(move["type"])
        state = after
    assert {"set_trade", "offer", "take", "build", "end_build", "end_war"} <= kinds


def test_labels_read_well():
    assert ENGINE.move_label(
        {"type": "move", "unit": "legion", "from": "attica", "to": "macedonia"}
    ) == ("Move a legion from Attica to Macedonia")
    assert (
        ENGINE.move_label(
            {
                "type": "build",
                "item": "city",
                "province": "creta",
                "site": "Cnossus",
                "pay": ["coin"] * 3,
            }
        )
        == "Build a city in Creta (Cnossus), paying coin, coin, coin"
    )
    assert (
        ENGINE.move_label({"type": "attack", "space": "s6", "target": "rome"})
        == "Attack Rome in Mare Aegaeum"
    )
    # A good's name is a mass or plural noun: one card of it is "a ... card".
    assert ENGINE.move_label({"type": "take", "card": "slaves", "from_seat": 1}) == (
        "Take a slaves card from {seat:1}"
    )
    assert ENGINE.move_label({"type": "take", "card": "coin", "from_seat": 0}) == (
        "Take a coin from {seat:0}"
    )
    assert ENGINE.move_label({"type": "exchange", "give": "oil", "get": "gems"}) == (
        "Swap an oil card for a gems card (Cleopatra)"
    )
    assert ENGINE.move_label({"type": "compensate", "card": "iron", "to_seat": 2}) == (
        "Give an iron card to {seat:2}"
    )
    assert ENGINE.move_label({"type": "choose_good", "good": "incense"}) == (
        "Take an incense card (Temple of Artemis)"
    )


def test_a_finished_game_groups_its_end_as_game_over_alone():
    state = with_hand(start(4), GREECE, coin=12)
    state.update(phase="build", trade=None)
    state["build"] = {"done": [], "current": GREECE, "cleopatra": False, "hammurabi": False}
    state = play(state, GREECE, {"type": "build", "item": "pyramids", "pay": ["coin"] * 12})
    assert ENGINE.turn_line(state) == ("Game over", "")
    assert ENGINE.phase_line(state)[0] == "Game over"


@pytest.mark.parametrize(
    "stored, read",
    [
        ("Rome names Rome to build.", "{seat:1} names themselves to build next."),
        ("Rome names Greece to build.", "{seat:1} names {seat:0} to build next."),
        ("Rome names Rome for war.", "{seat:1} names themselves to take the next war turn."),
        ("Greece names Rome for war.", "{seat:0} names {seat:1} to take the next war turn."),
        ("Rome names 3 cards for trading.", "{seat:1} sets the trade at 3 cards each."),
        ("Rome names 1 card for trading.", "{seat:1} sets the trade at 1 card each."),
        ("Rome names 0 cards for trading.", "{seat:1} calls no trading this turn."),
        (
            "Rome attacks Egypt in Aegyptus: 6 = 6 against 4 = 4; Egypt loses 1, Rome loses 0.",
            "{seat:1} attacks Egypt in Aegyptus: 6 against 4; Egypt loses 1 unit, {seat:1} "
            "loses none.",
        ),
        (
            "Rome attacks Greece in Attica: 6 + 5 + 2 = 13 against 4 + 6 (fortress) = 10; "
            "Greece loses 2, Rome loses 2.",
            "{seat:1} attacks {seat:0} in Attica: 6 + 5 + 2 = 13 against 4 + 6 (fortress) = 10; "
            "{seat:0} loses 2 units, {seat:1} loses 2 units.",
        ),
        (
            "Rome attacks Greece in Mare Aegaeum: 3 = 3 against 2 = 2; Greece loses 0, Rome "
            "loses 0.",
            "{seat:1} attacks {seat:0} in Mare Aegaeum: 3 against 2; no unit is lost.",
        ),
        (
            "Income: Rome receives 3 coins, 1 gems, 2 grain, 1 slaves.",
            "Income: {seat:1} receives 3 coins, 1 gems card, 2 grain cards, 1 slaves card.",
        ),
        ("Greece offers 1 coin, 1 oil.", "{seat:0} offers 1 coin, 1 oil card."),
        (
            "Rome pillages Attica, taking 1 coin, 1 fish; Greece loses the province and its "
            "buildings.",
            "{seat:1} pillages Attica, taking 1 coin, 1 fish card; {seat:0} loses the province "
            "and its buildings.",
        ),
    ],
)
def test_stored_history_lines_read_as_a_player_says_them(stored, read):
    from engines.mare_nostrum.views import reword

    assert reword(stored, {"greece": 0, "rome": 1, "carthage": 2}) == read


def test_the_offer_a_player_makes_reads_as_counted_cards():
    from engines.mare_nostrum.views import describe

    move = {"type": "offer", "cards": ["coin", "coin", "grain"]}
    state = start(3)
    lines = describe(state, 0, move, state, 0)
    assert lines[0] == "You offer 2 coins, 1 grain card."
