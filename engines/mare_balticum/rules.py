"""Setup, whose move it is, and applying a move (rules file, 'Setup' and 'A turn').

Move shapes are checked in ``moves.py`` and the legal moves are listed in ``legal.py``;
this module checks each move against the rules and carries it out on a copy of the state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engines.api import Chance, IllegalMove

from . import flow
from .data import (
    ACTIONS_PER_TURN,
    AREA_IDS,
    BAG_KINDS,
    CAPACITY,
    CIRCLES,
    CONTRACT_BY_ID,
    DEMAND_TOKENS,
    FISH,
    GOODS,
    HOLD_SIZE,
    LOCATION_INDEX,
    NEIGHBOURS,
    PORT_IDS,
    PRODUCTION_TOKENS,
    TIME_TOKENS,
    TOKENS,
    VESSELS_BY_PLAYERS,
)
from .moves import check_shape
from .state import OVER, START, TIME, TURN, State, replace_at
from .words import GOODS_HEADINGS, T, Tn, count_of, good
from .words import PLACE_NAMES as NAMES

DEFAULT_OPTIONS: dict[str, Any] = {
    "demand_management": False,
    "trade_contracts": False,
    "seat_order": "as_listed",
}


# --------------------------------------------------------------------------- setup
def setup(seats: int, options: Mapping[str, Any], chance: Chance, version: int = 1) -> State:
    if seats not in VESSELS_BY_PLAYERS:
        raise ValueError("Mare Balticum is played by 3 to 5 players.")
    chosen = {name: options.get(name, default) for name, default in DEFAULT_OPTIONS.items()}
    state = State.__new__(State)
    state.rules_version = version
    state.seats = seats
    state.options = chosen
    # Setup 1: seat order as given, or drawn seat by seat.
    if chosen["seat_order"] == "random":
        left = list(range(seats))
        state.order = tuple(left.pop(chance.below(len(left))) for _ in range(seats))
    else:
        state.order = tuple(range(seats))
    state.vessels = VESSELS_BY_PLAYERS[seats]
    state.goods = {area: () for area in AREA_IDS}
    state.fleets = ((),) * seats
    state.holds = ((0,) * len(FISH),) * seats
    state.warehouses = ((0,) * len(GOODS),) * seats
    state.markets = ((None,) * len(FISH),) * seats
    state.played = ((),) * seats
    state.contracts = (None,) * seats
    state.pending = ()
    state.bag = tuple(TOKENS.get(kind, 0) for kind in BAG_KINDS)
    state.removed = (0,) * len(GOODS)
    state.time_track = 0
    # Setup 2: fill the board in data order, then add the time tokens.
    for area in AREA_IDS:
        for _ in range(CAPACITY[area]):
            flow.place_good(state, area, flow.draw(state, chance))
    state.bag = replace_at(state.bag, flow.TIME_INDEX, TIME_TOKENS)
    # Setup 3: deal the demand tokens (module 1: the circles start empty).
    state.demand = {port: (None,) * len(CIRCLES[port]) for port in PORT_IDS}
    if not chosen["demand_management"]:
        state.demand = deal_demand(chance)
    state.phase = START
    state.turn = 0
    state.round = 0
    state.actions = 0
    state.refill = ()
    state.final_turns = None
    state.events = ()
    return state


def deal_demand(chance: Chance) -> dict[str, tuple[str | None, ...]]:
    """Deals the 8 demand tokens over the circles, again until no port shows a kind twice."""
    while True:
        left = [kind for kind in FISH for _ in range(DEMAND_TOKENS[kind])]
        demand = {
            port: tuple(left.pop(chance.below(len(left))) for _ in CIRCLES[port])
            for port in PORT_IDS
        }
        if all(len(set(shown)) == len(shown) for shown in demand.values()):
            return demand


# --------------------------------------------------------------------------- whose move
def to_move(state: State) -> frozenset[int]:
    if state.phase == OVER:
        return frozenset()
    if state.phase == TIME:
        return frozenset(seat for seat, choice in enumerate(state.pending) if choice is None)
    return frozenset((state.order[state.turn],))


# --------------------------------------------------------------------------- helpers
def connected(locations: set[str]) -> bool:
    if not locations:
        return True
    start = next(iter(locations))
    seen = {start}
    stack = [start]
    while stack:
        for near in NEIGHBOURS[stack.pop()]:
            if near in locations and near not in seen:
                seen.add(near)
                stack.append(near)
    return len(seen) == len(locations)


def demand_left(state: State, kind: str) -> int:
    shown = sum(circles.count(kind) for circles in state.demand.values())
    return DEMAND_TOKENS[kind] - shown


def goods_count(state: State, seat: int) -> int:
    return sum(state.holds[seat]) + sum(state.warehouses[seat])


def unplayed(state: State, seat: int) -> tuple[int | str, ...]:
    return tuple(token for token in PRODUCTION_TOKENS if token not in state.played[seat])


def name(location: str) -> str:
    return NAMES[location]


# --------------------------------------------------------------------------- apply
def apply(state: State, seat: int, move: Mapping[str, Any], chance: Chance) -> State:
    if state.phase == OVER:
        raise IllegalMove(T("The game is over: no more moves can be made."))
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < state.seats:
        raise IllegalMove(T("There is no such seat in this game."))
    kind = check_shape(move)
    if seat not in to_move(state):
        raise IllegalMove(T("It is not your turn."))
    if state.phase == START and kind != "place_start":
        raise IllegalMove(T("First choose the port where your first vessel starts."))
    if state.phase == TIME and kind != "produce":
        raise IllegalMove(T("Time passes: play one of your production tokens first."))
    if state.phase == TURN and kind in ("place_start", "produce"):
        raise IllegalMove(T("That can only be done when time passes or at the start."))
    new = state.copy()
    events: list[dict] = []
    ACTIONS[kind](new, seat, move, chance, events)
    new.events = tuple(events)
    return new


def _place_start(state: State, seat: int, move: Mapping, chance: Chance, events: list) -> None:
    port = move["port"]
    if port not in CIRCLES:
        raise IllegalMove(T("Your first vessel must start in one of the five ports."))
    state.fleets = replace_at(state.fleets, seat, (port,))
    events.append({"type": "place_start", "seat": seat, "port": port})
    if state.turn == state.seats - 1:
        state.phase = TURN
        state.turn = 0
        state.round = 1
    else:
        state.turn += 1


def _sail(state: State, seat: int, move: Mapping, chance: Chance, events: list) -> None:
    fleet = state.fleets[seat]
    own = set(fleet)
    to = move["to"]
    if to not in LOCATION_INDEX:
        raise IllegalMove(T("There is no such sea area or port."))
    if to in own:
        raise IllegalMove(T("You already have a vessel in %(place)s.", place=name(to)))
    # Sail: rules 'A turn' - vessels off the board are put out first, next to the fleet.
    if len(fleet) < state.vessels:
        if "from" in move:
            raise IllegalMove(
                T("You still have vessels off the board: sailing puts one of them out first.")
            )
        if not any(near in own for near in NEIGHBOURS[to]):
            raise IllegalMove(
                T("A new vessel must go next to one of yours; %(place)s is not.", place=name(to))
            )
        fleet = (*fleet, to)
        events.append({"type": "launch", "seat": seat, "to": to})
    else:
        if "from" not in move:
            raise IllegalMove(T("All your vessels are out: say which vessel sails."))
        source = move["from"]
        if source not in own:
            raise IllegalMove(T("You have no vessel in %(place)s.", place=name(source)))
        if not connected((own - {source}) | {to}):
            raise IllegalMove(
                T(
                    "Sailing from %(start)s to %(end)s would split your fleet: "
                    "your vessels must stay connected.",
                    start=name(source),
                    end=name(to),
                )
            )
        fleet = tuple(location for location in fleet if location != source) + (to,)
        events.append({"type": "sail", "seat": seat, "from": source, "to": to})
    state.fleets = replace_at(state.fleets, seat, tuple(sorted(fleet, key=LOCATION_INDEX.get)))
    _action_done(state, chance, events)


def _fish(state: State, seat: int, move: Mapping, chance: Chance, events: list) -> None:
    area, kind = move["area"], move["kind"]
    if area not in CAPACITY:
        raise IllegalMove(T("Fish can only be taken from a sea area, not from a port."))
    if area not in state.fleets[seat]:
        raise IllegalMove(T("You have no vessel in %(place)s.", place=name(area)))
    if kind not in state.goods[area]:
        raise IllegalMove(T("There is no %(kind)s in %(area)s.", kind=good(kind), area=name(area)))
    # Fish: amber to the warehouse; a fish to the hold, which holds 5 at most.
    if kind == "amber":
        state.warehouses = _add(state.warehouses, seat, GOODS.index(kind), 1)
    else:
        if sum(state.holds[seat]) >= HOLD_SIZE:
            raise IllegalMove(T("Your hold is full: throw a fish overboard or fish amber."))
        state.holds = _add(state.holds, seat, FISH.index(kind), 1)
    goods = list(state.goods[area])
    goods.remove(kind)
    state.goods = dict(state.goods)
    state.goods[area] = tuple(goods)
    events.append({"type": "fish", "seat": seat, "area": area, "kind": kind})
    _action_done(state, chance, events)


def unload_losses(
    demand_management: bool, port: str, shown: Sequence[str | None], fish: Mapping[str, int]
) -> list[str]:
    """Module 1: the kinds of an unloading that lose one fish each to a -1 circle, given
    the port's demand as it stands once this unloading has placed its tokens."""
    if not demand_management:
        return []
    return [kind for kind in fish if kind in shown and CIRCLES[port][shown.index(kind)] < 0]


