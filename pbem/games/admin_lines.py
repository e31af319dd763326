"""How administrative events read in a game's history and in mail: headlines and lines.

Imports nothing from the rest of pbem but :mod:`pbem.zones` and the markers of
:mod:`pbem.i18n`, so that mail and the web pages can use it without depending on the
rescue actions. Every line is a :class:`engines.text.Text`: the English words, shown in
the reader's language where a page or a mail prints it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from engines.text import joined
from pbem import zones
from pbem.i18n import T, Tn


def N_(message: str) -> str:
    """Marks ``message`` for the catalogues (:func:`pbem.i18n.N_`; this module imports
    nothing of pbem's but zones): a notice's headline, translated where a mail shows it."""
    return message


HEADLINES = {
    "seat_to_bot": N_("A bot takes over a seat"),
    "seat_replaced": N_("A new player takes over a seat"),
    "seat_reclaimed": N_("A player is back"),
    "vacation": N_("A player is on vacation"),
    "vacation_ended": N_("A player is back from vacation"),
    "policy_changed": N_("The deadline policy changes"),
    "game_paused": N_("The game is paused"),
    "game_resumed": N_("The game goes on"),
    "seat_offered": N_("A seat is offered to a new player"),
    "seat_left": N_("A player leaves the game"),
    "seat_taken": N_("A new player takes a seat"),
    "seat_resigned": N_("A player resigns"),
    "contribution": N_("A player adds to the dice"),
}

# How a contribution to the draws reached the server (pbem.eventlog.contributions).
CONTRIBUTED_BY = {
    "browser": T("from their browser"),
    "command line": T("from the command line"),
    "server": T("drawn by the server for them (they play by mail, or gave none)"),
}

BY = {
    "creator": T(" (by the game's creator)"),
    "vote": T(" (by a vote of the other players)"),
    "deadline": T(" (the deadline passed)"),
    "operator": T(" (by the server's operator)"),
    "player": T(" (at the player's own request)"),
}

# Game-level changes (pbem.games.control) say who made them without parentheses.
BY_GAME = {"creator": T(" by the game's creator"), "operator": T(" by the server's operator")}


# What happens at the deadline, after ``days`` (a phrase with a count, see policy_text).
def _consequence(at_deadline: str, days: Any) -> Any:
    if at_deadline == "wait":
        return T("after %(days)s the game waits (reminders go on)", days=days)
    if at_deadline == "bot_turn":
        return T("after %(days)s a bot plays that turn", days=days)
    if at_deadline == "bot_seat":
        return T("after %(days)s a bot takes over the seat (its player may reclaim it)", days=days)
    if at_deadline == "replace":
        return T("after %(days)s the seat is offered to a new player", days=days)
    return T("after %(days)s ", days=days)


BY_WHOM = {
    "vote": T("by a vote of the other players"),
    "deadline": T("because your turn's deadline passed"),
    "operator": T("by the server's operator"),
    "player": T("at your own request"),
}


def describe_admin(row: dict[str, Any], zone: str | None = None) -> str:
    """The history line of an administrative event (empty for kinds without one), its
    times in ``zone`` (the reader's; UTC, named, for a reader without one)."""
    payload = row.get("payload") or {}
    name = payload.get("name")
    name = str(name) if name is not None else T("seat %(seat)s", seat=str(row.get("seat")))
    by = BY.get(payload.get("by", ""), "")
    kind = row.get("kind")
    new_name = payload.get("new_name")
    if kind == "seat_to_bot":
        level = payload.get("level")
        if level == "easy":
            return T("An easy bot takes over %(name)s's seat%(by)s.", name=name, by=by)
        if level == "hard":
            return T("A hard bot takes over %(name)s's seat%(by)s.", name=name, by=by)
        return T("A bot takes over %(name)s's seat%(by)s.", name=name, by=by)
    if kind in ("seat_replaced", "seat_taken"):
        if payload.get("returning"):
            if new_name is None:
                return T("A new player takes their seat again.")
            return T("%(new_name)s takes their seat again.", new_name=str(new_name))
        if new_name is None:
            return T("A new player takes over %(name)s's seat%(by)s.", name=name, by=by)
        if new_name == name:
            return T(
                "A new player, also called %(new_name)s, takes over the seat%(by)s.",
                new_name=str(new_name),
                by=by,
            )
        return T(
            "%(new_name)s takes over %(name)s's seat%(by)s.",
            new_name=str(new_name),
            name=name,
            by=by,
        )
    if kind == "seat_reclaimed":
        return T("%(name)s takes their seat back from the bot.", name=name)
    if kind == "vacation":
        return T(
            "%(name)s is on vacation until %(until)s; deadlines pause.",
            name=name,
            until=moment(payload.get("until"), zone),
        )
    if kind == "vacation_ended":
        return T("%(name)s is back from vacation early; their deadlines run again.", name=name)
    if kind in ("policy_changed", "game_paused", "game_resumed"):
        return describe_game_change(row)
    if kind == "seat_offered":
        if payload.get("new_name"):
            return T(
                "%(name)s's seat is offered to %(new_name)s%(by)s; the old link no longer works.",
                name=name,
                new_name=str(payload["new_name"]),
                by=by,
            )
        return T(
            "%(name)s's seat is open for a new player%(by)s; the old link no longer works.",
            name=name,
            by=by,
        )
    if kind == "seat_resigned":
        return T("%(name)s resigns; a bot plays %(name)s's seat to the end of the game.", name=name)
    if kind == "seat_left":
        return T(
            "%(name)s leaves the game; a bot keeps the seat until a new player takes it.",
            name=name,
        )
    if kind == "roster":
        return T(
            "The log records who holds the seats: %(roster)s.",
            roster=roster_names(payload.get("roster")),
        )
    if kind == "take_back":
        return T("The game is taken back to event %(seq)s.", seq=str(payload.get("to_seq")))
    if kind == "contribution":
        road = CONTRIBUTED_BY.get(payload.get("by"), "")
        return T(
            "%(name)s adds a contribution to the dice (%(road)s); every draw from here on "
            "mixes it in. Its sha256: %(sha256)s...",
            name=name,
            road=road,
            sha256=str(payload.get("sha256", ""))[:16],
        )
    return ""


def moment(text: Any, zone: str | None) -> str:
    """A time an event keeps as text ("2026-03-05 10:00 UTC") in the reader's ``zone``,
    named ("2026-03-05 05:00 EST"); anything else as it was written."""
    if not isinstance(text, str):
        return "?"
    try:
        at = datetime.strptime(text.removesuffix(" UTC"), "%Y-%m-%d %H:%M")
    except ValueError:
        return text
    return zones.stamp(at, zone or "UTC")


def roster_names(roster: Any) -> Any:
    """The holders of a roster (an event's ``roster`` payload) as one phrase."""
    seats = roster.get("seats") if isinstance(roster, dict) else None
    if not isinstance(seats, list):
        return T("(unreadable)")
    names = []
    for entry in seats:
        entry = entry if isinstance(entry, dict) else {}
        name: Any = str(entry.get("name", "?"))
        if entry.get("bot"):
            level = entry.get("level")
            if level == "easy":
                name = T("%(name)s (easy bot)", name=name)
            elif level == "hard":
                name = T("%(name)s (hard bot)", name=name)
            else:
                name = T("%(name)s (bot)", name=name)
        if entry.get("resigned"):
            name = T("%(name)s, resigned", name=name)
        elif entry.get("open"):
            name = T("%(name)s, open to a new player", name=name)
        names.append(name)
    return joined(names, "; ")


def _amount(value: float, unit: str) -> Any:
    """``value`` hours or days ("1 hour", "36 hours", "1.5 days")."""
    if value == int(value):
        count = int(value)
        if unit == "hour":
            return Tn("%(num)d hour", "%(num)d hours", count)
        return Tn("%(num)d day", "%(num)d days", count)
    if unit == "hour":
        return T("%(amount)s hours", amount=f"{value:g}")
    return T("%(amount)s days", amount=f"{value:g}")


def policy_text(policy: dict[str, Any]) -> Any:
    """A deadline policy in one sentence (without the final stop)."""
    after = float(policy.get("reminder_after_hours", 0))
    every = float(policy.get("reminder_every_hours", 0))
    days = float(policy.get("deadline_after_days", 0))
    if after > 0:
        if every > 0:
            reminders = T(
                "the first reminder %(after)s after a turn begins, then every %(every)s",
                after=_amount(after, "hour"),
                every=_amount(every, "hour"),
            )
        else:
            reminders = T(
                "the first reminder %(after)s after a turn begins", after=_amount(after, "hour")
            )
    else:
        reminders = T("no reminders")
    if days > 0:
        deadline = _consequence(policy.get("at_deadline", "wait"), _amount(days, "day"))
    else:
        deadline = T("no deadline")
    return joined([reminders, deadline], "; ")


def describe_game_change(row: dict[str, Any]) -> str:
    """The history line of a game-level event: a policy change, a pause, a resumption."""
    payload = row.get("payload") or {}
    by = BY_GAME.get(payload.get("by", ""), "")
    kind = row.get("kind")
    if kind == "policy_changed":
        return T(
            "The deadline policy was changed%(by)s: %(policy)s.",
            by=by,
            policy=policy_text(payload.get("policy") or {}),
        )
    if kind == "game_paused":
        return T(
            "The game was paused%(by)s; no moves, reminders or deadlines until it goes on.", by=by
        )
    if kind == "game_resumed":
        return T("The game goes on again%(by)s; the deadlines moved later by the pause.", by=by)
    return ""
