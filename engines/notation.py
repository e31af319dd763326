"""Moves written in a title's own notation, for the readable record of a game.

A title's ``notation(move) -> str`` (optional, see :mod:`engines.api`) writes a move as
a player would type it: a verb and the move's values, e.g. ``fish cod in gotland_deep``
or ``trade t3 for cocoa-09, coffee-08, q1``. :func:`written` does the writing from a
title's table of forms, so that each title only says which verb and which words go
with which field. Every field of the move is written (one the table does not name as
``field=value``), so two different moves never read alike; the server checks that
anyway before it trusts a notation alone.

A field naming a seat is written as the placeholder ``{name:N}``, which the server fills
with that player's name as the roster had it then.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

# A form: the verb, then (word before the value or "", field) pairs, in writing order.
Form = tuple[str, Sequence[tuple[str, str]]]


def written(
    move: Mapping[str, Any],
    forms: Mapping[str, Form],
    seat_fields: Collection[str] = (),
) -> str:
    """``move`` in the notation ``forms`` give its kind (``move["type"]``); a kind
    without a form is written as its type and ``field=value`` words."""
    kind = str(move.get("type", ""))
    verb, fields = forms.get(kind, (kind.replace("_", " "), ()))
    parts = [verb] if verb else []
    named = set()
    for word, name in fields:
        named.add(name)
        if name in move:
            value = _value(move[name], name in seat_fields)
            parts.append(f"{word} {value}" if word else value)
    for name in sorted(set(move) - named - {"type"}):
        parts.append(f"{name}={_value(move[name], name in seat_fields)}")
    return " ".join(part for part in parts if part)


def _value(value: Any, seat: bool = False) -> str:
    if seat and isinstance(value, int) and not isinstance(value, bool):
        return f"{{name:{value}}}"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Mapping):
        return ", ".join(f"{_value(inner)} {key}" for key, inner in sorted(value.items()))
    if isinstance(value, list | tuple):
        return ", ".join(_value(inner, seat) for inner in value) if value else "none"
    if value is None:
        return "none"
    return str(value)
