"""Set-up, whose move it is, the legal moves, applying a move, and the result."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engines.api import Chance, IllegalMove, Result, ScoreTable
from engines.mare_nostrum import build, setups, trade, war
from engines.mare_nostrum.data import (
    CIV_IDS,
)
from engines.mare_nostrum.flow import (
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
    civ_name,
    civ_of,
    controlled,
    draft,
    say,
    settled,
)
from engines.mare_nostrum.words import TITLE_WORDS, T

# --- Naming and titles -----------------------------------------------------------------


def choose_title_holder(state: State, seat: int, move: dict, chance: Chance) -> None:
    check = state["title_check"]
    title = check["left"][0]
    if move["title"] != title:
        raise IllegalMove(T("The title to hand on now is the %(title)s.", title=TITLE_WORDS[title]))
    if move["seat"] not in check["candidates"]:
        raise IllegalMove(T("Choose one of the tied challengers."))
    check["left"].pop(0)
    check.pop("candidates")
    hand_title(state, title, move["seat"])
    continue_titles(state)


def name_builder(state: State, seat: int, move: dict, chance: Chance) -> None:
    named = move["seat"]
    if named not in range(state["seats"]) or named in state["build"]["done"]:
        raise IllegalMove(T("Name a player who has not built yet this turn."))
    say(state, f"{civ_name(civ_of(state, seat))} names {civ_name(civ_of(state, named))} to build.")
    start_builder(state, named)


def name_warrior(state: State, seat: int, move: dict, chance: Chance) -> None:
    named = move["seat"]
    if named not in range(state["seats"]) or named in state["war"]["done"]:
        raise IllegalMove(T("Name a player who has not had a war turn yet this turn."))
    say(state, f"{civ_name(civ_of(state, seat))} names {civ_name(civ_of(state, named))} for war.")
    start_warrior(state, named)


Handler = Callable[[State, int, dict, Chance], None]


def _plain(handler: Callable[[State, int, dict], None]) -> Handler:
    """A handler that needs no chance, in the shape every handler has."""
    return lambda state, seat, move, chance: handler(state, seat, move)


HANDLERS = {
    "choose_civ": (setups.choose_civ, CHOOSE_CIV),
    "setup_build": (_plain(setups.setup_build), SETUP),
    "end_setup": (setups.end_setup, SETUP),
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
    "hold": (war.hold, WAR),
    "end_war": (war.end_war, WAR),
}

PHASE_WORDS = {
    CHOOSE_CIV: T("choosing civilisations"),
    SETUP: T("the set-up"),
    TITLE_CHOICE: T("a title choice"),
    ARTEMIS: T("the Temple of Artemis choice"),
    TRADE_NUMBER: T("the Navigator naming the number of cards to trade"),
    OFFER: T("the secret offers"),
    TAKE: T("the picking of offered cards"),
    COMPENSATE: T("the Navigator's compensation"),
    NAME_BUILDER: T("the Lawgiver naming the next builder"),
    BUILD: T("building"),
    KEEP: T("choosing the cards kept by the Mausoleum"),
    NAME_WARRIOR: T("the General naming the next player at war"),
    WAR: T("a war turn"),
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
        return setups.setup_moves(state, seat)
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
        raise IllegalMove(T("The game is over."))
    if isinstance(seat, bool) or seat not in to_move(state):
        raise IllegalMove(T("It is not your turn."))
    handler, phase = HANDLERS[move["type"]]
    if state["phase"] != phase:
        raise IllegalMove(
            T(
                "That move does not fit now: the game waits for %(phase)s.",
                phase=PHASE_WORDS[state["phase"]],
            )
        )
    after = draft(state)
    after["log"] = []
    handler(after, seat, move, chance)
    return settled(after)


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
    table = ScoreTable(
        (T("Civilisation"), T("Heroes and wonders"), T("Provinces")),
        tuple(
            (
                civ_name(breakdown[str(seat)]["civilisation"]),
                breakdown[str(seat)]["heroes_and_wonders"],
                breakdown[str(seat)]["provinces"],
            )
            for seat in seats
        ),
        deciding=1,
    )
    return Result(
        scores=tuple(great_cards(state, seat) for seat in seats),
        winners=tuple(state["winners"]),
        breakdown=breakdown,
        reason=ending_phrase(state["end_reason"]),
        table=table,
    )


def ending_phrase(end_reason: str) -> str:
    """Why the game ended, as :class:`Result` words it (no names): the state keeps the
    sentence the log showed, which names the civilisations."""
    if "Pyramids" in end_reason:
        return T("builds the Pyramids")
    if "four heroes and wonders" in end_reason:
        return T("owns four heroes and wonders")
    if "turn limit" in end_reason:
        turn = end_reason.split("after turn ", 1)[-1].split(":", 1)[0]
        return T(
            "the turn limit is reached after turn %(turn)s: most heroes and wonders, then "
            "most provinces",
            turn=turn,
        )
    return end_reason
