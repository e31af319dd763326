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


def get_engine(slug: str, version: int | None = None) -> Engine:
    """The engine registered under ``slug``, playing ``version`` (the newest when None);
    ``KeyError`` with a readable message for an unknown game or version."""
    try:
        engine = REGISTRY[slug]
    except KeyError:
        known = ", ".join(sorted(REGISTRY)) or "none"
        raise KeyError(f"No game called {slug!r} (known: {known}).") from None
    if version is None or version == engine.version:
        return engine
    at_version = getattr(engine, "at_version", None)
    if at_version is None:
        raise KeyError(f"{engine.title} has no version {version!r} (only {engine.version}).")
    return at_version(version)
