"""A search over the engine itself, for a title's strongest bot ("hard").

Information-set Monte Carlo at the root: the bot knows only its seat's view, so every
playout first *determinizes*: it samples one full state that agrees with that view (the
title decides how: other hands dealt from the cards the seat cannot see, face-down tokens
drawn from the tokens left, and so on). It then plays one candidate move there with the
real rules (``engine.apply``), plays on with a cheap *rollout* policy for at most
``depth`` moves (every seat, the searching one included), and scores what it reaches
with the title's *evaluation*: 1 for a win (shared among tied winners), 0 for a loss,
and in between for an unfinished game. UCB1 spreads the playouts over the candidates,
so good moves get more of them; the move with the most playouts is played.

Nothing here looks at hidden information: the only input about the game is the view,
and a determinization is drawn from the view and the bot's own random source. Two
states that give a seat the same view therefore give it the same move for the same
random source (a title's tests check this). The budget is a number of playouts, not a
time, so the bot is reproducible; each title picks the number that keeps a move under
its time limit on one core.

A title supplies a :class:`Search` (its three functions and its budget) and calls
:func:`choose` from its ``bot_move``; nothing here names a title.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engines.api import SeededChance


@dataclass(frozen=True)
class Search:
    """How one title searches: ``determinize(view, seat, rng)`` gives a full state that
    agrees with ``view``; ``rollout(engine, state, seat, legal, rng)`` picks a move for
    ``seat`` in a playout (cheap: it runs thousands of times); ``evaluate(engine, state,
    seat)`` scores an unfinished state for ``seat`` in [0, 1]. ``playouts`` is the budget
    per move, ``depth`` the most moves a playout plays after the candidate."""

    engine: Any
    determinize: Callable[[Mapping[str, Any], int, random.Random], Any]
    rollout: Callable[[Any, Any, int, Sequence[dict], random.Random], dict]
    evaluate: Callable[[Any, Any, int], float]
    playouts: int = 200
    depth: int = 30
    exploration: float = 0.6


def outcome(engine: Any, state: Any, seat: int) -> float | None:
    """1 for a sole win, 1/n for a win shared by n, 0 for a loss; None while running."""
    result = engine.result(state)
    if result is None:
        return None
    winners = list(result.winners)
    return 1.0 / len(winners) if seat in winners else 0.0


def playout(search: Search, state: Any, seat: int, rng: random.Random) -> float:
    """Plays on from ``state`` for at most ``search.depth`` moves and scores the end."""
    engine = search.engine
    chance = SeededChance(rng.getrandbits(64))
    for _ in range(search.depth):
        done = outcome(engine, state, seat)
        if done is not None:
            return done
        due = sorted(engine.to_move(state))
        if not due:
            break
        mover = due[0] if len(due) == 1 else rng.choice(due)
        legal = engine.legal_moves(state, mover)
        if not legal:
            break
        move = search.rollout(engine, state, mover, legal, rng)
        state = engine.apply(state, mover, move, chance)
    done = outcome(engine, state, seat)
    return done if done is not None else search.evaluate(engine, state, seat)


def choose(
    search: Search,
    view: Mapping[str, Any],
    legal_moves: Sequence[dict],
    seat: int,
    rng: random.Random,
) -> dict:
    """The move the search rates best for ``seat`` from its ``view`` (UCB1 over the
    candidates, one fresh determinization per playout; ties go to the earlier move)."""
    if len(legal_moves) == 1:
        return legal_moves[0]
    engine = search.engine
    visits = [0] * len(legal_moves)
    totals = [0.0] * len(legal_moves)
    for played in range(search.playouts):
        if played < len(legal_moves):
            pick = played
        else:
            scale = math.log(played)
            pick = max(
                range(len(legal_moves)),
                key=lambda i: (
                    totals[i] / visits[i] + search.exploration * math.sqrt(scale / visits[i])
                ),
            )
        state = search.determinize(view, seat, rng)
        chance = SeededChance(rng.getrandbits(64))
        after = engine.apply(state, seat, legal_moves[pick], chance)
        value = playout(search, after, seat, rng)
        visits[pick] += 1
        totals[pick] += value
    best = max(range(len(legal_moves)), key=lambda i: (visits[i], totals[i], -i))
    return legal_moves[best]
