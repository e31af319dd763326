"""Mercatores' "normal" bot: the first bot's judgement, tuned, with an eye on the clock.

It plays from its own seat's view and the legal moves only. Like the first ("easy") bot
it values resources and hand by how well they fill the profit tables; it adds:

- **The clock of the investment phase.** Cards still in hand when the phase ends are
  thrown away, so the worth of the hand falls as the end nears: the closest player to
  the end count, the deck running low, or the end already triggered.
- **The race for the Captain.** Reaching the end count first is worth the Captain's two
  coins and a tax-free first turn; the bot counts it when it can get there first.
- **The profit phase, looked ahead.** Everything is face up then and nothing is left to
  chance, so it weighs each cash-in by what it pays now and what its other cards will
  still pay after the taxes to come.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engines.mercatores import bot
from engines.mercatores.bot import (
    Table,
    cash_now,
    future,
    own_resources,
    remaining_after,
    same_kind,
    urgency,
    worth,
)
from engines.mercatores.data import CARDS, GOODS_OF

PARAMS = {
    "hand_early": 0.8,  # the hand's worth early in the phase
    "hand_late": 0.3,  # ... and when the end is near
    "captain": 2.5,
    "later": 0.9,
    "deny": 0.0,
    "tempo": 0.0,  # worth of each card loaded now (the race to the end count)  # how much the next player's best take from the market counts against
}


def closeness(view: Mapping[str, Any]) -> float:
    """0 early in the investment phase, 1 when its end is at hand."""
    if view["end_triggered"]:
        return 1.0
    end = view["end_cards"]
    most = max(player["resource_count"] for player in view["players"])
    by_cards = max(0.0, (most - (end - 6)) / 6)
    by_deck = max(0.0, (20 - view["deck_size"]) / 20)
    return min(1.0, max(by_cards, by_deck))


def choose_move(
    view: Mapping[str, Any],
    legal_moves: Sequence[dict],
    rng: random.Random,
    params: Mapping[str, float] = PARAMS,
) -> dict:
    """The bot's move: always one of ``legal_moves``."""
    step = legal_moves[0]["type"]
    if step in ("tax", "cash"):
        return _profit(view, legal_moves, rng, params)
    table = Table(view)
    resources = own_resources(view)
    hand = view.get("hand") or []
    final_turn = bool(view["end_triggered"])
    near = closeness(view)
    hand_weight = params["hand_early"] + (params["hand_late"] - params["hand_early"]) * near
    end = view["end_cards"]

    deny = params["deny"]
    following = next_player(view) if deny and step == "trade" else None
    market = list(view["market"])

    def score(move: Mapping[str, Any]) -> float:
        if step == "trade":
            kept = [card for card in hand if card != move["give"]] + list(move["take"])
            mine = worth(table, resources, kept, hand_weight)
            if deny and following is not None:
                left = [card for card in market if card not in move["take"]] + [move["give"]]
                mine -= deny * following.best_take(left, hand_weight)
            return mine
        kept = [card for card in hand if card not in move["cards"]]
        loaded = resources + list(move["cards"])
        bonus = params["captain"] if not final_turn and len(loaded) >= end else 0.0
        bonus += 0.0 if final_turn else params["tempo"] * len(move["cards"])
        return worth(table, loaded, kept, 0.0 if final_turn else hand_weight) + bonus

    scored = [(score(move) + rng.random() * 1e-6, index) for index, move in enumerate(legal_moves)]
    return legal_moves[max(scored)[1]]


class Rival:
    """The next player to trade, as seen from the table: resources known, hand not."""

    def __init__(self, view: Mapping[str, Any], seat: int):
        self.table = Table({**view, "seat": seat})
        player = view["players"][seat]
        piles = player["resources"]["piles"]
        self.resources = [card for cards in piles.values() for card in cards] + list(
            player["resources"]["specials"]
        )
        self.base = worth(self.table, self.resources, [], 0.0)
        self.cache: dict[tuple, float] = {}

    def best_take(self, market: Sequence[str], hand_weight: float) -> float:
        """What the best two cards of ``market`` would add to this player's prospects."""
        key = tuple(sorted(market))
        if key in self.cache:
            return self.cache[key]
        best = 0.0
        cards = list(market)
        for i in range(len(cards)):
            for j in range(i + 1, len(cards)):
                gain = worth(self.table, self.resources, [cards[i], cards[j]], hand_weight)
                best = max(best, gain - self.base)
        self.cache[key] = best
        return best


def next_player(view: Mapping[str, Any]) -> Rival | None:
    if view["end_triggered"]:
        return None
    seats = len(view["players"])
    return Rival(view, (view["seat"] + 1) % seats)


def _profit(
    view: Mapping[str, Any],
    legal_moves: Sequence[dict],
    rng: random.Random,
    params: Mapping[str, float],
) -> dict:
    table = Table(view)
    resources = own_resources(view)
    step = legal_moves[0]["type"]

    def score(move: Mapping[str, Any]) -> float:
        left = remaining_after(resources, move)
        if step == "tax":
            kept_ships = sum(CARDS[card]["ships"] for card in left)
            return future(table, left) + 0.01 * kept_ships + 0.001 * same_kind(left, move["card"])
        return (
            cash_now(table, resources, move) + params["later"] * future(table, left) + urgency(move)
        )

    scored = [(score(move) + rng.random() * 1e-6, index) for index, move in enumerate(legal_moves)]
    return legal_moves[max(scored)[1]]


__all__ = ["GOODS_OF", "PARAMS", "bot", "choose_move"]
