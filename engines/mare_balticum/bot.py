"""A bot for one seat of Mare Balticum, deciding from that seat's view and legal moves only.

It unloads whatever a port buys, fishes what it can sell (amber always), sails toward a
port that buys its catch when the hold fills up and toward goods otherwise, takes a
fitting trade contract, and puts its high multipliers on the kinds it holds most. Every
branch ends in one of the legal moves, so it never stalls a game.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

from .data import CONTRACT_BY_ID, FISH, HOLD_SIZE, LOCATIONS, NEIGHBOURS, PORT_IDS

UNKNOWN_VALUE = 1.5  # what a fish is worth before its market space holds a token


def _distances() -> dict[str, dict[str, int]]:
    table = {}
    for start in LOCATIONS:
        found = {start: 0}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            for near in NEIGHBOURS[here]:
                if near not in found:
                    found[near] = found[here] + 1
                    queue.append(near)
        table[start] = found
    return table


DISTANCE = _distances()


def choose_move(view: Mapping[str, Any], legal: Sequence[dict], rng: random.Random) -> dict:
    by_type: dict[str, list[dict]] = {}
    for move in legal:
        by_type.setdefault(move["type"], []).append(move)
    if "place_start" in by_type:
        return rng.choice(by_type["place_start"])
    if "produce" in by_type:
        return _produce(view, by_type["produce"], rng)
    return _turn(view, by_type, rng) or legal[-1]


# --------------------------------------------------------------------------- values
def _me(view: Mapping[str, Any]) -> Mapping[str, Any]:
    return view["players"][view["seat"]]


def _value(view: Mapping[str, Any], kind: str) -> float:
    if kind == "amber":
        return 1.0
    token = _me(view).get("market", {}).get(kind)
    return UNKNOWN_VALUE if token is None else float(token)


def _buyers(view: Mapping[str, Any], kind: str) -> list[str]:
    """Ports where ``kind`` can be unloaded (now, or by placing demand in module 1)."""
    demand = view["demand"]
    ports = [port for port in PORT_IDS if kind in demand[port]]
    if view["options"].get("demand_management"):
        shown = sum(circles.count(kind) for circles in demand.values())
        if shown < 2:
            ports += [port for port in PORT_IDS if None in demand[port] and port not in ports]
    return ports


# --------------------------------------------------------------------------- a turn
def _turn(view: Mapping[str, Any], by_type: dict[str, list[dict]], rng: random.Random):
    me = _me(view)
    hold = me["hold"]
    held = sum(hold.values())
    if "unload" in by_type:
        best = max(by_type["unload"], key=lambda move: _unload_gain(view, move))
        if _unload_gain(view, best) > 0.5:
            return best
    if "take_contract" in by_type and me["contract"] is None:
        amber = me["warehouse"].get("amber", 0)
        if amber >= 2:
            return max(by_type["take_contract"], key=lambda move: _contract_fit(me, move))
    fishing = [move for move in by_type.get("fish", []) if _fish_value(view, move) > 0]
    if fishing:
        best_value = max(_fish_value(view, move) for move in fishing)
        return rng.choice([move for move in fishing if _fish_value(view, move) == best_value])
    sails = by_type.get("sail", [])
    if held >= 3 or held == HOLD_SIZE:
        ports = {port for kind in hold for port in _buyers(view, kind)}
        move = _closer(me["fleet"], sails, ports)
        if move:
            return move
    if held == HOLD_SIZE and "overboard" in by_type:
        worst = min(hold, key=lambda kind: (_value(view, kind), len(_buyers(view, kind))))
        return {"type": "overboard", "kind": worst, "count": 1}
    fleet = me["fleet"]
    goods = {area for area, tokens in view["goods"].items() if tokens and area not in fleet}
    keep = frozenset(here for here in fleet if view["goods"].get(here))
    move = _closer(fleet, sails, goods, keep)
    if move:
        return move
    if sails and view["actions_left"] == 3:
        return rng.choice(sails)
    return {"type": "end_turn"}


def landed(view: Mapping[str, Any], move: Mapping[str, Any]) -> dict[str, int]:
    """How many fish of each kind an unload puts into the warehouse (in module 1 a -1
    circle loses one)."""
    port = move["port"]
    circles = view["circles"][port]
    shown = view["demand"][port]
    counts = {}
    for kind, count in move["fish"].items():
        circle = move["demand"][kind] if kind in move.get("demand", {}) else shown.index(kind)
        lossy = view["options"].get("demand_management") and circles[circle] < 0
        counts[kind] = count - (1 if lossy else 0)
    return counts


def _unload_gain(view: Mapping[str, Any], move: Mapping[str, Any]) -> float:
    gain = float(sum(landed(view, move).values()))
    # Prefer keeping the 0 circles of a port for later, in module 1: place as few as needed.
    return gain - 0.01 * len(move.get("demand", {}))


def _contract_fit(me: Mapping[str, Any], move: Mapping[str, Any]) -> float:
    needs = CONTRACT_BY_ID[move["contract"]]["needs"]
    have = {kind: me["warehouse"].get(kind, 0) + me["hold"].get(kind, 0) for kind in FISH}
    return sum(have.get(kind, 0) for kind in needs if kind != "amber")


def _fish_value(view: Mapping[str, Any], move: Mapping[str, Any]) -> float:
    kind = move["kind"]
    if kind == "amber":
        return 1.0
    if not _buyers(view, kind):
        return 0.1
    # A fish worth nothing still pays a tax and frees its area for a refill.
    return max(_value(view, kind), 0.2)


def _closer(
    fleet: list[str], sails: list[dict], targets: set[str], keep: frozenset[str] = frozenset()
) -> dict | None:
    """The sail that brings the fleet nearest to a target, if it gets any nearer.

    Vessels in ``keep`` (those lying on goods) are not moved away.
    """
    if not targets or not sails:
        return None

    def distance(locations: list[str]) -> int:
        return min(DISTANCE[here][target] for here in locations for target in targets)

    best, best_distance = None, distance(fleet)
    for move in sails:
        source = move.get("from")
        if source in keep:
            continue
        after = [here for here in fleet if here != source] + [move["to"]]
        reached = distance(after)
        if reached < best_distance:
            best, best_distance = move, reached
    return best


# --------------------------------------------------------------------------- time passes
def _produce(view: Mapping[str, Any], moves: list[dict], rng: random.Random) -> dict:
    me = _me(view)
    numbers = [move for move in moves if move["token"] != "tax"]
    taxes = [move for move in moves if move["token"] == "tax"]
    goods = me["hold_count"] + me["warehouse_count"]
    if taxes and (not numbers or goods <= 3):
        return min(taxes, key=lambda move: (_tax_cost(view, move), rng.random()))
    have = {kind: me["hold"].get(kind, 0) + me["warehouse"].get(kind, 0) for kind in FISH}
    top = max(move["token"] for move in numbers)
    best = [move for move in numbers if move["token"] == top]
    most = max(have[move["kind"]] for move in best)
    return rng.choice([move for move in best if have[move["kind"]] == most])


def _tax_cost(view: Mapping[str, Any], move: Mapping[str, Any]) -> float:
    cost = 0.0
    for place, counts in move["discard"].items():
        for kind, count in counts.items():
            value = _value(view, kind)
            cost += count * (value / 2 if place == "hold" else value)
    return cost
