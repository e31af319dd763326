"""Seeded self-play with bots in every seat: every game ends, the cards stay whole,
every listed move is accepted and every mutated move outside the list is rejected."""

from __future__ import annotations

import pytest

from engines.api import state_hash
from engines.mercatores import ENGINE, Mercatores
from engines.mercatores.data import MARKET_SIZE
from engines.mercatores.state import END_BY_DECK, INVESTMENT, LOAD, TRADE
from tests.engine_harness import replay_hashes, self_play, soak_count
from tests.engines.mercatores.helpers import check_cards_accounted

FAST = {2: 6, 3: 5, 4: 4}
FULL = 300


def invariant(state) -> None:
    check_cards_accounted(state)
    if state.phase == INVESTMENT:
        assert len(state.market) <= MARKET_SIZE + (1 if state.step == LOAD else 0)
        if state.step == TRADE:
            assert state.hands[state.turn], "a player starts a turn with an empty hand"
    else:
        assert not state.market and not any(state.hands)


def mutations(move: dict) -> list[dict]:
    """Variants of a legal move that break a rule whatever the position."""
    bad: list[dict] = [
        {**move, "type": "pass"},
        {**move, "extra": 1},
        {key: value for key, value in move.items() if key != "type"},
    ]
    kind = move["type"]
    if kind == "trade":
        give, take = move["give"], move["take"]
        bad.append({**move, "give": "silk-01"})
        bad.append({**move, "take": give})
        bad.append({**move, "take": [give, *take[1:]]})
        if take:
            bad.append({**move, "take": take[:-1]})
            bad.append({**move, "take": take + take[:1]})
    elif kind == "load":
        cards = move["cards"]
        for way in ("one_kind", "two_kinds", "special", "all"):
            if way != move["way"]:
                bad.append({**move, "way": way})
        bad.append({**move, "cards": []})
        bad.append({**move, "cards": cards + cards[:1]})
        bad.append({**move, "cards": cards[0]})
    elif kind == "tax":
        bad.append({**move, "card": "w1"})
        bad.append({"type": "cash", "card": move["card"]})
        bad.append({**move, "card": [move["card"]]})
    elif "pile" in move:
        bad.append({**move, "special": "w1"})
        bad.append({**move, "opponent": 0})
        bad.append({**move, "pile": "silk"})
    else:
        if "opponent" in move:
            bad.append({key: value for key, value in move.items() if key != "opponent"})
            bad.append({**move, "opponent": True})
            bad.append({**move, "opponent": 9})
            bad.append({**move, "opponent": -1})
        else:
            bad.append({**move, "opponent": 1})
        bad.append({**move, "special": "corn-01"})
    return bad


@pytest.mark.soak
@pytest.mark.parametrize("seats", [2, 3, 4])
def test_self_play_games_end_with_cards_accounted(seats):
    for seed in range(soak_count(FAST[seats], FULL)):
        state, log = self_play(
            ENGINE, seats, {}, 1000 * seats + seed, invariant=invariant, mutations=mutations
        )
        result = ENGINE.result(state)
        assert result is not None and len(result.scores) == seats
        assert all(not cards for cards in state.resources)


@pytest.mark.soak
def test_self_play_with_a_shorter_investment_phase():
    for seed in range(soak_count(5, 30)):
        self_play(ENGINE, 4, {"end_cards": 10}, seed, invariant=invariant, mutations=mutations)


class SlowLoader(Mercatores):
    """Random trades, one card loaded a turn: with four players the deck runs out first."""

    def bot_move(self, view, legal_moves, rng):
        if legal_moves[0]["type"] == "load":
            return min(legal_moves, key=lambda move: (len(move["cards"]), rng.random()))
        return rng.choice(legal_moves)


@pytest.mark.soak
def test_self_play_to_an_empty_deck():
    for seed in range(soak_count(4, 50)):
        state, _ = self_play(SlowLoader(), 4, {}, seed, invariant=invariant, mutations=mutations)
        assert state.end == END_BY_DECK


def test_replay_gives_the_same_state_hashes():
    from engines.api import SeededChance

    chance = SeededChance(7)
    state = ENGINE.setup(3, {}, chance)
    setup_draws = list(chance.drawn)
    final, log = self_play(ENGINE, 3, {}, 7, check_all_legal=False)
    first = replay_hashes(ENGINE, 3, {}, setup_draws, log)
    second = replay_hashes(ENGINE, 3, {}, setup_draws, log)
    assert first == second
    assert first[0] == state_hash(ENGINE, state)
    assert first[-1] == state_hash(ENGINE, final)
