"""Mail's tables: the outbox, each seat's clock (reminders and deadline), sealed links,
rescue votes, seat offers, retired links, counted seat requests, each address's mail
budget per game and the worker's heartbeat.

All times are aware datetimes in UTC, as the database layer wants them (:func:`utc`).
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Column, Index, Text
from sqlmodel import Field, SQLModel


def utc(moment: datetime) -> datetime:
    """``moment`` as an aware datetime in UTC (a naive one is taken to be UTC)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


class Mail(SQLModel, table=True):
    """One mail of the outbox, written in the transaction of the event that caused it.

    ``key`` is unique: a reminder or a digest recorded twice collides instead of going out
    twice. The dispatcher claims rows by setting ``status='sending'`` with a lease.
    """

    __tablename__ = "mail_outbox"
    __table_args__ = (Index("ix_mail_outbox_ready", "status", "next_attempt_at"),)

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(max_length=200, unique=True)
    kind: str = Field(max_length=32)
    game_id: str | None = Field(default=None, max_length=32, index=True)
    seat: int | None = None
    recipient: str = Field(max_length=320)
    subject: str = Field(max_length=300)
    body_text: str = Field(sa_column=Column(Text, nullable=False))
    body_html: str = Field(sa_column=Column(Text, nullable=False))
    message_id: str = Field(max_length=200, index=True)  # an inbound loop is one of these
    thread_id: str = Field(default="", max_length=200)
    unsubscribe: str = Field(default="", max_length=500)
    status: str = Field(default="pending", max_length=16)
    attempts: int = 0
    next_attempt_at: datetime
    lease_owner: str = Field(default="", max_length=64)
    lease_until: datetime | None = None
    last_error: str = Field(default="", max_length=500)
    created_at: datetime
    sent_at: datetime | None = None


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
    (:func:`pbem.games.rescue.lapses_at`) counted from ``invited_at``, when it was mailed."""

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


class MailAddress(SQLModel, table=True):
    """What the server knows about one mail address across games: the generation of its
    signed "my games" link (raising it revokes every older link) and whether mail to it
    bounces (a delivery report says so; no more mail goes to it until it is cleared).
    Personal data of the address, not of one game: no game's export carries it."""

    __tablename__ = "mail_addresses"

    address: str = Field(primary_key=True, max_length=320)
    games_link_generation: int = 0
    bouncing_since: datetime | None = None
    bounce_detail: str = Field(default="", max_length=500)
    updated_at: datetime


class MailBudget(SQLModel, table=True):
    """How much mail one person (an address in its canonical form,
    :func:`pbem.validate.canonical_address`) got from one game: the mails of the UTC day
    ``day`` (``today``), and, while the address has not taken its seat (``taken_at``:
    it opened its link, moved or replied), the seat mails beyond its invitation
    (``early``). The dispatcher counts each mail here with one conditional update
    (:mod:`pbem.mail.budget`), so every worker keeps to the same budget."""

    __tablename__ = "mail_budgets"

    game_id: str = Field(primary_key=True, max_length=32)
    address: str = Field(primary_key=True, max_length=320)
    taken_at: datetime | None = None
    early: int = 0
    day: str = Field(default="", max_length=10)
    today: int = 0
    updated_at: datetime


class InboundMessage(SQLModel, table=True):
    """One message taken in by `pbem receive` or the LMTP listener, keyed by the hash of
    its Message-ID, so that the same message never applies twice."""

    __tablename__ = "inbound_messages"
    __table_args__ = (Index("ix_inbound_messages_game", "game_id", "received_at"),)

    message_key: str = Field(primary_key=True, max_length=64)
    received_at: datetime
    sender: str = Field(default="", max_length=320)
    game_id: str | None = Field(default=None, max_length=32)
    seat: int | None = None
    outcome: str = Field(default="", max_length=32)
    detail: str = Field(default="", max_length=500)


class InboundAnswer(SQLModel, table=True):
    """When an answer of one kind that refuses mail (:mod:`pbem.mail.inbound.receive`)
    last went to a person (their canonical address), and at which position of the game
    (``seq``, for a player's refusals; else 0): at most one a day of each kind and
    position. ``kind`` is ``stranger``, ``gone`` or ``refused:GAME``: one row per person
    and game at most."""

    __tablename__ = "inbound_answers"

    address: str = Field(primary_key=True, max_length=320)
    kind: str = Field(primary_key=True, max_length=80)
    seq: int = 0
    answered_at: datetime


class Heartbeat(SQLModel, table=True):
    """The worker's last sign of life, for the health page."""

    __tablename__ = "worker_heartbeats"

    name: str = Field(primary_key=True, max_length=100)
    pid: int
    started_at: datetime
    beat_at: datetime
    last_sweep: str = Field(default="", max_length=300)
    sweep_seconds: float | None = None
