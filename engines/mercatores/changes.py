"""What changed on the table since a seat's last move: the engine's ``changed_places``,
which ``templates/_board.html`` rings and names in words (its ``changed``).

It compares two views of one seat (see :mod:`engines.api`), so it knows only what that
seat may see: the market, every player's coins, hand size, piles, special cards, Captain
and Unloading card. The marks name parts of the table:

- ``market:<card>``: a card that lies in the market now and did not before;
- ``seat:<n>``: anything of player ``n`` changed; then, one per part,
  ``seat:<n>:coins``, ``seat:<n>:hand`` (hand size), ``seat:<n>:pile:<goods>`` (a pile
  grew, shrank or went), ``seat:<n>:special:<card>`` (a special card came or went),
  ``seat:<n>:captain`` and ``seat:<n>:unloading``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def changed_places(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> set[str]:
    """The parts of the table that differ between two views (none without an earlier one)."""
    if not old:
        return set()
    before_market = set(old.get("market") or ())
    found = {f"market:{card}" for card in new.get("market") or () if card not in before_market}
    for before, after in zip(old.get("players") or (), new.get("players") or (), strict=False):
        parts = player_changes(before, after)
        if parts:
            seat = after["seat"]
            found.add(f"seat:{seat}")
            found |= {f"seat:{seat}:{part}" for part in parts}
    return found


def player_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> set[str]:
    """What differs in one player's public facts between two views."""
    parts = {
        name
        for name, key in (
            ("coins", "coins"),
            ("hand", "hand_size"),
            ("captain", "captain"),
            ("unloading", "unloading"),
        )
        if before.get(key) != after.get(key)
    }
    piles_before = (before.get("resources") or {}).get("piles") or {}
    piles_after = (after.get("resources") or {}).get("piles") or {}
    parts |= {
        f"pile:{kind}"
        for kind in set(piles_before) | set(piles_after)
        if piles_before.get(kind) != piles_after.get(kind)
    }
    specials_before = set((before.get("resources") or {}).get("specials") or ())
    specials_after = set((after.get("resources") or {}).get("specials") or ())
    parts |= {f"special:{card}" for card in specials_before ^ specials_after}
    return parts
