"""What each viewer may see (``view``), readable history lines (``describe``) and short
move labels (``move_label``).

Views are built by adding what the viewer may know: the board, holds, warehouses, the
bag's counts, demand and contracts are public; which number token lies on which market
space, and a choice made during a passage of time, are shown to their owner only, until
the game ends (rules file, 'Hidden information').
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .data import (
    ACTIONS_PER_TURN,
    AREA_IDS,
    AREAS,
    BAG_KINDS,
    CAPACITY,
    CIRCLES,
    COLOURS,
    CONTRACT_BY_ID,
    CONTRACT_IDS,
    CONTRACTS,
    DEMAND_TOKENS,
    FISH,
    GOODS,
    HOLD_SIZE,
    NAMES,
    NEIGHBOURS,
    NUMBER_TOKENS,
    PORT_IDS,
    PORTS,
    TIME_TOKENS,
    TOKENS,
    VESSELS_BY_PLAYERS,
)
from .rules import to_move, unload_losses, unplayed
from .scoring import result
from .state import OVER, START, TIME, State, copy_json, counts_json


def colour(seat: int) -> str:
    return COLOURS[seat]


def named(seat: int) -> str:
    """A seat as history lines name it: a placeholder the server fills with the player's
    name and colour ("Ann (Red)")."""
    return f"{{seat:{seat}}}"


def listing(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def phase_text(state: State) -> str:
    """The phase line; the player to act as a placeholder (see :func:`named`), which the
    server fills with their name and colour ("Round 2 — Ann (Red), action 1 of 2")."""
    if state.phase == OVER:
        return "Game over"
    if state.phase == START:
        return f"Starting ports — {named(state.order[state.turn])} chooses"
    if state.phase == TIME:
        return f"Passage of time {state.time_track} of {TIME_TOKENS - 1} — production"
    who = named(state.order[state.turn])
    action = f"action {state.actions + 1} of {ACTIONS_PER_TURN}"
    if state.final_turns is not None:
        return f"Final turns ({state.final_turns} left) — {who}, {action}"
    return f"Round {state.round} — {who}, {action}"


def score_line(state: State, seat: int | None) -> list[int] | None:
    """The view's ``scores`` (the final ones, once the game is over), without building
    the rest of the view."""
    if state.phase != OVER:
        return None
    outcome = result(state)
    return list(outcome.scores) if outcome is not None else None


def turn_line(state: State) -> tuple[str, str]:
    """The round and the phase the history groups events by ("Round 2", "{seat:1}" for
    that player's actions): the starting ports and the final turns are rounds of their
    own, a passage of time a phase of the round it ends."""
    if state.phase == OVER:
        return "Game over", ""
    if state.phase == START:
        return "Starting ports", ""
    if state.phase == TIME:
        return f"Round {state.round}", f"Passage of time {state.time_track}"
    if state.final_turns is not None:
        return "Final turns", named(state.order[state.turn])
    return f"Round {state.round}", named(state.order[state.turn])


def phase_line(state: State) -> tuple[str, list[str]]:
    """The public view's ``phase`` and each seat's mark (its ``colour``), without the rest
    of the view: what the server's phase line and history lines need after every move."""
    return phase_text(state), [colour(seat) for seat in range(state.seats)]


def contract_text(contract: str) -> str:
    needs = CONTRACT_BY_ID[contract]["needs"]
    parts = [kind if n == 1 else f"{n} {kind}" for kind, n in needs.items()]
    return " + ".join(parts)


def view(state: State, seat: int | None) -> dict:
    finished = state.phase == OVER
    players = []
    for other in range(state.seats):
        player: dict[str, Any] = {
            "seat": other,
            "colour": colour(other),
            "position": state.order.index(other),
            "fleet": list(state.fleets[other]),
            "vessels_off_board": state.vessels - len(state.fleets[other]),
            "hold": counts_json(state.holds[other], FISH),
            "hold_count": sum(state.holds[other]),
            "warehouse": counts_json(state.warehouses[other], GOODS),
            "warehouse_count": sum(state.warehouses[other]),
            "played": [token for token in state.played[other]],
            "unplayed": list(unplayed(state, other)),
            "face_down": sum(1 for token in state.markets[other] if token is not None),
            "contract": state.contracts[other],
        }
        if state.phase == TIME:
            player["chosen"] = state.pending[other] is not None
        if state.rules_version >= 2:
            # Version 2, as at the table: everyone sees which market spaces hold a
            # face-down token, and no one else sees which number token went where (nor,
            # so, which numbers are left: the face-down tokens look alike).
            player["covered"] = [
                kind
                for kind, token in zip(FISH, state.markets[other], strict=True)
                if token is not None
            ]
            if not (finished or other == seat):
                player["played"] = [_masked(token) for token in state.played[other]]
                player["unplayed"] = [_masked(token) for token in unplayed(state, other)]
        if finished or other == seat:
            player["market"] = dict(zip(FISH, state.markets[other], strict=True))
        players.append(player)
    data: dict[str, Any] = {
        "game": "mare_balticum",
        "seat": seat,
        "to_move": sorted(to_move(state)),
        "phase": phase_text(state),
        "stage": state.phase,
        "round": state.round,
        "players": players,
        "finished": finished,
        "options": dict(state.options),
        "order": list(state.order),
        "current": None if state.phase in (TIME, OVER) else state.order[state.turn],
        "actions_left": ACTIONS_PER_TURN - state.actions if state.phase != TIME else 0,
        "vessels_per_player": state.vessels,
        "goods": {area: list(state.goods[area]) for area in AREA_IDS},
        "demand": {port: list(state.demand[port]) for port in PORT_IDS},
        "circles": {port: list(CIRCLES[port]) for port in PORT_IDS},
        "bag": {kind: state.bag[i] for i, kind in enumerate(BAG_KINDS)},
        "bag_count": sum(state.bag),
        "removed": counts_json(state.removed, GOODS),
        "time_track": state.time_track,
        "time_tokens": TIME_TOKENS,
        "final_turns": state.final_turns,
    }
    if state.options.get("trade_contracts"):
        held = set(state.contracts)
        data["contracts"] = [
            {"id": contract, "text": contract_text(contract), "held": contract in held}
            for contract in CONTRACT_IDS
        ]
    if seat is not None and state.phase == TIME and state.pending[seat] is not None:
        data["my_choice"] = copy_json(state.pending[seat])
    if finished:
        outcome = result(state)
        assert outcome is not None
        data["result"] = outcome.to_json()
        data["scores"] = list(outcome.scores)
    return data


# --------------------------------------------------------------------------- labels
def _fish_list(counts: Mapping[str, int]) -> str:
    parts = [f"{count} {kind}" for kind, count in counts.items()]
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def unload_preview(move: Mapping[str, Any], view: Mapping[str, Any]) -> str:
    """What a -1 circle will take from this unloading (rules 'Module 1'), by the rules'
    own ``unload_losses`` over the port's demand as the move leaves it; "" if nothing."""
    port = move["port"]
    shown = list(view["demand"][port])
    for fish, circle in move.get("demand", {}).items():
        shown[circle] = fish
    lost = unload_losses(view["options"].get("demand_management", False), port, shown, move["fish"])
    if not lost:
        return ""
    total = sum(move["fish"].values())
    placed = any(move["fish"] and kind in move.get("demand", {}) for kind in lost)
    return f": {total - len(lost)} to the warehouse, {len(lost)} lost" + (
        "" if placed else " (-1 circle)"
    )


def move_label(move: Mapping[str, Any], view: Mapping[str, Any] | None = None) -> str:
    """A legal move's label; with the mover's view, an unloading that a -1 circle cuts
    says so ("Unload 2 cod at Stockholm: 1 to the warehouse, 1 lost to the -1 circle")."""
    label = base_label(move)
    if view is not None and move.get("type") == "unload":
        label += unload_preview(move, view)
    return label


def base_label(move: Mapping[str, Any]) -> str:
    kind = move.get("type")
    if kind == "place_start":
        return f"Start in {NAMES[move['port']]}"
    if kind == "sail":
        if "from" in move:
            return f"Sail from {NAMES[move['from']]} to {NAMES[move['to']]}"
        return f"Put a new vessel out to {NAMES[move['to']]}"
    if kind == "fish":
        return f"Fish {move['kind']} in {NAMES[move['area']]}"
    if kind == "unload":
        label = f"Unload {_fish_list(move['fish'])} at {NAMES[move['port']]}"
        placed = [
            f"{fish} on the {CIRCLES[move['port']][circle]} circle"
            for fish, circle in move.get("demand", {}).items()
        ]
        return label + (f" (demand: {', '.join(placed)})" if placed else "")
    if kind == "take_contract":
        return f"Take contract {move['contract']} ({contract_text(move['contract'])})"
    if kind == "overboard":
        return f"Throw {move['count']} {move['kind']} overboard"
    if kind == "end_turn":
        return "End the turn"
    if kind == "produce":
        if move["token"] == "tax":
            discard = move["discard"]
            paid = [
                f"{_fish_list(discard[place])} from the {place}"
                for place in ("hold", "warehouse")
                if place in discard
            ]
            return "Pay the tax, discarding " + (
                " and ".join(paid) if paid else "nothing (no goods)"
            )
        return f"Play x{move['token']} on {move['kind']}"
    return str(kind)


# --------------------------------------------------------------------------- describe
def describe(
    before: State, seat: int, move: Mapping[str, Any], after: State, viewer: int | None
) -> list[str]:
    lines: list[str] = []
    refills: list[tuple[str, list[str]]] = []

    def flush() -> None:
        for area, kinds in refills:
            # a deep area draws two: "gets 2 amber", not "gets amber and amber"
            same = len(kinds) == 2 and kinds[0] == kinds[1]
            drawn = f"2 {kinds[0]}" if same else " and ".join(kinds)
            lines.append(f"Refill: {NAMES[area]} gets {drawn}.")
        refills.clear()

    for event in after.events:
        what = event["type"]
        who = named(event["seat"]) if "seat" in event else ""
        if what == "refill":
            if refills and refills[-1][0] == event["area"]:
                refills[-1][1].append(event["kind"])
            else:
                refills.append((event["area"], [event["kind"]]))
            continue
        flush()
        if what == "place_start":
            lines.append(f"{who} starts in {NAMES[event['port']]}.")
        elif what == "launch":
            lines.append(f"{who} puts a new vessel out to {NAMES[event['to']]}.")
        elif what == "sail":
            lines.append(f"{who} sails from {NAMES[event['from']]} to {NAMES[event['to']]}.")
        elif what == "fish":
            where = "warehouse" if event["kind"] == "amber" else "hold"
            lines.append(
                f"{who} fishes {event['kind']} in {NAMES[event['area']]} (to the {where})."
            )
        elif what == "unload":
            lines += _unload_lines(who, event)
        elif what == "take_contract":
            line = f"{who} takes contract {event['contract']} ({contract_text(event['contract'])})"
            if event["returned"]:
                line += f", returning {event['returned']}"
            lines.append(line + ".")
        elif what == "overboard":
            lines.append(f"{who} throws {event['count']} {event['kind']} overboard.")
        elif what == "turn_ended":
            lines.append(f"{who} ends their turn.")
        elif what == "time":
            lines.append(
                f"A passage of time token is drawn ({event['number']} of {TIME_TOKENS})"
                f" while refilling {NAMES[event['area']]}."
            )
            if event["number"] < TIME_TOKENS:
                lines.append("Every player now plays a production token in secret.")
        elif what == "final_turns":
            lines.append(f"Winter is coming: {event['turns']} more turns, then the game ends.")
        elif what == "bag_empty":
            lines.append("The bag is empty: the refill stops.")
        elif what == "chosen":
            if viewer == event["seat"]:
                lines.append(f"You play {_choice_text(move)}.")
            else:
                lines.append(f"{who} has chosen a production token.")
        elif what == "production":
            lines += _production_lines(event, viewer, after.rules_version)
        elif what == "game_over":
            lines += _game_over_lines(after)
    flush()
    return lines


def _masked(token: int | str) -> str:
    return "tax" if token == "tax" else "number"


def _choice_text(move: Mapping[str, Any]) -> str:
    if move["token"] == "tax":
        return "the tax token" + base_label(move).removeprefix("Pay the tax")
    return f"x{move['token']} face down on your {move['kind']} market space"


def _unload_lines(who: str, event: Mapping[str, Any]) -> list[str]:
    port = NAMES[event["port"]]
    lines = [f"{who} unloads {_fish_list(event['fish'])} at {port}."]
    for kind, circle in event["demand"].items():
        lines.append(
            f"{port} now buys {kind} (demand token on its {CIRCLES[event['port']][circle]} circle)."
        )
    for kind in event["lost"]:
        lines.append(f"One {kind} is lost to the -1 circle.")
    return lines


def _production_lines(event: Mapping[str, Any], viewer: int | None, version: int = 1) -> list[str]:
    if version >= 2:
        # Rules 'Passage of time': a tax is played face up, a number token face down.
        lines = [
            f"Passage of time {event['number']}: every player has played a production token"
            " (a tax face up, a number token face down until the game ends)."
        ]
    else:  # version 1 shows each number token played, not where it lies
        lines = [f"Passage of time {event['number']}: the production tokens are revealed."]
    for choice in event["choices"]:
        name = named(choice["seat"])
        if choice["token"] == "tax":
            paid = [
                f"{_fish_list(choice['discard'][place])} from the {place}"
                for place in ("hold", "warehouse")
                if place in choice["discard"]
            ]
            text = " and ".join(paid) if paid else "nothing (no goods)"
            lines.append(f"{name} pays the tax, discarding {text}.")
        elif choice["seat"] == viewer:
            lines.append(f"You placed x{choice['token']} on your {choice['kind']} market space.")
        elif version >= 2:
            lines.append(
                f"{name} places a number token face down on their {choice['kind']} market space."
            )
        else:
            lines.append(f"{name} places x{choice['token']} face down on a market space.")
    return lines


def _game_over_lines(state: State) -> list[str]:
    outcome = result(state)
    assert outcome is not None
    lines = ["The sea freezes over: the game is over."]
    for detail in outcome.breakdown["seats"]:
        total = detail["total"]
        line = f"{named(detail['seat'])}: {total} point{'' if total == 1 else 's'}"
        if detail["contract_sets"]:
            line += f" ({detail['contract_sets']} contract sets for {detail['contract_points']})"
        lines.append(line + ".")
    names = listing([named(seat) for seat in outcome.winners])
    lines.append(f"{names} {'win' if len(outcome.winners) > 1 else 'wins'}.")
    return lines


# --------------------------------------------------------------------------- reference
def rules_reference() -> dict:
    """The game's numbers for the rules reference page, straight from the board data."""
    return {
        "players": [min(VESSELS_BY_PLAYERS), max(VESSELS_BY_PLAYERS)],
        "vessels": [
            {"players": players, "vessels": count}
            for players, count in sorted(VESSELS_BY_PLAYERS.items())
        ],
        "goods": [
            {"kind": kind, "tokens": TOKENS[kind], "demand_tokens": DEMAND_TOKENS.get(kind, 0)}
            for kind in GOODS
        ],
        "fish": list(FISH),
        "time_tokens": TIME_TOKENS,
        "number_tokens": list(NUMBER_TOKENS),
        "hold_size": HOLD_SIZE,
        "actions": ACTIONS_PER_TURN,
        "ports": [
            {
                "id": port["id"],
                "name": port["name"],
                "circles": list(port["circles"]),
                "neighbours": [NAMES[near] for near in NEIGHBOURS[port["id"]]],
            }
            for port in PORTS
        ],
        "areas": [
            {
                "id": area["id"],
                "name": area["name"],
                "depth": area["depth"],
                "tokens": CAPACITY[area["id"]],
                "neighbours": [NAMES[near] for near in NEIGHBOURS[area["id"]]],
            }
            for area in AREAS
        ],
        "contracts": [
            {
                "id": contract["id"],
                "needs": dict(contract["needs"]),
                "size": sum(contract["needs"].values()),
                "text": contract_text(contract["id"]),
                "points": contract["points"],
            }
            for contract in CONTRACTS
        ],
    }


# The section of the rules reference (templates/rules.html) that explains each kind of
# move, for the link beside the kind's moves on the turn page.
RULE_SECTIONS = {
    "place_start": "start",
    "sail": "sail",
    "fish": "fish",
    "unload": "unload",
    "take_contract": "contracts",
    "overboard": "overboard",
    "end_turn": "end-turn",
    "produce": "markets",
}


KIND_NAMES = {
    "place_start": "Choose a starting port",
    "sail": "Sail",
    "fish": "Fish",
    "unload": "Unload",
    "take_contract": "Take a contract",
    "overboard": "Throw fish overboard",
    "end_turn": "End the turn",
    "produce": "Produce",
}


def kind_name(kind: str) -> str | None:
    """What a player calls moves of ``kind`` (a group's heading on the turn page)."""
    return KIND_NAMES.get(kind)


def rule_anchor(kind: str) -> str | None:
    """The id of the rules reference's section that explains moves of ``kind``."""
    return RULE_SECTIONS.get(kind)
