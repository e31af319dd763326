"""Mare Balticum's "normal" bot: plans its multipliers and the end of the game.

It plays from its own seat's view and the legal moves only, like the first ("easy") bot,
whose sailing helpers it shares, and adds what that bot overlooks:

- **A plan for its multipliers.** Each fish kind will get one of the number tokens; the
  bot plans the highest tokens left for the kinds it holds most, and values a fish by
  its planned multiplier. It never fishes a kind planned (or placed) at x0, and throws
  such fish overboard when the hold is full.
- **Unloading what scores.** It unloads the whole scoring part of its hold at once and
  does not spend an action on a single fish while more could be landed with it: it
  first fishes another of that kind when a vessel lies on one, and it makes for a port
  within two sails that lands two fish or more; a full hold or the end near lands
  whatever scores. With three fish or more aboard it makes for the port that lands
  the most of them.
- **Trade contracts that pay.** It takes a contract only when its warehouse already
  holds every good the contract needs, and only when the contract's points beat what
  those goods score without it by the planned multipliers; a contract whose fish are
  still at sea was found to score nothing far too often.
- **The game clock.** From the fifth passage of time, and when the last turns are
  counted, it stops fishing what it cannot land in time and sails to a port that buys
  its catch, so little is lost in the hold at the end.
- **Production order.** It pays the tax when its goods are few and cheap, then plays
  its number tokens in a random order, each on its planned kind, so the order in which
  its market spaces fill says nothing about which of them holds the x3.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from . import bot
from .bot import DISTANCE, _buyers, _closer, landed
from .data import CONTRACT_BY_ID, FISH, HOLD_SIZE

AMBER = 1.0
LANDING = 0.8  # a fish in the hold is worth this much of its multiplier (it must be landed)
NEAR = 2  # sails to a port worth making for rather than landing a single fish
CONTRACT_GAIN = 1.5  # a contract is worth an action when it adds this much


def choose_move(view: Mapping[str, Any], legal: Sequence[dict], rng: random.Random) -> dict:
    by_type: dict[str, list[dict]] = {}
    for move in legal:
        by_type.setdefault(move["type"], []).append(move)
    if "place_start" in by_type:
        return _start(view, by_type["place_start"], rng)
    if "produce" in by_type:
        return _produce(view, by_type["produce"], rng)
    return _turn(view, by_type, rng) or legal[-1]


# --------------------------------------------------------------------------- the plan
def _me(view: Mapping[str, Any]) -> Mapping[str, Any]:
    return view["players"][view["seat"]]


def plan(view: Mapping[str, Any]) -> dict[str, float]:
    """The multiplier of every fish kind: placed, or planned from what the bot holds.

    The number tokens left go, highest first, to the kinds without a token that the bot
    holds most of (warehouse, then hold), then to those most plentiful on the board.
    """
    me = _me(view)
    market = me.get("market") or {}
    values: dict[str, float] = {}
    open_kinds = []
    for kind in FISH:
        token = market.get(kind)
        if token is None:
            open_kinds.append(kind)
        else:
            values[kind] = float(token)
    left = sorted((t for t in me["unplayed"] if t != "tax"), reverse=True)
    on_board = {kind: 0 for kind in FISH}
    for tokens in view["goods"].values():
        for kind in tokens:
            if kind in on_board:
                on_board[kind] += 1

    def weight(kind: str) -> tuple:
        return (
            me["warehouse"].get(kind, 0) + me["hold"].get(kind, 0),
            me["warehouse"].get(kind, 0),
            on_board[kind],
            -FISH.index(kind),
        )

    ranked = sorted(open_kinds, key=weight, reverse=True)
    for kind, token in zip(ranked, left, strict=False):
        values[kind] = float(token)
    for kind in FISH:
        values.setdefault(kind, 0.0)
    values["amber"] = AMBER
    return values


def _endgame(view: Mapping[str, Any]) -> bool:
    """The last turns are counted, or the last time token is likely at the next refills."""
    if view.get("final_turns") is not None:
        return True
    if view["time_track"] < view["time_tokens"] - 1:
        return False
    left = view["bag"].get("time", 0)
    return left > 0 and view["bag_count"] <= 8 * left


# --------------------------------------------------------------------------- a turn
def _turn(view: Mapping[str, Any], by_type: dict[str, list[dict]], rng: random.Random):
    me = _me(view)
    values = plan(view)
    hold = me["hold"]
    held = sum(hold.values())
    scoring_hold = sum(n for kind, n in hold.items() if values[kind] > 0)
    endgame = _endgame(view)
    actions = view["actions_left"]

    # Land what scores.
    unloads = by_type.get("unload", [])
    idle_unload = None  # a landing worth making when nothing better is left to do
    if unloads:
        best = max(unloads, key=lambda move: _landed(view, values, move))
        landed = _landed(view, values, best)
        count = sum(n for kind, n in best["fish"].items() if values[kind] > 0)
        single = count == 1 and not endgame and held < HOLD_SIZE
        if single:
            # Not a single fish while the fleet can fish another of its kind first:
            # both then land for one action.
            kind = next(kind for kind in best["fish"] if values[kind] > 0)
            more = [move for move in by_type.get("fish", []) if move["kind"] == kind]
            if more:
                return rng.choice(more)
        # The same test as for making for a port below, so that a bot that sailed to
        # a port lands there what it can (and does not sail on to land the rest first);
        # a single fish waits, though, when a port near lands two or more at once.
        wait = single and _better_port_near(view, hold, values)
        if landed > 0 and not wait and (count >= 3 or held >= 3 or endgame):
            return best
        if landed > 0:
            idle_unload = best

    # Make room: fish worth nothing go overboard when the hold is full.
    if held >= HOLD_SIZE and "overboard" in by_type:
        worthless = [kind for kind, n in hold.items() if n and values[kind] <= 0]
        if worthless:
            kind = worthless[0]
            return {"type": "overboard", "kind": kind, "count": hold[kind]}

    if "take_contract" in by_type and me["contract"] is None:
        worth = {
            move["contract"]: _contract_worth(view, values, move)
            for move in by_type["take_contract"]
        }
        best = max(by_type["take_contract"], key=lambda move: worth[move["contract"]])
        if worth[best["contract"]] >= CONTRACT_GAIN:
            return best

    # Fish what scores (and, near the end, only what can still be landed).
    fishing = []
    for move in by_type.get("fish", []):
        kind = move["kind"]
        if kind == "amber":
            fishing.append((AMBER, move))
            continue
        if values[kind] <= 0 or not _buyers(view, kind):
            continue
        if held >= HOLD_SIZE:
            continue
        if endgame and not _landable(view, me, kind, actions - 1):
            continue
        near = _port_distance(view, me["fleet"], kind)
        fishing.append((values[kind] * LANDING - 0.1 * near, move))
    if fishing and not (endgame and scoring_hold >= 3):
        best_value = max(value for value, _ in fishing)
        if best_value > 0.3:
            best = [move for value, move in fishing if value == best_value]
            return rng.choice(best)

    # A full enough hold (or the end) makes for a port where it lands; a port the fleet
    # is in already had its chance above.
    sails = by_type.get("sail", [])
    landing = set()
    if scoring_hold:
        # Rather a port that takes two fish or more than one that takes a single fish.
        least = 1 if endgame or held >= HOLD_SIZE else min(3, scoring_hold)
        while least > 1 and not _landing_ports(view, hold, values, least):
            least -= 1
        landing = _landing_ports(view, hold, values, least) - set(me["fleet"])
        if not landing:
            landing = _landing_ports(view, hold, values) - set(me["fleet"])
    if held >= 3 or endgame:
        move = _closer(me["fleet"], sails, landing)
        if move:
            return move

    # Otherwise sail onto the goods worth most, moving a vessel that lies idle.
    move = _best_sail(view, sails, values, held)
    if move:
        return move
    fleet = me["fleet"]
    room = held < HOLD_SIZE  # with a full hold only amber can still be taken
    wanted = {
        area
        for area, tokens in view["goods"].items()
        if area not in fleet
        and any(values.get(kind, 0) > 0 and (room or kind == "amber") for kind in tokens)
    }
    keep = frozenset(
        here
        for here in fleet
        if any(values.get(kind, 0) > 0 for kind in view["goods"].get(here, []))
    )
    move = _closer(fleet, sails, wanted, keep)
    if move:
        return move
    # Nothing left to fish: land the little there is, here or in a port that takes it,
    # rather than sail to and fro (while no sea area empties, no time passes).
    if idle_unload:
        return idle_unload
    move = _closer(fleet, sails, landing)
    if move:
        return move
    if sails and actions == 3:
        return rng.choice(sails)
    return {"type": "end_turn"}


def _area_worth(view: Mapping[str, Any], area: str, values: Mapping[str, float], held: int):
    worth = 0.0
    room = HOLD_SIZE - held
    for kind in sorted(view["goods"].get(area, []), key=lambda k: -values.get(k, 0)):
        if kind == "amber":
            worth += AMBER
        elif room > 0 and values.get(kind, 0) > 0:
            worth += values[kind] * LANDING
            room -= 1
    return worth


def _best_sail(
    view: Mapping[str, Any], sails: Sequence[dict], values: Mapping[str, float], held: int
) -> dict | None:
    best, best_gain = None, 0.5
    for move in sails:
        gain = _area_worth(view, move["to"], values, held)
        source = move.get("from")
        if source is not None:
            gain -= _area_worth(view, source, values, held)
            if source in view["circles"]:
                gain -= 0.2  # a vessel in a port is kept for landing
        if gain > best_gain:
            best, best_gain = move, gain
    return best


def _landed(view: Mapping[str, Any], values: Mapping[str, float], move: Mapping) -> float:
    """Points an unload puts into the warehouse (a -1 circle in module 1 loses a fish)."""
    gain = sum(count * values[kind] for kind, count in landed(view, move).items())
    return gain - 0.01 * len(move.get("demand", {}))


def _landing_ports(
    view: Mapping[str, Any],
    hold: Mapping[str, int],
    values: Mapping[str, float],
    least: int = 1,
) -> set[str]:
    """Ports where unloading the hold would put at least ``least`` fish that score into
    the warehouse (a -1 circle of module 1 loses a fish; a port with an empty circle
    takes a new kind while fewer than two ports show it)."""
    managed = view["options"].get("demand_management")
    ports = set()
    for port, shown in view["demand"].items():
        circles = view["circles"][port]
        landed = 0
        for kind, count in hold.items():
            if not count or values.get(kind, 0) <= 0:
                continue
            if kind in shown:
                places = [shown.index(kind)]
            elif managed and port in _buyers(view, kind):
                places = [i for i, there in enumerate(shown) if there is None]
            else:
                continue
            landed += max(count - (1 if managed and circles[i] < 0 else 0) for i in places)
        if landed >= least:
            ports.add(port)
    return ports


def _better_port_near(
    view: Mapping[str, Any], hold: Mapping[str, int], values: Mapping[str, float]
) -> bool:
    """Whether a port within two sails of the fleet lands two fish or more that score."""
    fleet = _me(view)["fleet"]
    ports = _landing_ports(view, hold, values, 2) - set(fleet)
    return any(DISTANCE[here][port] <= NEAR for here in fleet for port in ports)


def _contract_worth(view: Mapping[str, Any], values: Mapping[str, float], move: Mapping) -> float:
    """What a trade contract adds to the final score, by the planned multipliers: its
    points less what its goods would score without it; nothing unless the warehouse
    holds every good it needs already (fish still in the hold were seen to miss a
    contract far too often: sold elsewhere, lost at a -1 circle, or left at the end)."""
    contract = CONTRACT_BY_ID[move["contract"]]
    warehouse = _me(view)["warehouse"]
    if any(warehouse.get(kind, 0) < count for kind, count in contract["needs"].items()):
        return 0.0
    cost = sum(count * values[kind] for kind, count in contract["needs"].items())
    return contract["points"] - cost


def _port_distance(view: Mapping[str, Any], fleet: Sequence[str], kind: str) -> int:
    ports = _buyers(view, kind)
    if not ports:
        return 9
    return min(DISTANCE[here][port] for here in fleet for port in ports)


def _landable(view: Mapping[str, Any], me: Mapping[str, Any], kind: str, actions: int) -> bool:
    """Whether a fish of ``kind`` could still be landed: a buying port within reach."""
    if view.get("final_turns") is None:
        return _port_distance(view, me["fleet"], kind) <= 2
    turns_left = max(0, (view["final_turns"] - 1) // len(view["players"]))
    reach = actions + 3 * turns_left
    return reach >= 1 and _port_distance(view, me["fleet"], kind) + 1 <= reach


def _start(view: Mapping[str, Any], moves: list[dict], rng: random.Random) -> dict:
    """A starting port near many goods."""

    def richness(move: Mapping[str, Any]) -> float:
        port = move["port"]
        return sum(
            len(tokens) / (1 + DISTANCE[port][area])
            for area, tokens in view["goods"].items()
            if area in DISTANCE[port]
        )

    best = max(richness(move) for move in moves)
    return rng.choice([move for move in moves if richness(move) >= best - 0.5])


# --------------------------------------------------------------------------- time passes
def _produce(view: Mapping[str, Any], moves: list[dict], rng: random.Random) -> dict:
    values = plan(view)
    numbers = [move for move in moves if move["token"] != "tax"]
    taxes = [move for move in moves if move["token"] == "tax"]
    if taxes:
        cheapest = min(taxes, key=lambda move: (_tax_cost(values, move), rng.random()))
        if not numbers or _tax_cost(values, cheapest) <= 2.0:
            return cheapest
    # Each number token on its planned kind, the token chosen at random.
    planned = [move for move in numbers if values.get(move["kind"]) == float(move["token"])]
    if planned:
        return rng.choice(planned)
    return rng.choice(numbers) if numbers else bot.choose_move(view, moves, rng)


def _tax_cost(values: Mapping[str, float], move: Mapping[str, Any]) -> float:
    cost = 0.0
    for place, counts in move["discard"].items():
        for kind, count in counts.items():
            value = values.get(kind, AMBER)
            cost += count * (value * LANDING if place == "hold" else value)
    return cost


__all__ = ["choose_move", "plan"]
