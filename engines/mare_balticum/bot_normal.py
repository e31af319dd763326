"""Mare Balticum's "normal" bot (placeholder: plays as the first bot)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from . import bot


def choose_move(view: Mapping[str, Any], legal: Sequence[dict], rng: random.Random) -> dict:
    return bot.choose_move(view, legal, rng)
