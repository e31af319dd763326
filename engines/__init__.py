"""Game engines: pure rules behind the protocol in :mod:`engines.api`.

``REGISTRY`` maps each game's slug to its engine object playing the newest version. It
is filled by a scan of this package: every subpackage of ``engines/`` that exposes
``ENGINE`` is a title, so adding a title touches nothing outside its own folder (see
"Adding a title" in the README); a title installed as a package of its own is found by
its ``pbem.titles`` entry point (naming its engine object). Importing this package imports those subpackages and
nothing else. :func:`get_engine` resolves a (slug, version) pair: a game plays to its end
on the version it was created with (see :mod:`engines.api`).
"""

from __future__ import annotations

import importlib
import pkgutil
from importlib.metadata import entry_points

from engines.api import Engine


def scan_titles() -> dict[str, Engine]:
    """Every title under ``engines/``: each subpackage's ``ENGINE``, by its slug."""
    found: dict[str, Engine] = {}
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda module: module.name):
        if not module.ispkg:
            continue
        engine = getattr(importlib.import_module(f"{__name__}.{module.name}"), "ENGINE", None)
        if engine is not None:
            found[engine.slug] = engine
    return found


def installed_titles() -> dict[str, Engine]:
    """The titles other installed packages offer through ``pbem.titles`` entry points
    (``slug = "package.module:ENGINE"``), by slug; a folder of ``engines/`` wins a clash."""
    found: dict[str, Engine] = {}
    for point in sorted(entry_points(group="pbem.titles"), key=lambda point: point.name):
        engine = point.load()
        found.setdefault(engine.slug, engine)
    return found


REGISTRY: dict[str, Engine] = {**installed_titles(), **scan_titles()}


def is_listed(engine: Engine) -> bool:
    """Whether the lobby and the demo offer ``engine`` (its ``listed``, True when absent)."""
    return bool(getattr(engine, "listed", True))


def listed_engines() -> list[Engine]:
    """The registered engines offered to players, by slug (hidden ones left out)."""
    return [engine for _, engine in sorted(REGISTRY.items()) if is_listed(engine)]


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
    "installed_titles",
    "is_listed",
    "listed_engines",
    "scan_titles",
    "versions_of",
]
