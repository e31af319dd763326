"""The record of each message taken in (``inbound_messages``), kept by the hash of its
Message-ID (:func:`message_key`), so that the same message never applies twice.

A reply whose tag verifies is claimed first (:func:`claim`: its key is kept with the
outcome ``taking`` before anything is applied, in the transaction that reads the game
as a move reads it, a :class:`Reply`); what became of it is written later
(:func:`write_record`), in the transaction of its answer or its move. A reply that
fails before that is unclaimed (:func:`unclaim`), so the MTA can try it again. Mail
that is not a reply is recorded once, without a claim (:func:`record_unclaimed`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any

from sqlalchemy import bindparam
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError

from pbem.db import Prepared, write
from pbem.errors import NotFound
from pbem.games.context import Runtime
from pbem.games.service import LoadedGame
from pbem.mail import budget
from pbem.mail.inbound import message as msg
from pbem.mail.inbound import tags
from pbem.mail.models import InboundMessage, MailAddress
from pbem.zones import utc


def message_key(message: EmailMessage, raw: bytes) -> str:
    """sha256 of the Message-ID (of the whole message when it has none)."""
    message_id = msg.header(message, "Message-ID").strip()
    if message_id:
        return hashlib.sha256(b"mid:" + message_id.encode("utf-8", "replace")).hexdigest()
    return hashlib.sha256(b"raw:" + raw).hexdigest()


@dataclass
class Reply:
    """A reply whose tag verified, as its first transaction (:func:`claim`) found it:
    the message's key and sender, the tag, and the game as a move reads it (None: the
    game is not here)."""

    key: str
    sender: str
    tag: tags.Tag
    loaded: LoadedGame | None
    older: bool | None = None  # :func:`.receive._older_turn`, once asked

    @property
    def seat(self) -> Any:
        """The tagged seat's row (None when the game or the seat is not here)."""
        if self.loaded is None or not 0 <= self.tag.seat < len(self.loaded.seats):
            return None
        return self.loaded.seats[self.tag.seat]

    @property
    def seat_names(self) -> list[str]:
        return [row.name for row in self.loaded.seats] if self.loaded else []


_CLAIM = Prepared(
    InboundMessage.__table__.insert(), [column.key for column in InboundMessage.__table__.columns]
)
_RECORD = Prepared(
    InboundMessage.__table__.update()
    .where(InboundMessage.__table__.c.message_key == bindparam("b_key"))
    .values(
        sender=bindparam("sender"),
        game_id=bindparam("game_id"),
        seat=bindparam("seat"),
        outcome=bindparam("outcome"),
        detail=bindparam("detail"),
    )
)
_CLEAR_BOUNCING = Prepared(
    MailAddress.__table__.update()
    .where(
        MailAddress.__table__.c.address == bindparam("b_address"),
        MailAddress.__table__.c.bouncing_since.is_not(None),
    )
    .values(
        bouncing_since=bindparam("bouncing_since"),
        bounce_detail=bindparam("bounce_detail"),
        updated_at=bindparam("updated_at"),
    )
)


def claim(runtime: Runtime, key: str, sender: str, tag: tags.Tag) -> Reply | None:
    """The first transaction of a reply: keeps the message's key before anything is
    applied (None when it is known: the message was taken before), reads the game as a
    move reads it (its seats and their clocks: the one load of the reply), and, when the
    mail is from the seat's player, records that mail from the address works (its
    bouncing mark goes; mail held while it bounced stays held) and that its player took
    the seat (:func:`budget.seat_taken_in`)."""
    now = utc(runtime.clock())
    try:
        with runtime.db.begin() as connection:
            _CLAIM.run(
                connection,
                {
                    "message_key": key,
                    "received_at": now,
                    "sender": sender[:320],
                    "game_id": tag.game_id,
                    "seat": tag.seat,
                    "outcome": "taking",
                    "detail": "",
                },
            )
            try:
                loaded = runtime.service.load_for_move(connection, tag.game_id)
            except NotFound:
                loaded = None
            reply = Reply(key, sender, tag, loaded)
            seat = reply.seat
            if seat is not None and sender and sender == seat.email.strip().lower():
                _CLEAR_BOUNCING.run(
                    connection,
                    {
                        "b_address": sender,
                        "bouncing_since": None,
                        "bounce_detail": "",
                        "updated_at": now,
                    },
                )
                budget.seat_taken_in(connection, runtime, tag.game_id, sender)
    except IntegrityError:
        return None
    return reply


def write_record(session: Any, reply: Reply, outcome: str, detail: str) -> None:
    """What became of the reply, in the session's transaction (its batch, in a move's)."""
    write(
        session,
        _RECORD,
        {
            "b_key": reply.key,
            "sender": reply.sender[:320],
            "game_id": reply.tag.game_id,
            "seat": reply.tag.seat,
            "outcome": outcome[:32],
            "detail": detail[:500],
        },
    )


def unclaim(runtime: Runtime, key: str) -> None:
    try:
        with runtime.service.session() as session:
            row = session.get(InboundMessage, key)
            if row is not None and row.outcome == "taking":
                session.delete(row)
                session.commit()
    except (OperationalError, DBAPIError):
        pass


def record_unclaimed(
    runtime: Runtime,
    key: str,
    sender: str,
    game_id: str | None,
    seat: int | None,
    outcome: str,
    detail: str,
) -> None:
    """Records a message taken without a claim (not a reply): once, the first time."""
    with runtime.service.session() as session:
        row = session.get(InboundMessage, key)
        if row is not None:
            return
        row = InboundMessage(message_key=key, received_at=utc(runtime.clock()))
        row.sender, row.game_id, row.seat = sender[:320], game_id, seat
        row.outcome, row.detail = outcome[:32], detail[:500]
        session.add(row)
        session.commit()
