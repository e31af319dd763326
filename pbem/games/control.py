"""Game-level control: the creator (from their seat's link) or the operator (from the
command line) changes a running game's deadline policy, or pauses and resumes it.

Each action is one event in the game's log (``policy_changed``, ``game_paused``,
``game_resumed``, folded into the roster by :mod:`pbem.eventlog.roster`), appended by
:meth:`GameService.append_admin` with its read-model change and a notice to every
human seat, in one transaction. A refusal changes nothing.

- :func:`change_policy`: the game's policy becomes the new one (checked, defaults
  filled in). The due seats' clocks are re-timed from their turn's start: the first
  reminder ``reminder_after_hours`` after it (later ones every ``reminder_every_hours``
  after that, counting the reminders already sent); the deadline
  ``deadline_after_days`` after it, plus whatever vacations and pauses added to the old
  one. A change never makes a running turn due sooner, nor its next reminder: a
  shorter policy applies from the next turn, a longer one lengthens the running turn;
  a turn that had no deadline gets the whole new one from the change, and one that had
  no reminder coming gets none sooner than an hour after the change. A deadline that
  already passed this turn (the game waited) stays passed unless the new one lies in
  the future, or the new policy acts at the deadline where the old one waited (then it
  acts at the next sweep: the seat is absent already).
- :func:`pause_game`: no moves (the service refuses them), no reminders, deadlines,
  digest entries or bot moves until the game is resumed.
- :func:`resume_game`: every due seat's deadline and next reminder move later by the
  length of the pause.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session, select

from pbem.errors import BadInput, NotAllowed, NotFound, Rejected
from pbem.games.admin_lines import HEADLINES, describe_game_change
from pbem.games.context import Runtime
from pbem.games.notices import Notice
from pbem.games.outcomes import MoveOutcome
from pbem.games.policy import POLICY_FLOORS, check_policy
from pbem.games.tables import SeatClock
from pbem.i18n import T
from pbem.models import Game, Seat
from pbem.validate import is_game_id
from pbem.zones import utc

# The history line of each kind (also the first line of its notice mail).
describe = describe_game_change


def change_policy(
    runtime: Runtime, game_id: str, policy: Any, by: int | None = None
) -> MoveOutcome:
    """The game's deadline policy becomes ``policy`` (a mapping; missing settings keep
    the game's current values). ``by``: the creator's seat, or None for the operator."""
    game = _game(runtime, game_id)
    who = _who(game, by)
    if not isinstance(policy, dict):
        raise BadInput(T("A deadline policy is a set of named settings."))
    new = check_policy({**game.policy, **policy})
    if new == _checked_or_none(game.policy):
        raise Rejected(T("That is the game's policy already; nothing was changed."))
    now = utc(runtime.clock())

    def change(session: Session, fresh: Game) -> None:
        _still_active(fresh)
        old = dict(fresh.policy)
        fresh.policy = new
        session.add(fresh)
        for clock in _due_clocks(session, fresh):
            _retime(clock, old, new, now)
            session.add(clock)

    return _append(runtime, game_id, "policy_changed", {"policy": new, "by": who}, change)


def pause_game(runtime: Runtime, game_id: str, by: int | None = None) -> MoveOutcome:
    """Pauses the whole game until :func:`resume_game`."""
    game = _game(runtime, game_id)
    who = _who(game, by)
    if game.paused_at is not None:
        raise Rejected(T("The game is paused already; nothing was changed."))
    now = utc(runtime.clock())

    def change(session: Session, fresh: Game) -> None:
        _still_active(fresh)
        if fresh.paused_at is not None:
            raise Rejected(T("The game is paused already; nothing was changed."))
        fresh.paused_at = now
        session.add(fresh)

    return _append(runtime, game_id, "game_paused", {"by": who}, change)


def resume_game(runtime: Runtime, game_id: str, by: int | None = None) -> MoveOutcome:
    """Resumes a paused game: every due seat's clock moves later by the pause."""
    game = _game(runtime, game_id)
    who = _who(game, by)
    if game.paused_at is None:
        raise Rejected(T("The game is not paused; nothing was changed."))
    now = utc(runtime.clock())

    def change(session: Session, fresh: Game) -> None:
        _still_active(fresh)
        if fresh.paused_at is None:
            raise Rejected(T("The game is not paused; nothing was changed."))
        pause = max(now - utc(fresh.paused_at), timedelta(0))
        fresh.paused_at = None
        session.add(fresh)
        for clock in _due_clocks(session, fresh):
            if clock.deadline_at is not None:
                clock.deadline_at = utc(clock.deadline_at) + pause
            if clock.remind_at is not None:
                clock.remind_at = utc(clock.remind_at) + pause
            session.add(clock)

    return _append(runtime, game_id, "game_resumed", {"by": who}, change)


