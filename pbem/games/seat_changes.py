"""The steps every change of a seat shares (:mod:`pbem.games.rescue`,
:mod:`pbem.games.invitations`, :mod:`pbem.games.vacations`).

A change is one administrative event in the game's log, appended by
:func:`append_event` (through :meth:`GameService.append_admin`) with its read-model
change and its notices to the players in the same transaction, once
:func:`permission` (:func:`pbem.games.seat_rules.permit`) allows it or counts a vote.
The seat that loses its player (:func:`vacate`) keeps its old link as a retired one
(:func:`retire_link`) with a sentence for whoever opens it, its departing player is told
(:func:`tell_departing`) and still hears how the game ends (:func:`record_former`).
Every action returns a :class:`RescueOutcome`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, select

from pbem import links
from pbem.errors import BadInput, NotFound, Rejected
from pbem.games import seat_rules
from pbem.games.admin_lines import HEADLINES, describe_admin
from pbem.games.clocks import stop_turn
from pbem.games.context import Runtime
from pbem.games.notices import Notice
from pbem.games.seat_rules import Permission, VoteCounted
from pbem.games.tables import FormerPlayer, RetiredLink, SeatClock, SeatOffer
from pbem.games.tokens import hash_token
from pbem.i18n import T
from pbem.models import Event, Game, Seat
from pbem.zones import utc


@dataclass
class RescueOutcome:
    """What a rescue request did: carried out (``seq`` of its event) or a vote counted."""

    done: bool
    message: str
    seq: int | None = None
    votes: int = 0
    needed: int = 0
    token: str | None = field(default=None, repr=False)


Claim = Callable[[Session], None]


def active_seat(runtime: Runtime, game_id: str, seat: Any) -> Seat:
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise BadInput(T("Name the seat by its number."))
    with runtime.service.session() as session:
        game = runtime.service.store.game(session, game_id)
        if game.status != "active":
            raise Rejected(T("This game is over; its seats cannot change any more."))
        row = session.get(Seat, (game_id, seat)) if 0 <= seat < game.seat_count else None
        if row is None:
            raise NotFound(T("There is no such seat in this game."))
        return row


def locked_seat(session: Session, game_id: str, seat: int) -> Seat:
    row = session.get(Seat, (game_id, seat))
    if row is None:
        raise NotFound(T("There is no such seat in this game."))
    return row


def seat_clock(session: Session, game_id: str, seat: int) -> SeatClock:
    clock = session.get(SeatClock, (game_id, seat))
    if clock is None:
        clock = SeatClock(game_id=game_id, seat=seat)
    session.add(clock)
    return clock


def permission(
    runtime: Runtime,
    game_id: str,
    action: str,
    seat: int,
    by: int | None,
    *,
    deadline: bool = False,
    detail: str = "",
) -> Permission | RescueOutcome:
    """:func:`pbem.games.seat_rules.permit` for ``seat``: a permission, or a counted vote."""
    with runtime.service.session() as session:
        game = runtime.service.store.game(session, game_id)
        target = locked_seat(session, game_id, seat)
        result = seat_rules.permit(
            runtime, session, game, action, target, by, deadline=deadline, detail=detail
        )
    if isinstance(result, VoteCounted):
        return RescueOutcome(False, result.message, votes=result.votes, needed=result.needed)
    return result


def append_event(
    runtime: Runtime,
    game_id: str,
    kind: str,
    target: Seat,
    permitted: Permission,
    change: Callable[[Session, Game], None],
    claim: Claim | None = None,
    *,
    notify_target: bool = True,
    notify_others: bool = True,
    target_lines: list[str] | None = None,
    other_lines: list[str] | None = None,
    **fields: Any,
) -> RescueOutcome:
    """Appends the event; its change, and the notices to the players, in one transaction."""
    payload = {"seat": target.seat, "name": target.name, "by": permitted.by, **fields}
    if permitted.voters:
        payload["voters"] = permitted.voters
    # The one who acted reads the outcome in the seat's zone; each player told, in theirs.
    line = describe_admin({"kind": kind, "seat": target.seat, "payload": payload}, target.timezone)

    def change_and_tell(session: Session, game: Game) -> None:
        if claim is not None:
            claim(session)
        change(session, game)
        seq = game.head_seq
        for other in session.exec(select(Seat).where(Seat.game_id == game_id)):
            mine = other.seat == target.seat
            if (mine and not notify_target) or (not mine and not notify_others):
                continue
            read = describe_admin(
                {"kind": kind, "seat": target.seat, "payload": payload}, other.timezone
            )
            runtime.service.tell(
                session,
                Notice(
                    kind="seat_event",
                    key=f"{kind}:{game_id}:{seq}:{other.seat}",
                    game_id=game_id,
                    seat=other.seat,
                    facts={
                        "event": kind,
                        "headline": HEADLINES[kind],
                        # The seat's own player reads what happened to them in the
                        # second person.
                        "lines": list(target_lines)
                        if mine and target_lines
                        else [read, *((None if mine else other_lines) or [])],
                        # A seat just handed to a bot: its player is told all the same.
                        "even_a_bot": mine,
                    },
                ),
            )

    outcome = runtime.service.append_admin(
        game_id, kind, target.seat, payload, actor=permitted.by, change=change_and_tell
    )
    return RescueOutcome(True, line, seq=outcome.seq)


def vacate(
    session: Session, runtime: Runtime, game: Game, row: Seat, *, open_to_all: bool
) -> SeatOffer:
    """The seat loses its player: no address, no link, no clock; it waits for a newcomer."""
    offer = session.get(SeatOffer, (game.id, row.seat)) or SeatOffer(
        game_id=game.id, seat=row.seat, created_at=utc(runtime.clock())
    )
    if offer.token_hash:
        session.add(
            RetiredLink(
                token_hash=offer.token_hash,
                game_id=game.id,
                seat=row.seat,
                message="This invitation was withdrawn; the seat went another way.",
                created_at=utc(runtime.clock()),
            )
        )
        offer.token_hash = None
        offer.invited_at = None
    offer.open = open_to_all
    offer.former_email = row.email or offer.former_email
    offer.name, offer.email = "", ""
    session.add(offer)
    session.flush()
    row.email = ""
    row.token_hash = None
    session.add(row)
    stop_turn(seat_clock(session, game.id, row.seat))
    seat_rules.clear_votes(session, game.id, row.seat)
    return offer


def record_former(session: Session, runtime: Runtime, game: Game, row: Seat, reason: str) -> None:
    """Records that the person holding ``row`` stops holding it (``reason``: left, offered,
    replaced) at the event being appended: they are still told how the game ends, and a
    full export carries them."""
    if not row.email:
        return
    seq = session.exec(select(func.max(Event.seq)).where(Event.game_id == game.id)).one()
    session.add(
        FormerPlayer(
            game_id=game.id,
            seat=row.seat,
            name=row.name,
            email=row.email,
            timezone=row.timezone,
            reason=reason,
            left_seq=seq,
            left_at=utc(runtime.clock()),
        )
    )


def retire_link(session: Session, runtime: Runtime, game: Game, row: Seat, message: str) -> None:
    """Remembers the seat's current link as retired, with what its holder should read."""
    if row.token_hash and session.get(RetiredLink, row.token_hash) is None:
        session.add(
            RetiredLink(
                token_hash=row.token_hash,
                game_id=game.id,
                seat=row.seat,
                message=message[:1000],
                created_at=utc(runtime.clock()),
            )
        )


def tell_departing(
    session: Session,
    runtime: Runtime,
    game: Game,
    row: Seat,
    key: str,
    headline: str,
    lines: list[str],
) -> None:
    """Tells the seat's (departing) player at their address that they no longer hold
    it (a ``seat_left`` notice: no link goes with it)."""
    runtime.service.tell(
        session,
        Notice(
            kind="seat_left",
            key=key,
            game_id=game.id,
            seat=row.seat,
            address=row.email,
            name=row.name,
            facts={"headline": headline, "lines": lines},
        ),
    )


def issue_link(session: Session, runtime: Runtime, game_id: str, seat: int, token: str) -> None:
    """Tells the listeners a seat's new link token (a ``link_issued`` notice)."""
    runtime.service.tell(
        session,
        Notice(
            kind="link_issued",
            key=f"link:{game_id}:{seat}:{hash_token(token)[:24]}",
            game_id=game_id,
            seat=seat,
            facts={"token": token},
        ),
    )


def game_url(runtime: Runtime, game_id: str) -> str:
    return links.game_url(runtime.config, game_id)
