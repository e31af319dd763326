"""The bots of each title: "normal" against the first version's ("easy") bots.

Prints the bot-against-v1 table (``-s`` shows it; ``make soak`` plays 200 games per
title). Every game must end; bots answer within 50 ms a move on average.
"""

from __future__ import annotations

import os
import random

import pytest

from engines import REGISTRY, bot_level, bot_levels_of, bot_move, is_slow_bot, slow_bot_levels_of
from engines.api import SeededChance
from tests.bot_duel import HEADER, duel, play_game
from tests.engine_harness import soak_count

# (title, players): Mercatores head to head; Mare Balticum at its smallest table.
TABLES = [("mercatores", 2), ("mare_balticum", 3)]
FULL = os.environ.get("PBEM_SOAK") == "1"


@pytest.mark.soak
@pytest.mark.parametrize(("slug", "players"), TABLES)
def test_normal_bot_against_the_v1_bots(slug, players, capsys):
    engine = REGISTRY[slug]
    assert {"easy", "normal"} <= set(bot_levels_of(engine))
    table = duel(engine, players, soak_count(12, 200))
    with capsys.disabled():
        print(f"\n{HEADER}\n{table.row('normal', 'easy')}")
    assert table.unfinished == 0
    assert table.ms_per_move("normal") < 50
    if FULL:  # the bar: the normal bot wins at least 60% against the first bots
        assert table.head_to_head >= 0.6


@pytest.mark.parametrize("slug", ["mercatores", "mare_balticum"])
@pytest.mark.parametrize("level", ["easy", "normal"])
def test_bot_only_games_end(slug, level):
    engine = REGISTRY[slug]
    for seats in range(engine.min_seats, engine.max_seats + 1):
        for seed in range(2):
            result = play_game(engine, [level] * seats, seed * 10 + seats)
            assert result is not None, f"{slug} with {seats} {level} bots did not end"
            assert result.winners


def test_a_level_the_engine_does_not_offer_falls_back_to_normal():
    engine = REGISTRY["mercatores"]
    state = engine.setup(2, {}, SeededChance(1))
    view, legal = engine.view(state, 0), engine.legal_moves(state, 0)
    assert bot_level(engine, "wild") == "normal" and bot_level(engine, "hard") == "hard"
    assert bot_move(engine, view, legal, random.Random(0), "wild") == bot_move(
        engine, view, legal, random.Random(0), "normal"
    )


@pytest.mark.parametrize("slug", ["mare_balticum", "mare_nostrum", "mercatores"])
def test_every_title_offers_a_hard_level_and_marks_it_slow(slug):
    engine = REGISTRY[slug]
    assert bot_levels_of(engine) == ("easy", "normal", "hard")
    assert slow_bot_levels_of(engine) == {"hard"}
    assert is_slow_bot(engine, "hard") and not is_slow_bot(engine, "normal")
    assert not is_slow_bot(engine, "easy") and not is_slow_bot(engine, "wild")


def test_an_engine_without_slow_levels_has_none():
    from tests.fixture_engine import PIG

    assert slow_bot_levels_of(PIG) == frozenset() and not is_slow_bot(PIG, "normal")
