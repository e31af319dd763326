"""What each viewer may see (``view``), readable history lines (``describe``) and short
move labels (``move_label``).

Views are built by adding what the viewer may know: the board, holds, warehouses, the
bag's counts, demand and contracts are public; which number token lies on which market
space, and a choice made during a passage of time, are shown to their owner only, until
the game ends (rules file, 'Hidden information').
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
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
from .words import AND, COLOUR_WORDS, T, Tn, count_of, fish_list, good, joined
from .words import PLACE_NAMES as NAMES
from .words import listing as _listing


def colour(seat: int) -> str:
    return COLOUR_WORDS[COLOURS[seat]]


def named(seat: int) -> str:
    """A seat as history lines name it: a placeholder the server fills with the player's
    name and colour ("Ann (Red)")."""
    return f"{{seat:{seat}}}"


def listing(words: list[str]) -> str:
    return _listing(words)


def phase_text(state: State) -> str:
    """The phase line; the player to act as a placeholder (see :func:`named`), which the
    server fills with their name and colour ("Round 2 — Ann (Red), action 1 of 2")."""
    if state.phase == OVER:
        return T("Game over")
    if state.phase == START:
        return T("Starting ports — %(who)s chooses", who=named(state.order[state.turn]))
    if state.phase == TIME:
        return T(
            "Passage of time %(number)s of %(total)s — production",
            number=state.time_track,
            total=TIME_TOKENS - 1,
        )
    who = named(state.order[state.turn])
    action, actions = state.actions + 1, ACTIONS_PER_TURN
    if state.final_turns is not None:
        return Tn(
            "Final turns (%(num)d left) — %(who)s, action %(action)s of %(actions)s",
            "Final turns (%(num)d left) — %(who)s, action %(action)s of %(actions)s",
            state.final_turns,
            who=who,
            action=action,
            actions=actions,
        )
    return T(
        "Round %(round)s — %(who)s, action %(action)s of %(actions)s",
        round=state.round,
        who=who,
        action=action,
        actions=actions,
    )


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
        return T("Game over"), ""
    if state.phase == START:
        return T("Starting ports"), ""
    if state.phase == TIME:
        return T("Round %(round)s", round=state.round), T(
            "Passage of time %(number)s", number=state.time_track
        )
    if state.final_turns is not None:
        return T("Final turns"), named(state.order[state.turn])
    return T("Round %(round)s", round=state.round), named(state.order[state.turn])


def phase_line(state: State) -> tuple[str, list[str]]:
    """The public view's ``phase`` and each seat's mark (its ``colour``), without the rest
    of the view: what the server's phase line and history lines need after every move."""
    return phase_text(state), [colour(seat) for seat in range(state.seats)]


@cache
def contract_text(contract: str) -> str:
    """What a contract asks for ("salmon + herring + 2 amber"); built once per contract
    (every view with trade contracts lists all six)."""
    needs = CONTRACT_BY_ID[contract]["needs"]
    parts = [good(kind) if n == 1 else count_of(kind, n) for kind, n in needs.items()]
    return joined(parts, " + ")


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
    return fish_list(counts)


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
    if placed:
        return T(
            ": %(kept)s to the warehouse, %(lost)s lost", kept=total - len(lost), lost=len(lost)
        )
    return T(
        ": %(kept)s to the warehouse, %(lost)s lost (-1 circle)",
        kept=total - len(lost),
        lost=len(lost),
    )


def move_label(move: Mapping[str, Any], view: Mapping[str, Any] | None = None) -> str:
    """A legal move's label; with the mover's view, an unloading that a -1 circle cuts
    says so ("Unload 2 cod at Stockholm: 1 to the warehouse, 1 lost to the -1 circle")."""
    label = base_label(move)
    if view is not None and move.get("type") == "unload":
        preview = unload_preview(move, view)
        if preview:
            return T("%(label)s%(preview)s", label=label, preview=preview)
    return label


