"""Mercatores' moves in its notation (the engine's ``notation``, see
:mod:`engines.notation`): ``trade t3 for cocoa-09, coffee-08, q1``, ``load one_kind
cocoa-04, cocoa-09``, ``cash coffee``, ``tax corn-11``: the verb and the cards' ids.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.notation import Form, written

FORMS: dict[str, Form] = {
    "trade": ("trade", [("", "give"), ("for", "take")]),
    "load": ("load", [("", "way"), ("", "cards")]),
    "tax": ("tax", [("", "card")]),
    "cash": ("cash", [("", "pile"), ("", "special"), ("against", "opponent")]),
}

SEAT_FIELDS = ("opponent",)


def notation(move: Mapping[str, Any]) -> str:
    return written(move, FORMS, SEAT_FIELDS)
