"""Each seat's clock for its turn (:class:`~pbem.games.tables.SeatClock`): when the turn
began, the next reminder and the deadline, kept in the transaction of every appended
batch of events.

A seat's clock starts when its turn begins (:func:`turns_begun`) and stops when it is no
longer due or the game ends; a seat a bot plays keeps no timers. The sweep
(:mod:`pbem.scheduler`) reads the clocks to send reminders and act at deadlines.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any

from sqlalchemy import bindparam
from sqlmodel import Session, select

from pbem.db import Prepared, write
from pbem.eventlog.log import MOVE_KINDS
from pbem.games.outcomes import Transition
from pbem.games.tables import SeatClock


def turns_begun(transition: Transition) -> frozenset[int]:
    """The seats whose turn begins with this batch: due now and not before, or (with
    simultaneous choices) due again for a new choice after moving while the set of due
    seats changed. A seat that stays due through its own moves (rolling on) is not."""
    moved = {row["seat"] for row in transition.events if row["kind"] in MOVE_KINDS}
    changed = transition.due_after != transition.due_before
    return frozenset(
        seat
        for seat in transition.due_after
        if seat not in transition.due_before or (changed and seat in moved)
    )


def turn_goes_on(transition: Transition, newly_due: frozenset[int]) -> bool:
    """Whether the batch is moves of seats that keep the turn (no turn begins or ends,
    the game goes on): no clock changes."""
    return (
        transition.events[0]["kind"] != "created"
        and not transition.finished
        and not newly_due
        and transition.due_after == transition.due_before
        and all(row["kind"] in MOVE_KINDS for row in transition.events)
    )


def start_turn(clock: Any, policy: dict[str, Any], now: datetime) -> None:
    """Starts a seat's timers for a new turn (after any vacation it is on)."""
    clock.turn_since = now
    clock.reminders = 0
    base = max(now, clock.paused_until) if clock.paused_until else now
    first = float(policy.get("reminder_after_hours", 0))
    days = float(policy.get("deadline_after_days", 0))
    clock.remind_at = base + timedelta(hours=first) if first > 0 else None
    clock.deadline_at = base + timedelta(days=days) if days > 0 else None


def stop_turn(clock: Any) -> None:
    clock.turn_since = None
    clock.remind_at = None
    clock.deadline_at = None
    clock.reminders = 0


def keep_clocks(
    session: Session,
    transition: Transition,
    seats: dict[int, Any],
    newly_due: frozenset[int],
    now: datetime,
) -> dict[int, Any]:
    """The seats' clocks moved on for this batch, by seat, written in its transaction:
    stopped for a seat no longer due (every seat when the game ends), started for a seat
    whose turn begins (not a bot's)."""
    if transition.clocks is not None:
        # The move read the clocks with the game (plain rows): write back only what
        # changed, in plain statements (into the move's batch).
        return _keep_read_clocks(session, transition.game.id, seats, transition, newly_due, now)
    game = transition.game
    clocks: dict[int, Any] = {
        row.seat: row for row in session.exec(select(SeatClock).where(SeatClock.game_id == game.id))
    }
    for number, seat in seats.items():
        clock = clocks.get(number)
        if clock is None:
            clock = clocks[number] = SeatClock(game_id=game.id, seat=number)
        if number not in transition.due_after or transition.finished:
            stop_turn(clock)
        elif number in newly_due and not seat.is_bot:
            start_turn(clock, game.policy, now)
        session.add(clock)
    return clocks


_CLOCK_FIELDS = ("turn_since", "remind_at", "deadline_at", "reminders")
_CLOCK_INSERT = Prepared(
    SeatClock.__table__.insert(), [column.key for column in SeatClock.__table__.columns]
)
_CLOCK_UPDATE = Prepared(
    SeatClock.__table__.update()
    .where(
        SeatClock.__table__.c.game_id == bindparam("b_game"),
        SeatClock.__table__.c.seat == bindparam("b_seat"),
    )
    .values({name: bindparam(name) for name in _CLOCK_FIELDS})
)


def _keep_read_clocks(
    session: Session,
    game_id: str,
    seats: dict[int, Any],
    transition: Transition,
    newly_due: frozenset[int],
    now: datetime,
) -> dict[int, Any]:
    """The seats' clocks moved on for this batch (a move that does not end the game):
    the changed ones updated, missing ones inserted, through the move's write batch
    (:func:`pbem.db.write`)."""
    clocks = dict(transition.clocks or {})
    changed, missing = [], []
    for number, seat in seats.items():
        clock = clocks.get(number)
        if clock is None:
            clock = clocks[number] = SimpleNamespace(
                game_id=game_id,
                seat=number,
                turn_since=None,
                remind_at=None,
                deadline_at=None,
                reminders=0,
                paused_until=None,
                vacation_days_used=0.0,
            )
            missing.append(clock)
        was = tuple(getattr(clock, name) for name in _CLOCK_FIELDS)
        if number not in transition.due_after:
            stop_turn(clock)
        elif number in newly_due and not seat.is_bot:
            start_turn(clock, transition.game.policy, now)
        if clock in missing:
            continue
        if tuple(getattr(clock, name) for name in _CLOCK_FIELDS) != was:
            values = {name: getattr(clock, name) for name in _CLOCK_FIELDS}
            changed.append({"b_game": game_id, "b_seat": number, **values})
    if changed:
        write(session, _CLOCK_UPDATE, changed)
    if missing:
        write(session, _CLOCK_INSERT, [vars(clock) for clock in missing])
    return clocks
