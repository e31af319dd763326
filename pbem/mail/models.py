"""Mail's tables: the outbox, each address's mail budget per game and what the server
knows of each address, the mails taken in and the answers to them, and the worker's
heartbeat.

All times are aware datetimes in UTC, as the database layer wants them
(:func:`pbem.zones.utc`).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Column, Index, Text
from sqlmodel import Field, SQLModel


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
