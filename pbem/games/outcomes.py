"""What a move or an appended batch of events produced: the results the game service
hands to its callers and listeners (mail among them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlmodel import Session

    from engines.api import Engine
    from pbem.games.service import GameRow, SeatRow
    from pbem.models import Game, Seat


@dataclass(kw_only=True)
class Transition:
    """What one appended batch of events changed: passed to listeners in its transaction."""

    game: Game | GameRow  # a move that does not end the game reads a plain row
    engine: Engine
    events: list[dict[str, Any]]
    before: Any
    after: Any
    due_before: frozenset[int]
    due_after: frozenset[int]
    finished: bool = False
    tokens: list[str | None] | None = None
    seats: list[Seat] | list[SeatRow] = field(default_factory=list)
    # The seats' clocks by seat, when the move read them with the game (plain rows);
    # None: listeners read them themselves.
    clocks: dict[int, Any] | None = None


@dataclass
class MoveOutcome:
    seq: int
    state: Any
    head_hash: str
    duplicate: bool = False
    events: list[dict[str, Any]] = field(default_factory=list)
    # A bot seat is due after these events (the service lets it move once they commit).
    bots_due: bool = False
    # The moves the bots made right after, before the call returned.
    bot_moves: int = 0


Listener = Callable[["Session", Transition], None]
