"""The cheap phase line (``engine.phase_line``, issue 27): for every state of seeded bot
games of every title and version, the phase text and the seats' marks it gives are the
ones the whole public view gives, so the server's phase line and history lines read the
same whichever way they were found."""

from __future__ import annotations

import random

import pytest

from engines import REGISTRY
from engines.api import SeededChance
from pbem.games import names
from pbem.games.service import named_phase
from tests.engine_harness import soak_count

GAMES = [
    ("mare_nostrum", 3, {"turn_limit": 3}),
    ("mare_nostrum", 4, {"turn_limit": 3, "civilisations": "choose"}),
    ("mare_nostrum", 5, {"turn_limit": 2, "setup": "experienced"}),
    ("mercatores", 2, {}),
    ("mercatores", 4, {}),
    ("mare_balticum", 3, {}),
    ("mare_balticum", 4, {"demand_management": True, "trade_contracts": True}),
]
MOVE_CAP = 6000


def bot_states(engine, seats: int, options: dict, seed: int):
    """Every state of one seeded bot game, from the set-up to the end."""
    rng = random.Random(seed)
    state = engine.setup(seats, options, SeededChance(seed))
    yield state
    for _ in range(MOVE_CAP):
        due = sorted(engine.to_move(state))
        if not due:
            return
        seat = rng.choice(due)
        legal = engine.legal_moves(state, seat)
        move = engine.bot_move(engine.view(state, seat), legal, rng)
        state = engine.apply(state, seat, move, SeededChance(rng.randrange(1 << 30)))
        yield state
    raise AssertionError("a bot-only game must end")


class ViewOnly:
    """An engine without ``phase_line``: the server reads the public view instead."""

    def __init__(self, engine):
        self.view = engine.view


@pytest.mark.parametrize(
    "slug, seats, options",
    GAMES,
    ids=[f"{slug}-{seats}-{len(opts)}" for slug, seats, opts in GAMES],
)
def test_phase_line_is_the_public_views_phase_and_marks(slug, seats, options):
    newest = REGISTRY[slug]
    holders = ["Ann", "Ben", "Cleo", "Dan", "Eve"][:seats]
    rosters = [type("Seat", (), {"seat": n, "name": name}) for n, name in enumerate(holders)]
    checked = 0
    phases: set[str] = set()
    for version in newest.versions:
        engine = newest.at_version(version)
        if set(options) - {option.name for option in engine.options}:
            continue  # options of a later version only
        for seed in range(soak_count(2, 12)):
            for state in bot_states(engine, seats, options, seed):
                public = engine.view(state, None)
                expected = (public["phase"], names.marks_of(public))
                assert engine.phase_line(state) == expected
                assert names.phase_line(engine, state) == expected
                assert names.phase_line(ViewOnly(engine), state) == expected
                assert named_phase(engine, state, rosters) == named_phase(
                    ViewOnly(engine), state, rosters
                )
                phases.add(public["phase"])
                checked += 1
    assert checked > 100
    assert len(phases) > 3  # the game went through its phases, not one state many times
