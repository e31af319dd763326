"""What the game side and everything above it are handed as ``runtime``: the process's
configuration, database, game service and clock.

:class:`pbem.runtime.Runtime` is the one the server, the worker and the commands build
(:func:`pbem.runtime.build_runtime`); this protocol lets the parts below it name the
type without importing the wiring above them.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from sqlalchemy.engine import Engine as SqlEngine

    from pbem.games.service import GameService


class Runtime(Protocol):
    """A process's wiring, as the game side, mail, the scheduler and the pages use it."""

    config: dict[str, dict[str, Any]]
    db: SqlEngine
    service: GameService
    clock: Callable[[], datetime]
    extras: dict[str, Any]

    @property
    def secret_key(self) -> str: ...

    @property
    def production(self) -> bool: ...
