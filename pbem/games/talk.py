"""Table talk: messages to the whole table, or privately to one seat, as ``talk`` events.

A message is an event of the game's log like any other administrative event (appended
through :meth:`GameService.append_admin`; it never changes the game's state). Its
``seat`` is the sender; its payload is one of::

    {"to": null, "text": "Anyone for a grain deal?"}                 # to the table
    {"to": 2, "commitment": HEX, "sealed": {"salt": HEX, "text": "..."}}  # private

**How a private message stays private in a hash-chained, exportable log.** The chain
hashes a talk event's payload *without* its ``sealed`` part
(:func:`pbem.eventlog.log.hashed_payload`): what the chain holds is the sender, the
addressee and ``commitment`` = HMAC-SHA256(salt, text) under a fresh random 16-byte salt
per message, so the hash of the event says nothing about the text (not even its length)
and nobody can test guesses against it without the salt. The text and salt are stored
with the event and go only where the message's audience (its sender and addressee) or
the operator reads:

- a full export (operator, ``pbem export --full``) carries them, and ``pbem verify``
  checks each one against its commitment; an import keeps them;
- a seat's export carries them for that seat's own messages and those addressed to it,
  and for any other private message only the sender, the addressee and the commitment;
- the public export, the audit, the spectator page and the history of anyone else
  never carry them (:func:`for_reader`); neither do mails (a talk mail goes to the
  audience only).

Either way the event's hash is the same, so every reader checks the same chain.

Ways in (each through :func:`post`): the form on the turn page (``POST
/play/TOKEN/talk``), a reply by mail (:mod:`pbem.mail.inbound.receive`: a reply whose
first line is ``say: ...`` or ``to NAME: ...``, or that starts with text that is no
move), and a reply to a ``talk`` mail (its ``Reply-To`` is the seat's own tagged reply
address, the game's talk address for that seat). Mail goes out by each player's
``seats.talk_mail``: ``at_once`` (one ``talk`` mail per message), ``digest`` (in the
daily digest), ``off``.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from pbem import i18n, zones
from pbem.errors import BadInput, NotFound, TooMany
from pbem.eventlog.log import SEALED, TALK_KIND, timestamp
from pbem.eventlog.talk_events import commitment
from pbem.games.context import Runtime
from pbem.games.notices import Notice
from pbem.i18n import N_, T
from pbem.models import Event, Game, Seat

KIND = TALK_KIND
MAX_CHARS = 2000
PER_HOUR = 30
READ_AT_MOST = 1000
SALT_BYTES = 16
PREFERENCES = ("at_once", "digest", "off")
PREFERENCE_WORDS = {
    "at_once": N_("each message at once"),
    "digest": N_("in the daily digest"),
    "off": N_("no mail about table talk"),
}
# Control characters other than a line break or a tab (a message may have lines).
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


# The pure part: payloads, commitments, who may read what ---------------------------


def clean_text(text: Any) -> str:
    """A message as it is kept: line breaks normalised, trimmed; refused (BadInput) when
    empty, longer than :data:`MAX_CHARS` or holding control characters."""
    if not isinstance(text, str):
        raise BadInput(T("A message must be text."))
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text:
        raise BadInput(T("The message is empty. Nothing was sent."))
    if len(text) > MAX_CHARS:
        raise BadInput(
            T(
                "A message may be at most %(most)d characters long; this one has "
                "%(length)d. Nothing was sent.",
                most=MAX_CHARS,
                length=len(text),
            )
        )
    if CONTROL.search(text):
        raise BadInput(T("The message holds control characters. Nothing was sent."))
    return text


def new_payload(to: int | None, text: str, salt: bytes | None = None) -> dict[str, Any]:
    """The payload of a message to the table (``to`` None) or to one seat."""
    if to is None:
        return {"to": None, "text": text}
    salt = salt if salt is not None else secrets.token_bytes(SALT_BYTES)
    return {
        "to": to,
        "commitment": commitment(salt, text),
        SEALED: {"salt": salt.hex(), "text": text},
    }


def is_private(row: Mapping[str, Any]) -> bool:
    return (row.get("payload") or {}).get("to") is not None


def may_read(row: Mapping[str, Any], seat: int | None) -> bool:
    """Whether ``seat`` (None: a spectator, the public) may read the message's text."""
    if not is_private(row):
        return True
    return seat is not None and seat in (row.get("seat"), row["payload"].get("to"))


