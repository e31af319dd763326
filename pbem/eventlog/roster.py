"""The roster: who holds each seat, the creator and the game's settings, as the log says.

The roster is part of the hash-chained log. The ``created`` event carries the first one
(``payload["roster"]``) and every later change is an event of its own, so the roster as
of any event is a fold of the events up to it (:func:`each`, :func:`fold`). History,
audit, exports and mails take names from it, never from today's seat rows; the seat
rows are a read model of the roster at the head (plus personal data: addresses,
preferences, time zones, which the log never holds).

What each event does to the roster:

=================== ==================================================================
``created``         the first roster (``payload["roster"]``)
``roster``          the whole roster, recorded for a game created before rosters were
                    logged (``payload["roster"]``; appended by ``pbem migrate``)
``seat_to_bot``     a bot plays the seat (``payload["level"]``, "normal" when absent)
``seat_left``       the player left: a bot plays the seat and it is open to newcomers
``seat_offered``    the seat waits for a newcomer (its player's link is retired)
``seat_taken``      a newcomer (or the former player, ``returning``) holds the seat:
                    ``payload["new_name"]``, a person, no longer open; a newcomer at
                    the creator's seat leaves the game without a creator
``seat_replaced``   the same as ``seat_taken`` (older logs)
``seat_reclaimed``  the seat's player plays it again instead of the bot
``seat_resigned``   the player resigned (``payload["resignation"]``, the engine's
                    meaning; "bot_plays_on": a bot plays the seat to the end, at
                    ``payload["level"]``); the seat is not open to newcomers, and no
                    later seat change may name it (the fold refuses one)
``policy_changed``  the deadline policy is now ``payload["policy"]``
``game_paused``     the whole game is paused (no moves, no deadlines)
``game_resumed``    the game goes on
=================== ==================================================================

Every other kind (moves, vacations, take-backs, engine upgrades, the seed's reveal)
leaves the roster as it is. A log from before rosters were logged has no roster until
its ``roster`` event: :func:`initial` answers None and callers fall back to the seat
rows (:func:`from_seats`), which is all such a game ever recorded.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

# The words a bot level may be, weakest first; each title offers some of them (its
# engine's ``bot_levels``), and a log naming any other is refused.
BOT_LEVELS = ("easy", "normal", "hard")
SEAT_KINDS = (
    "seat_to_bot",
    "seat_left",
    "seat_offered",
    "seat_taken",
    "seat_replaced",
    "seat_reclaimed",
    "seat_resigned",
)
RESIGNATIONS = ("bot_plays_on",)
GAME_KINDS = ("policy_changed", "game_paused", "game_resumed", "roster")
ROSTER_KINDS = ("created", *SEAT_KINDS, *GAME_KINDS)
NAME_LIMIT = 200


class RosterError(ValueError):
    """An event's roster data is malformed or does not fit the roster it applies to."""


@dataclass(frozen=True)
class Holder:
    """Who holds one seat: a display name, whether a bot plays it (and at which level),
    whether it waits for a newcomer (nobody holds it: left, or offered to someone new),
    which person it is (0 for the seat's first player, one more for each newcomer who
    took it), and whether its player resigned (a bot plays it to the end)."""

    name: str
    bot: bool = False
    level: str = "normal"
    open: bool = False
    person: int = 0
    resigned: bool = False

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name, "bot": self.bot}
        if self.bot:
            data["level"] = self.level
        if self.open:
            data["open"] = True
        if self.person:
            data["person"] = self.person
        if self.resigned:
            data["resigned"] = True
        return data


@dataclass(frozen=True)
class Roster:
    """The seats' holders, the creator's seat (None: the operator made the game), the
    deadline policy, and whether the game is paused."""

    seats: tuple[Holder, ...]
    creator: int | None = None
    policy: Mapping[str, Any] = field(default_factory=dict)
    paused: bool = False

    @property
    def names(self) -> list[str]:
        return [holder.name for holder in self.seats]

    @property
    def bots(self) -> list[int]:
        return [number for number, holder in enumerate(self.seats) if holder.bot]

    @property
    def resigned(self) -> list[int]:
        return [number for number, holder in enumerate(self.seats) if holder.resigned]

    @property
    def bot_levels(self) -> dict[str, str]:
        return {str(number): holder.level for number, holder in enumerate(self.seats) if holder.bot}

    def name(self, seat: int | None, default: str = "The server") -> str:
        if seat is None or not 0 <= seat < len(self.seats):
            return default
        return self.seats[seat].name

    def to_json(self) -> dict[str, Any]:
        """The roster as an event carries it (``created`` and ``roster`` payloads)."""
        data: dict[str, Any] = {
            "seats": [holder.to_json() for holder in self.seats],
            "creator": self.creator,
            "policy": dict(self.policy),
        }
        if self.paused:
            data["paused"] = True
        return data

    def header(self) -> dict[str, Any]:
        """The export header's roster fields (checked against the events by verify);
        ``resigned`` only when a player resigned (older files have no such field)."""
        data: dict[str, Any] = {
            "seat_names": self.names,
            "bots": self.bots,
            "bot_levels": self.bot_levels,
            "creator_seat": self.creator,
            "policy": dict(self.policy),
            "paused": self.paused,
        }
        if self.resigned:
            data["resigned"] = self.resigned
        return data


