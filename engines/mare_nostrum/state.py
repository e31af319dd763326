"""The Mare Nostrum game state: one JSON-shaped dict, copied (never changed) by each move.

The state is plain data (dicts, lists, str, int, bool, None) so that ``dump`` is a copy
and ``load`` a copy back. Each ``apply`` works on a :class:`Draft` of the state: a copy
made lazily, part by part, of what the move reads or writes (a move changes a few parts;
copying the whole state was most of the cost of replaying a log). The parts it never
touches are shared between the state before and after, which is safe because no state is
ever changed once a move has made it.

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


def _own(value: Any) -> Any:
    """A private deep copy of a part of the state (text, numbers and None are shared).

    For the small parts a move copies (a hand, the bank, a province) this is several
    times cheaper than :func:`clone`'s marshal round trip, which pays off on whole states.
    """
    kind = type(value)
    if kind is dict:
        copied = value.copy()
        for key, item in copied.items():
            if type(item) is dict or type(item) is list:
                copied[key] = _own(item)
        return copied
    if kind is list:
        return [_own(item) if type(item) is dict or type(item) is list else item for item in value]
    return value


class Draft(dict):
    """The state a move is being applied to: a copy-on-access view of ``base``.

    It starts as a shallow copy; the first time a key is read (by ``[]``, ``get``,
    ``items``, ``values``, ``pop``, ``setdefault``) its value is replaced by a deep copy,
    so whatever the rules then change is the draft's own and ``base`` stays as it was.
    Keys in ``nested`` get a draft of their own instead of a whole copy (the provinces:
    a move reads or changes one or two of the thirty). Read-only tests (``in``, ``len``)
    copy nothing. Only the rules' own code works on a draft, through those methods;
    :func:`settled` turns it back into plain dicts once the move is made.
    """

    __slots__ = ("_owned", "_nested")

    def __init__(self, base: dict[str, Any], nested: tuple[str, ...] = ()) -> None:
        dict.__init__(self, base)
        self._owned: set[str] = set()
        self._nested = nested

    def __getitem__(self, key: str) -> Any:
        value = dict.__getitem__(self, key)
        if key in self._owned:
            return value
        self._owned.add(key)
        if key in self._nested and type(value) is dict:
            value = Draft(value)
        else:
            value = _own(value)
        dict.__setitem__(self, key, value)
        return value

    def __setitem__(self, key: str, value: Any) -> None:
        self._owned.add(key)
        dict.__setitem__(self, key, value)

    def __delitem__(self, key: str) -> None:
        self._owned.discard(key)
        dict.__delitem__(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def pop(self, key: str, *default: Any) -> Any:
        if key not in self:
            return dict.pop(self, key, *default)
        value = self[key]
        del self[key]
        return value

    def update(self, *others: Any, **fields: Any) -> None:
        for key, value in dict(*others, **fields).items():
            self[key] = value

    def values(self) -> list[Any]:  # type: ignore[override]
        return [self[key] for key in dict.keys(self)]

    def items(self) -> list[tuple[str, Any]]:  # type: ignore[override]
        return [(key, self[key]) for key in dict.keys(self)]

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a draft state offers only the reads and writes it copies for")

    popitem = copy = __ior__ = __or__ = __ror__ = __reduce__ = __reduce_ex__ = _refuse  # type: ignore[assignment]


def draft(state: State) -> Draft:
    """A copy-on-access draft of ``state`` for a move to change (provinces one by one)."""
    return Draft(state, nested=("provinces",))


def settled(state: Draft) -> State:
    """The plain state a draft stands for: the parts it copied, and the others shared."""
    plain = dict(state)  # dict's own copy: reads no value through the draft
    for key in state._nested:
        value = plain.get(key)
        if type(value) is Draft:
            plain[key] = dict(value)
    return plain


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


def reading(state: State, key: str) -> Any:
    """``state[key]`` for code that only reads it: on a :class:`Draft` it copies nothing
    and gives the part as it stands (shared with the state before the move until the
    move copies it), so nothing may be changed or kept through it."""
    return dict.__getitem__(state, key)


def province_read(state: State, pid: str) -> dict[str, Any]:
    """A province for reading only (see :func:`reading`)."""
    return dict.__getitem__(dict.__getitem__(state, "provinces"), pid)


def provinces_read(state: State) -> Any:
    """Every province for reading only, in the state's order (see :func:`reading`)."""
    return dict.values(dict.__getitem__(state, "provinces"))


def rules_version(state: State) -> int:
    """The version of the rules the game plays; a version-1 state has no such key."""
    return dict.get(state, "rules_version", 1)


def hand_size(hand: dict[str, int]) -> int:
    return sum(hand.values())


def players(state: State) -> range:
    return range(state["seats"])


def civ_of(state: State, seat: int) -> str:
    return reading(state, "civs")[seat]


def seat_of(state: State, civ: str) -> int | None:
    """The seat playing ``civ``, or None for a neutral power."""
    civs = reading(state, "civs")
    return civs.index(civ) if civ in civs else None


def owns_card(state: State, civ: str, card: str) -> bool:
    seat = seat_of(state, civ)
    return seat is not None and card in reading(state, "cards")[seat]


def civ_name(civ: str) -> str:
    return CIV[civ]["name"]


def capital_of(civ: str) -> str:
    return CIV[civ]["capital"]


def is_capital(pid: str) -> bool:
    return pid in CAPITALS


def controlled(state: State, civ: str) -> list[str]:
    """The provinces holding ``civ``'s control marker, in map order."""
    return [pid for pid in PROVINCE_IDS if province_read(state, pid)["marker"] == civ]


def military_powers(state: State, space: str) -> list[str]:
    """The powers with military units in a province (legions, fortress) or a sea (triremes)."""
    seas = reading(state, "seas")
    if space in seas:
        return sorted(civ for civ, n in seas[space].items() if n)
    province = province_read(state, space)
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