def for_reader(row: Mapping[str, Any], seat: int | None, *, full: bool = False) -> dict[str, Any]:
    """The payload as ``seat`` may have it (``full``: the operator's, everything)."""
    payload = dict(row.get("payload") or {})
    if full or may_read(row, seat):
        return payload
    payload.pop(SEALED, None)
    return payload


def redacted_row(row: Mapping[str, Any], seat: int | None, *, full: bool = False) -> Mapping:
    """An event row as ``seat`` may have it (only talk events change)."""
    if row.get("kind") != KIND or full or may_read(row, seat):
        return row
    return {**row, "payload": for_reader(row, seat)}


def text_of(row: Mapping[str, Any]) -> str:
    """The text of a message ("" when it is sealed away from the reader)."""
    payload = row.get("payload") or {}
    if payload.get("to") is None:
        return str(payload.get("text", ""))
    sealed = payload.get(SEALED)
    return str(sealed.get("text", "")) if isinstance(sealed, Mapping) else ""


# Reading: the messages a seat (or a spectator) sees ---------------------------------


@dataclass
class Said:
    """One message as a reader sees it."""

    seq: int
    sender: int
    to: int | None
    text: str
    created_at: str
    sender_name: str
    to_name: str
    reader: int | None
    zone: str = "UTC"

    @property
    def private(self) -> bool:
        return self.to is not None

    @property
    def mine(self) -> bool:
        return self.reader is not None and self.sender == self.reader

    @property
    def heading(self) -> str:
        """Who said it to whom, as the reader reads it."""
        if not self.private:
            return "You" if self.mine else self.sender_name
        if self.mine:
            return f"You to {self.to_name} (private)"
        return f"{self.sender_name} (private to you)"

    @property
    def when(self) -> str:
        """When it was said, in the reader's zone, named."""
        return zones.stamp(self.created_at, self.zone)


def talk_rows(session: Session, game_id: str, most: int = READ_AT_MOST) -> list:
    """The game's latest ``most`` talk events, oldest first (a page shows the latest
    ones a reader may read among them)."""
    query = (
        select(Event)
        .where(Event.game_id == game_id, Event.kind == KIND)
        .order_by(col(Event.seq).desc())
        .limit(most)
    )
    return list(reversed(session.exec(query).all()))


def said_for(
    rows: list, names: list[str], reader: int | None, limit: int | None = None, zone: str = "UTC"
) -> list[Said]:
    """The messages of ``rows`` that ``reader`` may read (None: a spectator), oldest
    first, their times in ``zone``."""
    shown = []
    for event in rows:
        row = {"seat": event.seat, "payload": event.payload or {}, "kind": KIND}
        if not may_read(row, reader):
            continue
        to = row["payload"].get("to")

        def name(seat: int | None) -> str:
            if seat is None:
                return ""
            return names[seat] if 0 <= seat < len(names) else f"Player {seat + 1}"

        shown.append(
            Said(
                event.seq,
                event.seat,
                to,
                text_of(row),
                event.created_at,
                name(event.seat),
                name(to),
                reader,
                zone or "UTC",
            )
        )
    return shown[-limit:] if limit else shown


def messages(service: Any, game_id: str, reader: int | None, limit: int | None = 50) -> list[Said]:
    """The latest messages ``reader`` may read, newest last."""
    with service.reading() as session:
        rows = talk_rows(session, game_id)
        names = [
            seat.name
            for seat in session.exec(
                select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.seat))
            )
        ]
    return said_for(rows, names, reader, limit)


