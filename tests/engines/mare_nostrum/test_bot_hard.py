"""The hard bot: it rebuilds, from its seat's view alone, states that give that view; its
move never depends on what its seat cannot see; it is reproducible from its random
source; and in a recorded position it finds a move the normal bot misses. Budgets are
small here so the tests stay quick (the bot's own budget is measured by
``bench/bench_mare_nostrum_hard.py``)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engines.api import SeededChance
from engines.mare_nostrum import ENGINE, bot_hard, bot_normal
from engines.mare_nostrum.data import CARD_KINDS, COINS, GOODS

SMALL = {"playouts": 5, "depth": 6}
HERE = Path(__file__).resolve().parent


def states_of_a_game(seed: int, players: int = 4, every: int = 7):
    """Some states of a normal-bot game, with the seat to move (and every phase met)."""
    chance, rng = SeededChance(seed), random.Random(seed)
    state = ENGINE.setup(players, {"turn_limit": 30}, chance)
    count = 0
    while ENGINE.to_move(state):
        seat = min(ENGINE.to_move(state))
        if count % every == 0:
            yield state, seat
        count += 1
        legal = ENGINE.legal_moves(state, seat)
        move = ENGINE.bot_move(ENGINE.view(state, seat), legal, rng, level="normal")
        state = ENGINE.apply(state, seat, move, chance)


def test_a_determinized_state_gives_the_seat_the_same_view():
    checked = set()
    for state, seat in states_of_a_game(3):
        view = ENGINE.view(state, seat)
        sampled = bot_hard.determinize(view, seat, random.Random(1))
        assert ENGINE.view(sampled, seat) == view
        for other in range(state["seats"]):
            assert sum(sampled["hands"][other].values()) == sum(state["hands"][other].values())
        checked.add(state["phase"])
    assert {"offer", "take", "build", "war"} <= checked


def swapped_hands(state, seat):
    """The same state with two other seats' hidden cards swapped (sizes kept)."""
    others = [s for s in range(state["seats"]) if s != seat]
    for a in others:
        for b in others:
            hand_a, hand_b = state["hands"][a], state["hands"][b]
            if a < b and sum(hand_a.values()) == sum(hand_b.values()) and hand_a != hand_b:
                changed = ENGINE.load(ENGINE.dump(state))
                changed["hands"][a], changed["hands"][b] = dict(hand_b), dict(hand_a)
                return changed
    return None


def test_what_the_seat_cannot_see_does_not_change_its_move():
    compared = 0
    for state, seat in states_of_a_game(5, every=3):
        if state["phase"] not in bot_hard.SEARCHED or len(ENGINE.legal_moves(state, seat)) < 2:
            continue
        other = swapped_hands(state, seat)
        if other is None:
            continue
        assert other["hands"] != state["hands"]
        view = ENGINE.view(state, seat)
        assert ENGINE.view(other, seat) == view
        legal = ENGINE.legal_moves(state, seat)
        assert ENGINE.legal_moves(other, seat) == legal
        first = bot_hard.choose_move(view, legal, random.Random(compared), **SMALL)
        second = bot_hard.choose_move(
            ENGINE.view(other, seat),
            ENGINE.legal_moves(other, seat),
            random.Random(compared),
            **SMALL,
        )
        assert first == second
        compared += 1
        if compared >= 6:
            break
    assert compared >= 3


def test_the_same_random_source_gives_the_same_move():
    for state, seat in states_of_a_game(7, every=11):
        if state["phase"] == "build" and len(ENGINE.legal_moves(state, seat)) > 2:
            break
    view, legal = ENGINE.view(state, seat), ENGINE.legal_moves(state, seat)
    moves = {
        json.dumps(bot_hard.choose_move(view, legal, random.Random(4), **SMALL)) for _ in range(3)
    }
    assert len(moves) == 1
    assert json.loads(moves.pop()) in legal


def test_the_engine_offers_the_hard_level_through_bot_move():
    state, seat = next(states_of_a_game(2))
    view, legal = ENGINE.view(state, seat), ENGINE.legal_moves(state, seat)
    assert ENGINE.bot_move(view, legal, random.Random(0), level="hard") in legal
    with pytest.raises(KeyError):
        ENGINE.bot_move(view, legal, random.Random(0), level="grandmaster")


def test_unseen_cards_are_dealt_from_what_the_seat_cannot_see():
    state, seat = next(
        (state, seat)
        for state, seat in states_of_a_game(9, every=5)
        if state["phase"] == "offer" and any(o is not None for o in state["trade"]["offers"])
    )
    view = ENGINE.view(state, seat)
    for seed in range(5):
        sampled = bot_hard.determinize(view, seat, random.Random(seed))
        total = dict(sampled["bank"])
        for hand in sampled["hands"]:
            for kind in CARD_KINDS:
                total[kind] += hand[kind]
        for offer in sampled["trade"]["offers"]:
            for kind, n in (offer or {}).items():
                total[kind] += n
        assert total == {"coin": COINS, **GOODS}
        assert sampled["hands"][seat] == state["hands"][seat]


