"""Game engines: pure rules behind the protocol in :mod:`engines.api`.

``REGISTRY`` maps each game's slug to its engine object playing the newest version.
Every subpackage of ``engines/`` is a title, named by its slug and exposing ``ENGINE``,
so adding a title touches nothing outside its own folder (see "Adding a title" in the
README); a title installed as a package of its own is found by its ``pbem.titles``
entry point (``slug = "package.module:ENGINE"``). The registry knows every slug at
once, from the folders' and entry points' names, and imports a title the first time it
is asked for it: a process that needs one title (``pbem receive`` taking a reply)
loads that one. :func:`scan_titles` imports them all. :func:`get_engine` resolves a
(slug, version) pair: a game plays to its end on the version it was created with (see
:mod:`engines.api`).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterator, MutableMapping
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


def _folder_title(name: str) -> Callable[[], Engine]:
    def load() -> Engine:
        engine = getattr(importlib.import_module(f"{__name__}.{name}"), "ENGINE", None)
        if engine is None:
            raise LookupError(f"engines/{name}/ is not a title: it has no ENGINE.")
        return engine

    return load


class Registry(MutableMapping[str, Engine]):
    """Slug to engine, each title imported the first time it is asked for.

    ``sources`` gives, for each slug, how to load its engine; a loaded engine whose slug
    is not the one it was found under is refused (a folder is named by its slug)."""

    def __init__(self, sources: dict[str, Callable[[], Engine]]):
        self._sources = dict(sources)
        self._loaded: dict[str, Engine] = {}

    def __getitem__(self, slug: str) -> Engine:
        engine = self._loaded.get(slug)
        if engine is not None:
            return engine
        engine = self._sources[slug]()
        if engine.slug != slug:
            raise LookupError(f"The title found as {slug!r} calls itself {engine.slug!r}.")
        return self._loaded.setdefault(slug, engine)

    def __setitem__(self, slug: str, engine: Engine) -> None:
        self._loaded[slug] = engine
        self._sources.setdefault(slug, lambda: engine)

    def __delitem__(self, slug: str) -> None:
        del self._sources[slug]
        self._loaded.pop(slug, None)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._sources))

    def __len__(self) -> int:
        return len(self._sources)

    def __contains__(self, slug: object) -> bool:
        return isinstance(slug, str) and slug in self._sources


def _sources() -> dict[str, Callable[[], Engine]]:
    """Every title's loader by slug: installed packages' entry points, then the folders
    of ``engines/`` (a folder wins a clash)."""
    found: dict[str, Callable[[], Engine]] = {
        point.name: point.load
        for point in sorted(entry_points(group="pbem.titles"), key=lambda point: point.name)
    }
    for module in sorted(pkgutil.iter_modules(__path__), key=lambda module: module.name):
        if module.ispkg:
            found[module.name] = _folder_title(module.name)
    return found


REGISTRY: Registry = Registry(_sources())


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


def bot_level(engine: Engine, level: str) -> str:
    """The level a bot asked to play at ``level`` plays at: the level itself when the
    engine offers it, else "normal" (or the engine's strongest level without "normal");
    an engine without levels plays "normal"."""
    if not hasattr(engine, "bot_levels"):
        return "normal"
    if level in engine.bot_levels:
        return level
    return "normal" if "normal" in engine.bot_levels else engine.bot_levels[-1]


def slow_bot_levels_of(engine: Engine) -> frozenset[str]:
    """The levels whose moves take long (``slow_bot_levels``, absent: none): the server
    never plays them inside a request, a mail's receipt or a command; a background
    runner (or the scheduler's sweep) plays them after (see :mod:`engines.api`)."""
    return frozenset(getattr(engine, "slow_bot_levels", None) or ())


def is_slow_bot(engine: Engine, level: str) -> bool:
    """Whether a bot seat at ``level`` plays one of ``engine``'s slow levels."""
    return bot_level(engine, level) in slow_bot_levels_of(engine)


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
        return engine.bot_move(view, legal_moves, rng, level=bot_level(engine, level))
    return engine.bot_move(view, legal_moves, rng)


__all__ = [
    "REGISTRY",
    "Registry",
    "at_version",
    "bot_level",
    "bot_levels_of",
    "bot_move",
    "get_engine",
    "installed_titles",
    "is_listed",
    "is_slow_bot",
    "listed_engines",
    "scan_titles",
    "slow_bot_levels_of",
    "versions_of",
]
