"""Mare Nostrum's moves in its notation (the engine's ``notation``, see
:mod:`engines.notation`): ``offer coin, grain, grain`` as a reply by mail writes it,
``move legion from babylonia to nabataea``, ``take coin from {name:2}`` (the player's
name filled in by the server).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.notation import Form, written

FORMS: dict[str, Form] = {
    "choose_civ": ("civilisation", [("", "civ")]),
    "setup_build": ("set up", [("", "item"), ("in", "province"), ("at", "site")]),
    "end_setup": ("end setup", []),
    "choose_title_holder": ("title", [("", "title"), ("to", "seat")]),
    "choose_good": ("artemis", [("", "good")]),
    "set_trade": ("trade", [("", "n")]),
    "offer": ("offer", [("", "cards")]),
    "take": ("take", [("", "card"), ("from", "from_seat")]),
    "compensate": ("give", [("", "card"), ("to", "to_seat")]),
    "name_builder": ("builder", [("", "seat")]),
    "build": (
        "build",
        [("", "item"), ("in", "province"), ("at", "site"), ("paying", "pay")],
    ),
    "exchange": ("exchange", [("", "give"), ("for", "get")]),
    "end_build": ("end building", []),
    "keep": ("keep", [("", "cards")]),
    "name_warrior": ("warrior", [("", "seat")]),
    "launch": ("launch", [("from", "province"), ("into", "sea")]),
    "move": ("move", [("", "unit"), ("from", "from"), ("to", "to")]),
    "attack": ("attack", [("", "target"), ("in", "space")]),
    "pillage": ("pillage", [("", "province")]),
    "hold": ("hold", [("", "province"), ("with", "buildings")]),
    "end_war": ("end war", []),
}

SEAT_FIELDS = ("seat", "from_seat", "to_seat")


def notation(move: Mapping[str, Any]) -> str:
    return written(move, FORMS, SEAT_FIELDS)
