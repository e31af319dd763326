"""Set-up, whose move it is, the legal moves, applying a move, and the result."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.api import Chance, IllegalMove, Result
from engines.mare_nostrum import build, trade, war
from engines.mare_nostrum.data import (
    CIV,
    CIV_IDS,
    LAND_NEIGHBOURS,
    PIECES_PER_PLAYER,
    POOLS_BY_PLAYERS,
    RECOMMENDED_CIVS,
    TITLE_NAMES,
    TITLES,
)
from engines.mare_nostrum.flow import (
    begin_phase,
    continue_titles,
    great_cards,
    hand_title,
    start_builder,
    start_warrior,
)
from engines.mare_nostrum.moves import parse
from engines.mare_nostrum.state import (
    ARTEMIS,
    BUILD,
    CHOOSE_CIV,
    COMPENSATE,
    KEEP,
    NAME_BUILDER,
    NAME_WARRIOR,
    OFFER,
    OVER,
    SETUP,
    TAKE,
    TITLE_CHOICE,
    TRADE_NUMBER,
    WAR,
    State,
    capital_of,
    civ_name,
    civ_of,
    clone,
    controlled,
    empty_hand,
    full_bank,
    new_board,
    say,
)
from engines.mare_nostrum.titles import assign_at_setup

DEFAULT_OPTIONS: dict[str, Any] = {
    "civilisations": "recommended",
    "setup": "starting",
    "turn_limit": 0,
}
SETUP_POINTS = 36


# --- Set-up ----------------------------------------------------------------------------


def setup(seats: int, options: Mapping[str, Any], chance: Chance) -> State:
    if not 3 <= seats <= 5:
        raise ValueError("Mare Nostrum is for 3 to 5 players.")
    chosen = {name: options.get(name, default) for name, default in DEFAULT_OPTIONS.items()}
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
        raise IllegalMove(f"There is no civilisation called {civ!r}.")
    if civ in state["civs"]:
        raise IllegalMove(f"{civ_name(civ)} is taken already: choose another civilisation.")
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
    start = CIV[civ]["start"]
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


# --- Naming and titles -----------------------------------------------------------------


def choose_title_holder(state: State, seat: int, move: dict, chance: Chance) -> None:
    check = state["title_check"]
    title = check["left"][0]
    if move["title"] != title:
        raise IllegalMove(f"The title to hand on now is the {TITLE_NAMES[title]}.")
    if move["seat"] not in check["candidates"]:
        raise IllegalMove("Choose one of the tied challengers.")
    check["left"].pop(0)
    check.pop("candidates")
    hand_title(state, title, move["seat"])
    continue_titles(state)


def name_builder(state: State, seat: int, move: dict, chance: Chance) -> None:
    named = move["seat"]
    if named not in range(state["seats"]) or named in state["build"]["done"]:
        raise IllegalMove("Name a player who has not built yet this turn.")
    say(state, f"{civ_name(civ_of(state, seat))} names {civ_name(civ_of(state, named))} to build.")
    start_builder(state, named)


def name_warrior(state: State, seat: int, move: dict, chance: Chance) -> None:
    named = move["seat"]
    if named not in range(state["seats"]) or named in state["war"]["done"]:
        raise IllegalMove("Name a player who has not had a war turn yet this turn.")
    say(state, f"{civ_name(civ_of(state, seat))} names {civ_name(civ_of(state, named))} for war.")
    start_warrior(state, named)


def _plain(handler):
    return lambda state, seat, move, chance: handler(state, seat, move)


HANDLERS = {
    "choose_civ": (choose_civ, CHOOSE_CIV),
    "setup_build": (_plain(build.setup_build), SETUP),
    "end_setup": (end_setup, SETUP),
    "choose_title_holder": (choose_title_holder, TITLE_CHOICE),
    "choose_good": (_plain(trade.choose_good), ARTEMIS),
    "set_trade": (_plain(trade.set_trade), TRADE_NUMBER),
    "offer": (_plain(trade.offer), OFFER),
    "take": (_plain(trade.take), TAKE),
    "compensate": (_plain(trade.compensate), COMPENSATE),
    "name_builder": (name_builder, NAME_BUILDER),
    "build": (_plain(build.build), BUILD),
    "exchange": (_plain(build.exchange), BUILD),
    "end_build": (_plain(build.end_build), BUILD),
    "keep": (_plain(build.keep), KEEP),
    "name_warrior": (name_warrior, NAME_WARRIOR),
    "launch": (war.launch, WAR),
    "move": (war.move_unit, WAR),
    "attack": (war.attack, WAR),
    "pillage": (war.pillage, WAR),
    "end_war": (war.end_war, WAR),
}

PHASE_WORDS = {
    CHOOSE_CIV: "choosing civilisations",
    SETUP: "the set-up",
    TITLE_CHOICE: "a title choice",
    ARTEMIS: "the Temple of Artemis choice",
    TRADE_NUMBER: "the Navigator naming the number of cards to trade",
    OFFER: "the secret offers",
    TAKE: "the picking of offered cards",
    COMPENSATE: "the Navigator's compensation",
    NAME_BUILDER: "the Lawgiver naming the next builder",
    BUILD: "building",
    KEEP: "choosing the cards kept by the Mausoleum",
    NAME_WARRIOR: "the General naming the next player at war",
    WAR: "a war turn",
}


# --- Protocol functions ----------------------------------------------------------------


def to_move(state: State) -> frozenset[int]:
    phase = state["phase"]
    if phase == OVER:
        return frozenset()
    if phase == CHOOSE_CIV:
        return frozenset({state["civs"].index(None)})
    if phase == SETUP:
        return frozenset({state["setup"]["seat"]})
    if phase == TITLE_CHOICE:
        return frozenset({state["titles"][state["title_check"]["left"][0]]})
    if phase == ARTEMIS:
        return frozenset({state["artemis"][0]})
    if phase in (TRADE_NUMBER, COMPENSATE):
        return frozenset({state["titles"]["navigator"]})
    if phase == OFFER:
        trade_state = state["trade"]
        return frozenset(s for s in trade_state["in"] if trade_state["offers"][s] is None)
    if phase == TAKE:
        return frozenset({state["trade"]["taker"]})
    if phase == NAME_BUILDER:
        return frozenset({state["titles"]["lawgiver"]})
    if phase == BUILD:
        return frozenset({state["build"]["current"]})
    if phase == KEEP:
        return frozenset({state["keeper"]})
    if phase == NAME_WARRIOR:
        return frozenset({state["titles"]["general"]})
    return frozenset({state["war"]["current"]})


def legal_moves(state: State, seat: int) -> list[dict]:
    if seat not in to_move(state):
        return []
    phase = state["phase"]
    if phase == CHOOSE_CIV:
        return [{"type": "choose_civ", "civ": civ} for civ in CIV_IDS if civ not in state["civs"]]
    if phase == SETUP:
        return build.setup_moves(state, seat)
    if phase == TITLE_CHOICE:
        check = state["title_check"]
        return [
            {"type": "choose_title_holder", "title": check["left"][0], "seat": s}
            for s in check["candidates"]
        ]
    if phase == ARTEMIS:
        return trade.artemis_moves(state)
    if phase in (TRADE_NUMBER, OFFER, TAKE, COMPENSATE):
        return trade.trade_moves(state, seat)
    if phase == NAME_BUILDER:
        done = state["build"]["done"]
        return [{"type": "name_builder", "seat": s} for s in range(state["seats"]) if s not in done]
    if phase == BUILD:
        return build.build_moves(state, seat)
    if phase == KEEP:
        return [
            {"type": "keep", "cards": cards} for cards in build.keep_options(state["hands"][seat])
        ]
    if phase == NAME_WARRIOR:
        done = state["war"]["done"]
        return [{"type": "name_warrior", "seat": s} for s in range(state["seats"]) if s not in done]
    return war.war_moves(state, seat)


def apply(state: State, seat: int, move: Mapping[str, Any], chance: Chance) -> State:
    move = parse(move)
    if state["phase"] == OVER:
        raise IllegalMove("The game is over.")
    if isinstance(seat, bool) or seat not in to_move(state):
        raise IllegalMove("It is not your turn.")
    handler, phase = HANDLERS[move["type"]]
    if state["phase"] != phase:
        raise IllegalMove(
            f"That move does not fit now: the game waits for {PHASE_WORDS[state['phase']]}."
        )
    after = clone(state)
    after["log"] = []
    handler(after, seat, move, chance)
    return after


def result(state: State) -> Result | None:
    if state["phase"] != OVER:
        return None
    seats = range(state["seats"])
    breakdown = {
        str(seat): {
            "civilisation": civ_of(state, seat),
            "heroes_and_wonders": great_cards(state, seat),
            "cards": list(state["cards"][seat]),
            "provinces": len(controlled(state, civ_of(state, seat))),
            "pyramids": "pyramids" in state["cards"][seat],
        }
        for seat in seats
    }
    return Result(
        scores=tuple(great_cards(state, seat) for seat in seats),
        winners=tuple(state["winners"]),
        breakdown=breakdown,
        reason=state["end_reason"],
    )