def from_json(data: Any, seat_count: int | None = None) -> Roster:
    """A roster from an event's payload; :class:`RosterError` when it is malformed."""
    if not isinstance(data, Mapping):
        raise RosterError("the roster is not an object")
    seats = data.get("seats")
    if not isinstance(seats, list) or not seats:
        raise RosterError("the roster has no list of seats")
    if seat_count is not None and len(seats) != seat_count:
        raise RosterError(f"the roster names {len(seats)} seats, the game has {seat_count}")
    holders = []
    for number, entry in enumerate(seats):
        if not isinstance(entry, Mapping):
            raise RosterError(f"seat {number} of the roster is not an object")
        name, bot = entry.get("name"), entry.get("bot", False)
        level, open_, person, resigned = (
            entry.get("level", "normal"),
            entry.get("open", False),
            entry.get("person", 0),
            entry.get("resigned", False),
        )
        if not isinstance(name, str) or not name.strip() or len(name) > NAME_LIMIT:
            raise RosterError(f"seat {number} of the roster has no proper name")
        if not all(isinstance(flag, bool) for flag in (bot, open_, resigned)):
            raise RosterError(f"seat {number} of the roster has a malformed flag")
        if resigned and (not bot or open_):
            raise RosterError(f"seat {number} of the roster resigned but no bot plays it")
        if level not in BOT_LEVELS:
            raise RosterError(f"seat {number} of the roster has an unknown bot level")
        if isinstance(person, bool) or not isinstance(person, int) or not 0 <= person < 10**6:
            raise RosterError(f"seat {number} of the roster has a malformed person number")
        holders.append(Holder(name, bot, level if bot else "normal", open_, person, resigned))
    creator = data.get("creator")
    if creator is not None and (
        isinstance(creator, bool) or not isinstance(creator, int) or not 0 <= creator < len(holders)
    ):
        raise RosterError("the roster's creator is not one of its seats")
    policy = data.get("policy", {})
    if not isinstance(policy, Mapping):
        raise RosterError("the roster's policy is not an object")
    paused = data.get("paused", False)
    if not isinstance(paused, bool):
        raise RosterError("the roster's pause flag is malformed")
    return Roster(tuple(holders), creator, dict(policy), paused)


def initial(created: Mapping[str, Any]) -> Roster | None:
    """The roster the ``created`` event's payload carries (None for an older log)."""
    if "roster" not in created:
        return None
    return from_json(created["roster"], created.get("seats"))


def apply(roster: Roster | None, row: Mapping[str, Any]) -> Roster | None:
    """The roster after event ``row`` (a mapping with kind, seat and payload)."""
    kind = row.get("kind")
    payload = row.get("payload") or {}
    if kind == "created":
        return initial(payload)
    if kind == "roster":
        size = len(roster.seats) if roster is not None else None
        return from_json(payload.get("roster"), size)
    if kind not in ROSTER_KINDS or roster is None:
        return roster
    if kind == "policy_changed":
        policy = payload.get("policy")
        if not isinstance(policy, Mapping):
            raise RosterError("a policy change carries no policy")
        return replace(roster, policy=dict(policy))
    if kind == "game_paused":
        return replace(roster, paused=True)
    if kind == "game_resumed":
        return replace(roster, paused=False)
    seat = row.get("seat")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(roster.seats):
        raise RosterError(f"a {kind} event names no seat of the game")
    holder = roster.seats[seat]
    if holder.resigned:
        raise RosterError(f"a {kind} event names a seat whose player resigned")
    if kind == "seat_resigned":
        if holder.open:
            raise RosterError("a seat waiting for a new player has nobody to resign")
        if payload.get("resignation") not in RESIGNATIONS:
            raise RosterError("a resignation names no meaning the server knows")
        level = payload.get("level", "normal")
        if level not in BOT_LEVELS:
            raise RosterError("a resigned seat's bot names an unknown level")
        holder = replace(holder, bot=True, level=level, resigned=True)
    elif kind == "seat_to_bot":
        level = payload.get("level", "normal")
        if level not in BOT_LEVELS:
            raise RosterError("a seat handed to a bot names an unknown level")
        holder = replace(holder, bot=True, level=level)
    elif kind == "seat_left":
        holder = replace(holder, bot=True, open=True)
    elif kind == "seat_offered":
        holder = replace(holder, open=True)
    elif kind in ("seat_taken", "seat_replaced"):
        name = payload.get("new_name")
        if not isinstance(name, str) or not name.strip() or len(name) > NAME_LIMIT:
            raise RosterError(f"a {kind} event names nobody")
        returning = payload.get("returning") is True
        holder = Holder(name, False, "normal", False, holder.person + (0 if returning else 1))
        if not returning and roster.creator == seat:
            # The creator is a person: a newcomer at their seat does not become it.
            roster = replace(roster, creator=None)
    elif kind == "seat_reclaimed":
        holder = replace(holder, bot=False, level="normal")
    seats = list(roster.seats)
    seats[seat] = holder
    return replace(roster, seats=tuple(seats))