def base_label(move: Mapping[str, Any]) -> str:
    kind = move.get("type")
    if kind == "place_start":
        return T("Start in %(port)s", port=NAMES[move["port"]])
    if kind == "sail":
        if "from" in move:
            return T(
                "Sail from %(start)s to %(end)s", start=NAMES[move["from"]], end=NAMES[move["to"]]
            )
        return T("Put a new vessel out to %(place)s", place=NAMES[move["to"]])
    if kind == "fish":
        return T("Fish %(kind)s in %(area)s", kind=good(move["kind"]), area=NAMES[move["area"]])
    if kind == "unload":
        fish, port = fish_list(move["fish"]), NAMES[move["port"]]
        placed = [
            T(
                "%(kind)s on the %(circle)s circle",
                kind=good(kind),
                circle=CIRCLES[move["port"]][circle],
            )
            for kind, circle in move.get("demand", {}).items()
        ]
        if placed:
            return T(
                "Unload %(fish)s at %(port)s (demand: %(demand)s)",
                fish=fish,
                port=port,
                demand=joined(placed, ", "),
            )
        return T("Unload %(fish)s at %(port)s", fish=fish, port=port)
    if kind == "take_contract":
        return T(
            "Take contract %(contract)s (%(needs)s)",
            contract=move["contract"],
            needs=contract_text(move["contract"]),
        )
    if kind == "overboard":
        return T("Throw %(fish)s overboard", fish=count_of(move["kind"], move["count"]))
    if kind == "end_turn":
        return T("End the turn")
    if kind == "produce":
        if move["token"] == "tax":
            paid = _paid(move["discard"])
            if paid:
                return T("Pay the tax, discarding %(goods)s", goods=paid)
            return T("Pay the tax, discarding nothing (no goods)")
        return T("Play x%(token)s on %(kind)s", token=move["token"], kind=good(move["kind"]))
    return str(kind)


def _paid(discard: Mapping[str, Mapping[str, int]]):
    """The goods a tax discards, by place ("2 cod from the hold and 1 amber from the
    warehouse"); an empty string when it discards nothing."""
    paid = []
    if "hold" in discard:
        paid.append(T("%(goods)s from the hold", goods=fish_list(discard["hold"])))
    if "warehouse" in discard:
        paid.append(T("%(goods)s from the warehouse", goods=fish_list(discard["warehouse"])))
    return joined(paid, AND, AND) if paid else ""


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
            drawn = count_of(kinds[0], 2) if same else joined([good(k) for k in kinds], AND, AND)
            lines.append(T("Refill: %(area)s gets %(goods)s.", area=NAMES[area], goods=drawn))
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
            lines.append(T("%(who)s starts in %(port)s.", who=who, port=NAMES[event["port"]]))
        elif what == "launch":
            lines.append(
                T("%(who)s puts a new vessel out to %(place)s.", who=who, place=NAMES[event["to"]])
            )
        elif what == "sail":
            lines.append(
                T(
                    "%(who)s sails from %(start)s to %(end)s.",
                    who=who,
                    start=NAMES[event["from"]],
                    end=NAMES[event["to"]],
                )
            )
        elif what == "fish":
            kind, area = good(event["kind"]), NAMES[event["area"]]
            if event["kind"] == "amber":
                line = T(
                    "%(who)s fishes %(kind)s in %(area)s (to the warehouse).",
                    who=who,
                    kind=kind,
                    area=area,
                )
            else:
                line = T(
                    "%(who)s fishes %(kind)s in %(area)s (to the hold).",
                    who=who,
                    kind=kind,
                    area=area,
                )
            lines.append(line)
        elif what == "unload":
            lines += _unload_lines(who, event)
        elif what == "take_contract":
            contract, needs = event["contract"], contract_text(event["contract"])
            if event["returned"]:
                line = T(
                    "%(who)s takes contract %(contract)s (%(needs)s), returning %(returned)s.",
                    who=who,
                    contract=contract,
                    needs=needs,
                    returned=event["returned"],
                )
            else:
                line = T(
                    "%(who)s takes contract %(contract)s (%(needs)s).",
                    who=who,
                    contract=contract,
                    needs=needs,
                )
            lines.append(line)
        elif what == "overboard":
            lines.append(
                T(
                    "%(who)s throws %(fish)s overboard.",
                    who=who,
                    fish=count_of(event["kind"], event["count"]),
                )
            )
        elif what == "turn_ended":
            lines.append(T("%(who)s ends their turn.", who=who))
        elif what == "time":
            lines.append(
                T(
                    "A passage of time token is drawn (%(number)s of %(total)s)"
                    " while refilling %(area)s.",
                    number=event["number"],
                    total=TIME_TOKENS,
                    area=NAMES[event["area"]],
                )
            )
            if event["number"] < TIME_TOKENS:
                lines.append(T("Every player now plays a production token in secret."))
        elif what == "final_turns":
            lines.append(
                Tn(
                    "Winter is coming: %(num)d more turns, then the game ends.",
                    "Winter is coming: %(num)d more turns, then the game ends.",
                    event["turns"],
                )
            )
        elif what == "bag_empty":
            lines.append(T("The bag is empty: the refill stops."))
        elif what == "chosen":
            if viewer == event["seat"]:
                lines.append(_choice_text(move))
            else:
                lines.append(T("%(who)s has chosen a production token.", who=who))
        elif what == "production":
            lines += _production_lines(event, viewer, after.rules_version)
        elif what == "game_over":
            lines += _game_over_lines(after)
    flush()
    return lines


