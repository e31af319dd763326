"""The Mare Nostrum game state: one JSON-shaped dict, copied (never changed) by each move.

The state is plain data (dicts, lists, str, int, bool, None) so that ``dump`` is a copy
and ``load`` a copy back. Each ``apply`` works on a fresh copy made by :func:`clone`.

Top-level keys::

    seats, options, civs (civ id per seat), neutrals (civ ids), turn, phase,
    titles {title: seat}, bank {kind: n}, hands [{kind: n}], cards [[hero/wonder ids]],
    pool {building: n}, supply {civ: {piece: n}}, provinces {id: Province},
    seas {id: {civ: n}}, rules_version (only from version 2 on: a version-1 state has no
    such key and plays the original rules), placed [province ids marked this turn], war_serial (counts war
    turns, for assimilation), winners, end_reason, log [[text, audience]] (this move's
    history lines; audience None is everyone);
    the detail of the current step: title_check, setup, artemis, trade, build, keeper, war

A province is ``{"marker", "cities", "temple", "caravans", "market", "fortress",
"legions" {civ: n}, "dock" {civ: n}, "occupier", "occupied_at"}``: ``cities`` lists
the built city sites by name, ``caravans`` the built resource sites by goods id,
``temple``/``market`` the site they stand on.
"""

from __future__ import annotations

import marshal
from typing import Any

from engines.mare_nostrum.data import (
    CAPITALS,
    CARD_KINDS,
    CIV,
    COINS,
    GOODS,
    PROVINCE_IDS,
    SEA_IDS,
)

State = dict[str, Any]

# Phases (the value of state["phase"]).
CHOOSE_CIV = "choose_civ"
SETUP = "setup"
TITLE_CHOICE = "title_choice"
ARTEMIS = "artemis"
TRADE_NUMBER = "trade_number"
OFFER = "offer"
TAKE = "take"
COMPENSATE = "compensate"
NAME_BUILDER = "name_builder"
BUILD = "build"
KEEP = "keep"
NAME_WARRIOR = "name_warrior"
WAR = "war"
OVER = "over"


def clone(state: State) -> State:
    """A deep copy of the plain-data state (marshal is the fastest exact copy)."""
    return marshal.loads(marshal.dumps(state))


def empty_hand() -> dict[str, int]:
    return {kind: 0 for kind in CARD_KINDS}


def full_bank() -> dict[str, int]:
    return {"coin": COINS, **GOODS}


def new_province() -> dict[str, Any]:
    return {
        "marker": None,
        "cities": [],
        "temple": None,
        "caravans": [],
        "market": None,
        "fortress": None,
        "legions": {},
        "dock": {},
        "occupier": None,
        "occupied_at": 0,
    }


def new_board() -> tuple[dict[str, Any], dict[str, Any]]:
    return {pid: new_province() for pid in PROVINCE_IDS}, {sid: {} for sid in SEA_IDS}


def add(counter: dict[str, int], key: str, amount: int) -> None:
    """Adds to a sparse counter, dropping a key that reaches zero."""
    value = counter.get(key, 0) + amount
    if value:
        counter[key] = value
    else:
        counter.pop(key, None)


def rules_version(state: State) -> int:
    """The version of the rules the game plays; a version-1 state has no such key."""
    return state.get("rules_version", 1)


def hand_size(hand: dict[str, int]) -> int:
    return sum(hand.values())


def players(state: State) -> range:
    return range(state["seats"])


def civ_of(state: State, seat: int) -> str:
    return state["civs"][seat]


def seat_of(state: State, civ: str) -> int | None:
    """The seat playing ``civ``, or None for a neutral power."""
    civs = state["civs"]
    return civs.index(civ) if civ in civs else None


def owns_card(state: State, civ: str, card: str) -> bool:
    seat = seat_of(state, civ)
    return seat is not None and card in state["cards"][seat]


def civ_name(civ: str) -> str:
    return CIV[civ]["name"]


def capital_of(civ: str) -> str:
    return CIV[civ]["capital"]


def is_capital(pid: str) -> bool:
    return pid in CAPITALS


def controlled(state: State, civ: str) -> list[str]:
    """The provinces holding ``civ``'s control marker, in map order."""
    provinces = state["provinces"]
    return [pid for pid in PROVINCE_IDS if provinces[pid]["marker"] == civ]


def military_powers(state: State, space: str) -> list[str]:
    """The powers with military units in a province (legions, fortress) or a sea (triremes)."""
    if space in state["seas"]:
        return sorted(civ for civ, n in state["seas"][space].items() if n)
    province = state["provinces"][space]
    powers = {civ for civ, n in province["legions"].items() if n}
    if province["fortress"]:
        powers.add(province["fortress"])
    return sorted(powers)


def at_war(state: State, space: str) -> bool:
    """A space holding military units of two or more powers is at war (rules 'War' 5)."""
    return len(military_powers(state, space)) >= 2


def say(state: State, text: str, audience: list[int] | None = None) -> None:
    """Adds a line to this move's log; ``audience`` None means everyone may read it."""
    state["log"].append([text, audience])
