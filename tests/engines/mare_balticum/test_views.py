"""Views, history lines and move labels."""

from __future__ import annotations

import random

import pytest

from engines.api import ScriptedChance, SeededChance
from engines.mare_balticum import ENGINE
from engines.mare_balticum.legal import legal_moves
from engines.mare_balticum.state import TIME

from .helpers import balance, craft, fresh, in_turn, no_refill, outcomes_for

REQUIRED = {"game", "seat", "to_move", "phase", "players", "finished"}


def test_a_view_holds_the_common_keys_and_the_board():
    state = fresh(4, {"trade_contracts": True})
    for viewer in (None, 0, 3):
        view = ENGINE.view(state, viewer)
        assert REQUIRED <= set(view)
        assert view["game"] == "mare_balticum" and view["seat"] == viewer
        assert view["to_move"] == [0] and view["finished"] is False
        assert view["phase"] == "Starting ports — {seat:0} chooses"  # filled by the server
        assert len(view["goods"]) == 23 and len(view["demand"]) == 5
        assert [contract["id"] for contract in view["contracts"]] == [f"c{i}" for i in range(1, 7)]
        assert "result" not in view and "scores" not in view


def test_a_finished_view_holds_the_result_and_every_market():
    state = craft(in_turn(3, markets={0: {"salmon": 3}}), phase="over", time_track=6)
    view = ENGINE.view(state, 2)
    assert view["finished"] and view["result"]["winners"] == [0, 1, 2]
    assert view["players"][0]["market"]["salmon"] == 3
    assert view["scores"] == [0, 0, 0]


def test_describe_says_what_each_action_did():
    state = in_turn(
        3,
        {"trade_contracts": True},
        fleets={0: ["gdansk", "gulf_gdansk"]},
        goods={"gulf_gdansk": ["salmon"]},
    )

    def lines(move):
        return ENGINE.describe(
            state, 0, move, ENGINE.apply(state, 0, move, ScriptedChance([])), None
        )

    assert lines({"type": "sail", "to": "bornholm"}) == [
        "{seat:0} puts a new vessel out to Bornholm Basin."
    ]
    assert lines({"type": "fish", "area": "gulf_gdansk", "kind": "salmon"}) == [
        "{seat:0} fishes salmon in Gulf of Gdańsk (to the hold)."
    ]
    assert lines({"type": "take_contract", "contract": "c3"}) == [
        "{seat:0} takes contract c3 (salmon + cod + 2 amber)."
    ]


@pytest.mark.parametrize("version", [1, 2])
def test_describe_hides_a_secret_choice_from_others_and_reveals_the_tokens_together(version):
    state = no_refill(in_turn(3, warehouses={2: {"amber": 2}}))
    state = balance(
        craft(
            state,
            phase=TIME,
            pending=(None,) * 3,
            time_track=1,
            bag=state.bag[:-1] + (5,),
            rules_version=version,
        )
    )
    move = {"type": "produce", "token": 2, "kind": "herring"}
    after = ENGINE.apply(state, 0, move, ScriptedChance([]))
    assert ENGINE.describe(state, 0, move, after, 1) == ["{seat:0} has chosen a production token."]
    assert ENGINE.describe(state, 0, move, after, 0) == [
        "You play x2 face down on your herring market space."
    ]
    after = ENGINE.apply(
        after, 1, {"type": "produce", "token": 0, "kind": "cod"}, ScriptedChance([])
    )
    tax = {"type": "produce", "token": "tax", "discard": {"warehouse": {"amber": 2}}}
    final = ENGINE.apply(after, 2, tax, ScriptedChance([]))
    seen = ENGINE.describe(after, 2, tax, final, 1)
    assert "You placed x0 on your cod market space." in seen
    assert "{seat:2} pays the tax, discarding 2 amber from the warehouse." in seen
    if version == 1:
        assert "{seat:0} places x2 face down on a market space." in seen
        assert not any("herring" in line for line in seen)
    else:  # the space is seen at the table, the number is not
        assert "{seat:0} places a number token face down on their herring market space." in seen
        assert not any("x2" in line for line in seen)


@pytest.mark.parametrize("version", [1, 2])
def test_the_passage_of_time_says_number_tokens_stay_face_down(version):
    """Rules 'Passage of time': a tax is played face up, a number token face down until
    the end; version 2's history says so (version 1's lines, which show each number
    played, stay as they were)."""
    state = no_refill(in_turn(3, warehouses={2: {"amber": 2}}))
    state = balance(
        craft(state, phase=TIME, pending=(None,) * 3, time_track=1, rules_version=version)
    )
    state = ENGINE.apply(
        state, 0, {"type": "produce", "token": 2, "kind": "herring"}, ScriptedChance([])
    )
    state = ENGINE.apply(
        state, 1, {"type": "produce", "token": 0, "kind": "cod"}, ScriptedChance([])
    )
    tax = {"type": "produce", "token": "tax", "discard": {"warehouse": {"amber": 2}}}
    after = ENGINE.apply(state, 2, tax, ScriptedChance([]))
    for viewer in (None, 0, 1, 2):
        lines = ENGINE.describe(state, 2, tax, after, viewer)
        first = next(line for line in lines if line.startswith("Passage of time"))
        assert not any("revealed" in line for line in lines) or version == 1
        if version == 1:
            assert first == "Passage of time 1: the production tokens are revealed."
        else:
            assert first == (
                "Passage of time 1: every player has played a production token (a tax face "
                "up, a number token face down until the game ends)."
            )


def test_describe_tells_the_refill_and_the_drawn_time_token():
    state = no_refill(in_turn(3, fleets={0: ["copenhagen"]}))
    state = balance(craft(state, goods={"bornholm": []}))
    draws = outcomes_for(state.bag, ["amber", "time"])
    after = ENGINE.apply(state, 0, {"type": "end_turn"}, ScriptedChance(draws))
    assert ENGINE.describe(state, 0, {"type": "end_turn"}, after, None) == [
        "{seat:0} ends their turn.",
        "Refill: Bornholm Basin gets amber.",
        "A passage of time token is drawn (1 of 6) while refilling Bornholm Basin.",
        "Every player now plays a production token in secret.",
    ]


def test_every_legal_move_has_a_label():
    state = fresh(3, {"trade_contracts": True, "demand_management": True})
    chance = SeededChance(3)
    rng = random.Random(3)
    labels = set()
    while ENGINE.to_move(state):
        seat = min(ENGINE.to_move(state))
        legal = legal_moves(state, seat)
        for move in legal:
            label = ENGINE.move_label(move)
            assert label and "{" not in label
            labels.add(label.split()[0])
        move = ENGINE.bot_move(ENGINE.view(state, seat), legal, rng)
        state = ENGINE.apply(state, seat, move, chance)
    assert {"Start", "Sail", "Fish", "Unload", "Take", "Throw", "End", "Play"} <= labels
    assert ENGINE.move_label({"type": "sail", "from": "eastern_gotland", "to": "aland_sea"}) == (
        "Sail from Gotland Deep (Eastern Gotland Basin) to Åland Sea"
    )
