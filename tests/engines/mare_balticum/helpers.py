"""Shared helpers for the Mare Balticum tests: invariants, mutations and crafted states."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engines.api import SeededChance
from engines.mare_balticum import ENGINE
from engines.mare_balticum.data import (
    AREA_IDS,
    CIRCLES,
    CONTRACT_IDS,
    FISH,
    GOODS,
    HOLD_SIZE,
    LOCATIONS,
    NUMBER_TOKENS,
    TIME_TOKENS,
    TOKENS,
)
from engines.mare_balticum.rules import connected
from engines.mare_balticum.state import OVER, TIME, TURN, State

ALL_OPTIONS = [
    {"demand_management": demand, "trade_contracts": contracts, "seat_order": order}
    for demand in (False, True)
    for contracts in (False, True)
    for order in ("as_listed", "random")
]


def invariant(state: State) -> None:
    """Every good and time token is somewhere; fleets are connected; holds are not over 5."""
    for index, kind in enumerate(GOODS):
        on_board = sum(goods.count(kind) for goods in state.goods.values())
        holds = sum(hold[index] for hold in state.holds) if kind in FISH else 0
        warehouses = sum(warehouse[index] for warehouse in state.warehouses)
        total = state.bag[index] + on_board + holds + warehouses + state.removed[index]
        assert total == TOKENS[kind], f"{kind}: {total} accounted for"
    assert state.bag[len(GOODS)] + state.time_track == TIME_TOKENS
    assert all(count >= 0 for count in state.bag + state.removed)
    for seat in range(state.seats):
        fleet = state.fleets[seat]
        assert len(set(fleet)) == len(fleet) <= state.vessels
        assert connected(set(fleet)), f"fleet of seat {seat} is split: {fleet}"
        assert all(count >= 0 for count in state.holds[seat] + state.warehouses[seat])
        assert sum(state.holds[seat]) <= HOLD_SIZE
        numbers = [token for token in state.played[seat] if token != "tax"]
        assert sorted(numbers) == sorted(t for t in state.markets[seat] if t is not None)
    for area in AREA_IDS:
        assert len(state.goods[area]) <= 2
    for circles in state.demand.values():
        shown = [kind for kind in circles if kind is not None]
        assert len(set(shown)) == len(shown)
    for kind in FISH:
        assert sum(circles.count(kind) for circles in state.demand.values()) <= 2
    held = [contract for contract in state.contracts if contract]
    assert len(set(held)) == len(held)
    if state.phase == TIME:
        assert 1 <= state.time_track < TIME_TOKENS
    if state.phase == OVER:
        assert state.time_track == TIME_TOKENS
        assert all(len(played) == 5 for played in state.played)


_STRINGS = (*LOCATIONS, *GOODS, *CONTRACT_IDS, "tax", "atlantis", "")


def _variants(value: Any) -> Iterable[Any]:
    if isinstance(value, bool):
        yield not value
    elif isinstance(value, int):
        yield from (value + 1, value - 1, True, str(value), None)
    elif isinstance(value, str):
        yield from (other for other in _STRINGS if other != value)
        yield 3
        yield None
    elif isinstance(value, dict):
        yield {}
        yield [value]
        for key, inner in value.items():
            for changed in _variants(inner):
                yield {**value, key: changed}
            yield {k: v for k, v in value.items() if k != key}
        for kind in (*FISH, "amber", "hold", "bogus"):
            if kind not in value:
                yield {**value, kind: 1}


def mutations(move: dict) -> Iterable[dict]:
    """Moves near a legal one: every field changed, dropped or added."""
    yield {**move, "type": "dance"}
    yield {**move, "extra": 1}
    yield [move]  # type: ignore[misc]
    for key, value in move.items():
        if key == "type":
            continue
        yield {k: v for k, v in move.items() if k != key}
        for changed in _variants(value):
            yield {**move, key: changed}
    if move["type"] == "sail" and "from" not in move:
        yield {**move, "from": move["to"]}
    if move["type"] == "produce":
        for token in (*NUMBER_TOKENS, "tax"):
            yield {**move, "token": token}
        if move["token"] == "tax":
            yield {"type": "produce", "token": "tax", "discard": {}}
        else:
            yield {**move, "discard": {"hold": {"cod": 1}}}
    if move["type"] == "unload":
        for kind in FISH:
            for circle in range(len(CIRCLES[move["port"]])):
                yield {**move, "demand": {**move.get("demand", {}), kind: circle}}


def fresh(seats: int = 3, options: dict | None = None, seed: int = 0) -> State:
    """A new game (setup drawn by a seeded chance) before the starting ports."""
    return ENGINE.setup(seats, options or {}, SeededChance(seed))


def in_turn(seats: int = 3, options: dict | None = None, seed: int = 0, **fields: Any) -> State:
    """A crafted state in the first player's turn, with ``fields`` replaced.

    Seat-indexed fields may be given as dicts {seat: value} and are merged; counts may be
    given as dicts of kind -> count.
    """
    state = fresh(seats, options, seed).copy()
    state.phase = TURN
    state.round = 1
    state.turn = 0
    state.fleets = tuple((port,) for port in ("copenhagen",) * seats)
    state.events = ()
    return craft(state, **fields)


def craft(state: State, **fields: Any) -> State:
    """A copy of ``state`` with fields replaced (see :func:`in_turn`)."""
    state = state.copy()
    kinds_of = {"holds": FISH, "warehouses": GOODS}
    for name, value in fields.items():
        if name in ("fleets", "holds", "warehouses", "markets", "contracts", "played"):
            rows = list(getattr(state, name))
            for seat, row in value.items():
                if name in kinds_of and isinstance(row, dict):
                    row = tuple(row.get(kind, 0) for kind in kinds_of[name])
                elif name == "markets" and isinstance(row, dict):
                    row = tuple(row.get(kind) for kind in FISH)
                elif name in ("fleets", "played"):
                    row = tuple(row)
                rows[seat] = row
            setattr(state, name, tuple(rows))
        elif name == "goods":
            goods = dict(state.goods)
            goods.update({area: tuple(kinds) for area, kinds in value.items()})
            setattr(state, name, goods)
        elif name == "demand":
            demand = dict(state.demand)
            demand.update({port: tuple(kinds) for port, kinds in value.items()})
            setattr(state, name, demand)
        else:
            setattr(state, name, value)
    return state


def balance(state: State) -> State:
    """Puts goods back into or out of the bag so that every good is accounted for again."""
    state = state.copy()
    bag = list(state.bag)
    for index, kind in enumerate(GOODS):
        on_board = sum(goods.count(kind) for goods in state.goods.values())
        holds = sum(hold[index] for hold in state.holds) if kind in FISH else 0
        warehouses = sum(warehouse[index] for warehouse in state.warehouses)
        bag[index] = TOKENS[kind] - on_board - holds - warehouses - state.removed[index]
        assert bag[index] >= 0, f"too many {kind} in the crafted state"
    state.bag = tuple(bag)
    return state


def outcomes_for(bag: tuple[int, ...], kinds: Iterable[str]) -> list[int]:
    """The chance outcomes that draw ``kinds`` in turn from ``bag`` (canonical order)."""
    from engines.mare_balticum.data import BAG_KINDS

    left = list(bag)
    outcomes = []
    for kind in kinds:
        index = BAG_KINDS.index(kind)
        assert left[index] > 0, f"no {kind} left in the bag"
        outcomes.append(sum(left[:index]))
        left[index] -= 1
    return outcomes


def no_refill(state: State) -> State:
    """Every area holds a good, so that no refill happens unless a test empties one."""
    goods = {area: state.goods[area] or ("amber",) for area in AREA_IDS}
    return balance(craft(state, goods=goods))
