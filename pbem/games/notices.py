"""Notices: what happened in a game, to whom, told by the game side to whoever listens.

The game side never writes mail. Where something happens that a person should hear of
(a seat handed to a bot, a new link, a message at the table), it states it as a
:class:`Notice` and hands it to :meth:`pbem.games.service.GameService.tell`, inside the
transaction that wrote the change: every listener in ``service.notice_listeners`` is
called at once with the session, so what it writes commits or rolls back with the
change. Mail is one listener (:mod:`pbem.mail.notice_mails`); web push, webhooks and
feeds are meant to be others, of the same notices.

A notice is told to a seat (``seat``: its player, at the seat's address) or, for a
person who holds no seat (a departing player, an invited newcomer), to an ``address``
with the ``name`` they go by. ``key`` names the notice: a listener acts on one key
once. ``facts`` holds what each kind adds, plain values only (never rendered mail):

- ``seat_event``: an administrative event of the game told to a seat's player (a
  policy changed, the game paused or resumed, a seat handed to a bot, offered,
  replaced or taken). Facts: ``event`` (the event's kind), ``headline`` and ``lines``
  (what happened, in words), and ``even_a_bot`` (True: the seat's player is told
  though a bot now plays it).
- ``seat_left``: a person who no longer holds a seat (left, resigned, replaced, or
  their turn's deadline passed) is told so at their address; their link no longer
  opens anything. Facts: ``headline`` and ``lines``.
- ``seat_offered``: a newcomer is invited to take a seat at their address. Facts:
  ``holder`` (the seat's name now), ``token`` (the invitation's link token) and
  ``lapses_at`` (when the invitation lapses, aware UTC).
- ``link_issued``: a seat has a new link token (``token``); the old one no longer
  opens it. A listener that hands out links keeps the new one; nobody is told yet.
- ``link_given``: a seat's player is given their link (after ``link_issued``).
  Facts: ``message`` (why, in words), ``deadline`` (the running turn's, or None) and
  ``even_a_bot``.
- ``talk``: a message at the table reaches a seat's player (each reader gets its
  own notice: the addressee of a private note, or every other seat). Facts:
  ``sender`` (the writer's seat), ``sender_name``, ``private`` and ``said``.

Before an open game starts (:mod:`pbem.games.open_games`) there is no game yet, only
its id: these are told to an address.

- ``open_created``: the creator of an open game gets the link to its page. Facts:
  ``title``, ``token`` (the creator's page).
- ``open_hold``: someone who asked for an open seat gets the link to confirm it. Facts:
  ``title``, ``token`` and ``lapses_at`` (aware UTC).
- ``open_joined``: the creator hears that someone confirmed a seat. Facts: ``title``,
  ``joined`` (their name) and ``left`` (open seats still unconfirmed).
- ``open_cancelled``: someone who held or confirmed a seat hears that the creator
  called the game off. Facts: ``title``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlmodel import Session

KINDS = frozenset(
    {
        "seat_event",
        "seat_left",
        "seat_offered",
        "link_issued",
        "link_given",
        "talk",
        "open_created",
        "open_hold",
        "open_joined",
        "open_cancelled",
    }
)


@dataclass(frozen=True, kw_only=True)
class Notice:
    """What happened in game ``game_id``, told to ``seat`` or to ``address``."""

    kind: str
    key: str
    game_id: str
    seat: int | None = None
    address: str = ""
    name: str = ""
    facts: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.kind!r} is not a kind of notice")
        if self.seat is None and not self.address:
            raise ValueError("a notice is told to a seat or to an address")


NoticeListener = Callable[["Session", Notice], None]
