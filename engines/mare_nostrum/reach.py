"""Reach across the map: land borders and chains of a power's triremes (rules 'Build' 3,
'War' 2)."""

from __future__ import annotations

from engines.mare_nostrum.data import COASTS, LAND_NEIGHBOURS, PROVINCE_IDS, SEA_NEIGHBOURS
from engines.mare_nostrum.state import State


def trireme_chains(state: State, civ: str) -> list[set[str]]:
    """The groups of connected seas each holding one of ``civ``'s triremes."""
    manned = {sea for sea, fleet in state["seas"].items() if fleet.get(civ)}
    chains: list[set[str]] = []
    seen: set[str] = set()
    for start in sorted(manned):
        if start in seen:
            continue
        chain: set[str] = set()
        todo = [start]
        while todo:
            sea = todo.pop()
            if sea in chain:
                continue
            chain.add(sea)
            todo += [near for near in SEA_NEIGHBOURS[sea] if near in manned]
        seen |= chain
        chains.append(chain)
    return chains


def linked(state: State, civ: str, origin: str) -> set[str]:
    """Provinces reached from ``origin`` by land or along a chain of ``civ``'s triremes
    (both provinces touching seas of the chain)."""
    found = set(LAND_NEIGHBOURS[origin])
    coasts = set(COASTS[origin])
    if coasts:
        for chain in trireme_chains(state, civ):
            if coasts & chain:
                found |= {pid for pid in PROVINCE_IDS if chain & set(COASTS[pid])}
    found.discard(origin)
    return found


def seas_within(origin: str, steps: int) -> list[str]:
    """The seas at most ``steps`` moves from ``origin`` (not ``origin`` itself), map order."""
    reached = {origin}
    frontier = {origin}
    for _ in range(steps):
        frontier = {near for sea in frontier for near in SEA_NEIGHBOURS[sea]} - reached
        reached |= frontier
    reached.discard(origin)
    return [sea for sea in SEA_NEIGHBOURS if sea in reached]
