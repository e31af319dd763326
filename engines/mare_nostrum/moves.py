"""The shape of every move: field names and JSON types, checked before any rule."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.api import MalformedMove, article
from engines.mare_nostrum.data import GREAT_CARDS

STR, INT, CARDS, NAMES = "text", "whole number", "list of card names", "list of names"

SHAPES: dict[str, dict[str, str]] = {
    "choose_civ": {"civ": STR},
    "setup_build": {"item": STR},
    "end_setup": {},
    "choose_title_holder": {"title": STR, "seat": INT},
    "choose_good": {"good": STR},
    "set_trade": {"n": INT},
    "offer": {"cards": CARDS},
    "take": {"from_seat": INT, "card": STR},
    "compensate": {"to_seat": INT, "card": STR},
    "name_builder": {"seat": INT},
    "build": {"item": STR, "pay": CARDS},
    "exchange": {"give": STR, "get": STR},
    "end_build": {},
    "keep": {"cards": CARDS},
    "name_warrior": {"seat": INT},
    "launch": {"province": STR, "sea": STR},
    "move": {"unit": STR, "from": STR, "to": STR},
    "attack": {"space": STR, "target": STR},
    "pillage": {"province": STR},
    "hold": {"province": STR, "buildings": NAMES},
    "end_war": {},
}

# Where each purchase goes: the extra fields of build and setup_build by item.
PLACES: dict[str, tuple[str, ...]] = {
    "control_marker": ("province",),
    "city": ("province", "site"),
    "temple": ("province", "site"),
    "caravan": ("province", "site"),
    "market": ("province", "site"),
    "legion": ("province",),
    "fortress": ("province",),
    "trireme": ("province",),
    **{card: () for card in GREAT_CARDS},
}


def _typed(value: Any, kind: str) -> bool:
    if kind == INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == STR:
        return isinstance(value, str)
    return isinstance(value, list) and all(isinstance(card, str) for card in value)


def parse(move: Any) -> dict[str, Any]:
    """The move as a plain dict once its type and fields are exactly right."""
    if not isinstance(move, Mapping):
        raise MalformedMove("A move must be a JSON object with a type.")
    kind = move.get("type")
    if not isinstance(kind, str) or kind not in SHAPES:
        raise MalformedMove(f"There is no move called {kind!r} in Mare Nostrum.")
    fields = dict(SHAPES[kind])
    if kind in ("build", "setup_build"):
        item = move.get("item")
        if not isinstance(item, str) or item not in PLACES:
            raise MalformedMove(f"There is nothing called {item!r} to build.")
        fields.update({name: STR for name in PLACES[item]})
    expected = {"type", *fields}
    extra = sorted(set(move) - expected)
    if extra:
        raise MalformedMove(f"{article(kind).capitalize()} move has no field {extra[0]!r}.")
    for name, wanted in fields.items():
        if name not in move:
            raise MalformedMove(f"{article(kind).capitalize()} move needs the field {name!r}.")
        if not _typed(move[name], wanted):
            raise MalformedMove(f"The field {name!r} of {article(kind)} move must be a {wanted}.")
    return dict(move)
