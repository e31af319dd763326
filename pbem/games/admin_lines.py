"""How administrative events read in a game's history and in mail: headlines and lines.

Imports nothing from the rest of pbem, so that mail and the web pages can use it
without depending on the rescue actions.
"""

from __future__ import annotations

from typing import Any

HEADLINES = {
    "seat_to_bot": "A bot takes over a seat",
    "seat_replaced": "A new player takes over a seat",
    "seat_reclaimed": "A player is back",
    "vacation": "A player is on vacation",
    "seat_offered": "A seat is offered to a new player",
    "seat_left": "A player leaves the game",
    "seat_taken": "A new player takes a seat",
}

BY = {
    "creator": " (by the game's creator)",
    "vote": " (by a vote of the other players)",
    "deadline": " (the deadline passed)",
    "operator": " (by the server's operator)",
    "player": " (at the player's own request)",
}

BY_WHOM = {
    "vote": "by a vote of the other players",
    "deadline": "because your turn's deadline passed",
    "operator": "by the server's operator",
    "player": "at your own request",
}


def describe_admin(row: dict[str, Any]) -> str:
    """The history line of an administrative event (empty for kinds without one)."""
    payload = row.get("payload") or {}
    name = payload.get("name", f"seat {row.get('seat')}")
    by = BY.get(payload.get("by", ""), "")
    kind = row.get("kind")
    new_name = payload.get("new_name", "A new player")
    if kind == "seat_to_bot":
        bot = "An easy bot" if payload.get("level") == "easy" else "A bot"
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
        return f"{name} is on vacation until {payload.get('until', '?')}; deadlines pause."
    if kind == "seat_offered":
        if payload.get("new_name"):
            return (
                f"{name}'s seat is offered to {payload['new_name']}{by}; the old link no "
                "longer works."
            )
        return f"{name}'s seat is open for a new player{by}; the old link no longer works."
    if kind == "seat_left":
        return f"{name} leaves the game; a bot keeps the seat until a new player takes it."
    if kind == "roster":
        return f"The log records who holds the seats: {roster_names(payload.get('roster'))}."
    if kind == "take_back":
        return f"The game is taken back to event {payload.get('to_seq')}."
    return ""


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
            name += " (easy bot)" if entry.get("level") == "easy" else " (bot)"
        if entry.get("open"):
            name += ", open to a new player"
        names.append(name)
    return "; ".join(names)
