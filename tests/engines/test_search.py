"""The generic search (engines.search) on the test fixture's dice game, whose other
seats' bonus cards are hidden: it finds the winning move, it is reproducible from its
random source, and it never depends on what its seat cannot see."""

from __future__ import annotations

import random

from engines.search import Search, choose, outcome, playout
from tests.fixture_engine import PIG

CARDS = [1, 1, 2, 2, 3, 3, 1, 2, 3, 1, 2, 3]


def determinize(view, seat, rng):
    """Other seats' bonus cards dealt from the cards the seat cannot see."""
    left = list(CARDS)
    left.remove(view["my_bonus"])
    rng.shuffle(left)
    bonus = [
        view["my_bonus"] if other == seat else left.pop() for other in range(len(view["scores"]))
    ]
    return {
        "target": view["target"],
        "scores": list(view["scores"]),
        "bonus": bonus,
        "turn": view["to_move"][0],
        "pot": view["pot"],
        "rolls": 0,
        "over": view["finished"],
    }


def rollout(engine, state, seat, legal, rng):
    return {"type": "stop"} if state["pot"] >= 10 else {"type": "roll"}


def evaluate(engine, state, seat):
    lead = state["scores"][seat] - max(state["scores"])
    return max(0.0, min(1.0, 0.5 + lead / (2 * state["target"])))


SEARCH = Search(PIG, determinize, rollout, evaluate, playouts=120, depth=40)


def state_with(bonus, pot=0, scores=(15, 0)):
    return {
        "target": 20,
        "scores": list(scores),
        "bonus": list(bonus),
        "turn": 0,
        "pot": pot,
        "rolls": 3,
        "over": False,
    }


def test_it_banks_a_pot_that_wins_rather_than_gamble_it():
    state = state_with([2, 3], pot=6)
    view = PIG.view(state, 0)
    move = choose(SEARCH, view, PIG.legal_moves(state, 0), 0, random.Random(1))
    assert move == {"type": "stop"}


def test_it_rolls_on_an_empty_pot():
    state = state_with([2, 3], pot=0, scores=(0, 0))
    view = PIG.view(state, 0)
    move = choose(SEARCH, view, PIG.legal_moves(state, 0), 0, random.Random(1))
    assert move["type"] == "roll" and move.get("dice", 1) <= 4


def test_the_same_random_source_gives_the_same_move():
    state = state_with([2, 3], pot=4, scores=(8, 12))
    view, legal = PIG.view(state, 0), PIG.legal_moves(state, 0)
    moves = {str(choose(SEARCH, view, legal, 0, random.Random(7))) for _ in range(3)}
    assert len(moves) == 1


def test_what_the_seat_cannot_see_does_not_change_its_move():
    for seed in range(5):
        one = state_with([2, 1], pot=seed * 3, scores=(8, 12))
        other = state_with([2, 3], pot=seed * 3, scores=(8, 12))
        assert PIG.view(one, 0) == PIG.view(other, 0)
        first = choose(SEARCH, PIG.view(one, 0), PIG.legal_moves(one, 0), 0, random.Random(seed))
        second = choose(
            SEARCH, PIG.view(other, 0), PIG.legal_moves(other, 0), 0, random.Random(seed)
        )
        assert first == second


def test_a_finished_game_scores_wins_shared_and_lost():
    over = {**state_with([1, 1], scores=(20, 20)), "over": True}
    assert outcome(PIG, over, 0) == 0.5
    lost = {**state_with([1, 3], scores=(20, 20)), "over": True}
    assert outcome(PIG, lost, 0) == 0.0 and outcome(PIG, lost, 1) == 1.0
    assert outcome(PIG, state_with([1, 1]), 0) is None
    assert playout(SEARCH, over, 0, random.Random(0)) == 0.5
