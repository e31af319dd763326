"""Game engines: pure rules behind the protocol in :mod:`engines.api`.

``REGISTRY`` maps each game's slug to its engine object. It is written out by hand,
so importing this package has no side effects beyond importing the engines listed.
"""

from __future__ import annotations

from engines.api import Engine
from engines.mare_balticum import ENGINE as MARE_BALTICUM
from engines.mare_nostrum import ENGINE as MARE_NOSTRUM
from engines.mercatores import ENGINE as MERCATORES

REGISTRY: dict[str, Engine] = {
    MARE_BALTICUM.slug: MARE_BALTICUM,
    MARE_NOSTRUM.slug: MARE_NOSTRUM,
    MERCATORES.slug: MERCATORES,
}


def get_engine(slug: str) -> Engine:
    """The engine registered under ``slug``; ``KeyError`` with a readable message if none."""
    try:
        return REGISTRY[slug]
    except KeyError:
        known = ", ".join(sorted(REGISTRY)) or "none"
        raise KeyError(f"No game called {slug!r} (known: {known}).") from None
