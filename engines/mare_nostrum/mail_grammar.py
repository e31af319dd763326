"""Mare Nostrum moves written out in a reply by mail (the engine's ``written_forms`` and
``written_key``, see :mod:`engines.api`): ``offer coin, grain, grain``, the cards in any
order, case and spacing as one likes.
"""

from __future__ import annotations

import re

from engines.mare_nostrum.words import T

# The example keeps the words a player types (the grammar reads English card names).
WRITTEN_FORMS = {
    "offer": T(
        'An offer can also be written out: "%(example)s" (the cards in any order).',
        example="offer coin, grain, grain",
    ),
}


def written_key(text: str) -> tuple | None:
    """A written offer reduced to what identifies it (the verb and its cards as a sorted
    list); None for text of no written form."""
    text = " ".join(text.casefold().strip().rstrip(".").split())
    if not text.startswith("offer "):
        return None
    parts = re.split(r",|\band\b", text[len("offer ") :])
    return ("offer", tuple(sorted(" ".join(part.split()) for part in parts if part.strip())))
