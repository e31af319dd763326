"""Setting up a game: civilisations, neutral powers, the printed starting set-up and the
experienced set-up bought with 36 build points (rules 'Powers and seats', 'Setup')."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.api import Chance, IllegalMove
from engines.mare_nostrum.build import check_place, item_name, place, targets, where_text
from engines.mare_nostrum.data import (
    CIV,
    CIV_IDS,
    COSTS,
    GREAT_CARDS,
    LAND_NEIGHBOURS,
    PIECES_PER_PLAYER,
    POOLS_BY_PLAYERS,
    RECOMMENDED_CIVS,
    TITLE_NAMES,
    TITLES,
    start_of,
)
from engines.mare_nostrum.flow import begin_phase
from engines.mare_nostrum.state import (
    CHOOSE_CIV,
    SETUP,
    State,
    capital_of,
    civ_name,
    civ_of,
    empty_hand,
    full_bank,
    new_board,
    rules_version,
    say,
)
from engines.mare_nostrum.titles import assign_at_setup
from engines.mare_nostrum.words import T

DEFAULT_OPTIONS: dict[str, Any] = {
    "civilisations": "recommended",
    "setup": "starting",
    "turn_limit": 0,
}
# Version 2: a turn limit of 40 unless the creator sets another (0 removes it).
DEFAULT_OPTIONS_V2: dict[str, Any] = {**DEFAULT_OPTIONS, "turn_limit": 40}
SETUP_POINTS = 36


def setup(seats: int, options: Mapping[str, Any], chance: Chance, version: int = 1) -> State:
    if not 3 <= seats <= 5:
        raise ValueError("Mare Nostrum is for 3 to 5 players.")
    defaults = DEFAULT_OPTIONS_V2 if version >= 2 else DEFAULT_OPTIONS
    chosen = {name: options.get(name, default) for name, default in defaults.items()}
    provinces, seas = new_board()
    state: State = {
        "seats": seats,
        "options": chosen,
        "civs": [None] * seats,
        "neutrals": [],
        "turn": 1,
        "phase": CHOOSE_CIV,
        "titles": {},
        "bank": full_bank(),
        "hands": [empty_hand() for _ in range(seats)],
        "cards": [[] for _ in range(seats)],
        "pool": dict(POOLS_BY_PLAYERS[seats]),
        "supply": {civ: dict(PIECES_PER_PLAYER) for civ in CIV_IDS},
        "provinces": provinces,
        "seas": seas,
        "placed": [],
        "title_check": None,
        "artemis": [],
        "trade": None,
        "build": None,
        "keeper": None,
        "war": None,
        "setup": None,
        "war_serial": 0,
        "winners": [],
        "end_reason": "",
        "log": [],
    }
    if version >= 2:
        state["rules_version"] = version
    how = chosen["civilisations"]
    if how == "choose":
        return state
    if how == "random":
        left = list(CIV_IDS)
        for seat in range(seats):
            state["civs"][seat] = left.pop(chance.below(len(left)))
    else:
        state["civs"] = list(RECOMMENDED_CIVS[seats])
    finish_setup(state, chance)
    return state


def choose_civ(state: State, seat: int, move: dict, chance: Chance) -> None:
    civ = move["civ"]
    if civ not in CIV:
        raise IllegalMove(T("There is no civilisation called %(name)s.", name=repr(civ)))
    if civ in state["civs"]:
        raise IllegalMove(
            T("%(civ)s is taken already: choose another civilisation.", civ=civ_name(civ))
        )
    state["civs"][seat] = civ
    say(state, f"Seat {seat + 1} plays {civ_name(civ)}.")
    if None not in state["civs"]:
        finish_setup(state, chance)


def place_neutral(state: State, civ: str) -> None:
    """Rules 'Powers and seats': marker, legion and fortress in the capital; marker and
    legion in each province sharing a land border with it."""
    capital = capital_of(civ)
    supply = state["supply"][civ]
    for pid in (capital, *LAND_NEIGHBOURS[capital]):
        province = state["provinces"][pid]
        if province["marker"] is not None:
            continue
        province["marker"] = civ
        province["legions"][civ] = 1
        supply["control_marker"] -= 1
        supply["legion"] -= 1
        if pid == capital:
            province["fortress"] = civ
            supply["fortress"] -= 1


def place_start(state: State, seat: int) -> None:
    """The printed starting set-up of the seat's civilisation (rules 'Setup')."""
    civ = civ_of(state, seat)
    start = start_of(rules_version(state), civ, state["seats"])
    provinces, supply, pool = state["provinces"], state["supply"][civ], state["pool"]
    for pid in start["provinces"]:
        provinces[pid]["marker"] = civ
        supply["control_marker"] -= 1
    for pid in start["fortresses"]:
        provinces[pid]["fortress"] = civ
        supply["fortress"] -= 1
    for kind, key in (("city", "cities"), ("caravan", "caravans")):
        for pid, site in start[key]:
            provinces[pid][key].append(site)
            pool[kind] -= 1
    for kind, key in (("temple", "temples"), ("market", "markets")):
        for pid, site in start[key]:
            provinces[pid][kind] = site
            pool[kind] -= 1
    for pid, n in start["legions"].items():
        provinces[pid]["legions"][civ] = n
        supply["legion"] -= n
    for sea, n in start["triremes"].items():
        state["seas"][sea][civ] = n
        supply["trireme"] -= n
    state["cards"][seat] = [CIV[civ]["hero"]]


