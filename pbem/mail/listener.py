"""Mail's listener of the game service's transitions: the mails each appended batch of
events calls for, written in its transaction.

:func:`install` adds :func:`on_transition` to the game service's listeners. For every
appended batch it keeps each seat's clock (:func:`pbem.games.clocks.keep_clocks`) and
writes:

- ``invitation`` to every person at creation (with the seed commitment and the link);
- ``your_turn`` to each seat that *became* due (never again while it stays due), with
  what happened since its last move as that seat may see it: the move records only the
  seat and the events to describe (:func:`pbem.mail.deferred.defer_seat_mail`); the
  dispatcher renders it, outside the move's transaction;
- ``game_over`` to every person who held a seat when the game ends
  (:mod:`pbem.mail.game_over`).

Reminders, deadlines and digests come from the sweep (:mod:`pbem.scheduler`), the
mails of the game's notices from :mod:`pbem.mail.notice_mails`; all of them go through
:func:`pbem.mail.outbox.enqueue`.
"""

from __future__ import annotations

from collections import Counter
from datetime import timedelta
from functools import partial
from typing import Any

from sqlalchemy import func, or_
from sqlmodel import Session, col, select, update

from pbem.errors import TooMany
from pbem.games.clocks import keep_clocks, turn_goes_on, turns_begun
from pbem.games.context import Runtime
from pbem.games.outcomes import Transition
from pbem.games.tables import SeatClock
from pbem.mail import budget
from pbem.mail.deferred import defer_seat_mail
from pbem.mail.game_over import game_over_mails
from pbem.mail.history import history_start
from pbem.mail.models import Mail
from pbem.mail.outbox import sealed_render
from pbem.mail.replies import inbound_context
from pbem.mail.seat_mails import mail_seat, seat_context, seat_token, settings_link, store_link
from pbem.models import Game, Seat
from pbem.validate import canonical_address
from pbem.zones import utc


def install(runtime: Runtime) -> None:
    """Adds the transition listener to the runtime's game service."""
    runtime.service.listeners.append(partial(on_transition, runtime))


def on_transition(runtime: Runtime, session: Session, transition: Transition) -> None:
    """Keeps the seats' clocks and writes this batch's mails, inside its transaction."""
    game = transition.game
    created = transition.events[0]["kind"] == "created"
    newly_due = turns_begun(transition)
    if turn_goes_on(transition, newly_due):
        return  # a seat moved and keeps the turn: no clock changes, no mail
    now = utc(runtime.clock())
    loaded = transition.seats or session.exec(select(Seat).where(Seat.game_id == game.id))
    seats = {row.seat: row for row in loaded}
    clocks = keep_clocks(session, transition, seats, newly_due, now)
    if created and transition.tokens:
        for number in seats:
            if transition.tokens[number]:
                store_link(session, runtime, game.id, number, transition.tokens[number])
    if created and transition.tokens:
        check_invitations(session, runtime, [seat.email for seat in seats.values()])
        creator = seats.get(game.creator_seat) if game.creator_seat is not None else None
        if creator is not None and creator.email:
            # Whoever created the game has the creator's link: her seat is taken.
            budget.mark_taken(session.connection(), game.id, creator.email, now)
        for number, seat in seats.items():
            mail_seat(
                session,
                runtime,
                game,
                seat,
                "invitation",
                f"invitation:{game.id}:{number}:{game.head_seq}",
                **invitation_context(seats, number, number in transition.due_after),
                deadline=clocks[number].deadline_at,
                **(
                    inbound_context(
                        runtime, session, game, transition.engine, transition.after, seat
                    )
                    if number in transition.due_after and not seat.is_bot
                    else {}
                ),
                private=bool(game.private) and number == game.creator_seat,
            )
    elif transition.finished:
        game_over_mails(session, runtime, transition, seats)
    elif not created:
        for number in sorted(newly_due):
            seat = seats[number]
            if seat.notify != "every_turn":
                continue
            if invitation_says_due(session, runtime, game, seat, seats, clocks[number], transition):
                continue
            defer_seat_mail(
                session,
                runtime,
                game,
                seat,
                "your_turn",
                f"your_turn:{game.id}:{number}:{game.head_seq}",
                start=history_start(game, seat),
                others=[seats[other].name for other in sorted(transition.due_after - {number})],
                deadline=clocks[number].deadline_at,
                quiet=quiet_window(runtime),
            )