def _unload(state: State, seat: int, move: Mapping, chance: Chance, events: list) -> None:
    port, fish = move["port"], move["fish"]
    placing = move.get("demand", {})
    if port not in CIRCLES:
        raise IllegalMove(T("Fish can only be unloaded in a port."))
    if port not in state.fleets[seat]:
        raise IllegalMove(T("You have no vessel in %(place)s.", place=name(port)))
    hold = list(state.holds[seat])
    for kind, count in fish.items():
        if count > hold[FISH.index(kind)]:
            raise IllegalMove(T("Your hold does not have %(goods)s.", goods=count_of(kind, count)))
    # Unload: only kinds the port shows; module 1 places the demand of a new kind.
    shown = list(state.demand[port])
    for kind in placing:
        if kind not in fish:
            raise IllegalMove(
                T(
                    "A demand token for %(kind)s is placed only when unloading %(kind)s.",
                    kind=good(kind),
                )
            )
    for kind in fish:
        if kind in shown:
            if kind in placing:
                raise IllegalMove(
                    T("%(port)s already buys %(kind)s.", port=name(port), kind=good(kind))
                )
            continue
        if not state.options["demand_management"]:
            raise IllegalMove(
                T("%(port)s does not buy %(kind)s.", port=name(port), kind=good(kind))
            )
        if demand_left(state, kind) <= 0:
            raise IllegalMove(
                T(
                    "%(kind)s is already demanded in two ports.",
                    kind=GOODS_HEADINGS.get(kind, kind.capitalize()),
                )
            )
        if None not in shown:
            raise IllegalMove(
                T(
                    "%(port)s does not buy %(kind)s and has no free demand circle.",
                    port=name(port),
                    kind=good(kind),
                )
            )
        if kind not in placing:
            raise IllegalMove(
                T(
                    "Choose the circle of %(port)s where %(kind)s demand goes.",
                    port=name(port),
                    kind=good(kind),
                )
            )
        circle = placing[kind]
        if not 0 <= circle < len(shown) or shown[circle] is not None:
            raise IllegalMove(T("That circle of %(port)s is not free.", port=name(port)))
        if CIRCLES[port][circle] < 0 and fish[kind] < 2:
            raise IllegalMove(T("Demand may not go on a -1 circle when unloading a single fish."))
        shown[circle] = kind
    warehouse = list(state.warehouses[seat])
    removed = list(state.removed)
    lost = []
    losing = unload_losses(state.options["demand_management"], port, shown, fish)
    for kind, count in fish.items():
        hold[FISH.index(kind)] -= count
        if kind in losing:
            # Module 1: a -1 circle costs one fish of that kind at every unloading.
            count -= 1
            removed[GOODS.index(kind)] += 1
            lost.append(kind)
        warehouse[GOODS.index(kind)] += count
    state.holds = replace_at(state.holds, seat, tuple(hold))
    state.warehouses = replace_at(state.warehouses, seat, tuple(warehouse))
    state.removed = tuple(removed)
    if placing:
        state.demand = dict(state.demand)
        state.demand[port] = tuple(shown)
    events.append(
        {
            "type": "unload",
            "seat": seat,
            "port": port,
            "fish": dict(fish),
            "demand": dict(placing),
            "lost": lost,
        }
    )
    _action_done(state, chance, events)


