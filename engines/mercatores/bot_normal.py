"""Mercatores' "normal" bot: the first bot's judgement with a few things it overlooks.

Placeholder until tuned: plays as the first version's bot.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from engines.mercatores import bot


def choose_move(view: Mapping, legal_moves: Sequence[dict], rng: random.Random) -> dict:
    return bot.choose_move(view, legal_moves, rng)
