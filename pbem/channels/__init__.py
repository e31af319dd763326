"""Turn notices beyond mail: webhooks per game, web push per seat, an address's calendar
of deadlines, a public game's Atom feed, and spectators following a game by mail.

Each is one more listener of the game service (:mod:`pbem.channels.turns`), as mail
is, writing in the transaction of the change; the worker sends
(:mod:`pbem.channels.deliver`). They keep mail's quiet window and daily budget, and
none carries a seat's link to anyone but its player: webhooks, feeds, calendars and
followers get the game's public page only; a push (to the seat's own browser) carries
the seat's link, read when it is sent for the seat's holder of the moment.
"""

from __future__ import annotations

from pbem.games.context import Runtime


def install(runtime: Runtime) -> None:
    """Adds the channels' listener to the runtime's game service."""
    from pbem.channels import turns

    turns.install(runtime)


def mark(session, game_id: str) -> None:
    """Marks the game as one with notice channels (in the caller's transaction)."""
    from sqlmodel import col, update

    from pbem.models import Game

    session.exec(
        update(Game)
        .where(col(Game.id) == game_id, col(Game.notice_channels).is_(False))
        .values(notice_channels=True)
        .execution_options(synchronize_session=False)
    )
