"""The moves a seat may answer by mail, with their codes, for the mails that list them
(with replies by mail on: ``mail.reply_address``; see :mod:`pbem.mail.inbound`).
"""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from engines.api import Engine
from pbem.games.context import Runtime
from pbem.models import Game, Seat


def inbound_context(
    runtime: Runtime, session: Session, game: Game, engine: Engine, state: Any, seat: Seat
) -> dict[str, Any]:
    """With replies by mail on (``mail.reply_address``): the seat's legal moves with
    their codes; see :mod:`pbem.mail.inbound`."""
    from pbem.mail.inbound import moves, tags

    if tags.reply_address_config(runtime.config) is None:
        return {}
    seats = list(session.exec(select(Seat).where(Seat.game_id == game.id).order_by(col(Seat.seat))))
    listed = moves.numbered(engine, state, seat.seat, [row.name for row in seats])
    return moves.move_context(game.engine, listed)


def moves_context(runtime: Runtime, session: Session, game: Game, seat: Seat) -> dict[str, Any]:
    """:func:`inbound_context` at the game's head, for a mail written outside a move (a
    reminder, a deadline): nothing is read when replies by mail are off."""
    from pbem.mail.inbound import tags

    if tags.reply_address_config(runtime.config) is None:
        return {}
    head = runtime.service.store.head(session, game.id)
    return inbound_context(runtime, session, game, head.engine, head.state, seat)
