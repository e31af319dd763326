"""Shared checks for every engine: seeded self-play with invariants after every move.

Each engine's tests call :func:`self_play` with their own invariant and mutation hooks.
``soak_count(fast, full)`` gives the fast count under ``make test`` and the full count
under ``make soak`` (``PBEM_SOAK=1``).
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable, Iterable
from typing import Any

from engines.api import Engine, IllegalMove, SeededChance, canonical_json, state_hash


def soak_count(fast: int, full: int) -> int:
    return full if os.environ.get("PBEM_SOAK") == "1" else fast


def assert_json_safe(data: Any) -> None:
    assert json.loads(canonical_json(data)) == data


def check_round_trip(engine: Engine, state: Any) -> None:
    dumped = engine.dump(state)
    assert_json_safe(dumped)
    again = engine.load(json.loads(json.dumps(dumped)))
    assert canonical_json(engine.dump(again)) == canonical_json(dumped)


def self_play(
    engine: Engine,
    seats: int,
    options: dict,
    seed: int,
    *,
    invariant: Callable[[Any], None] | None = None,
    mutations: Callable[[dict], Iterable[dict]] | None = None,
    check_all_legal: bool = True,
    max_moves: int = 20000,
) -> tuple[Any, list[tuple[int, dict, list[int]]]]:
    """Plays one game with the engine's bot in every seat; returns (final state, log).

    The log holds (seat, move, chance outcomes) per move, enough to replay the game.
    After every move: the invariant holds, dump/load round-trips, every view is
    JSON-safe; with ``check_all_legal`` every listed move is accepted by ``apply``;
    every mutated move that is not listed is rejected with ``IllegalMove``.
    """
    chance = SeededChance(seed)
    rng = random.Random(seed)
    state = engine.setup(seats, options, chance)
    log: list[tuple[int, dict, list[int]]] = []
    for _ in range(max_moves):
        if invariant:
            invariant(state)
        due = engine.to_move(state)
        if not due:
            assert engine.result(state) is not None, "no seat to move but no result"
            return state, log
        assert engine.result(state) is None
        seat = min(due) if rng.random() < 0.5 else rng.choice(sorted(due))
        legal = engine.legal_moves(state, seat)
        assert legal, f"seat {seat} is due but has no legal move"
        before = canonical_json(engine.dump(state))
        if check_all_legal:
            for move in legal:
                engine.apply(state, seat, move, SeededChance(rng.randrange(1 << 30)))
        if mutations:
            listed = {canonical_json(move) for move in legal}
            for move in legal[:3]:
                for bad in mutations(move):
                    if canonical_json(bad) in listed:
                        continue
                    try:
                        engine.apply(state, seat, bad, SeededChance(0))
                    except IllegalMove:
                        pass
                    else:
                        raise AssertionError(f"unlisted move accepted: {bad}")
        for other in range(seats):
            if other not in due:
                try:
                    engine.apply(state, other, legal[0], SeededChance(0))
                except IllegalMove:
                    pass
                else:
                    raise AssertionError(f"seat {other} moved out of turn")
        assert canonical_json(engine.dump(state)) == before, "apply changed its input state"
        move = engine.bot_move(engine.view(state, seat), legal, rng)
        move_chance = SeededChance(rng.randrange(1 << 30))
        state = engine.apply(state, seat, move, move_chance)
        log.append((seat, move, list(move_chance.drawn)))
        check_round_trip(engine, state)
        for viewer in [None, *range(seats)]:
            assert_json_safe(engine.view(state, viewer))
    raise AssertionError(f"game did not end within {max_moves} moves")


def replay_hashes(
    engine: Engine,
    seats: int,
    options: dict,
    setup_draws: list[int],
    log: list[tuple[int, dict, list[int]]],
) -> list[str]:
    """State hashes after setup and after each logged move, replaying recorded draws."""
    from engines.api import ScriptedChance

    state = engine.setup(seats, options, ScriptedChance(setup_draws))
    hashes = [state_hash(engine, state)]
    for seat, move, drawn in log:
        state = engine.apply(state, seat, move, ScriptedChance(drawn))
        hashes.append(state_hash(engine, state))
    return hashes
