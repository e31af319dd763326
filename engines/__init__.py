"""Game engines: pure rules behind the protocol in :mod:`engines.api`.

``REGISTRY`` maps each game's slug to its engine object playing the newest version. It
is written out by hand, so importing this package has no side effects beyond importing
the engines listed. :func:`get_engine` resolves a (slug, version) pair: a game plays to
its end on the version it was created with (see :mod:`engines.api`).
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


def versions_of(engine: Engine) -> tuple[int, ...]:
    """Every version ``engine`` still plays, oldest first (only its own if it declares none)."""
    return tuple(getattr(engine, "versions", None) or (engine.version,))


def bot_levels_of(engine: Engine) -> tuple[str, ...]:
    """The bot levels ``engine`` offers; an engine without levels has one, "normal"."""
    return tuple(getattr(engine, "bot_levels", None) or ("normal",))


def at_version(engine: Engine, version: int) -> Engine:
    """``engine`` playing ``version``'s rules; ``KeyError`` for a version it does not play."""
    if isinstance(version, bool) or not isinstance(version, int):
        raise KeyError(f"{engine.title} has no version {version!r}.")
    if version == engine.version:
        return engine
    if version not in versions_of(engine) or not hasattr(engine, "at_version"):
        known = ", ".join(str(v) for v in versions_of(engine))
        raise KeyError(f"{engine.title} has no version {version} (this server plays {known}).")
    return engine.at_version(version)


def get_engine(slug: str, version: int | None = None) -> Engine:
    """The engine registered under ``slug`` playing ``version`` (the newest when None).

    ``KeyError`` with a readable message for an unknown slug or version.
    """
    try:
        engine = REGISTRY[slug]
    except (KeyError, TypeError):
        known = ", ".join(sorted(REGISTRY)) or "none"
        raise KeyError(f"No game called {slug!r} (known: {known}).") from None
    return engine if version is None else at_version(engine, version)


def bot_move(engine: Engine, view, legal_moves, rng, level: str = "normal") -> dict:
    """A bot's move at ``level``; engines without levels are asked without one."""
    if hasattr(engine, "bot_levels"):
        if level not in engine.bot_levels:
            level = "normal" if "normal" in engine.bot_levels else engine.bot_levels[-1]
        return engine.bot_move(view, legal_moves, rng, level=level)
    return engine.bot_move(view, legal_moves, rng)


__all__ = [
    "REGISTRY",
    "at_version",
    "bot_levels_of",
    "bot_move",
    "get_engine",
    "versions_of",
]
