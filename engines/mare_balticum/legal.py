"""The legal moves of a seat: complete lists, so that a bot can always finish a game and
the self-play tests can try every one (rules file, 'A turn' and 'Passage of time')."""

from __future__ import annotations

from itertools import combinations_with_replacement, product

from .data import (
    CIRCLES,
    CONTRACT_IDS,
    FISH,
    GOODS,
    HOLD_SIZE,
    LOCATION_INDEX,
    NEIGHBOURS,
    PORT_IDS,
)
from .rules import connected, demand_left, to_move, unplayed
from .state import START, TIME, State


def legal_moves(state: State, seat: int) -> list[dict]:
    if seat not in to_move(state):
        return []
    if state.phase == START:
        return [{"type": "place_start", "port": port} for port in PORT_IDS]
    if state.phase == TIME:
        return production_moves(state, seat)
    moves = sail_moves(state, seat)
    moves += fish_moves(state, seat)
    for port in state.fleets[seat]:
        if port in CIRCLES:
            moves += unload_moves(state, seat, port)
    if state.options["trade_contracts"]:
        held = set(state.contracts)
        moves += [
            {"type": "take_contract", "contract": contract}
            for contract in CONTRACT_IDS
            if contract not in held
        ]
    for kind, count in zip(FISH, state.holds[seat], strict=True):
        moves += [{"type": "overboard", "kind": kind, "count": n} for n in range(1, count + 1)]
    moves.append({"type": "end_turn"})
    return moves


def sail_moves(state: State, seat: int) -> list[dict]:
    fleet = state.fleets[seat]
    own = set(fleet)
    if len(fleet) < state.vessels:
        targets = {near for location in fleet for near in NEIGHBOURS[location]} - own
        return [{"type": "sail", "to": to} for to in sorted(targets, key=LOCATION_INDEX.get)]
    moves = []
    for source in fleet:
        rest = own - {source}
        targets = {near for location in rest for near in NEIGHBOURS[location]} - own
        whole = connected(rest)
        for to in sorted(targets, key=LOCATION_INDEX.get):
            if whole or connected(rest | {to}):
                moves.append({"type": "sail", "from": source, "to": to})
    return moves


def fish_moves(state: State, seat: int) -> list[dict]:
    room = sum(state.holds[seat]) < HOLD_SIZE
    moves = []
    for area in state.fleets[seat]:
        for kind in sorted(set(state.goods.get(area, ())), key=GOODS.index):
            if room or kind == "amber":
                moves.append({"type": "fish", "area": area, "kind": kind})
    return moves


def unload_moves(state: State, seat: int, port: str) -> list[dict]:
    """Every choice of counts per kind (and, in module 1, of circles for new demand)."""
    hold = state.holds[seat]
    shown = state.demand[port]
    free = [index for index, kind in enumerate(shown) if kind is None]
    sellable = []
    for kind, count in zip(FISH, hold, strict=True):
        if count and (kind in shown or (state.options["demand_management"] and free)):
            if kind in shown or demand_left(state, kind) > 0:
                sellable.append((kind, count))
    moves = []
    for counts in product(*(range(count + 1) for _, count in sellable)):
        fish = {kind: n for (kind, _), n in zip(sellable, counts, strict=True) if n}
        if not fish:
            continue
        new = [kind for kind in fish if kind not in shown]
        if len(new) > len(free):
            continue
        for circles in _circle_choices(port, free, [fish[kind] for kind in new]):
            move = {"type": "unload", "port": port, "fish": fish}
            if new:
                move["demand"] = dict(zip(new, circles, strict=True))
            moves.append(move)
    return moves


def _circle_choices(port: str, free: list[int], counts: list[int]) -> list[tuple[int, ...]]:
    """Distinct free circles for the new kinds; a -1 circle needs at least 2 fish."""
    choices = []
    for circles in product(free, repeat=len(counts)):
        if len(set(circles)) < len(circles):
            continue
        if any(CIRCLES[port][c] < 0 and n < 2 for c, n in zip(circles, counts, strict=True)):
            continue
        choices.append(circles)
    return choices


def production_moves(state: State, seat: int) -> list[dict]:
    moves = []
    market = state.markets[seat]
    left = unplayed(state, seat)
    for token in left:
        if token == "tax":
            moves += tax_moves(state, seat, last=len(left) == 1)
        else:
            moves += [
                {"type": "produce", "token": token, "kind": kind}
                for kind, placed in zip(FISH, market, strict=True)
                if placed is None
            ]
    return moves


def tax_moves(state: State, seat: int, last: bool) -> list[dict]:
    sources = [("hold", kind, n) for kind, n in zip(FISH, state.holds[seat], strict=True) if n]
    sources += [
        ("warehouse", kind, n) for kind, n in zip(GOODS, state.warehouses[seat], strict=True) if n
    ]
    total = sum(n for _, _, n in sources)
    if total < 2:
        if not last:
            return []
        picks = [tuple((place, kind) for place, kind, _ in sources)]
    else:
        picks = []
        for pair in combinations_with_replacement(range(len(sources)), 2):
            if pair[0] == pair[1] and sources[pair[0]][2] < 2:
                continue
            picks.append(tuple(sources[i][:2] for i in pair))
    moves = []
    for pick in picks:
        discard: dict[str, dict[str, int]] = {}
        for place, kind in pick:
            discard.setdefault(place, {})
            discard[place][kind] = discard[place].get(kind, 0) + 1
        moves.append({"type": "produce", "token": "tax", "discard": discard})
    return moves