def _masked(token: int | str) -> str:
    return "tax" if token == "tax" else "number"


def _choice_text(move: Mapping[str, Any]) -> str:
    """The viewer's own production choice, as a sentence ("You play ...")."""
    if move["token"] == "tax":
        paid = _paid(move["discard"])
        if paid:
            return T("You play the tax token, discarding %(goods)s.", goods=paid)
        return T("You play the tax token, discarding nothing (no goods).")
    return T(
        "You play x%(token)s face down on your %(kind)s market space.",
        token=move["token"],
        kind=good(move["kind"]),
    )


def _unload_lines(who: str, event: Mapping[str, Any]) -> list[str]:
    port = NAMES[event["port"]]
    lines = [
        T(
            "%(who)s unloads %(fish)s at %(port)s.",
            who=who,
            fish=fish_list(event["fish"]),
            port=port,
        )
    ]
    for kind, circle in event["demand"].items():
        lines.append(
            T(
                "%(port)s now buys %(kind)s (demand token on its %(circle)s circle).",
                port=port,
                kind=good(kind),
                circle=CIRCLES[event["port"]][circle],
            )
        )
    for kind in event["lost"]:
        lines.append(T("One %(kind)s is lost to the -1 circle.", kind=good(kind)))
    return lines


def _production_lines(event: Mapping[str, Any], viewer: int | None, version: int = 1) -> list[str]:
    if version >= 2:
        # Rules 'Passage of time': a tax is played face up, a number token face down.
        lines = [
            T(
                "Passage of time %(number)s: every player has played a production token"
                " (a tax face up, a number token face down until the game ends).",
                number=event["number"],
            )
        ]
    else:  # version 1 shows each number token played, not where it lies
        lines = [
            T(
                "Passage of time %(number)s: the production tokens are revealed.",
                number=event["number"],
            )
        ]
    for choice in event["choices"]:
        name = named(choice["seat"])
        if choice["token"] == "tax":
            paid = _paid(choice["discard"])
            if paid:
                line = T("%(who)s pays the tax, discarding %(goods)s.", who=name, goods=paid)
            else:
                line = T("%(who)s pays the tax, discarding nothing (no goods).", who=name)
            lines.append(line)
        elif choice["seat"] == viewer:
            lines.append(
                T(
                    "You placed x%(token)s on your %(kind)s market space.",
                    token=choice["token"],
                    kind=good(choice["kind"]),
                )
            )
        elif version >= 2:
            lines.append(
                T(
                    "%(who)s places a number token face down on their %(kind)s market space.",
                    who=name,
                    kind=good(choice["kind"]),
                )
            )
        else:
            lines.append(
                T(
                    "%(who)s places x%(token)s face down on a market space.",
                    who=name,
                    token=choice["token"],
                )
            )
    return lines


def _game_over_lines(state: State) -> list[str]:
    outcome = result(state)
    assert outcome is not None
    lines = [T("The sea freezes over: the game is over.")]
    for detail in outcome.breakdown["seats"]:
        total, who = detail["total"], named(detail["seat"])
        if detail["contract_sets"]:
            line = Tn(
                "%(who)s: %(num)d point (%(sets)s for %(points)s).",
                "%(who)s: %(num)d points (%(sets)s for %(points)s).",
                total,
                who=who,
                sets=Tn(
                    "%(num)d contract sets",
                    "%(num)d contract sets",
                    detail["contract_sets"],
                ),
                points=detail["contract_points"],
            )
        else:
            line = Tn("%(who)s: %(num)d point.", "%(who)s: %(num)d points.", total, who=who)
        lines.append(line)
    names = listing([named(seat) for seat in outcome.winners])
    if len(outcome.winners) > 1:
        lines.append(T("%(who)s win.", who=names))
    else:
        lines.append(T("%(who)s wins.", who=names))
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
                "name": NAMES[port["id"]],
                "circles": list(port["circles"]),
                "neighbours": [NAMES[near] for near in NEIGHBOURS[port["id"]]],
            }
            for port in PORTS
        ],
        "areas": [
            {
                "id": area["id"],
                "name": NAMES[area["id"]],
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
    "place_start": T("Choose a starting port"),
    "sail": T("Sail"),
    "fish": T("Fish"),
    "unload": T("Unload"),
    "take_contract": T("Take a contract"),
    "overboard": T("Throw fish overboard"),
    "end_turn": T("End the turn"),
    "produce": T("Produce"),
}


def kind_name(kind: str) -> str | None:
    """What a player calls moves of ``kind`` (a group's heading on the turn page)."""
    return KIND_NAMES.get(kind)


def rule_anchor(kind: str) -> str | None:
    """The id of the rules reference's section that explains moves of ``kind``."""
    return RULE_SECTIONS.get(kind)
