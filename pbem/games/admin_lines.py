"""How administrative events read in a game's history and in mail: headlines and lines.

Imports nothing from the rest of pbem but :mod:`pbem.zones`, so that mail and the web
pages can use it without depending on the rescue actions.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pbem import zones


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
    "browser": "from their browser",
    "command line": "from the command line",
    "server": "drawn by the server for them (they play by mail, or gave none)",
}

BY = {
    "creator": " (by the game's creator)",
    "vote": " (by a vote of the other players)",
    "deadline": " (the deadline passed)",
    "operator": " (by the server's operator)",
    "player": " (at the player's own request)",
}

# Game-level changes (pbem.games.control) say who made them without parentheses.
BY_GAME = {"creator": " by the game's creator", "operator": " by the server's operator"}

CONSEQUENCES = {
    "wait": "the game waits (reminders go on)",
    "bot_turn": "a bot plays that turn",
    "bot_seat": "a bot takes over the seat (its player may reclaim it)",
    "replace": "the seat is offered to a new player",
}

BY_WHOM = {
    "vote": "by a vote of the other players",
    "deadline": "because your turn's deadline passed",
    "operator": "by the server's operator",
    "player": "at your own request",
}

# A level other than the default is named: "An easy bot takes over Ann's seat."
LEVEL_BOT = {"easy": "An easy bot", "hard": "A hard bot"}


def describe_admin(row: dict[str, Any], zone: str | None = None) -> str:
    """The history line of an administrative event (empty for kinds without one), its
    times in ``zone`` (the reader's; UTC, named, for a reader without one)."""
    payload = row.get("payload") or {}
    name = payload.get("name", f"seat {row.get('seat')}")
    by = BY.get(payload.get("by", ""), "")
    kind = row.get("kind")
    new_name = payload.get("new_name", "A new player")
    if kind == "seat_to_bot":
        bot = LEVEL_BOT.get(payload.get("level"), "A bot")
        return f"{bot} takes over {name}'s seat{by}."
    if kind in ("seat_replaced", "seat_taken"):
        if payload.get("returning"):
            return f"{new_name} takes their seat again."
        if new_name == name:
            return f"A new player, also called {new_name}, takes over the seat{by}."
        return f"{new_name} takes over {name}'s seat{by}."
    if kind == "seat_reclaimed":
        return f"{name} takes their seat back from the bot."
    if kind == "vacation":
        return f"{name} is on vacation until {moment(payload.get('until'), zone)}; deadlines pause."
    if kind == "vacation_ended":
        return f"{name} is back from vacation early; their deadlines run again."
    if kind in ("policy_changed", "game_paused", "game_resumed"):
        return describe_game_change(row)
    if kind == "seat_offered":
        if payload.get("new_name"):
            return (
                f"{name}'s seat is offered to {payload['new_name']}{by}; the old link no "
                "longer works."
            )
        return f"{name}'s seat is open for a new player{by}; the old link no longer works."
    if kind == "seat_resigned":
        return f"{name} resigns; a bot plays {name}'s seat to the end of the game."
    if kind == "seat_left":
        return f"{name} leaves the game; a bot keeps the seat until a new player takes it."
    if kind == "roster":
        return f"The log records who holds the seats: {roster_names(payload.get('roster'))}."
    if kind == "take_back":
        return f"The game is taken back to event {payload.get('to_seq')}."
    if kind == "contribution":
        road = CONTRIBUTED_BY.get(payload.get("by"), "")
        return (
            f"{name} adds a contribution to the dice ({road}); every draw from here on "
            f"mixes it in. Its sha256: {str(payload.get('sha256', ''))[:16]}..."
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


def roster_names(roster: Any) -> str:
    """The holders of a roster (an event's ``roster`` payload) as one phrase."""
    seats = roster.get("seats") if isinstance(roster, dict) else None
    if not isinstance(seats, list):
        return "(unreadable)"
    names = []
    for entry in seats:
        entry = entry if isinstance(entry, dict) else {}
        name = str(entry.get("name", "?"))
        if entry.get("bot"):
            level = entry.get("level")
            name += f" ({level} bot)" if level in ("easy", "hard") else " (bot)"
        if entry.get("resigned"):
            name += ", resigned"
        elif entry.get("open"):
            name += ", open to a new player"
        names.append(name)
    return "; ".join(names)


def policy_text(policy: dict[str, Any]) -> str:
    """A deadline policy in one sentence (without the final stop)."""

    def amount(value: float, unit: str) -> str:
        return f"{value:g} {unit}{'' if value == 1 else 's'}"

    after = float(policy.get("reminder_after_hours", 0))
    every = float(policy.get("reminder_every_hours", 0))
    days = float(policy.get("deadline_after_days", 0))
    if after > 0:
        text = f"the first reminder {amount(after, 'hour')} after a turn begins"
        if every > 0:
            text += f", then every {amount(every, 'hour')}"
    else:
        text = "no reminders"
    if days > 0:
        consequence = CONSEQUENCES.get(policy.get("at_deadline", "wait"), "")
        text += f"; after {amount(days, 'day')} {consequence}"
    else:
        text += "; no deadline"
    return text


def describe_game_change(row: dict[str, Any]) -> str:
    """The history line of a game-level event: a policy change, a pause, a resumption."""
    payload = row.get("payload") or {}
    by = BY_GAME.get(payload.get("by", ""), "")
    kind = row.get("kind")
    if kind == "policy_changed":
        return f"The deadline policy was changed{by}: {policy_text(payload.get('policy') or {})}."
    if kind == "game_paused":
        return f"The game was paused{by}; no moves, reminders or deadlines until it goes on."
    if kind == "game_resumed":
        return f"The game goes on again{by}; the deadlines moved later by the pause."
    return ""