def history_line(row: Mapping[str, Any], names: list[str], reader: int | None) -> str:
    """A message's line in the history; to anyone outside a private message's audience
    only that it was sent (the log shows that much to everyone)."""
    payload = row.get("payload") or {}
    sender, to = row.get("seat"), payload.get("to")

    def name(seat: Any) -> str:
        return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "Someone"

    if not may_read(row, reader):
        return f"{name(sender)} sent {name(to)} a private note."
    text = text_of(row)
    if to is None:
        return f"{name(sender)} said to the table: “{text}”"
    if reader == sender:
        return f"You said to {name(to)} (private): “{text}”"
    return f"{name(sender)} said to you (private): “{text}”"


# Writing: a message posted --------------------------------------------------------


def recipient_seat(text: str, names: list[str], sender: int) -> int:
    """The seat a name names (any case), for ``to NAME:`` and the page's select."""
    wanted = " ".join(text.split()).casefold()
    found = [seat for seat, name in enumerate(names) if " ".join(name.split()).casefold() == wanted]
    if not found:
        raise BadInput(
            T(
                "There is no player called %(name)s in this game. Nothing was sent.",
                name=repr(text.strip()),
            )
        )
    if found == [sender]:
        raise BadInput(T("A private note to yourself goes nowhere. Nothing was sent."))
    others = [seat for seat in found if seat != sender]
    if len(others) > 1:
        # Names are unique in a game; an older game may still share one: never guess.
        raise BadInput(
            T(
                "More than one player of this game is called %(name)s, so the note "
                "could go to the wrong one. Nothing was sent.",
                name=repr(text.strip()),
            )
        )
    return others[0]


def count(session: Session, runtime: Runtime, game_id: str, seat: int) -> None:
    """Counts a message of ``seat``; :class:`TooMany` past :data:`PER_HOUR`."""
    from pbem.games.tables import SeatRequest
    from pbem.zones import utc

    now = utc(runtime.clock())
    made = session.exec(
        select(func.count(col(SeatRequest.id))).where(
            SeatRequest.game_id == game_id,
            SeatRequest.seat == seat,
            SeatRequest.kind == KIND,
            col(SeatRequest.created_at) > now - timedelta(hours=1),
        )
    ).one()
    if made >= PER_HOUR:
        raise TooMany(
            T(
                "That makes too many messages in an hour (at most %(most)d); "
                "wait a while and try again. Nothing was sent.",
                most=PER_HOUR,
            )
        )
    session.add(SeatRequest(game_id=game_id, seat=seat, kind=KIND, created_at=now))


def post(runtime: Runtime, game_id: str, seat: int, to: int | None, text: Any, via: str = "web"):
    """Posts a message from ``seat`` (to the table, or privately to seat ``to``) as a
    ``talk`` event, and tells each reader (:func:`tell_audience`).
    Bad input is refused with nothing changed."""
    service = runtime.service
    text = clean_text(text)
    with service.reading() as session:
        seats = list(
            session.exec(select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.seat)))
        )
    if not seats:
        raise NotFound(T("There is no such game."))
    if not 0 <= seat < len(seats):
        raise NotFound(T("There is no such seat in this game."))
    if to is not None:
        if isinstance(to, bool) or not isinstance(to, int) or not 0 <= to < len(seats):
            raise BadInput(T("There is no such player in this game. Nothing was sent."))
        if to == seat:
            raise BadInput(T("A private note to yourself goes nowhere. Nothing was sent."))
    payload = new_payload(to, text)

    def change(session: Session, game: Any) -> None:
        count(session, runtime, game_id, seat)
        tell_audience(session, runtime, game, seat, to, text)

    return service.append_admin(game_id, KIND, seat, payload, actor=via, change=change)


