"""Players' time zones and preferred hours: the zones offered, strict checks of what a
form sends, the next occurrence of a local hour, and a time as a reader sees it
(:func:`when`).

Times are kept in UTC everywhere; a zone only says how a player reads them and when
their day begins. A zone is one of :func:`zoneinfo.available_timezones` (less
``localtime`` and ``Factory``, which name no place).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pbem import i18n
from pbem.errors import BadInput
from pbem.i18n import T

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
        raise BadInput(T("Choose a time zone from the list (for example Europe/Berlin or UTC)."))
    return value.strip()


def clean_hour(value: Any) -> int | None:
    """A preferred hour: None for "" or "none", else a whole hour from 0 to 23."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none")):
        return None
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 2:
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 23:
        raise BadInput(T("The preferred hour is a whole hour from 0 to 23, or none."))
    return value


def local(moment: datetime, name: str) -> datetime:
    """``moment`` (UTC when naive) in the zone ``name``."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(zone(name))


def day_and_time(moment: datetime, name: str, language: str = "en") -> str:
    """``moment`` in the zone ``name`` as a day and a time, unnamed: "Sun 06 Dec 2026,
    16:00"; in another ``language`` by Babel: "So., 6. Dez. 2026, 16:00"."""
    there = local(moment, name)
    if (i18n.known(language) or i18n.DEFAULT) == i18n.DEFAULT:
        return f"{there:%a %d %b %Y, %H:%M}"
    return f"{_day(there, language, year=True)}, {there:%H:%M}"


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


# Times as a reader sees them ---------------------------------------------------------


def utc(moment: datetime) -> datetime:
    """``moment`` as an aware datetime in UTC (a naive one is taken to be UTC)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def when(
    moment: datetime | None, timezone: str, now: datetime | None = None, language: str = "en"
) -> str:
    """An absolute time in the reader's zone first, named, then in UTC, and how long is
    left when ``now`` is given and the time is still ahead, e.g.
    "Sun 6 Dec 2026, 16:00 CET (15:00 UTC), in 2 days 3 hours"; in another ``language``
    its days, months and words by Babel: "So., 6. Dez. 2026, 16:00 CET (15:00 UTC), in 2
    Tagen 3 Stunden".

    The zone is named by its abbreviation; where that is only an offset ("+03") the IANA
    name comes first: "Sun 6 Dec 2026, 18:00 Europe/Istanbul (UTC+03, 15:00 UTC)". A
    reader in UTC (or with a zone this server does not know) reads UTC alone."""
    if moment is None:
        return ""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    language = i18n.known(language) or i18n.DEFAULT
    in_utc = moment.astimezone(UTC)
    text = f"{_day(in_utc, language, year=True)}, {in_utc:%H:%M} UTC"
    zone = _reader_zone(timezone)
    if zone is not None:
        local = in_utc.astimezone(zone)
        name = local.strftime("%Z")
        if name != "UTC" or local.utcoffset():
            utc_day = (
                "" if local.date() == in_utc.date() else f"{_day(in_utc, language, year=False)}, "
            )
            head = f"{_day(local, language, year=True)}, {local:%H:%M}"
            if name[:1] in "+-":
                text = f"{head} {timezone} (UTC{name}, {utc_day}{in_utc:%H:%M} UTC)"
            else:
                text = f"{head} {name} ({utc_day}{in_utc:%H:%M} UTC)"
    left = time_left(in_utc, now, language)
    return f"{text}, {left}" if left else text


def _day(moment: datetime, language: str, year: bool) -> str:
    """The day of ``moment`` as :func:`when` writes it: "Sun 6 Dec 2026" in English (as
    ever), else Babel's medium form in ``language``: "So., 6. Dez. 2026"."""
    if language == i18n.DEFAULT:
        return (
            f"{moment:%a} {moment.day} {moment:%b %Y}"
            if year
            else f"{moment:%a} {moment.day} {moment:%b}"
        )
    from babel.dates import format_skeleton

    return format_skeleton("yMMMEd" if year else "MMMEd", moment, locale=language)


def _reader_zone(timezone: str) -> ZoneInfo | None:
    try:
        return ZoneInfo(timezone) if timezone else None
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None


def time_left(moment: datetime, now: datetime | None, language: str = "en") -> str:
    """How long until ``moment`` from ``now``, rounded down, in its two largest units:
    "in 2 days 3 hours", "in 5 hours 20 minutes", "in 1 minute", "in less than a minute".
    Empty when ``now`` is unknown or ``moment`` is not ahead of it. In ``language``'s
    words and plurals: "in 2 Tagen 3 Stunden", "za 2 dni 3 godziny"."""
    if now is None:
        return ""
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    seconds = int((moment - now).total_seconds())
    if seconds <= 0:
        return ""
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    words = i18n.translation(language)
    # Each count as it reads after "in" ("in 2 days 3 hours"): some languages decline it.
    day = words.ngettext("%(num)d day", "%(num)d days", days) % {"num": days}
    hour = words.ngettext("%(num)d hour", "%(num)d hours", hours) % {"num": hours}
    minute = words.ngettext("%(num)d minute", "%(num)d minutes", minutes) % {"num": minutes}
    if days:
        parts = [day] + ([hour] if hours else [])
    elif hours:
        parts = [hour] + ([minute] if minutes else [])
    elif minutes:
        parts = [minute]
    else:
        return words.gettext("in less than a minute")
    return words.gettext("in %(time)s") % {"time": " ".join(parts)}
