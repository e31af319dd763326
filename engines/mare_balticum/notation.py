"""Mare Balticum's moves in its notation (the engine's ``notation``, see
:mod:`engines.notation`): ``fish cod in gotland_deep``, ``sail from irbe to riga``,
``unload 2 cod, 1 salmon at stockholm``: the verb and the board's ids, as one types them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.notation import Form, written

FORMS: dict[str, Form] = {
    "place_start": ("start", [("", "port")]),
    "sail": ("sail", [("from", "from"), ("to", "to")]),
    "fish": ("fish", [("", "kind"), ("in", "area")]),
    "unload": ("unload", [("", "fish"), ("at", "port")]),
    "produce": ("produce", [("token", "token"), ("", "kind"), ("discard", "discard")]),
    "take_contract": ("contract", [("", "contract")]),
    "overboard": ("overboard", [("", "count"), ("", "kind")]),
    "end_turn": ("end turn", []),
}


def notation(move: Mapping[str, Any]) -> str:
    return written(move, FORMS)