def tell_audience(
    session: Session, runtime: Runtime, game: Any, sender: int, to: int | None, text: str
) -> None:
    """A ``talk`` notice to each reader: the addressee of a private message, or every
    other person at the table (mail sends it to those who want table talk at once)."""
    seats = list(session.exec(select(Seat).where(Seat.game_id == game.id).order_by(col(Seat.seat))))
    by_seat = {row.seat: row for row in seats}
    readers = [to] if to is not None else [row.seat for row in seats if row.seat != sender]
    for number in readers:
        if number not in by_seat:
            continue
        runtime.service.tell(
            session,
            Notice(
                kind="talk",
                key=f"talk:{game.id}:{number}:{game.head_seq}",
                game_id=game.id,
                seat=number,
                facts={
                    "sender": sender,
                    "sender_name": by_seat[sender].name,
                    "private": to is not None,
                    "said": text,
                },
            ),
        )


# The daily digest ---------------------------------------------------------------


def digest_seats_query() -> Any:
    """The seats whose talk comes by digest, through the partial index
    ``ix_seats_talk_digest``: the sweep reads those seats only, never every seat (whose
    number grows with the running games)."""
    return select(Seat).where(
        Seat.talk_mail == "digest",
        Seat.is_bot == False,  # noqa: E712 - a SQL comparison
        Seat.email != "",
    )


def digest_entries(session: Session, now: Any) -> dict[str, tuple[Any, list[dict[str, Any]]]]:
    """For each address with a seat whose talk comes in the digest: (its most recently
    created such seat, [{"title", "said": [lines]}]) with the messages of the last 24
    hours it may read (its own left out), per game. Addresses with no such message are
    left out."""
    seats = list(session.exec(digest_seats_query()))
    if not seats:
        return {}
    since = timestamp(now - timedelta(days=1))
    games = sorted({seat.game_id for seat in seats})
    rows: dict[str, list] = {}
    for event in session.exec(
        select(Event)
        .where(
            col(Event.game_id).in_(games),
            Event.kind == KIND,
            col(Event.created_at) >= since,
            col(Event.created_at) <= timestamp(now),
        )
        .order_by(col(Event.game_id), col(Event.seq))
    ):
        rows.setdefault(event.game_id, []).append(event)
    if not rows:
        return {}
    titles = {
        game.id: game.title for game in session.exec(select(Game).where(col(Game.id).in_(games)))
    }
    names: dict[str, list[str]] = {}
    for seat in session.exec(select(Seat).where(col(Seat.game_id).in_(list(rows)))):
        found = names.setdefault(seat.game_id, [])
        found.extend([""] * (seat.seat + 1 - len(found)))
        found[seat.seat] = seat.name
    found_by: dict[str, tuple[Any, list[dict[str, Any]]]] = {}
    for seat in sorted(seats, key=lambda row: (row.created_at, row.game_id)):
        with i18n.speaking(seat.language):  # the lines of the seat's own digest
            lines = [
                history_line(
                    {"kind": KIND, "seat": event.seat, "payload": event.payload},
                    names[seat.game_id],
                    seat.seat,
                )
                for event in rows.get(seat.game_id, [])
                if event.seat != seat.seat
                and may_read({"seat": event.seat, "payload": event.payload}, seat.seat)
            ]
        if not lines:
            continue
        address = seat.email.lower()
        _, entries = found_by.get(address, (seat, []))
        entries.append({"title": titles.get(seat.game_id, ""), "said": lines})
        found_by[address] = (seat, entries)
    return found_by


STATELESS = (KIND, "contribution")  # events after which a prepared move still stands


def head_past_talk(service: Any, game_id: str, seq: int, most: int = 200) -> int | None:
    """The head's seq when every event after ``seq`` is table talk or a contribution to
    the dice (a move prepared at ``seq`` still stands: neither changes the state; a
    contribution only changes the draws still to come), else None."""
    with service.reading() as session:
        kinds = list(
            session.exec(
                select(Event.seq, Event.kind)
                .where(Event.game_id == game_id, col(Event.seq) > seq)
                .order_by(col(Event.seq))
                .limit(most + 1)
            )
        )
    if not kinds or len(kinds) > most or any(kind not in STATELESS for _, kind in kinds):
        return None
    return kinds[-1][0]
