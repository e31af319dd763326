"""Mercatores moves written out in a reply by mail (the engine's ``written_forms`` and
``written_key``, see :mod:`engines.api`).

``trade Corn (1 ship) for Corn (no ships), Cotton (2 ships)`` (also ``give ... take
...``) and ``load Corn (1 ship), Corn (2 ships)``: the cards in a list in any order,
case and spacing as one likes, "no ships" the same as "0 ships".
"""

from __future__ import annotations

import re

from engines.mercatores.words import T

SHIPS = re.compile(r"\(\s*(no|\d+)\s+ships?\s*\)")

# The written forms stay English (what a reply must say): parameters of the sentence.
WRITTEN_FORMS = {
    "trade": T(
        'A trade can also be written out: "%(example)s" (the card you give, then the cards '
        "you take).",
        example="trade Corn (1 ship) for Corn (no ships), Cotton (2 ships)",
    ),
    "load": T(
        'A load can also be written out: "%(example)s".',
        example="load Corn (1 ship), Corn (2 ships)",
    ),
}


def _items(text: str) -> tuple[str, ...]:
    parts = re.split(r",|\band\b", text)
    return tuple(sorted(" ".join(part.split()) for part in parts if part.strip()))


def written_key(text: str) -> tuple | None:
    """A written trade or load reduced to what identifies it (the verb, the card given,
    the cards as a sorted list); None for text of neither form."""
    text = text.casefold().strip().rstrip(".")
    text = SHIPS.sub(lambda match: "0" if match[1] == "no" else match[1], text)
    text = " ".join(text.split())
    trade = re.match(r"^(?:trade|give)\s+(.+?),?\s+(?:for|take)\s+(.+)$", text)
    if trade:
        return ("trade", " ".join(trade[1].split()), _items(trade[2]))
    if text.startswith("load "):
        return ("load", _items(text[len("load ") :]))
    return None
