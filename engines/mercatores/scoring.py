"""Mercatores profits: what a pile or a special card pays, and the final scores."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.api import Result, ScoreTable
from engines.mercatores.data import (
    CAPTAIN_VALUE,
    CARDS,
    GOODS_TABLES,
)
from engines.mercatores.state import (
    OVER,
    State,
    kinds_held,
    left_of,
    pile,
    right_of,
    ships,
)
from engines.mercatores.words import T


def pays(table: tuple[tuple[int, int], ...], count: int) -> int:
    """Coins of the highest threshold reached; 0 below the lowest."""
    coins = 0
    for threshold, value in table:
        if count >= threshold:
            coins = value
    return coins


def quay_ships(state: State, seat: int, arrows: tuple[str, ...]) -> int:
    """Ships a Quay counts: 'Special cards count' (two players: left + right doubles)."""
    n = state.seats
    if n == 2 and set(arrows) == {"left", "right"}:
        return 2 * (ships(state.resources[seat]) + ships(state.resources[1 - seat]))
    whose = {"self": seat, "left": left_of(seat, n), "right": right_of(seat, n)}
    return sum(ships(state.resources[whose[arrow]]) for arrow in arrows)


def special_count(state: State, seat: int, card: str, opponent: int | None) -> int:
    """What a special card counts at this moment (rules 'Special cards count')."""
    info = CARDS[card]
    own = state.resources[seat]
    if info["kind"] == "warehouse":
        return len(kinds_held(own))
    if info["kind"] == "quay":
        return quay_ships(state, seat, info["arrows"])
    kind = info["goods"]
    return len(pile(own, kind)) + len(pile(state.resources[opponent], kind))


def cash_value(state: State, seat: int, move: Mapping[str, Any]) -> tuple[int, int]:
    """(count, coins) of a well-formed, legal cash move."""
    if "pile" in move:
        count = len(pile(state.resources[seat], move["pile"]))
        return count, pays(GOODS_TABLES[move["pile"]], count)
    card = move["special"]
    count = special_count(state, seat, card, move.get("opponent"))
    return count, pays(CARDS[card]["table"], count)


def scores(state: State) -> list[int]:
    return [
        coins + (CAPTAIN_VALUE if seat == state.captain else 0)
        for seat, coins in enumerate(state.coins)
    ]


def result(state: State) -> Result | None:
    """Rules 'Scoring': coins, plus 2 for the Captain; ties stand."""
    if state.phase != OVER:
        return None
    totals = scores(state)
    best = max(totals)
    winners = tuple(seat for seat, total in enumerate(totals) if total == best)
    if len(winners) == 1:
        reason = T("most coins (%(best)d)", best=best)
    else:
        reason = T("most coins (%(best)d each); the tie stands", best=best)
    breakdown = {
        "seats": [
            {
                "coins": state.coins[seat],
                "captain": CAPTAIN_VALUE if seat == state.captain else 0,
                "total": totals[seat],
            }
            for seat in range(state.seats)
        ]
    }
    table = ScoreTable(
        (T("Coins"), T("Captain"), T("Total")),
        tuple((row["coins"], row["captain"], row["total"]) for row in breakdown["seats"]),
        deciding=2,
    )
    return Result(
        scores=tuple(totals), winners=winners, breakdown=breakdown, reason=reason, table=table
    )