def _take_contract(state: State, seat: int, move: Mapping, chance: Chance, events: list) -> None:
    if not state.options["trade_contracts"]:
        raise IllegalMove(T("Trade contracts are not used in this game."))
    contract = move["contract"]
    if contract not in CONTRACT_BY_ID:
        raise IllegalMove(T("There is no such trade contract."))
    if state.contracts[seat] == contract:
        raise IllegalMove(T("You already hold that trade contract."))
    if contract in state.contracts:
        raise IllegalMove(T("Another player holds that trade contract."))
    events.append(
        {
            "type": "take_contract",
            "seat": seat,
            "contract": contract,
            "returned": state.contracts[seat],
        }
    )
    state.contracts = replace_at(state.contracts, seat, contract)
    _action_done(state, chance, events)


def _overboard(state: State, seat: int, move: Mapping, chance: Chance, events: list) -> None:
    kind, count = move["kind"], move["count"]
    index = FISH.index(kind)
    if count > state.holds[seat][index]:
        raise IllegalMove(T("Your hold does not have %(goods)s.", goods=count_of(kind, count)))
    state.holds = _add(state.holds, seat, index, -count)
    removed_index = GOODS.index(kind)
    state.removed = replace_at(state.removed, removed_index, state.removed[removed_index] + count)
    events.append({"type": "overboard", "seat": seat, "kind": kind, "count": count})


