"""Vacations: a seat's deadlines pause for whole days.

- :func:`start_vacation` (``vacation``): the seat's deadlines pause for whole days,
  within ``scheduler.max_vacation_days`` per game; the others are told.
- :func:`end_vacation` (``vacation_ended``): the seat's player is back early; only the
  time used is charged, to the nearest hour (back within half an hour costs nothing),
  and the clock runs again; the others are told.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session, col, select

from engines.text import Text
from pbem import zones
from pbem.errors import BadInput, Rejected
from pbem.games.context import Runtime
from pbem.games.seat_changes import (
    RescueOutcome,
    active_seat,
    append_event,
    permission,
    seat_clock,
)
from pbem.games.seat_rules import Permission, count_request
from pbem.games.tables import SeatClock
from pbem.i18n import T, Tn
from pbem.models import Game
from pbem.zones import utc

WHOLE_DAYS = re.compile(r"[0-9]{1,4}")


def vacation_days(days: Any, cap: int) -> int:
    """``days`` as a whole number of days from 1 to ``cap``, or :class:`BadInput`."""
    sentence = T("A vacation lasts whole days: give a number from 1 to %(cap)d.", cap=cap)
    if isinstance(days, bool):
        raise BadInput(sentence)
    if isinstance(days, str) and WHOLE_DAYS.fullmatch(days.strip()):
        days = int(days.strip())
    elif isinstance(days, float) and days.is_integer():
        days = int(days)
    if not isinstance(days, int) or not 1 <= days <= cap:
        raise BadInput(sentence)
    return days


def start_vacation(
    runtime: Runtime, game_id: str, seat: int, days: Any, by: int | None = None
) -> RescueOutcome:
    """Pauses the seat's reminders and deadlines for whole ``days`` (within the cap)."""
    cap = int(float(runtime.config["scheduler"]["max_vacation_days"]))
    days = vacation_days(days, cap)
    target = active_seat(runtime, game_id, seat)
    permitted = permission(runtime, game_id, "vacation", seat, seat if by is None else by)
    assert isinstance(permitted, Permission)
    now = utc(runtime.clock())
    until = now + timedelta(days=days)

    def change(session: Session, game: Game) -> None:
        clock = seat_clock(session, game_id, seat)
        left = cap - clock.vacation_days_used
        if days > left + 1e-9:
            raise Rejected(allowance_left(cap, left))
        count_request(session, runtime, game_id, seat, "vacation")
        clock.vacation_days_used += days
        clock.paused_until = until
        if clock.deadline_at is not None:
            clock.deadline_at += timedelta(days=days)
        if clock.remind_at is not None:
            clock.remind_at = max(clock.remind_at, until)
        session.add(clock)

    return append_event(
        runtime,
        game_id,
        "vacation",
        target,
        permitted,
        change,
        days=days,
        until=_iso(until),
        notify_target=False,
    )


def end_vacation(runtime: Runtime, game_id: str, seat: int, by: int | None = None) -> RescueOutcome:
    """Ends the seat's vacation now: the time not used, to the nearest hour, is given
    back to the seat's allowance, and a due
    seat's clock runs again with the deadline as far off as it was when the vacation
    began (now + what was left then; a turn that began during the vacation gets the
    policy's full time) and the first reminder ``reminder_after_hours`` from now."""
    target = active_seat(runtime, game_id, seat)
    permitted = permission(runtime, game_id, "vacation", seat, seat if by is None else by)
    assert isinstance(permitted, Permission)
    now = utc(runtime.clock())
    away = T("You are not on vacation in this game; nothing was changed.")

    def change(session: Session, game: Game) -> None:
        clock = seat_clock(session, game_id, seat)
        if clock.paused_until is None or utc(clock.paused_until) <= now:
            raise Rejected(away)
        until = utc(clock.paused_until)
        unused_hours = round((until - now) / timedelta(hours=1))
        clock.vacation_days_used = max(clock.vacation_days_used - unused_hours / 24, 0.0)
        if clock.deadline_at is not None:
            clock.deadline_at = now + max(utc(clock.deadline_at) - until, timedelta(0))
        if clock.turn_since is not None and clock.remind_at is not None:
            first = float(game.policy.get("reminder_after_hours", 0))
            clock.remind_at = now + timedelta(hours=first) if first > 0 else None
        clock.paused_until = None
        session.add(clock)

    with runtime.service.reading() as session:
        clock = session.get(SeatClock, (game_id, seat))
    if clock is None or clock.paused_until is None or utc(clock.paused_until) <= now:
        raise Rejected(away)
    return append_event(
        runtime,
        game_id,
        "vacation_ended",
        target,
        permitted,
        change,
        notify_target=False,
    )


def away_until(runtime: Runtime, game_id: str) -> dict[int, datetime]:
    """The seats of the game on vacation now, and until when (UTC)."""
    now = utc(runtime.clock())
    with runtime.service.reading() as session:
        clocks = session.exec(
            select(SeatClock).where(
                SeatClock.game_id == game_id, col(SeatClock.paused_until).is_not(None)
            )
        ).all()
    return {
        clock.seat: utc(clock.paused_until)
        for clock in clocks
        if clock.paused_until is not None and utc(clock.paused_until) > now
    }


def mark_away(shown: list[dict], away: dict[int, datetime], zone: str | None) -> None:
    """Marks each player of a page's list who is on vacation with until when, in the
    reader's ``zone`` (UTC, named, and for the page's script to show in the browser's
    zone, for a reader without a seat)."""
    for player in shown:
        until = away.get(player["seat"])
        if until is not None:
            player["away"] = {
                "at": zones.stamp(until, zone or "UTC"),
                "iso": zones.iso_utc(until),
                "local": zone is None,
            }


def time_left(days: float) -> str:
    """What is left of a vacation allowance, in words: "2 days and 21 hours"."""
    hours = max(round(days * 24), 0)
    whole, rest = divmod(hours, 24)
    parts = [
        f"{count} {unit}{'' if count == 1 else 's'}"
        for count, unit in ((whole, "day"), (rest, "hour"))
        if count
    ]
    return " and ".join(parts) or "nothing is"


def allowance_left(cap: float, days: float) -> Text:
    """The refusal of a vacation longer than what is left of the allowance ``cap``."""
    hours = max(round(days * 24), 0)
    whole, rest = divmod(hours, 24)
    if not hours:
        return T(
            "This game allows %(cap)s days of vacation per seat; nothing is left.",
            cap=format(cap, "g"),
        )
    days_part = Tn("%(num)d day", "%(num)d days", whole)
    hours_part = Tn("%(num)d hour", "%(num)d hours", rest)
    if whole and rest:
        return T(
            "This game allows %(cap)s days of vacation per seat; %(days)s and %(hours)s left.",
            cap=format(cap, "g"),
            days=days_part,
            hours=hours_part,
        )
    return T(
        "This game allows %(cap)s days of vacation per seat; %(left)s left.",
        cap=format(cap, "g"),
        left=days_part if whole else hours_part,
    )


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")
