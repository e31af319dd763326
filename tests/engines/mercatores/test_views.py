"""Views, history lines and labels; hidden information; dump/load round trips."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from engines.api import IllegalMove, ScriptedChance, SeededChance, canonical_json
from engines.mercatores import ENGINE
from engines.mercatores.data import CARD_INDEX, CARD_ORDER
from engines.mercatores.state import ordered
from tests.engine_harness import check_round_trip


def test_view_shows_public_facts_and_only_the_viewers_hand():
    state = ENGINE.setup(3, {}, SeededChance(5))
    mine = ENGINE.view(state, 1)
    assert mine["game"] == "mercatores" and mine["seat"] == 1
    assert mine["to_move"] == [0] and mine["phase"] == "Investment round 1 — trade"
    assert mine["hand"] == list(state.hands[1])
    assert mine["market"] == list(state.market) and mine["deck_size"] == 62
    assert [player["hand_size"] for player in mine["players"]] == [5, 5, 5]
    assert mine["finished"] is False and "result" not in mine
    spectator = ENGINE.view(state, None)
    assert spectator["seat"] is None and "hand" not in spectator
    text = canonical_json(spectator)
    for hand in state.hands:
        for card in hand:
            assert f'"{card}"' not in text
    for card in state.deck:
        assert f'"{card}"' not in canonical_json(mine)


def test_view_shows_resources_coins_and_the_captain_when_finished():
    state = ENGINE.setup(2, {}, SeededChance(2))
    rng = random.Random(2)
    while ENGINE.to_move(state):
        seat = min(ENGINE.to_move(state))
        legal = ENGINE.legal_moves(state, seat)
        state = ENGINE.apply(
            state, seat, ENGINE.bot_move(ENGINE.view(state, seat), legal, rng), SeededChance(seat)
        )
    shown = ENGINE.view(state, 0)
    assert shown["finished"] is True and shown["to_move"] == []
    assert shown["result"] == ENGINE.result(state).to_json()
    assert shown["phase"] == "Game over"
    assert [p["captain"] for p in shown["players"]].count(True) == 1
    assert shown["scores"] == list(ENGINE.result(state).scores)


def neighbour_swap(state, seat):
    """Swap a card of ``seat``'s hand with its neighbour in deck order lying in the deck.

    The two cards sit next to each other in the canonical order, so every draw by index
    takes the same card from either deck unless it takes the swapped card itself.
    """
    for card in state.hands[seat]:
        for other in (CARD_INDEX[card] + 1, CARD_INDEX[card] - 1):
            if 0 <= other < len(CARD_ORDER) and CARD_ORDER[other] in state.deck:
                twin = CARD_ORDER[other]
                hand = ordered([twin if c == card else c for c in state.hands[seat]])
                deck = ordered([card if c == twin else c for c in state.deck])
                hands = state.hands[:seat] + (hand,) + state.hands[seat + 1 :]
                return replace(state, hands=hands, deck=deck), card, twin
    raise AssertionError("no card to swap")


class DrawsAround:
    """A chance that never draws ``avoid`` while another card is left (it mirrors the deck)."""

    def __init__(self, deck: tuple[str, ...], avoid: str, seed: int):
        self.deck = list(deck)
        self.avoid = avoid
        self.rng = random.Random(seed)
        self.drawn: list[int] = []

    def below(self, n: int) -> int:
        assert n == len(self.deck)
        index = self.rng.randrange(n)
        while self.deck[index] == self.avoid and n > 1:
            index = self.rng.randrange(n)
        self.deck.pop(index)
        self.drawn.append(index)
        return index


def both_accept(first, second, seat, moves, chance):
    """The first move both worlds accept (with the same draws), with both next states."""
    for move in moves:
        draws = DrawsAround(first.deck, chance.avoid, chance.rng.randrange(1 << 30))
        try:
            after_first = ENGINE.apply(first, seat, move, draws)
            after_second = ENGINE.apply(second, seat, move, ScriptedChance(draws.drawn))
        except IllegalMove:
            continue
        return move, after_first, after_second
    return None


@pytest.mark.parametrize("seats, seed", [(2, 1), (3, 2), (4, 3), (2, 4), (3, 5), (4, 6)])
@pytest.mark.parametrize("hidden", ["first", "last"])
def test_a_hidden_hand_never_reaches_other_seats_views_or_history(seats, seed, hidden):
    owner = 0 if hidden == "first" else seats - 1
    first = ENGINE.setup(seats, {}, SeededChance(seed))
    second, card, twin = neighbour_swap(first, owner)
    others = [None, *(seat for seat in range(seats) if seat != owner)]
    assert ENGINE.view(first, owner) != ENGINE.view(second, owner)
    rng = random.Random(seed)
    compared = 0
    while ENGINE.to_move(first):
        for viewer in others:
            assert ENGINE.view(first, viewer) == ENGINE.view(second, viewer)
        seat = min(ENGINE.to_move(first))
        legal = ENGINE.legal_moves(first, seat)
        # The easy bot's game runs past the swapped card in every case listed.
        move = ENGINE.bot_move(ENGINE.view(first, seat), legal, rng, level="easy")
        moves = [move, *legal] if seat == owner else [move]
        played = both_accept(first, second, seat, moves, DrawsAround((), twin, seed + compared))
        if played is None or played[1].market != played[2].market:
            break  # the owner could only play the swapped card, or the deck held only it
        move, after_first, after_second = played
        for viewer in others:
            assert ENGINE.describe(first, seat, move, after_first, viewer) == ENGINE.describe(
                second, seat, move, after_second, viewer
            )
        first, second = after_first, after_second
        compared += 1
    assert compared >= 20 and ENGINE.result(first) == ENGINE.result(second) is not None


def test_history_lines_are_the_same_for_every_viewer_and_name_no_hidden_card():
    state = ENGINE.setup(4, {}, SeededChance(11))
    rng = random.Random(11)
    while ENGINE.to_move(state):
        seat = min(ENGINE.to_move(state))
        move = ENGINE.bot_move(ENGINE.view(state, seat), ENGINE.legal_moves(state, seat), rng)
        after = ENGINE.apply(state, seat, move, SeededChance(rng.randrange(1000)))
        lines = ENGINE.describe(state, seat, move, after, None)
        assert lines and all(isinstance(line, str) and line for line in lines)
        for viewer in range(4):
            assert ENGINE.describe(state, seat, move, after, viewer) == lines
        state = after


def test_describe_tells_the_refill_and_the_end_of_the_investment_phase():
    state = ENGINE.setup(2, {"end_cards": 10}, SeededChance(4))
    rng = random.Random(4)
    seen = []
    while state.phase == "investment":
        seat = state.turn
        move = ENGINE.bot_move(ENGINE.view(state, seat), ENGINE.legal_moves(state, seat), rng)
        after = ENGINE.apply(state, seat, move, SeededChance(rng.randrange(1000)))
        seen += ENGINE.describe(state, seat, move, after, None)
        state = after
    text = "\n".join(seen)
    assert "Refill: the market gets" in text
    assert "takes the Captain and the Unloading card" in text
    assert "The investment phase is over: hands and market are discarded." in text
    assert "Profit round 1:" in text


def test_move_labels_are_short_and_distinct():
    state = ENGINE.setup(3, {}, SeededChance(8))
    rng = random.Random(8)
    while ENGINE.to_move(state):
        seat = min(ENGINE.to_move(state))
        legal = ENGINE.legal_moves(state, seat)
        labels = [ENGINE.move_label(move) for move in legal]
        assert len(set(labels)) == len(labels)
        assert all(0 < len(label) < 120 for label in labels)
        move = ENGINE.bot_move(ENGINE.view(state, seat), legal, rng)
        state = ENGINE.apply(state, seat, move, SeededChance(rng.randrange(1000)))
    assert ENGINE.move_label({"type": "cash", "special": "t3", "opponent": 1}) == (
        "Cash in Trade Route: Cotton with {seat:1}"
    )
    assert ENGINE.move_label({"type": "trade", "give": "corn-07", "take": ["w1", "q5"]}) == (
        "Give Corn (1 ship), take Warehouse and Quay (left + right)"
    )


def test_dump_and_load_round_trip_in_every_phase():
    state = ENGINE.setup(3, {"end_cards": 12}, SeededChance(9))
    rng = random.Random(9)
    while True:
        check_round_trip(ENGINE, state)
        again = ENGINE.load(json.loads(json.dumps(ENGINE.dump(state))))
        assert again == state
        if not ENGINE.to_move(state):
            break
        seat = min(ENGINE.to_move(state))
        move = ENGINE.bot_move(ENGINE.view(state, seat), ENGINE.legal_moves(state, seat), rng)
        state = ENGINE.apply(state, seat, move, SeededChance(rng.randrange(1000)))


def test_options_are_declared_with_help_text():
    option, first = ENGINE.options
    assert option.name == "end_cards" and option.default == 15
    assert option.help and 15 in option.choices
    assert first.name == "first_player" and first.default == "seat_order" and first.help
    assert (option,) == ENGINE.at_version(1).options
