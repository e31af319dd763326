"""The shape of each move type: fields, their JSON types and allowed values.

A move of the wrong shape raises :class:`MalformedMove`; whether a well-formed move is
allowed now is decided in ``rules.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.api import MalformedMove, article

from .data import CONTRACT_IDS, FISH, GOODS, LOCATION_INDEX, NUMBER_TOKENS
from .words import T

# type -> (required fields, optional fields)
FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "place_start": (frozenset({"port"}), frozenset()),
    "sail": (frozenset({"to"}), frozenset({"from"})),
    "fish": (frozenset({"area", "kind"}), frozenset()),
    "unload": (frozenset({"port", "fish"}), frozenset({"demand"})),
    "take_contract": (frozenset({"contract"}), frozenset()),
    "overboard": (frozenset({"kind", "count"}), frozenset()),
    "end_turn": (frozenset(), frozenset()),
    "produce": (frozenset({"token"}), frozenset({"kind", "discard"})),
}


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _location(move: Mapping, field: str) -> None:
    value = move[field]
    if not isinstance(value, str) or value not in LOCATION_INDEX:
        raise MalformedMove(
            T("'%(field)s' must name a sea area or port of the board.", field=field)
        )


def _kind(value: Any, kinds: tuple[str, ...], field: str) -> None:
    if not isinstance(value, str) or value not in kinds:
        raise MalformedMove(
            T("'%(field)s' must be one of: %(values)s.", field=field, values=", ".join(kinds))
        )


def _counts(value: Any, kinds: tuple[str, ...], field: str) -> None:
    """A non-empty object of kind -> count (a whole number of at least 1)."""
    if not isinstance(value, dict) or not value:
        raise MalformedMove(
            T("'%(field)s' must be a non-empty object of kind and count.", field=field)
        )
    for kind, count in value.items():
        _kind(kind, kinds, field)
        if not _is_int(count) or count < 1:
            raise MalformedMove(
                T("Each count in '%(field)s' must be a whole number of at least 1.", field=field)
            )


def check_shape(move: Any) -> str:
    """The move's type, once its shape is right; else :class:`MalformedMove`."""
    if not isinstance(move, Mapping):
        raise MalformedMove(T("A move must be a JSON object with a 'type'."))
    kind = move.get("type")
    if not isinstance(kind, str) or kind not in FIELDS:
        raise MalformedMove(T("Unknown move type: %(type)s.", type=repr(kind)))
    required, optional = FIELDS[kind]
    keys = set(move) - {"type"}
    if not required <= keys:
        missing = sorted(required - keys)[0]
        if article(kind).startswith("an "):
            raise MalformedMove(
                T("An %(type)s move needs the field '%(field)s'.", type=kind, field=missing)
            )
        raise MalformedMove(
            T("A %(type)s move needs the field '%(field)s'.", type=kind, field=missing)
        )
    if not keys <= required | optional:
        extra = sorted(str(key) for key in keys - required - optional)[0]
        if article(kind).startswith("an "):
            raise MalformedMove(
                T("An %(type)s move has no field '%(field)s'.", type=kind, field=extra)
            )
        raise MalformedMove(T("A %(type)s move has no field '%(field)s'.", type=kind, field=extra))
    SHAPES[kind](move)
    return kind


def _place_start(move: Mapping) -> None:
    _location(move, "port")


def _sail(move: Mapping) -> None:
    _location(move, "to")
    if "from" in move:
        _location(move, "from")


def _fish(move: Mapping) -> None:
    _location(move, "area")
    _kind(move["kind"], GOODS, "kind")


def _unload(move: Mapping) -> None:
    _location(move, "port")
    _counts(move["fish"], FISH, "fish")
    if "demand" in move:
        demand = move["demand"]
        if not isinstance(demand, dict) or not demand:
            raise MalformedMove(T("'demand' must be a non-empty object of kind and circle number."))
        for kind, circle in demand.items():
            _kind(kind, FISH, "demand")
            if not _is_int(circle):
                raise MalformedMove(T("Each circle in 'demand' must be a whole number."))


def _take_contract(move: Mapping) -> None:
    if move["contract"] not in CONTRACT_IDS:
        raise MalformedMove(
            T(
                "'%(field)s' must be one of: %(values)s.",
                field="contract",
                values=", ".join(CONTRACT_IDS),
            )
        )


def _overboard(move: Mapping) -> None:
    _kind(move["kind"], FISH, "kind")
    if not _is_int(move["count"]) or move["count"] < 1:
        raise MalformedMove(T("'count' must be a whole number of at least 1."))


def _end_turn(move: Mapping) -> None:
    return None


def _produce(move: Mapping) -> None:
    token = move["token"]
    if token == "tax":
        if "kind" in move:
            raise MalformedMove(T("The tax token goes on no market space: leave out 'kind'."))
        if "discard" not in move:
            raise MalformedMove(T("Playing the tax needs 'discard': the goods you give up."))
        discard = move["discard"]
        if not isinstance(discard, dict) or not set(discard) <= {"hold", "warehouse"}:
            raise MalformedMove(T("'discard' must be an object with 'hold' and/or 'warehouse'."))
        if "hold" in discard:
            _counts(discard["hold"], FISH, "discard.hold")
        if "warehouse" in discard:
            _counts(discard["warehouse"], GOODS, "discard.warehouse")
        return
    if not _is_int(token) or token not in NUMBER_TOKENS:
        raise MalformedMove(T("'token' must be 0, 1, 2, 3 or \"tax\"."))
    if "discard" in move:
        raise MalformedMove(T("Only the tax token discards goods: leave out 'discard'."))
    if "kind" not in move:
        raise MalformedMove(T("A number token needs 'kind': the market space it goes on."))
    _kind(move["kind"], FISH, "kind")


SHAPES = {
    "place_start": _place_start,
    "sail": _sail,
    "fish": _fish,
    "unload": _unload,
    "take_contract": _take_contract,
    "overboard": _overboard,
    "end_turn": _end_turn,
    "produce": _produce,
}
