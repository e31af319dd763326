"""The "normal" bot: the first bot's investment, the profit phase looked ahead."""

from __future__ import annotations

import random

from engines.api import SeededChance
from engines.mercatores import ENGINE, bot, bot_normal
from engines.mercatores.state import PROFIT, dump_state
from tests.engines.mercatores.helpers import goods, profit_position


def test_the_table_is_rebuilt_from_the_view_alone():
    state = ENGINE.at_version(1).setup(2, {}, SeededChance(9))
    rng = random.Random(9)
    while state.phase != PROFIT:
        seat = state.turn
        legal = ENGINE.legal_moves(state, seat)
        state = ENGINE.apply(
            state, seat, bot.choose_move(ENGINE.view(state, seat), legal, rng), SeededChance(1)
        )
    rebuilt = dump_state(bot_normal.table_state(ENGINE.view(state, state.turn)))
    actual = dump_state(state)
    for name in ("resources", "coins", "turn", "step", "round", "captain", "unloading"):
        assert rebuilt[name] == actual[name], name


def test_it_plays_as_the_first_bot_before_the_profit_phase():
    state = ENGINE.setup(3, {}, SeededChance(2))
    view, legal = ENGINE.view(state, 0), ENGINE.legal_moves(state, 0)
    assert ENGINE.bot_move(view, legal, random.Random(1)) == bot.choose_move(
        view, legal, random.Random(1)
    )


def test_in_two_player_games_its_profit_phase_differs_from_the_first_bot():
    differs = 0
    for seed in range(4):
        state = ENGINE.setup(2, {}, SeededChance(seed))
        rng = random.Random(seed)
        while ENGINE.to_move(state):
            seat = state.turn
            legal = ENGINE.legal_moves(state, seat)
            view = ENGINE.view(state, seat)
            move = ENGINE.bot_move(view, legal, rng)
            assert move in legal
            if state.phase == PROFIT and move != bot.choose_move(view, legal, random.Random(0)):
                differs += 1
            state = ENGINE.apply(state, seat, move, SeededChance(seed))
    assert differs > 0


def test_with_more_players_it_plays_as_the_first_bot():
    own = goods("cotton", 7) + goods("corn", 2) + ["w1"]
    state = profit_position(3, [own, goods("corn", 4, skip=4), goods("cocoa", 3)])
    view, legal = ENGINE.view(state, 0), ENGINE.legal_moves(state, 0)
    assert ENGINE.bot_move(view, legal, random.Random(0)) == bot.choose_move(
        view, legal, random.Random(0)
    )
