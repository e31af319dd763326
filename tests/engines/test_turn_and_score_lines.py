"""The history's cheap members (``turn_line`` and ``score_line``, see :mod:`engines.api`):
for every state of seeded bot games of every title and version, ``score_line`` gives the
scores each viewer's whole view gives, and ``turn_line`` a turn and phase that the public
phase line reads the same (the history groups by them, the step shows the phase line)."""

from __future__ import annotations

import pytest

from engines import REGISTRY
from tests.engine_harness import soak_count
from tests.engines.test_phase_line import GAMES, bot_states


@pytest.mark.parametrize(
    "slug, seats, options",
    GAMES,
    ids=[f"{slug}-{seats}-{len(opts)}" for slug, seats, opts in GAMES],
)
def test_score_line_and_turn_line_agree_with_the_views(slug, seats, options):
    newest = REGISTRY[slug]
    checked, scored = 0, 0
    turns: set[str] = set()
    for version in newest.versions:
        engine = newest.at_version(version)
        if set(options) - {option.name for option in engine.options}:
            continue
        for seed in range(soak_count(1, 6)):
            for state in bot_states(engine, seats, options, seed):
                for viewer in (None, *range(seats)):
                    expected = engine.view(state, viewer).get("scores")
                    assert engine.score_line(state, viewer) == expected
                    scored += expected is not None
                turn, phase = engine.turn_line(state)
                assert isinstance(turn, str) and turn and isinstance(phase, str)
                public = engine.phase_line(state)[0]
                if slug != "mare_balticum":  # its phase line names the player's action
                    assert phase.casefold() in public.casefold(), (public, phase)
                    if " — " in public:
                        assert public.casefold().startswith(turn.casefold()), (public, turn)
                turns.add(turn)
                checked += 1
    assert checked > 50 and scored > 0
    assert len(turns) > 2  # the game went through several turns
