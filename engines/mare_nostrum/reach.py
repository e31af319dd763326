"""Reach across the map: land borders and chains of a power's triremes (rules 'Build' 3,
'War' 2)."""

from __future__ import annotations

import functools

from engines.mare_nostrum.data import COASTS, LAND_NEIGHBOURS, PROVINCE_IDS, SEA_NEIGHBOURS
from engines.mare_nostrum.state import State, reading

# The provinces touching each sea, in map order: read once from the board's data.
SHORES: dict[str, tuple[str, ...]] = {
    sea: tuple(pid for pid in PROVINCE_IDS if sea in COASTS[pid]) for sea in SEA_NEIGHBOURS
}


def manned_seas(state: State, civ: str) -> set[str]:
    """The seas holding one of ``civ``'s triremes."""
    return {sea for sea, fleet in reading(state, "seas").items() if fleet.get(civ)}


def _chain(manned: set[str], starts: tuple[str, ...]) -> set[str]:
    """The manned seas connected through manned seas to the manned ones of ``starts``."""
    chain: set[str] = set()
    todo = [sea for sea in starts if sea in manned]
    while todo:
        sea = todo.pop()
        if sea in chain:
            continue
        chain.add(sea)
        todo += [near for near in SEA_NEIGHBOURS[sea] if near in manned]
    return chain


def linked(state: State, civ: str, origin: str) -> set[str]:
    """Provinces reached from ``origin`` by land or along a chain of ``civ``'s triremes
    (both provinces touching seas of the chain).

    Only the chains touching ``origin``'s coasts are walked, from those coasts, and a
    chain's provinces are its seas' shores (:data:`SHORES`, read once from the board):
    the same set as finding every chain and then every province touching one.
    """
    found = set(LAND_NEIGHBOURS[origin])
    coasts = COASTS[origin]
    if coasts:
        for sea in _chain(manned_seas(state, civ), coasts):
            found.update(SHORES[sea])
    found.discard(origin)
    return found


def seas_within(origin: str, steps: int) -> list[str]:
    """The seas at most ``steps`` moves from ``origin`` (not ``origin`` itself), map order."""
    return list(_seas_within(origin, steps))


@functools.cache
def _seas_within(origin: str, steps: int) -> tuple[str, ...]:
    reached = {origin}
    frontier = {origin}
    for _ in range(steps):
        frontier = {near for sea in frontier for near in SEA_NEIGHBOURS[sea]} - reached
        reached |= frontier
    reached.discard(origin)
    return tuple(sea for sea in SEA_NEIGHBOURS if sea in reached)
