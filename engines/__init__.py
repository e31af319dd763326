"""Game engines: pure rules behind the protocol in :mod:`engines.api`.

``REGISTRY`` maps each game's slug to its engine object. It is written out by hand,
so importing this package has no side effects beyond importing the engines listed.
"""

from __future__ import annotations

from engines.api import Engine

REGISTRY: dict[str, Engine] = {}


def get_engine(slug: str) -> Engine:
    """The engine registered under ``slug``; ``KeyError`` with a readable message if none."""
    try:
        return REGISTRY[slug]
    except KeyError:
        known = ", ".join(sorted(REGISTRY)) or "none"
        raise KeyError(f"No game called {slug!r} (known: {known}).") from None
