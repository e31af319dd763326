"""Players' time zones and preferred hours: the zones offered, strict checks of what a
form sends, and the next occurrence of a local hour (times as a reader sees them are
:func:`pbem.mail.render.when`).

Times are kept in UTC everywhere; a zone only says how a player reads them and when
their day begins. A zone is one of :func:`zoneinfo.available_timezones` (less
``localtime`` and ``Factory``, which name no place).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pbem.errors import BadInput

NOT_PLACES = frozenset({"localtime", "Factory"})


@cache
def zone_names() -> tuple[str, ...]:
    """Every offered zone, sorted (UTC first)."""
    from zoneinfo import available_timezones

    names = sorted(available_timezones() - NOT_PLACES - {"UTC"})
    return ("UTC", *names)


def zone(name: str) -> ZoneInfo:
    """The zone called ``name``; UTC for a name that is not one (an old row, say)."""
    try:
        return ZoneInfo(name) if name in zone_names() else ZoneInfo("UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


def clean_zone(value: Any) -> str:
    """A zone name exactly as offered, or :class:`BadInput`."""
    if not isinstance(value, str) or value.strip() not in zone_names():
        raise BadInput("Choose a time zone from the list (for example Europe/Berlin or UTC).")
    return value.strip()


def clean_hour(value: Any) -> int | None:
    """A preferred hour: None for "" or "none", else a whole hour from 0 to 23."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none")):
        return None
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 2:
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 23:
        raise BadInput("The preferred hour is a whole hour from 0 to 23, or none.")
    return value


def local(moment: datetime, name: str) -> datetime:
    """``moment`` (UTC when naive) in the zone ``name``."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(zone(name))


def at_hour(day: date, hour: int, name: str) -> datetime | None:
    """``hour``:00 of ``day`` in zone ``name`` as a UTC instant; None when that hour
    does not exist that day (the hour the clocks skip in spring)."""
    place = zone(name)
    moment = datetime.combine(day, time(hour), tzinfo=place)
    instant = moment.astimezone(UTC)
    if instant.astimezone(place).hour != hour:
        return None
    return instant


def next_hour(after: datetime, hour: int, name: str) -> datetime:
    """The first ``hour``:00 in zone ``name`` strictly after ``after`` (in UTC)."""
    day = local(after, name).date()
    for offset in range(4):
        found = at_hour(day + timedelta(days=offset), hour, name)
        if found is not None and found > after:
            return found
    raise AssertionError("an hour of the day occurs within four days")


def in_hour(moment: datetime, hour: int, name: str) -> bool:
    """Whether ``moment`` falls within ``hour`` (hh:00 to hh:59) in zone ``name``."""
    return local(moment, name).hour == hour


def stamp(moment: datetime | str, name: str = "UTC") -> str:
    """A moment as a log line shows it, in the zone ``name`` and named:
    "2026-03-02 10:00 CET", "2026-03-02 09:00 UTC"; where the zone's abbreviation is
    only an offset, its IANA name: "2026-03-02 12:00 Europe/Istanbul". ``moment`` may be
    ISO 8601 text (as events keep it); naive means UTC."""
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment)
    there = local(moment, name)
    label = there.strftime("%Z")
    if not label or label[:1] in "+-":
        label = name if name in zone_names() else "UTC"
    return f"{there:%Y-%m-%d %H:%M} {label}"


def iso_utc(moment: datetime | str) -> str:
    """A moment as ISO 8601 in UTC ("2026-03-02T09:00:00Z"), for ``<time datetime>``."""
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
