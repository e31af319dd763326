"""The "hard" bot (a search over the rules): it never depends on what its seat cannot see,
it is reproducible from its random source, and it finds what the normal bot misses."""

from __future__ import annotations

import random

from engines.api import SeededChance
from engines.mare_balticum import ENGINE, bot_hard, bot_normal
from engines.mare_balticum.data import FISH
from engines.mare_balticum.state import TIME, TURN, State

from .helpers import craft, fresh, in_turn

SMALL = {"playouts": 24, "depth": 8, "checks": 8}  # a small budget keeps these tests quick


def hard(state: State, seat: int, seed: int = 0, **budget) -> dict:
    legal = ENGINE.legal_moves(state, seat)
    move = bot_hard.choose_move(
        ENGINE.view(state, seat), legal, random.Random(seed), **(budget or SMALL)
    )
    assert move in legal
    return move


def played_until(stop, seats: int = 3, seed: int = 5, version: int = 2) -> State:
    """A game of normal bots, up to the first state where ``stop(state)`` holds."""
    engine = ENGINE.at_version(version)
    chance, rng = SeededChance(seed), random.Random(seed)
    state = engine.setup(seats, {}, chance)
    while not stop(state):
        seat = min(engine.to_move(state))
        legal = engine.legal_moves(state, seat)
        state = engine.apply(
            state, seat, bot_normal.choose_move(engine.view(state, seat), legal, rng), chance
        )
    return state


def fresh_bag() -> tuple[int, ...]:
    return fresh(3).bag


def swapped_market(state: State, seat: int) -> State:
    """The same game with two of ``seat``'s face-down number tokens swapped."""
    market = list(state.markets[seat])
    covered = [i for i, token in enumerate(market) if token is not None]
    first, second = covered[:2]
    market[first], market[second] = market[second], market[first]
    return craft(state, markets={seat: dict(zip(FISH, market, strict=True))})


def test_the_rebuilt_game_shows_the_seat_what_it_sees():
    for version in (1, 2):
        state = played_until(lambda s: s.time_track >= 3 and s.phase == TURN, version=version)
        seat = state.order[state.turn]
        view = ENGINE.view(state, seat)
        for seed in range(4):
            rebuilt = bot_hard.determinize(view, seat, random.Random(seed))
            assert ENGINE.view(rebuilt, seat) == view
            assert ENGINE.legal_moves(rebuilt, seat) == ENGINE.legal_moves(state, seat)


def test_what_others_hide_on_their_markets_does_not_change_its_move():
    state = played_until(lambda s: s.time_track >= 3 and s.phase == TURN)
    seat = state.order[state.turn]
    for other in range(state.seats):
        if other == seat:
            continue
        twin = swapped_market(state, other)
        assert twin.markets != state.markets
        assert ENGINE.view(twin, seat) == ENGINE.view(state, seat)
        for seed in range(2):
            assert hard(twin, seat, seed) == hard(state, seat, seed)


def test_what_others_chose_in_secret_does_not_change_its_move():
    state = played_until(lambda s: s.phase == TIME and s.time_track >= 2)
    first = min(ENGINE.to_move(state))
    legal = ENGINE.legal_moves(state, first)
    numbers = [move for move in legal if move["token"] != "tax"]
    one = ENGINE.apply(state, first, numbers[0], SeededChance(1))
    other = ENGINE.apply(state, first, numbers[-1], SeededChance(1))
    assert one.pending != other.pending
    seat = min(ENGINE.to_move(one))
    assert ENGINE.view(one, seat) == ENGINE.view(other, seat)
    for seed in range(2):
        assert hard(one, seat, seed) == hard(other, seat, seed)


def test_the_same_random_source_gives_the_same_move():
    state = played_until(lambda s: s.time_track >= 2 and s.phase == TURN)
    seat = state.order[state.turn]
    assert len({str(hard(state, seat, 3)) for _ in range(3)}) == 1


def test_the_engine_plays_it_through_bot_move():
    state = played_until(lambda s: s.time_track >= 1 and s.phase == TURN)
    seat = state.order[state.turn]
    legal = ENGINE.legal_moves(state, seat)
    view = ENGINE.view(state, seat)
    assert ENGINE.bot_move(view, legal, random.Random(0), level="hard") in legal


def test_on_the_last_action_it_takes_the_point_that_wins_where_the_normal_bot_sails():
    # The very last action of the game: three herring in the hold can no longer be
    # landed, amber lies under the vessel, and Red (seat 0) and Blue are level on
    # points and tokens. The normal bot makes for a port with its catch; the point of
    # amber is the win.
    bag = list(fresh_bag())
    bag[-1] = 0  # every passage of time token has been drawn
    state = in_turn(
        3,
        fleets={0: ["oresund"]},
        goods={"oresund": ("amber",)},
        holds={0: {"herring": 3}},
        markets={0: {"herring": 3}},
        played={0: [3]},
        warehouses={0: {"amber": 4}, 1: {"amber": 4}, 2: {"amber": 2}},
        bag=tuple(bag),
        time_track=6,
        actions=2,
        final_turns=1,
    )
    legal = ENGINE.legal_moves(state, 0)
    usual = bot_normal.choose_move(ENGINE.view(state, 0), legal, random.Random(0))
    assert usual["type"] == "sail"
    assert ENGINE.result(ENGINE.apply(state, 0, usual, SeededChance(0))).winners == (0, 1)
    amber = {"type": "fish", "area": "oresund", "kind": "amber"}
    assert hard(state, 0) == amber
    after = ENGINE.apply(state, 0, amber, SeededChance(0))
    assert ENGINE.result(after).winners == (0,)