# Helpers -----------------------------------------------------------------------------


def _game(runtime: Runtime, game_id: Any) -> Game:
    if not isinstance(game_id, str) or not is_game_id(game_id):
        raise NotFound(T("There is no such game."))
    game = runtime.service.game(game_id)
    if game.status != "active":
        raise Rejected(T("This game is over; its settings cannot change any more."))
    return game


def _still_active(game: Game) -> None:
    if game.status != "active":
        raise Rejected(T("This game is over; its settings cannot change any more."))


def _who(game: Game, by: int | None) -> str:
    """ "operator" for None, "creator" for the creator's seat; anyone else is refused."""
    if by is None:
        return "operator"
    if isinstance(by, bool) or not isinstance(by, int) or by != game.creator_seat:
        raise NotAllowed(T("Only the game's creator or the server's operator can do that."))
    return "creator"


def _checked_or_none(policy: dict[str, Any]) -> dict[str, Any] | None:
    """The stored policy checked, or None for one from before the floors (never equal to
    a new one, so that it can be changed)."""
    try:
        return check_policy(policy)
    except BadInput:
        return None


def _due_clocks(session: Session, game: Game) -> list[SeatClock]:
    """The clocks of the seats whose turn runs (due, a person, with a turn start)."""
    due = set(game.to_move or [])
    return [
        clock
        for clock in session.exec(select(SeatClock).where(SeatClock.game_id == game.id))
        if clock.seat in due and clock.turn_since is not None
    ]


def _retime(clock: SeatClock, old: dict[str, Any], new: dict[str, Any], now: datetime) -> None:
    """Re-times a due seat's reminders and deadline from its turn's start (see the
    module's docstring)."""
    start = utc(clock.turn_since)
    after = float(new.get("reminder_after_hours", 0))
    every = float(new.get("reminder_every_hours", 0))
    was_reminding = clock.remind_at
    if after <= 0 or (clock.reminders > 0 and every <= 0):
        clock.remind_at = None
    else:
        clock.remind_at = start + timedelta(hours=after + every * clock.reminders)
    if clock.paused_until and clock.remind_at and utc(clock.paused_until) > now:
        clock.remind_at = max(clock.remind_at, utc(clock.paused_until))
    if clock.remind_at is not None:
        # Never sooner than the reminder that was coming (or an hour from now).
        soonest = (
            utc(was_reminding)
            if was_reminding is not None
            else now + timedelta(hours=POLICY_FLOORS["reminder_after_hours"])
        )
        clock.remind_at = max(clock.remind_at, soonest)
    old_days = float(old.get("deadline_after_days", 0))
    new_days = float(new.get("deadline_after_days", 0))
    if new_days <= 0:
        clock.deadline_at = None
        return
    if clock.deadline_at is not None:
        # The old deadline with what vacations and pauses added to it; never sooner
        # than the deadline the turn had.
        was_due = utc(clock.deadline_at)
        added = was_due - (start + timedelta(days=old_days))
        if old_days <= 0:
            added = timedelta(0)
        target = start + timedelta(days=new_days) + max(added, timedelta(0))
        clock.deadline_at = max(target, was_due)
        return
    target = start + timedelta(days=new_days)
    if clock.paused_until and utc(clock.paused_until) > start:
        target = max(target, utc(clock.paused_until))
    if old_days <= 0:
        # The turn had no deadline: it gets the whole new one from now on.
        clock.deadline_at = max(target, now + timedelta(days=new_days))
    elif target > now:
        clock.deadline_at = target
    elif old.get("at_deadline", "wait") == "wait" and new.get("at_deadline") != "wait":
        clock.deadline_at = now  # the deadline passed while the game waited: act now


def _append(
    runtime: Runtime, game_id: str, kind: str, payload: dict[str, Any], change: Any
) -> MoveOutcome:
    """Appends the event with its change and a notice to every human seat."""
    line = describe({"kind": kind, "payload": payload})

    def change_and_tell(session: Session, game: Game) -> None:
        change(session, game)
        seq = game.head_seq + 1
        for seat in session.exec(select(Seat).where(Seat.game_id == game_id)):
            runtime.service.tell(
                session,
                Notice(
                    kind="seat_event",
                    key=f"{kind}:{game_id}:{seq}:{seat.seat}",
                    game_id=game_id,
                    seat=seat.seat,
                    facts={"event": kind, "headline": HEADLINES[kind], "lines": [line]},
                ),
            )

    return runtime.service.append_admin(
        game_id, kind, None, payload, actor=payload["by"], change=change_and_tell
    )