def finish_setup(state: State, chance: Chance) -> None:
    state["neutrals"] = [civ for civ in CIV_IDS if civ not in state["civs"]]
    if state["options"]["setup"] == "experienced":
        for civ in state["neutrals"]:
            place_neutral(state, civ)
        for civ in state["civs"]:
            state["provinces"][capital_of(civ)]["marker"] = civ
            state["supply"][civ]["control_marker"] -= 1
        state["setup"] = {"seat": 0, "points": SETUP_POINTS}
        state["phase"] = SETUP
        return
    for seat in range(state["seats"]):
        place_start(state, seat)
    for civ in state["neutrals"]:
        place_neutral(state, civ)
    printed = {
        CIV[civ]["start_title"]: seat
        for seat, civ in enumerate(state["civs"])
        if CIV[civ]["start_title"]
    }
    assign_at_setup(state, chance, printed, exclusive=False)
    begin_phase(state, "trade")


def end_setup(state: State, seat: int, move: dict, chance: Chance) -> None:
    say(state, f"{civ_name(civ_of(state, seat))} ends the set-up.")
    if seat + 1 < state["seats"]:
        state["setup"] = {"seat": seat + 1, "points": SETUP_POINTS}
        return
    state["setup"] = None
    assign_at_setup(state, chance, {}, exclusive=True)
    for title in TITLES:
        holder = civ_name(civ_of(state, state["titles"][title]))
        say(state, f"{holder} is the {TITLE_NAMES[title]}.")
    begin_phase(state, "trade")


def setup_cost(item: str) -> int:
    if item in GREAT_CARDS:
        return COSTS["hero"]
    return COSTS[item]


def setup_build(state: State, seat: int, move: dict) -> None:
    civ = civ_of(state, seat)
    item = move["item"]
    check_place(state, civ, item, move, setup=True)
    price = setup_cost(item)
    points = state["setup"]["points"]
    if price > points:
        raise IllegalMove(
            T(
                "That costs %(price)d points and you have %(points)d left.",
                price=price,
                points=points,
            )
        )
    state["setup"]["points"] = points - price
    place(state, seat, item, move, setup=True)
    say(state, f"{civ_name(civ)} sets up a {item_name(item)}{where_text(move)}.")


def setup_moves(state: State, seat: int) -> list[dict]:
    points = state["setup"]["points"]
    moves = [
        {"type": "setup_build", **fields}
        for fields in targets(state, seat, setup=True)
        if setup_cost(fields["item"]) <= points
    ]
    moves.append({"type": "end_setup"})
    return moves
