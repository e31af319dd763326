"""The state of a game of Mare Balticum, and its lossless JSON form.

A state is treated as immutable: the rules copy it with :meth:`State.copy` (a shallow
copy) and then replace whole fields, never changing a tuple or dict in place. Counts are
tuples in the canonical kind order of ``data.FISH`` (holds, markets), ``data.GOODS``
(warehouses, removed goods) and ``data.BAG_KINDS`` (the bag).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .data import AREA_IDS, BAG_KINDS, CONTRACT_IDS, FISH, GOODS, PORT_IDS

# Phases: starting ports, players' turns, a passage of time, the end of the game.
START, TURN, TIME, OVER = "start", "turn", "time", "over"

_FIELDS = (
    "seats",
    "options",
    "order",
    "vessels",
    "goods",
    "fleets",
    "holds",
    "warehouses",
    "markets",
    "played",
    "contracts",
    "pending",
    "bag",
    "removed",
    "time_track",
    "demand",
    "phase",
    "turn",
    "round",
    "actions",
    "refill",
    "final_turns",
    "events",
    "rules_version",
)


class State:
    """Everything about one moment of a game (see the module docstring)."""

    __slots__ = _FIELDS

    seats: int
    options: dict[str, Any]
    order: tuple[int, ...]  # seats in playing order; order[0] is the first player
    vessels: int  # vessels per player
    goods: dict[str, tuple[str, ...]]  # area -> goods lying there, sorted by kind
    fleets: tuple[tuple[str, ...], ...]  # per seat: locations of vessels, in board order
    holds: tuple[tuple[int, ...], ...]  # per seat: fish counts in FISH order
    warehouses: tuple[tuple[int, ...], ...]  # per seat: counts in GOODS order
    markets: tuple[tuple[int | None, ...], ...]  # per seat: number token per fish kind
    played: tuple[tuple[int | str, ...], ...]  # per seat: production tokens played, in order
    contracts: tuple[str | None, ...]  # per seat: trade contract held
    pending: tuple[dict | None, ...]  # per seat during a passage of time: secret choice
    bag: tuple[int, ...]  # counts in BAG_KINDS order
    removed: tuple[int, ...]  # goods out of the game, in GOODS order
    time_track: int  # passage of time tokens drawn
    demand: dict[str, tuple[str | None, ...]]  # port -> kind shown on each circle
    phase: str
    turn: int  # index into order of the player whose turn it is (or who placed last)
    round: int
    actions: int  # actions taken in the current turn
    refill: tuple[tuple[str, int], ...]  # areas still to refill after a passage of time
    final_turns: int | None  # turns left once the 6th time token is drawn
    events: tuple[dict, ...]  # what the last move did, for describe()
    rules_version: int  # the engine version whose rules this game plays (1 or 2)

    def copy(self) -> State:
        new = State.__new__(State)
        for name in _FIELDS:
            setattr(new, name, getattr(self, name))
        return new

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and dump_state(self) == dump_state(other)

    def __repr__(self) -> str:
        return f"State(phase={self.phase!r}, round={self.round}, turn={self.turn})"


def replace_at(values: tuple, index: int, value: Any) -> tuple:
    """A copy of ``values`` with ``values[index]`` replaced."""
    return values[:index] + (value,) + values[index + 1 :]


def copy_json(value: Any) -> Any:
    """A deep copy of JSON-like data (dicts and lists), so that no caller shares a state's."""
    if isinstance(value, dict):
        return {key: copy_json(inner) for key, inner in value.items()}
    if isinstance(value, list | tuple):
        return [copy_json(inner) for inner in value]
    return value


def counts_json(counts: tuple[int, ...], kinds: tuple[str, ...]) -> dict[str, int]:
    return {kind: count for kind, count in zip(kinds, counts, strict=True) if count}


def counts_from(data: Mapping[str, int], kinds: tuple[str, ...]) -> tuple[int, ...]:
    return tuple(int(data.get(kind, 0)) for kind in kinds)


def dump_state(state: State) -> dict:
    """The JSON form of ``state`` (string keys, deterministic); a version-1 state has no
    version field, so it dumps as it always did."""
    data = {
        "seats": state.seats,
        "options": dict(state.options),
        "order": list(state.order),
        "vessels": state.vessels,
        "goods": {area: list(state.goods[area]) for area in AREA_IDS},
        "players": [
            {
                "fleet": list(state.fleets[seat]),
                "hold": counts_json(state.holds[seat], FISH),
                "warehouse": counts_json(state.warehouses[seat], GOODS),
                "market": dict(zip(FISH, state.markets[seat], strict=True)),
                "played": list(state.played[seat]),
                "contract": state.contracts[seat],
            }
            for seat in range(state.seats)
        ],
        "pending": [copy_json(choice) for choice in state.pending],
        "bag": counts_json(state.bag, BAG_KINDS),
        "removed": counts_json(state.removed, GOODS),
        "time_track": state.time_track,
        "demand": {port: list(state.demand[port]) for port in PORT_IDS},
        "phase": state.phase,
        "turn": state.turn,
        "round": state.round,
        "actions": state.actions,
        "refill": [[area, need] for area, need in state.refill],
        "final_turns": state.final_turns,
        "events": copy_json(state.events),
    }
    if state.rules_version != 1:
        data["rules_version"] = state.rules_version
    return data


def load_state(data: Mapping[str, Any]) -> State:
    """The state that :func:`dump_state` made ``data`` from."""
    state = State.__new__(State)
    state.seats = int(data["seats"])
    state.options = dict(data["options"])
    state.order = tuple(data["order"])
    state.vessels = int(data["vessels"])
    state.goods = {area: tuple(data["goods"][area]) for area in AREA_IDS}
    players = data["players"]
    state.fleets = tuple(tuple(player["fleet"]) for player in players)
    state.holds = tuple(counts_from(player["hold"], FISH) for player in players)
    state.warehouses = tuple(counts_from(player["warehouse"], GOODS) for player in players)
    state.markets = tuple(tuple(player["market"][kind] for kind in FISH) for player in players)
    state.played = tuple(tuple(player["played"]) for player in players)
    state.contracts = tuple(player["contract"] for player in players)
    for contract in state.contracts:
        assert contract is None or contract in CONTRACT_IDS
    state.pending = tuple(copy_json(choice) for choice in data["pending"])
    state.bag = counts_from(data["bag"], BAG_KINDS)
    state.removed = counts_from(data["removed"], GOODS)
    state.time_track = int(data["time_track"])
    state.demand = {port: tuple(data["demand"][port]) for port in PORT_IDS}
    state.phase = data["phase"]
    state.turn = int(data["turn"])
    state.round = int(data["round"])
    state.actions = int(data["actions"])
    state.refill = tuple((area, int(need)) for area, need in data["refill"])
    state.final_turns = data["final_turns"]
    state.events = tuple(copy_json(event) for event in data["events"])
    state.rules_version = int(data.get("rules_version", 1))
    return state