def test_it_buys_a_temple_where_the_normal_bot_buys_a_marker():
    """Greece at turn 6 of a recorded normal-bot game (4 players), building with 7 coins
    and an iron. The normal bot rates purchases per card spent and buys a marker in
    Phoenicia for 3 coins; the four cards left are mostly burned at the end of the phase.
    The search plays the phase on and sees that a temple for 6 coins, which doubles a
    city's coins every turn to come, is worth more."""
    recorded = json.loads((HERE / "hard_position.json").read_text())
    state, seat = ENGINE.load(recorded["state"]), recorded["seat"]
    view, legal = ENGINE.view(state, seat), ENGINE.legal_moves(state, seat)
    normal = bot_normal.choose_move(view, legal, random.Random(0))
    assert (normal["item"], normal["province"]) == ("control_marker", "phoenicia")
    hard = bot_hard.choose_move(view, legal, random.Random(1))
    assert hard["item"] == "temple" and len(hard["pay"]) == 6


def test_it_plays_the_normal_bots_move_unless_another_does_better_by_the_margin(monkeypatch):
    """With a margin no playout can reach, every searched move is the normal bot's; with
    none, the search leaves the normal bot's move somewhere in a game."""
    positions = [
        (ENGINE.view(state, seat), ENGINE.legal_moves(state, seat))
        for state, seat in states_of_a_game(11, every=5)
        if state["phase"] in bot_hard.SEARCHED and len(ENGINE.legal_moves(state, seat)) > 2
    ][:8]
    assert len(positions) == 8

    def moves(margin):
        monkeypatch.setattr(bot_hard, "MARGIN", margin)
        monkeypatch.setattr(bot_hard, "CONFIDENCE", 2.0 if margin > 0 else -1000.0)
        return [
            bot_hard.choose_move(view, legal, random.Random(index), playouts=4, depth=4)
            for index, (view, legal) in enumerate(positions)
        ]

    normal = [
        bot_normal.choose_move(view, legal, random.Random(index))
        for index, (view, legal) in enumerate(positions)
    ]
    assert moves(2.0) == normal
    assert moves(-1.0) != normal


def test_a_move_leaves_the_normal_bots_only_for_a_gain_clear_of_the_noise(monkeypatch):
    """The paired differences must beat the margin on average and two standard errors:
    a lucky spread is not enough, a steady gain is, and the largest such gain wins."""
    monkeypatch.setattr(bot_hard, "MARGIN", 0.02)
    monkeypatch.setattr(bot_hard, "CONFIDENCE", 2.0)
    base = [0.5, 0.4, 0.6, 0.5, 0.45, 0.55]
    lucky = [0.9, 0.1, 0.95, 0.2, 0.9, 0.3]  # a higher mean, far from steady
    steady = [value + 0.05 for value in base]
    steadier = [value + 0.08 for value in base]
    assert sum(lucky) > sum(steady)
    assert bot_hard.confident_best([base, lucky]) == 0
    assert bot_hard.confident_best([base, lucky, steady]) == 2
    assert bot_hard.confident_best([base, steady, steadier]) == 2
    assert bot_hard.confident_best([base, [value + 0.01 for value in base]]) == 0  # margin


@pytest.mark.parametrize("fitted", [1, 0])
def test_the_evaluation_shares_out_the_win_and_grows_with_heroes_and_income(monkeypatch, fitted):
    """The evaluation gives each player a chance to win, the chances add up to one, and
    a hero or wonder more, or a city more in a province it holds, raises the player's
    chance (with the fitted weights and with the hand-set standing alike)."""
    monkeypatch.setattr(bot_hard, "FITTED", fitted)
    state, _seat = next(
        (state, seat)
        for state, seat in states_of_a_game(5, every=3)
        if state["turn"] >= 3 and state["phase"] == "war"
    )
    state = ENGINE.load(ENGINE.dump(state))
    chances = [bot_hard.evaluate(ENGINE, state, seat) for seat in range(state["seats"])]
    assert sum(chances) == pytest.approx(1.0)
    assert len(bot_hard.WEIGHTS) == len(bot_hard.FEATURES) == len(bot_hard.features(state, 0))

    civ = state["civs"][0]
    held = next(
        pid for pid, p in state["provinces"].items() if p["marker"] == civ and not p["occupier"]
    )
    richer = ENGINE.load(ENGINE.dump(state))
    richer["provinces"][held]["cities"] = [*state["provinces"][held]["cities"], civ]
    greater = ENGINE.load(ENGINE.dump(state))
    missing = next(card for card in bot_normal.CARD_BONUS if card not in state["cards"][0])
    greater["cards"][0] = [*greater["cards"][0], missing]
    assert bot_hard.evaluate(ENGINE, richer, 0) > chances[0]
    assert bot_hard.evaluate(ENGINE, greater, 0) > bot_hard.evaluate(ENGINE, richer, 0)