def _end_turn(state: State, seat: int, move: Mapping, chance: Chance, events: list) -> None:
    flow.end_turn(state, chance, events)


def _produce(state: State, seat: int, move: Mapping, chance: Chance, events: list) -> None:
    # Passage of time: the choice stays secret until every player has chosen.
    token = move["token"]
    if token in state.played[seat]:
        raise IllegalMove(T("You have already played that production token."))
    if token == "tax":
        left = len(unplayed(state, seat))
        have = goods_count(state, seat)
        if have < 2 and left > 1:
            raise IllegalMove(
                T("You need at least 2 goods to pay the tax; play a number token instead.")
            )
        needed = min(2, have)
        discard = move["discard"]
        hold_out = discard.get("hold", {})
        warehouse_out = discard.get("warehouse", {})
        for kind, count in hold_out.items():
            if count > state.holds[seat][FISH.index(kind)]:
                raise IllegalMove(
                    T("Your hold does not have %(goods)s.", goods=count_of(kind, count))
                )
        for kind, count in warehouse_out.items():
            if count > state.warehouses[seat][GOODS.index(kind)]:
                raise IllegalMove(
                    T("Your warehouse does not have %(goods)s.", goods=count_of(kind, count))
                )
        paid = sum(hold_out.values()) + sum(warehouse_out.values())
        if paid != needed:
            raise IllegalMove(
                Tn(
                    "The tax costs exactly %(num)d goods; you chose %(paid)s.",
                    "The tax costs exactly %(num)d goods; you chose %(paid)s.",
                    needed,
                    paid=paid,
                )
            )
        # A copy: the state must not share dicts with the caller's move.
        choice = {"token": "tax", "discard": {place: dict(n) for place, n in discard.items()}}
    else:
        kind = move["kind"]
        if state.markets[seat][FISH.index(kind)] is not None:
            raise IllegalMove(
                T(
                    "Your %(kind)s market space already holds a production token.",
                    kind=good(kind),
                )
            )
        choice = {"token": token, "kind": kind}
    state.pending = replace_at(state.pending, seat, choice)
    events.append({"type": "chosen", "seat": seat})
    if None not in state.pending:
        flow.resolve_production(state, chance, events)


def _action_done(state: State, chance: Chance, events: list) -> None:
    state.actions += 1
    if state.actions >= ACTIONS_PER_TURN:
        flow.end_turn(state, chance, events)


def _add(rows: tuple, seat: int, index: int, amount: int) -> tuple:
    row = rows[seat]
    return replace_at(rows, seat, replace_at(row, index, row[index] + amount))


ACTIONS = {
    "place_start": _place_start,
    "sail": _sail,
    "fish": _fish,
    "unload": _unload,
    "take_contract": _take_contract,
    "overboard": _overboard,
    "end_turn": _end_turn,
    "produce": _produce,
}
