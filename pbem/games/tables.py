"""The seats' tables beside the event log: each seat's clock (reminders and deadline),
its sealed link, rescue votes, seat offers, retired links, counted seat requests and
the people who held a seat and left it.

All times are aware datetimes in UTC, as the database layer wants them
(:func:`pbem.zones.utc`).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index
from sqlmodel import Field, SQLModel


class SeatClock(SQLModel, table=True):
    """A seat's timers for its current turn: next reminder, deadline, vacation.

    ``turn_since`` names the turn (when the seat became due); the sweep advances
    ``remind_at`` and clears ``deadline_at`` with conditional updates, so two sweeps
    never act twice on one turn.
    """

    __tablename__ = "seat_clocks"

    game_id: str = Field(primary_key=True, max_length=32)
    seat: int = Field(primary_key=True)
    turn_since: datetime | None = None
    remind_at: datetime | None = Field(default=None, index=True)
    deadline_at: datetime | None = Field(default=None, index=True)
    reminders: int = 0
    paused_until: datetime | None = None
    vacation_days_used: float = 0.0


class SeatLink(SQLModel, table=True):
    """A seat's current link token, sealed with the server's key so mails can carry it.

    The seats table keeps only the token's hash; a seal whose hash no longer matches
    belongs to a revoked link and is never used.
    """

    __tablename__ = "seat_links"

    game_id: str = Field(primary_key=True, max_length=32)
    seat: int = Field(primary_key=True)
    sealed: str = Field(max_length=300)
    token_hash: str = Field(max_length=64)


class RescueVote(SQLModel, table=True):
    """One seat's vote for a rescue action (``action`` names it with its arguments)."""

    __tablename__ = "rescue_votes"

    game_id: str = Field(primary_key=True, max_length=32)
    action: str = Field(primary_key=True, max_length=400)
    voter: int = Field(primary_key=True)
    created_at: datetime


class SeatOffer(SQLModel, table=True):
    """A seat waiting for a new player: ``open`` (listed on the game's public page, where
    anyone outside the game may ask for it) or named (a vote or the operator chose the
    newcomer). ``token_hash`` is the pending invitation link, mailed to ``email`` only;
    it opens the "take this seat" form and nothing else until it is accepted, and lapses
    (:func:`pbem.games.seat_links.lapses_at`) counted from ``invited_at``, when it was mailed."""

    __tablename__ = "seat_offers"

    game_id: str = Field(primary_key=True, max_length=32)
    seat: int = Field(primary_key=True)
    open: bool = True
    name: str = Field(default="", max_length=200)
    email: str = Field(default="", max_length=320)
    token_hash: str | None = Field(default=None, max_length=64, unique=True)
    former_email: str = Field(default="", max_length=320)
    created_at: datetime
    invited_at: datetime | None = None


class RetiredLink(SQLModel, table=True):
    """The hash of a link whose player was replaced or left, with what happened: the old
    link shows that sentence instead of the seat."""

    __tablename__ = "retired_links"

    token_hash: str = Field(primary_key=True, max_length=64)
    game_id: str = Field(max_length=32, index=True)
    seat: int
    message: str = Field(max_length=1000)
    created_at: datetime


class SeatRequest(SQLModel, table=True):
    """One request about a seat (a vote, a vacation, a request for an open seat, an
    invitation sent again), kept to count them whichever web worker took them: per seat
    and day, and a request for an open seat per ``requester`` (the canonical address it
    gave) and per ``client`` (the web client's address; empty from the command line)."""

    __tablename__ = "seat_requests"
    __table_args__ = (
        Index("ix_seat_requests_seat", "game_id", "seat", "kind", "created_at"),
        Index("ix_seat_requests_requester", "kind", "requester", "created_at"),
        Index("ix_seat_requests_client", "kind", "client", "created_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(max_length=32)
    seat: int
    kind: str = Field(max_length=32)
    created_at: datetime
    requester: str = Field(default="", max_length=320)
    client: str = Field(default="", max_length=64)


class FormerPlayer(SQLModel, table=True):
    """A person who held a seat of a game and no longer does (replaced, or left): kept
    so that they are still told how the game ends, and carried in a full export.
    Personal data: never in a seat's or a public export."""

    __tablename__ = "former_players"
    __table_args__ = (Index("ix_former_players_game", "game_id", "seat"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: str = Field(max_length=32)
    seat: int
    name: str = Field(default="", max_length=200)
    email: str = Field(default="", max_length=320)
    timezone: str = Field(default="UTC", max_length=64)
    reason: str = Field(default="", max_length=32)
    left_seq: int | None = None
    left_at: datetime
