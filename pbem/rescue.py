"""Rescuing games: bot seats, replacement players, reclaiming, vacations.

Each action is one administrative event in the game's log (a line in its history),
appended by :meth:`GameService.append_admin` with its read-model change and its mails in
the same transaction. The functions the web calls:

- :func:`hand_to_bot` (``seat_to_bot``): a bot plays the seat until a human reclaims it;
  the seat's link keeps working, so its player can reclaim it.
- :func:`invite_replacement` (``seat_replaced``): a new player takes the seat; the old
  link stops working at once and the new player is mailed a fresh one, which shows the
  seat's view and its whole history.
- :func:`reclaim` (``seat_reclaimed``): a bot seat goes back to its player, who is
  mailed a fresh link (the old one stops working).
- :func:`start_vacation` (``vacation``): the seat's deadlines pause for some days,
  within ``scheduler.max_vacation_days`` per game; the others are told.
- :func:`offer_seat` (``seat_offered``): the deadline policy ``replace``; the old link is
  revoked and a fresh one goes to the game's creator (or the other players) to pass on.

``by`` names who asks: ``None`` is the operator or the scheduler (always allowed); the
game's creator seat is allowed at once; any other seat's request is a vote, carried out
when a majority of the seats other than the one concerned asked for the same thing.
:func:`reclaim` by the seat itself and :func:`start_vacation` need no vote. Every
function returns a :class:`RescueOutcome`; refusals raise the service's errors with a
message fit to show the player.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session, delete, select

from pbem.errors import BadInput, NotFound, Rejected
from pbem.mail import outbox
from pbem.mail.models import RescueVote, SeatClock, utc
from pbem.models import Game, Seat
from pbem.service import hash_token, new_token

HEADLINES = {
    "seat_to_bot": "A bot takes over a seat",
    "seat_replaced": "A new player takes over a seat",
    "seat_reclaimed": "A player is back",
    "vacation": "A player is on vacation",
    "seat_offered": "A seat is offered to a new player",
}


@dataclass
class RescueOutcome:
    """What a rescue request did: carried out (``seq`` of its event) or a vote counted."""

    done: bool
    message: str
    seq: int | None = None
    votes: int = 0
    needed: int = 0
    token: str | None = field(default=None, repr=False)


@dataclass
class Permission:
    """Who carried a rescue action: operator, creator, vote (with its voters), player,
    deadline."""

    by: str
    voters: list[int] = field(default_factory=list)


Claim = Callable[[Session], None]


def describe_admin(row: dict[str, Any]) -> str:
    """The history line of an administrative event (empty for kinds without one)."""
    payload = row.get("payload") or {}
    name = payload.get("name", f"seat {row.get('seat')}")
    by = {
        "creator": " (by the game's creator)",
        "vote": " (by a vote of the other players)",
        "deadline": " (the deadline passed)",
        "operator": " (by the server's operator)",
    }.get(payload.get("by", ""), "")
    kind = row.get("kind")
    if kind == "seat_to_bot":
        return f"A bot takes over {name}'s seat{by}."
    if kind == "seat_replaced":
        return f"{payload.get('new_name', 'A new player')} takes over {name}'s seat{by}."
    if kind == "seat_reclaimed":
        return f"{name} takes their seat back from the bot."
    if kind == "vacation":
        return f"{name} is on vacation until {payload.get('until', '?')}; deadlines pause."
    if kind == "seat_offered":
        return f"{name}'s seat is offered to a new player{by}; the old link no longer works."
    if kind == "take_back":
        return f"The game is taken back to event {payload.get('to_seq')}."
    return ""


# Actions -----------------------------------------------------------------------------


def hand_to_bot(
    runtime: Any,
    game_id: str,
    seat: int,
    by: int | None = None,
    claim: Claim | None = None,
    level: str = "normal",
) -> RescueOutcome:
    """A bot plays ``seat`` from now on, until its player reclaims it. ``claim`` (the
    scheduler's guard against acting twice) runs first in the event's transaction.
    ``level`` is the bot's level ("easy" or "normal")."""
    from engines import bot_levels_of, get_engine

    levels = bot_levels_of(get_engine(runtime.service.game(game_id).engine))
    if level not in levels:
        raise BadInput(f"A bot plays this game at one of these levels: {', '.join(levels)}.")
    target = _seat(runtime, game_id, seat)
    if target.is_bot:
        return RescueOutcome(True, f"A bot already plays {target.name}'s seat.")
    permitted = (
        Permission("deadline")
        if claim is not None
        else _permit(runtime, game_id, f"seat_to_bot:{seat}", by, seat)
    )
    if isinstance(permitted, RescueOutcome):
        return permitted

    def change(session: Session, game: Game) -> None:
        row = _locked_seat(session, game_id, seat)
        if row.is_bot:
            raise Rejected(f"A bot already plays {row.name}'s seat.")
        row.is_bot = True
        row.bot_level = level
        session.add(row)
        outbox.stop_turn(_clock(session, game_id, seat))
        _clear_votes(session, game_id, f"seat_to_bot:{seat}")

    outcome = _append(runtime, game_id, "seat_to_bot", target, permitted, change, claim=claim)
    runtime.service.play_bots(game_id)
    return outcome


def invite_replacement(
    runtime: Any,
    game_id: str,
    seat: int,
    name: str,
    email: str,
    by: int | None = None,
    timezone: str = "UTC",
) -> RescueOutcome:
    """A new player takes ``seat``: the old link is revoked, the new one mailed to them.

    ``by == seat`` is someone holding the link of a seat offered at its deadline (a seat
    without a player): they take it themselves."""
    name, email = (name or "").strip(), (email or "").strip()
    if not name or len(name) > 200:
        raise BadInput("Give the new player's name (at most 200 characters).")
    if "@" not in email or len(email) > 320 or any(c.isspace() for c in email):
        raise BadInput("Give the new player's email address, like anna@example.org.")
    target = _seat(runtime, game_id, seat)
    action = f"seat_replaced:{seat}:{email.lower()}"
    open_seat = by == seat and not target.email and not target.is_bot
    permitted = Permission("player") if open_seat else _permit(runtime, game_id, action, by, seat)
    if isinstance(permitted, RescueOutcome):
        return permitted
    token = new_token()

    def change(session: Session, game: Game) -> None:
        row = _locked_seat(session, game_id, seat)
        if open_seat and row.email:
            raise Rejected("Someone has taken this seat already.")
        row.name, row.email, row.timezone = name, email, timezone or "UTC"
        row.is_bot = False
        row.notify = "every_turn"
        _give_link(
            session,
            runtime,
            game,
            row,
            token,
            f"You are invited to take over {target.name}'s seat in {game.title}.",
        )
        _clear_votes(session, game_id, action)

    outcome = _append(
        runtime,
        game_id,
        "seat_replaced",
        target,
        permitted,
        change,
        new_name=name,
        notify_target=False,
    )
    outcome.token = token
    return outcome


def reclaim(runtime: Any, game_id: str, seat: int, by: int | None = None) -> RescueOutcome:
    """A bot seat goes back to its player, with a fresh link mailed to them."""
    target = _seat(runtime, game_id, seat)
    if not target.is_bot:
        raise Rejected(f"{target.name}'s seat is not played by a bot.")
    if not target.email:
        raise Rejected("This seat has no player to give it back to; invite a new player.")
    if by == seat:
        permitted: Permission | RescueOutcome = Permission("player")
    else:
        permitted = _permit(runtime, game_id, f"seat_reclaimed:{seat}", by, seat)
        if isinstance(permitted, RescueOutcome):
            return permitted
    token = new_token()

    def change(session: Session, game: Game) -> None:
        row = _locked_seat(session, game_id, seat)
        if not row.is_bot:
            raise Rejected(f"{row.name}'s seat is not played by a bot.")
        row.is_bot = False
        _give_link(
            session,
            runtime,
            game,
            row,
            token,
            "Your seat is yours again; the bot has stopped. Here is your fresh link "
            "(the old one no longer works).",
        )
        _clear_votes(session, game_id, f"seat_reclaimed:{seat}")

    outcome = _append(
        runtime, game_id, "seat_reclaimed", target, permitted, change, notify_target=False
    )
    outcome.token = token
    return outcome


def start_vacation(runtime: Any, game_id: str, seat: int, days: Any) -> RescueOutcome:
    """Pauses the seat's reminders and deadlines for ``days`` days (within the cap)."""
    cap = float(runtime.config["scheduler"]["max_vacation_days"])
    try:
        days = float(days)
    except (TypeError, ValueError):
        raise BadInput("Say how many days of vacation, as a number.") from None
    if not 0 < days <= cap:
        raise BadInput(f"A vacation lasts more than 0 and at most {cap:g} days.")
    target = _seat(runtime, game_id, seat)
    now = utc(runtime.clock())
    until = now + timedelta(days=days)

    def change(session: Session, game: Game) -> None:
        clock = _clock(session, game_id, seat)
        left = cap - clock.vacation_days_used
        if days > left + 1e-9:
            raise Rejected(
                f"This game allows {cap:g} days of vacation per seat; {left:g} are left."
            )
        clock.vacation_days_used += days
        clock.paused_until = until
        if clock.deadline_at is not None:
            clock.deadline_at += timedelta(days=days)
        if clock.remind_at is not None:
            clock.remind_at = max(clock.remind_at, until)
        session.add(clock)

    return _append(
        runtime,
        game_id,
        "vacation",
        target,
        Permission("player"),
        change,
        days=days,
        until=_iso(until),
        notify_target=False,
    )


def offer_seat(runtime: Any, game_id: str, seat: int, claim: Claim | None = None) -> RescueOutcome:
    """Revokes the seat's link and mails a fresh one to the creator (else the others), to
    pass on to a replacement player. ``claim`` runs first in the event's transaction."""
    target = _seat(runtime, game_id, seat)
    token = new_token()

    def change(session: Session, game: Game) -> None:
        row = _locked_seat(session, game_id, seat)
        row.token_hash = hash_token(token)
        row.email = ""
        session.add(row)
        outbox.store_link(session, runtime, game_id, seat, token)
        outbox.stop_turn(_clock(session, game_id, seat))
        seats = session.exec(select(Seat).where(Seat.game_id == game_id)).all()
        receivers = [s for s in seats if s.seat == game.creator_seat and s.seat != seat]
        receivers = receivers or [s for s in seats if s.seat != seat]
        for other in receivers:
            outbox.mail_seat(
                session,
                runtime,
                game,
                other,
                "notice",
                f"seat_offered:{game_id}:{seat}:{other.seat}:{game.head_seq + 1}",
                headline=HEADLINES["seat_offered"],
                lines=[
                    f"{target.name}'s seat is open for a new player. Pass this link on to "
                    "the player who takes it over (whoever opens it plays that seat):",
                    outbox_link(runtime, token),
                ],
            )

    outcome = _append(
        runtime,
        game_id,
        "seat_offered",
        target,
        Permission("deadline"),
        change,
        claim=claim,
        notify_target=False,
        notify_others=False,
    )
    outcome.token = token
    return outcome


def outbox_link(runtime: Any, token: str) -> str:
    from pbem.mail.render import play_url

    return play_url(runtime.config, token)


# Helpers -----------------------------------------------------------------------------


def _give_link(
    session: Session, runtime: Any, game: Game, row: Seat, token: str, message: str
) -> None:
    """Gives a seat a fresh link (the old one stops working) and mails it to the seat;
    a seat that is due starts its turn's clock afresh."""
    row.token_hash = hash_token(token)
    session.add(row)
    outbox.store_link(session, runtime, game.id, row.seat, token)
    clock = _clock(session, game.id, row.seat)
    if row.seat in (game.to_move or []):
        outbox.start_turn(clock, game.policy, utc(runtime.clock()))
    outbox.mail_seat(
        session,
        runtime,
        game,
        row,
        "seat_link",
        f"seat_link:{game.id}:{row.seat}:{game.head_seq + 1}",
        message=message,
        deadline=clock.deadline_at,
    )


def _seat(runtime: Any, game_id: str, seat: int) -> Seat:
    if isinstance(seat, bool) or not isinstance(seat, int):
        raise BadInput("Name the seat by its number.")
    with runtime.service.session() as session:
        game = runtime.service.store.game(session, game_id)
        if game.status != "active":
            raise Rejected("This game is over; its seats cannot change any more.")
        row = session.get(Seat, (game_id, seat))
        if row is None:
            raise NotFound("There is no such seat in this game.")
        return row


def _locked_seat(session: Session, game_id: str, seat: int) -> Seat:
    row = session.get(Seat, (game_id, seat))
    if row is None:
        raise NotFound("There is no such seat in this game.")
    return row


def _clock(session: Session, game_id: str, seat: int) -> SeatClock:
    clock = session.get(SeatClock, (game_id, seat))
    if clock is None:
        clock = SeatClock(game_id=game_id, seat=seat)
    session.add(clock)
    return clock


def _permit(
    runtime: Any, game_id: str, action: str, by: int | None, target: int
) -> Permission | RescueOutcome:
    """Whether ``by`` may do ``action`` now (the operator, the creator, or a majority of
    the other seats): a :class:`Permission`, or the outcome of the vote ``by`` cast."""
    game = runtime.service.game(game_id)
    if by is None:
        return Permission("operator")
    if isinstance(by, bool) or not isinstance(by, int) or not 0 <= by < game.seat_count:
        raise BadInput("Only a player of this game can ask for that.")
    if by == game.creator_seat:
        return Permission("creator")
    if by == target:
        raise Rejected("The other players decide about your seat; ask them or the creator.")
    needed = (game.seat_count - 1) // 2 + 1
    with runtime.service.session() as session:
        if session.get(RescueVote, (game_id, action, by)) is None:
            session.add(
                RescueVote(
                    game_id=game_id, action=action, voter=by, created_at=utc(runtime.clock())
                )
            )
            session.commit()
        voters = sorted(
            session.exec(
                select(RescueVote.voter).where(
                    RescueVote.game_id == game_id, RescueVote.action == action
                )
            )
        )
    voters = [voter for voter in voters if voter != target]
    if len(voters) >= needed:
        return Permission("vote", voters)
    return RescueOutcome(
        False,
        f"Your vote is counted: {len(voters)} of the {needed} needed.",
        votes=len(voters),
        needed=needed,
    )


def _clear_votes(session: Session, game_id: str, action: str) -> None:
    session.exec(
        delete(RescueVote).where(RescueVote.game_id == game_id, RescueVote.action == action)
    )


def _append(
    runtime: Any,
    game_id: str,
    kind: str,
    target: Seat,
    permitted: Permission,
    change: Callable[[Session, Game], None],
    claim: Claim | None = None,
    notify_target: bool = True,
    notify_others: bool = True,
    **fields: Any,
) -> RescueOutcome:
    """Appends the event; its change, and the notices to the players, in one transaction."""
    payload = {"seat": target.seat, "name": target.name, "by": permitted.by, **fields}
    if permitted.voters:
        payload["voters"] = permitted.voters
    line = describe_admin({"kind": kind, "seat": target.seat, "payload": payload})

    def change_and_tell(session: Session, game: Game) -> None:
        if claim is not None:
            claim(session)
        change(session, game)
        seq = game.head_seq + 1
        for other in session.exec(select(Seat).where(Seat.game_id == game_id)):
            if other.seat == target.seat and not notify_target:
                continue
            if other.seat != target.seat and not notify_others:
                continue
            outbox.mail_seat(
                session,
                runtime,
                game,
                other,
                "notice",
                f"{kind}:{game_id}:{seq}:{other.seat}",
                headline=HEADLINES[kind],
                lines=[line],
            )

    outcome = runtime.service.append_admin(
        game_id, kind, target.seat, payload, actor=permitted.by, change=change_and_tell
    )
    return RescueOutcome(True, line, seq=outcome.seq)


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")
