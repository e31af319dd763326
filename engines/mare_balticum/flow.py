"""The flow between actions: drawing from the bag, the end of a turn, refilling,
the passage of time and the end of the game.

Every function here works on a fresh :class:`State` copy made by the caller and records
what happened in ``events`` (plain dicts, read by ``views.describe``).
"""

from __future__ import annotations

from engines.api import Chance

from .data import AREA_IDS, BAG_KINDS, CAPACITY, FISH, GOODS, TIME_TOKENS
from .state import OVER, TIME, TURN, State, replace_at

TIME_INDEX = BAG_KINDS.index("time")


def draw(state: State, chance: Chance) -> str:
    """Draws one token from the bag (canonical order, drawn when drawn) and returns its kind."""
    pick = chance.below(sum(state.bag))
    for index, count in enumerate(state.bag):
        if pick < count:
            state.bag = replace_at(state.bag, index, count - 1)
            return BAG_KINDS[index]
        pick -= count
    raise AssertionError("the draw fell outside the bag")


def place_good(state: State, area: str, kind: str) -> None:
    state.goods = dict(state.goods)
    state.goods[area] = tuple(sorted((*state.goods[area], kind), key=GOODS.index))


def end_turn(state: State, chance: Chance, events: list[dict]) -> None:
    """The turn is over: the end of the game, or the refill (rules 'End of turn: refill')."""
    seat = state.order[state.turn]
    events.append({"type": "turn_ended", "seat": seat})
    if state.final_turns is not None:
        state.final_turns -= 1
        if state.final_turns == 0:
            state.phase = OVER
            events.append({"type": "game_over"})
            return
    occupied = {location for fleet in state.fleets for location in fleet}
    state.refill = tuple(
        (area, CAPACITY[area])
        for area in AREA_IDS
        if not state.goods[area] and area not in occupied
    )
    continue_refill(state, chance, events)


def continue_refill(state: State, chance: Chance, events: list[dict]) -> None:
    """Refills the queued areas in board order; a time token pauses for production."""
    queue = list(state.refill)
    while queue:
        if not any(state.bag):
            events.append({"type": "bag_empty"})
            break
        area, need = queue[0]
        kind = draw(state, chance)
        if kind == "time":
            state.time_track += 1
            events.append({"type": "time", "number": state.time_track, "area": area})
            if state.time_track < TIME_TOKENS:
                # Passage of time: everyone plays a production token, then the draw goes on.
                state.refill = tuple(queue)
                state.phase = TIME
                state.pending = (None,) * state.seats
                return
            start_final_turns(state, events)
            continue
        place_good(state, area, kind)
        events.append({"type": "refill", "area": area, "kind": kind})
        if need == 1:
            queue.pop(0)
        else:
            queue[0] = (area, need - 1)
    state.refill = ()
    next_turn(state)


def start_final_turns(state: State, events: list[dict]) -> None:
    """The 6th time token: finish the round, then everyone takes one more turn."""
    last = state.seats - 1
    rest_of_round = 0 if state.turn == last else last - state.turn
    state.final_turns = rest_of_round + state.seats
    events.append({"type": "final_turns", "turns": state.final_turns})


def next_turn(state: State) -> None:
    state.phase = TURN
    state.actions = 0
    state.turn = (state.turn + 1) % state.seats
    if state.turn == 0:
        state.round += 1


def resolve_production(state: State, chance: Chance, events: list[dict]) -> None:
    """Every player has chosen: the choices take effect together, then the refill goes on."""
    revealed = []
    markets = list(state.markets)
    played = list(state.played)
    holds = list(state.holds)
    warehouses = list(state.warehouses)
    removed = list(state.removed)
    for seat, choice in enumerate(state.pending):
        token = choice["token"]
        played[seat] = (*played[seat], token)
        if token == "tax":
            discard = choice["discard"]
            hold = list(holds[seat])
            for kind, count in discard.get("hold", {}).items():
                hold[FISH.index(kind)] -= count
                removed[GOODS.index(kind)] += count
            warehouse = list(warehouses[seat])
            for kind, count in discard.get("warehouse", {}).items():
                warehouse[GOODS.index(kind)] -= count
                removed[GOODS.index(kind)] += count
            holds[seat] = tuple(hold)
            warehouses[seat] = tuple(warehouse)
            revealed.append({"seat": seat, "token": "tax", "discard": discard})
        else:
            markets[seat] = replace_at(markets[seat], FISH.index(choice["kind"]), token)
            revealed.append({"seat": seat, "token": token, "kind": choice["kind"]})
    state.markets = tuple(markets)
    state.played = tuple(played)
    state.holds = tuple(holds)
    state.warehouses = tuple(warehouses)
    state.removed = tuple(removed)
    state.pending = ()
    state.phase = TURN
    events.append({"type": "production", "number": state.time_track, "choices": revealed})
    continue_refill(state, chance, events)