def invitation_context(seats: dict[int, Seat], number: int, due: bool) -> dict[str, Any]:
    """What an invitation says beyond every seat mail's context: the other players, and
    whether the seat is due (``due``)."""
    return {
        "due": due,
        "already": False,
        "movers": [],
        "players": [
            {"name": other.name, "bot": other.is_bot}
            for other_number, other in sorted(seats.items())
            if other_number != number
        ],
    }


def invitation_says_due(
    session: Session,
    runtime: Runtime,
    game: Game,
    seat: Seat,
    seats: dict[int, Seat],
    clock: SeatClock,
    transition: Any,
) -> bool:
    """When a seat's turn begins before its invitation went out (bots moved first), the
    invitation is rendered again to say "it is already your turn" (with the deadline)
    and is the only mail: True. False when the invitation was sent (or is being sent):
    a "your turn" mail is due as usual. Only while bots alone have moved: once a person
    has played, the game is under way and the turn gets its own mail."""
    if any(other.last_move_seq is not None and not other.is_bot for other in seats.values()):
        return False
    invitation = session.exec(
        select(Mail).where(
            Mail.game_id == game.id,
            Mail.seat == seat.seat,
            Mail.kind == "invitation",
            Mail.status == "pending",
            Mail.attempts == 0,
        )
    ).first()
    if invitation is None:
        return False
    token = seat_token(session, runtime, seat)
    settings = settings_link(runtime, seat) if seat.token_hash else ""
    context = {
        **seat_context(runtime, game, seat, token, settings, clock.deadline_at),
        **invitation_context(seats, seat.seat, True),
        "already": True,
        "movers": [
            other.name
            for _, other in sorted(seats.items())
            if other.is_bot and other.last_move_seq is not None
        ],
        **inbound_context(runtime, session, game, transition.engine, transition.after, seat),
    }
    subject, text, html, unsubscribe = sealed_render(runtime, "invitation", context, settings)
    # The key names the event the seat became due at: a reply's tag names that turn.
    key = f"invitation:{game.id}:{seat.seat}:{game.head_seq}"
    result = session.exec(
        update(Mail)
        .where(col(Mail.id) == invitation.id, col(Mail.status) == "pending")
        .values(
            key=key,
            subject=subject,
            body_text=text,
            body_html=html,
            unsubscribe=unsubscribe,
        )
        .execution_options(synchronize_session=False)
    )
    return bool(result.rowcount)


def quiet_window(runtime: Runtime) -> timedelta:
    """How long a "your turn" mail waits before it goes (``mail.quiet_minutes``)."""
    minutes = float(runtime.config["mail"].get("quiet_minutes", 0) or 0)
    return timedelta(minutes=max(minutes, 0.0))


def check_invitations(session: Session, runtime: Runtime, addresses: list[str]) -> None:
    """Refuses (:class:`TooMany`, which undoes the whole creation) invitations beyond
    ``limits.invitations_per_address_per_day`` to one address in 24 hours, counted in
    the outbox so that every worker agrees."""
    limit = int(runtime.config.get("limits", {}).get("invitations_per_address_per_day", 0))
    if limit <= 0:
        return
    since = utc(runtime.clock()) - timedelta(days=1)
    wanted = Counter(canonical_address(address) for address in addresses if address)
    for address, count in sorted(wanted.items()):
        earlier = session.exec(
            select(func.count())
            .select_from(Mail)
            .where(
                Mail.kind == "invitation",
                _one_person(Mail.recipient, address),
                col(Mail.created_at) >= since,
            )
        ).one()
        if earlier + count > limit:
            raise TooMany(
                f"This server sends {address} at most {limit} invitations in 24 hours; "
                "please try again tomorrow."
            )


def _one_person(column: Any, canonical: str) -> Any:
    """A condition: ``column`` holds an address of the person ``canonical`` names (the
    address itself in any case, or its local part with any ``+tag``), the same on
    SQLite and PostgreSQL."""
    local, _, domain = canonical.rpartition("@")
    if not local:
        return func.lower(column) == canonical

    def escaped(text: str) -> str:
        return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")

    tagged = f"{escaped(local)}+%@{escaped(domain)}"
    return or_(func.lower(column) == canonical, func.lower(column).like(tagged, escape="\\"))
