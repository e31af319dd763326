"""Every bot level of every title moves on its seat's view alone: two states that differ
only in what one seat may not see give every other seat the same view, the same legal
moves and, at each level, the same move (the same random source in both).

The pairs are the engines' non-interference pairs of ``tests/web/test_security.py`` (a
secret production choice in Mare Balticum, a hand card swapped with the deck in
Mercatores, another hand and another secret offer in Mare Nostrum), and each is also
played on a few moves by the normal bots, so that the check runs in more positions than
the pair's first. The hard bots search on a small budget here (a few short playouts):
their determinization, not their strength, is under test.
"""

from __future__ import annotations

import random

import pytest

from engines import REGISTRY, bot_levels_of, bot_move
from engines.api import SeededChance
from tests.web.test_security import PAIRS

STEPS = 6  # positions after the pair's own, each reached by the same moves in both states


def positions(engine, first, second, secret):
    """``(first, second)`` and the pairs reached from it by the same moves (the normal
    bot's, for seats other than ``secret``) while the two stay apart only in secret."""
    chance = random.Random(3)
    yield first, second
    for _ in range(STEPS):
        due = sorted(engine.to_move(first) - {secret})
        if not due or engine.result(first) is not None:
            return
        seat = due[0]
        view = engine.view(first, seat)
        legal = engine.legal_moves(first, seat)
        move = bot_move(engine, view, legal, random.Random(chance.random()), "normal")
        seed = chance.randrange(1 << 30)
        first = engine.apply(first, seat, move, SeededChance(seed))
        second = engine.apply(second, seat, move, SeededChance(seed))
        if engine.view(first, seat) != engine.view(second, seat):
            return  # the draws fell apart: the pair no longer hides only the secret
        yield first, second


def mercatores_pairs():
    """Mercatores: the security pair, and seat 1's hand swapped with the deck at every
    tenth position of a normal-bot game (a draw splits a pair only by taking the card)."""
    from engines.mercatores import ENGINE
    from tests.engines.mercatores.test_views import neighbour_swap

    yield from PAIRS["mercatores"][2]()
    state, chance, rng = ENGINE.setup(3, {}, SeededChance(11)), SeededChance(12), random.Random(13)
    for step in range(60):
        due = sorted(ENGINE.to_move(state))
        if not due:
            return
        if step % 10 == 5 and state.hands[1]:
            yield state, neighbour_swap(state, 1)[0]
        legal = ENGINE.legal_moves(state, due[0])
        move = bot_move(ENGINE, ENGINE.view(state, due[0]), legal, rng, "normal")
        state = ENGINE.apply(state, due[0], move, chance)


@pytest.mark.parametrize("slug", sorted(PAIRS))
def test_each_level_moves_the_same_on_the_same_view(slug, small_hard_bots):
    engine = REGISTRY[slug]
    _, secret, pairs = PAIRS[slug]
    if slug == "mercatores":
        pairs = mercatores_pairs
    levels = bot_levels_of(engine)
    assert {"easy", "normal", "hard"} <= set(levels)
    checked = {level: 0 for level in levels}
    for first, second in pairs():
        assert engine.view(first, secret) != engine.view(second, secret)
        for one, other in positions(engine, first, second, secret):
            for seat in sorted(engine.to_move(one) - {secret}):
                view = engine.view(one, seat)
                assert view == engine.view(other, seat), f"seat {seat} sees the secret"
                legal = engine.legal_moves(one, seat)
                assert legal == engine.legal_moves(other, seat)
                for level in levels:
                    moves = [
                        bot_move(engine, engine.view(state, seat), legal, random.Random(5), level)
                        for state in (one, other)
                    ]
                    assert moves[0] == moves[1], f"{level} bot of seat {seat}"
                    checked[level] += 1
    assert all(count >= 3 for count in checked.values()), checked