def each(
    rows: Iterable[Mapping[str, Any]], start: Roster | None = None
) -> Iterator[tuple[Mapping[str, Any], Roster | None]]:
    """Each event with the roster in force once it happened (``start``: the roster
    before the first of ``rows``, when they do not begin with ``created``)."""
    roster = start
    for row in rows:
        roster = apply(roster, row)
        yield row, roster


def fold(rows: Iterable[Mapping[str, Any]], start: Roster | None = None) -> Roster | None:
    """The roster after the last of ``rows``."""
    roster = start
    for row in rows:
        roster = apply(roster, row)
    return roster


def from_seats(
    seats: Sequence[Any],
    creator: int | None,
    policy: Mapping[str, Any],
    *,
    paused: bool = False,
    open_seats: Iterable[int] = (),
) -> Roster:
    """The roster the seat rows describe (the read model), with ``open_seats`` the seats
    waiting for a newcomer; for logs without a roster, and to check the read model."""
    waiting = set(open_seats)
    holders = [
        Holder(
            row.name,
            bool(row.is_bot),
            getattr(row, "bot_level", "normal") if row.is_bot else "normal",
            row.seat in waiting,
        )
        for row in sorted(seats, key=lambda seat: seat.seat)
    ]
    return Roster(tuple(holders), creator, dict(policy), paused)


def same_holders(left: Roster, right: Roster) -> bool:
    """Whether two rosters agree on everything but the person numbers and resignations
    (which the seat rows do not keep)."""
    strip = lambda roster: replace(  # noqa: E731
        roster,
        seats=tuple(replace(holder, person=0, resigned=False) for holder in roster.seats),
    )
    return strip(left) == strip(right)


@dataclass(frozen=True)
class Mover:
    """Who made a move, as history reads it: the seat's holder's name, whether a bot
    holds the seat, whether a bot played this move for the person who holds it
    (a deadline's automatic move, or a move whose actor is "bot"), and whether the
    seat's player resigned (a bot plays it to the end)."""

    name: str
    bot: bool = False
    for_person: bool = False
    resigned: bool = False

    @property
    def who(self) -> str:
        if self.resigned:
            return f"{self.name} (resigned)"
        return f"{self.name} (bot)" if self.bot else self.name

    @property
    def note(self) -> str:
        """The mark after a move's lines ("" for a person's own move)."""
        if self.resigned:
            return f"(played by a bot for {self.name}, who resigned)"
        if self.for_person:
            return f"(played by a bot for {self.name})"
        if self.bot:
            return f"(played by {self.name}, a bot)"
        return ""


def mover(roster: Roster | None, row: Mapping[str, Any]) -> Mover | None:
    """Who made the move ``row`` by ``roster`` (the roster in force at that event); None
    when the event names no seat of it."""
    seat = row.get("seat")
    if roster is None or isinstance(seat, bool) or not isinstance(seat, int):
        return None
    if not 0 <= seat < len(roster.seats):
        return None
    holder = roster.seats[seat]
    if holder.resigned:
        return Mover(holder.name, bot=True, resigned=True)
    if holder.bot:
        return Mover(holder.name, bot=True)
    by_bot = row.get("kind") == "auto_move" or row.get("actor") == "bot"
    return Mover(holder.name, for_person=by_bot)
