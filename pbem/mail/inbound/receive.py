"""Taking one message in: ``pbem receive`` (an MTA's pipe) and the LMTP listener.

:func:`take` answers with a sysexits status: ``0`` taken (applied, refused with an
answer, or ignored), ``67`` no such address (not one of ours, or a tag that does not
verify: the MTA bounces it), ``75`` try again later (the database could not be
reached; nothing was kept).

A reply counts when its address's tag verifies (:mod:`.tags`), its ``From`` is the
address of the person who holds the seat now, the seat is a person's (not a bot's),
the game runs, and the seat is due in the same turn as the mail: it has not moved
since the mail's event and no take-back or change of seat happened since. Then the
first paragraph's lines are applied in order (:mod:`.moves`) until the first one that
is refused, the bots in the other seats move, and an answer goes out through the
outbox: what was applied and what happened, the new head hash as a receipt and what
is due next (with the moves again when it is still the player's turn), or the reason
for a refusal and the legal moves again. A Message-ID is kept hashed in
``inbound_messages`` first: the same message never applies twice.

Table talk (:mod:`pbem.games.talk`): from the seat's player (the same ``From`` check),
a reply whose first line starts with ``say:`` goes to the table and one that starts
with ``to NAME:`` to NAME alone, at any time. A reply whose first line names no move
is table talk too, unless it answers a turn of the seat's that is still running (then
it is refused as before, with a word about ``say:``: a mistyped move is never posted).
A talk mail's ``Reply-To`` is the seat's tagged address, so answering it talks.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage
from email.utils import parseaddr
from typing import Any

from sqlalchemy import update
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlmodel import col, select

from pbem.errors import Conflict, PbemError
from pbem.eventlog.store import game_engine
from pbem.games import names
from pbem.games import talk as talk_mod
from pbem.games.roster import SEAT_KINDS
from pbem.mail import budget, outbox, render
from pbem.mail.inbound import bounces, moves, tags
from pbem.mail.inbound import message as msg
from pbem.mail.models import InboundMessage, Mail, MailAddress, utc
from pbem.models import Event, Game, Seat

EX_OK = 0
EX_NOUSER = 67
EX_TEMPFAIL = 75


@dataclass
class Taken:
    """What became of one message: the sysexits status, an outcome word and a detail."""

    status: int
    outcome: str
    detail: str = ""
    applied: list[str] = field(default_factory=list)


def take(
    runtime: Any,
    raw: bytes,
    recipients: list[str] | None = None,
    envelope_sender: str | None = None,
) -> Taken:
    """Takes one RFC 5322 message (see the module's docstring). ``recipients`` are the
    envelope's (LMTP's RCPT TO, the pipe's argument); without them the message's own
    headers say where it was sent."""
    if tags.reply_address_config(runtime.config) is None:
        return Taken(EX_NOUSER, "off", "replies by mail are off (no mail.reply_address)")
    try:
        return _take(runtime, raw, recipients, envelope_sender)
    except (OperationalError, DBAPIError) as error:
        return Taken(
            EX_TEMPFAIL, "later", f"the database is not reachable: {error.__class__.__name__}"
        )


def _our_addresses(runtime: Any, candidates: list[str]) -> list[str]:
    sender_address = parseaddr(runtime.config["mail"].get("sender", ""))[1].lower()
    return [
        address
        for address in candidates
        if tags.is_ours(runtime.config, address)
        or (sender_address and address.lower() == sender_address)
        or bounces.is_bounce_address(runtime.config, address)
    ]


def message_key(message: EmailMessage, raw: bytes) -> str:
    """sha256 of the Message-ID (of the whole message when it has none)."""
    message_id = msg.header(message, "Message-ID").strip()
    if message_id:
        return hashlib.sha256(b"mid:" + message_id.encode("utf-8", "replace")).hexdigest()
    return hashlib.sha256(b"raw:" + raw).hexdigest()


def _take(
    runtime: Any, raw: bytes, recipients: list[str] | None, envelope_sender: str | None
) -> Taken:
    message = msg.parse(raw[: msg.MAX_BYTES + 1])
    ours = _our_addresses(runtime, list(recipients) if recipients else msg.recipients(message))
    if not ours:
        return Taken(EX_NOUSER, "no_such_address", "not an address of this server")
    domain = render.domain(runtime.config["mail"]["sender"]).lower()
    kind = msg.classify(raw, message, domain, envelope_sender)
    key = message_key(message, raw)
    sender = msg.sender(message)
    if kind == "bounce" or any(bounces.is_bounce_address(runtime.config, a) for a in ours):
        # Only a report delivered to the bounce address of the mail it is about counts.
        outcome, detail = bounces.take(runtime, outbox.secret(runtime), ours, message, kind)
        _record(runtime, key, sender, None, None, outcome, detail)
        return Taken(EX_OK, outcome, detail)
    if kind != "reply":
        _record(runtime, key, sender, None, None, kind, msg.header(message, "Subject"))
        return Taken(EX_OK, kind)
    tag = next(
        (
            found
            for found in (tags.read_tag(runtime.config, outbox.secret(runtime), a) for a in ours)
            if found
        ),
        None,
    )
    if tag is None:
        return Taken(EX_NOUSER, "bad_tag", "the reply address does not verify")
    with runtime.service.reading() as session:
        game = session.get(Game, tag.game_id)
        seat = session.get(Seat, (tag.game_id, tag.seat))
    if game is None or seat is None:
        return Taken(EX_NOUSER, "bad_tag", "no such game or seat")
    if not _claim(runtime, key, sender, tag):
        return Taken(EX_OK, "duplicate", "this message was taken before")
    try:
        taken = _reply(runtime, message, tag, game, seat, sender, key)
    except Exception:
        _unclaim(runtime, key)  # nothing kept: the MTA tries again later
        raise
    _record(runtime, key, sender, tag.game_id, tag.seat, taken.outcome, taken.detail, update=True)
    return taken


# The record of each message --------------------------------------------------------


def _claim(runtime: Any, key: str, sender: str, tag: tags.Tag) -> bool:
    """Keeps the message's key before anything is applied; False when it is known."""
    with runtime.service.session() as session:
        session.add(
            InboundMessage(
                message_key=key,
                received_at=utc(runtime.clock()),
                sender=sender[:320],
                game_id=tag.game_id,
                seat=tag.seat,
                outcome="taking",
            )
        )
        try:
            session.commit()
        except IntegrityError:
            return False
    return True


def _unclaim(runtime: Any, key: str) -> None:
    try:
        with runtime.service.session() as session:
            row = session.get(InboundMessage, key)
            if row is not None and row.outcome == "taking":
                session.delete(row)
                session.commit()
    except (OperationalError, DBAPIError):
        pass


def _record(
    runtime: Any,
    key: str,
    sender: str,
    game_id: str | None,
    seat: int | None,
    outcome: str,
    detail: str,
    update: bool = False,
) -> None:
    with runtime.service.session() as session:
        row = session.get(InboundMessage, key)
        if row is not None and not update:
            return
        row = row or InboundMessage(message_key=key, received_at=utc(runtime.clock()))
        row.sender, row.game_id, row.seat = sender[:320], game_id, seat
        row.outcome, row.detail = outcome[:32], detail[:500]
        session.add(row)
        session.commit()


# Bounces -------------------------------------------------------------------------


def clear_bouncing(runtime: Any, address: str) -> bool:
    """A reply from ``address`` (its tag verified, the seat's player) shows that mail to
    it works again: the bouncing mark goes and the dispatcher mails it as before (mail
    held while it bounced stays held). True when a mark was cleared."""
    with runtime.service.session() as session:
        row = session.get(MailAddress, address)
        if row is None or row.bouncing_since is None:
            return False
        row.bouncing_since, row.bounce_detail = None, ""
        row.updated_at = utc(runtime.clock())
        session.add(row)
        session.commit()
    return True


def bouncing(session: Any, addresses: list[str]) -> dict[str, datetime]:
    """Which of ``addresses`` bounce, with since when (lower-cased addresses)."""
    wanted = [address.lower() for address in addresses if address]
    if not wanted:
        return {}
    rows = session.exec(
        select(MailAddress).where(
            col(MailAddress.address).in_(wanted), col(MailAddress.bouncing_since).is_not(None)
        )
    )
    return {row.address: row.bouncing_since for row in rows}


# A reply -------------------------------------------------------------------------


def _seat_names(runtime: Any, game_id: str) -> list[str]:
    return [seat.name for seat in runtime.service.seats(game_id)]


def _older_turn(runtime: Any, tag: tags.Tag, seat: Seat, game: Game) -> bool:
    """Whether the mail's turn is over for the seat: it moved since, or a take-back or a
    change of seat happened since, or the mail names an event the log does not have."""
    if tag.seq > game.head_seq:
        return True
    if seat.last_move_seq is not None and seat.last_move_seq > tag.seq:
        return True
    with runtime.service.reading() as session:
        changed = session.exec(
            select(col(Event.seq)).where(
                Event.game_id == game.id,
                col(Event.seq) > tag.seq,
                col(Event.kind).in_(("take_back", *SEAT_KINDS)),
            )
        ).first()
    return changed is not None


def _reply(
    runtime: Any,
    message: EmailMessage,
    tag: tags.Tag,
    game: Game,
    seat: Seat,
    sender: str,
    key: str,
) -> Taken:
    service = runtime.service
    if not sender or sender != seat.email.strip().lower():
        answer_stranger(runtime, game, sender, key)
        return Taken(EX_OK, "refused_sender", "not the address of the seat's player")
    clear_bouncing(runtime, sender)  # mail from the address: it works again
    budget.seat_taken(runtime, game.id, sender)  # and its player took the seat
    lines = msg.reply_lines(message)
    talked = _talk(runtime, message, lines, tag, game, seat, key)
    if talked is not None:
        return talked
    if seat.is_bot:
        return _refuse(
            runtime, tag, key, "A bot plays this seat now; take it back from your link first."
        )
    if game.status != "active":
        return _refuse(runtime, tag, key, "This game is over; no more moves can be made.")
    if game.paused_at is not None:
        return _refuse(runtime, tag, key, "The game is paused; no moves until it is resumed.")
    if _older_turn(runtime, tag, seat, game):
        return _refuse(
            runtime,
            tag,
            key,
            f"You replied to the mail of event {tag.seq}, and that turn is over: the game "
            "has moved on since. Here is where it stands now.",
            outcome="older_turn",
        )
    if not seat.due:
        return _refuse(runtime, tag, key, "It is not your turn.")
    if not lines:
        return _refuse(
            runtime,
            tag,
            key,
            "Your reply names no move: write a move's number, its name or its written "
            "form on the first line.",
        )
    seat_names = _seat_names(runtime, game.id)
    engine, mail_state, _ = service.state_at(game.id, tag.seq)
    mail_list = moves.numbered(engine, mail_state, seat.seat, seat_names)
    applied: list[str] = []
    refusal = ""
    for line in lines:
        label, refusal = _apply_line(runtime, game.id, seat.seat, line, mail_list, seat_names)
        if refusal:
            break
        applied.append(label)
    if applied:
        service.play_bots(game.id)
    elif refusal:
        refusal += ' To write to the table instead, start your reply with "say:".'
    answer(runtime, tag, key, applied, refusal)
    outcome = "applied" if applied and not refusal else ("partly" if applied else "refused")
    return Taken(EX_OK, outcome, refusal or "; ".join(applied), applied)


SAY = re.compile(r"^say\s*:\s*", re.IGNORECASE)
TO_NAME = re.compile(r"^to\s+([^:\n]{1,200}?)\s*:\s*", re.IGNORECASE)


def _talk(
    runtime: Any,
    message: EmailMessage,
    lines: list[str],
    tag: tags.Tag,
    game: Game,
    seat: Seat,
    key: str,
) -> Taken | None:
    """Table talk by mail (:mod:`pbem.games.talk`): a reply whose first line starts with
    ``say:`` (to the table) or ``to NAME:`` (privately to NAME), or whose first line is
    text that names no move, is posted as a message (whether or not it is the seat's
    turn). None: the reply is about moves."""
    if not lines:
        return None
    first = lines[0]
    to: int | None = None
    text = msg.own_text(message)
    said = SAY.match(first)
    addressed = TO_NAME.match(first) if not said else None
    seat_names = _seat_names(runtime, game.id)
    if said:
        text = SAY.sub("", text, count=1)
    elif addressed:
        try:
            to = talk_mod.recipient_seat(addressed[1], seat_names, seat.seat)
        except PbemError as error:
            return _refuse(runtime, tag, key, error.message)
        text = TO_NAME.sub("", text, count=1)
    elif _moving(runtime, tag, game, seat) or _names_a_move(
        runtime, first, tag, game, seat, seat_names
    ):
        return None
    try:
        talk_mod.post(runtime, game.id, seat.seat, to, text, via="mail")
    except PbemError as error:
        return _refuse(runtime, tag, key, error.message)
    where = "to the table" if to is None else f"to {seat_names[to]} alone"
    answer(runtime, tag, key, [], "", said=f"your message went {where}")
    return Taken(EX_OK, "talk", f"a message {where}")


def _moving(runtime: Any, tag: tags.Tag, game: Game, seat: Seat) -> bool:
    """Whether the reply answers a turn of the seat's that is still running: then its
    first line must be a move (a typo is refused, never posted to the table) unless it
    starts with ``say:`` or ``to NAME:``."""
    return (
        game.status == "active"
        and game.paused_at is None
        and seat.due
        and not seat.is_bot
        and not _older_turn(runtime, tag, seat, game)
    )


def _names_a_move(
    runtime: Any, line: str, tag: tags.Tag, game: Game, seat: Seat, seat_names: list[str]
) -> bool:
    """Whether a reply's first line is (or tries to be) a move: a code, JSON, or a move
    of the mail's list or of the moment."""
    text = line.strip()
    if moves.CODE.match(text) or text.startswith("{"):
        return True
    service = runtime.service
    try:
        engine, mail_state, _ = service.state_at(game.id, min(tag.seq, game.head_seq))
        mail_list = moves.numbered(engine, mail_state, seat.seat, seat_names)
        head = service.head(game.id)
    except PbemError:
        return False
    for state in (mail_state, head.state):
        try:
            moves.resolve(text, mail_list, head.engine, state, seat.seat, seat_names)
            return True
        except moves.Unreadable:
            continue
        except Exception:  # noqa: BLE001 - a state where the seat has no moves at all
            continue
    return False


def _apply_line(
    runtime: Any,
    game_id: str,
    seat: int,
    line: str,
    mail_list: list[moves.Listed],
    seat_names: list[str],
) -> tuple[str, str]:
    """Makes the move one line names: (its label, "") or ("", why not). A move that
    lost the race with another seat's (the game moved on between reading and writing)
    is read again against the new head, once."""
    service = runtime.service
    for attempt in (1, 2):
        head = service.head(game_id)
        if head.game.status != "active" or seat not in head.engine.to_move(head.state):
            return "", f'"{line}" was not applied: it is no longer your turn.'
        try:
            move = moves.resolve(line, mail_list, head.engine, head.state, seat, seat_names)
            view = head.engine.view(head.state, seat)
            label = names.fill(head.engine.move_label(move, view), seat_names, names.marks_of(view))
            service.submit_move(game_id, seat, move, head.seq, actor="mail")
        except moves.Unreadable as error:
            return "", error.reason
        except Conflict:
            if attempt == 1:
                continue
            return "", f'"{line}" was not applied: the game moved on meanwhile; try again.'
        except PbemError as error:
            return "", f'"{line}" was not applied: {error.message}'
        return label, ""
    return "", ""


def _refuse(runtime: Any, tag: tags.Tag, key: str, reason: str, outcome: str = "refused") -> Taken:
    answer(runtime, tag, key, [], reason)
    return Taken(EX_OK, outcome, reason)


# Answers -------------------------------------------------------------------------


def answer(
    runtime: Any, tag: tags.Tag, key: str, applied: list[str], refusal: str, said: str = ""
) -> None:
    """The answer to a reply from the seat's player, through the outbox: what was
    applied, what happened since the mail (as the seat may see it), the receipt, and
    what is due next, with the legal moves when it is the player's turn."""
    service = runtime.service
    with service.session() as session:
        game = service.store.game(session, tag.game_id)
        seat = session.get(Seat, (tag.game_id, tag.seat))
        engine = game_engine(game)
        seats = list(
            session.exec(select(Seat).where(Seat.game_id == game.id).order_by(col(Seat.seat)))
        )
        seat_names = [row.name for row in seats]
        start = min(tag.seq, game.head_seq)
        happened = (
            outbox.history(session, runtime, game, engine, seat.seat, start)[0] if applied else []
        )
        state = (
            engine.load(game.head_state)
            if game.head_state is not None
            else service.store.state_at(session, game, engine, game.head_seq)
        )
        listed = (
            moves.numbered(engine, state, seat.seat, seat_names) if game.status == "active" else []
        )
        due = [
            row.name for row in seats if row.seat in (game.to_move or []) and row.seat != seat.seat
        ]
        if game.status != "active":
            headline = outbox.game_over_context(game, seat_names)["headline"]
            next_up = f"The game is over. {headline}".strip()
        elif game.paused_at is not None:
            next_up = "The game is paused."
        elif listed:
            next_up = "It is your turn" + (" again." if applied else ".")
        else:
            next_up = f"Waiting for {render.names(due)}." if due else ""
        token = outbox.seat_token(session, runtime, seat)
        settings = outbox.settings_link(runtime, seat) if seat.token_hash else ""
        context = outbox.seat_context(runtime, game, seat, token, settings, None)
        if said:
            next_up = f"{said[0].upper()}{said[1:]}. {next_up}".strip()
        context.update(
            headline=said or _headline(applied, refusal),
            applied=applied,
            refusal=refusal,
            lines=happened,
            next_up=next_up,
            **move_context(game.engine, listed),
            bouncing=bouncing_names(session, seats, seat),
        )
        outbox.enqueue(
            session,
            runtime,
            "answer",
            key=f"answer:{game.id}:{seat.seat}:{key[:16]}:{game.head_seq}",
            recipient=seat.email,
            context=context,
            game_id=game.id,
            seat=seat.seat,
            unsubscribe=settings,
        )
        if applied and listed:
            # The answer lists the moves of the seat's new turn: the "your turn" mail that
            # the move recorded for it would say the same again, so it does not go.
            session.exec(
                update(Mail)
                .where(
                    col(Mail.game_id) == game.id,
                    col(Mail.seat) == seat.seat,
                    col(Mail.kind) == "your_turn",
                    col(Mail.status) == "pending",
                    col(Mail.attempts) == 0,
                )
                .values(status="dropped", last_error="dropped: the answer to a reply said so")
                .execution_options(synchronize_session=False)
            )
        session.commit()


def _headline(applied: list[str], refusal: str) -> str:
    if applied and refusal:
        count = len(applied)
        return f"{count} move{'s' if count != 1 else ''} made, then one refused"
    if applied:
        return "your move was made" if len(applied) == 1 else f"your {len(applied)} moves were made"
    return "your reply was not applied"


def move_context(engine_slug: str, listed: list[moves.Listed]) -> dict[str, Any]:
    """What a mail needs to list the moves with codes: ``move_groups``, ``written``."""
    return {
        "move_groups": moves.groups(listed),
        "written": moves.written_forms(engine_slug, listed),
        "move_count": len(listed),
    }


def flag_bouncing_players(runtime: Any, shown: list[dict], seats: list[Any]) -> None:
    """Sets ``bouncing`` on each player of a page's list whose mail bounces."""
    with runtime.service.reading() as session:
        found = bouncing(session, [getattr(seat, "email", "") or "" for seat in seats])
    if not found:
        return
    by_seat = {seat.seat: (getattr(seat, "email", "") or "").lower() for seat in seats}
    for player in shown:
        player["bouncing"] = by_seat.get(player["seat"], "") in found


def bouncing_names(session: Any, seats: list[Seat], reader: Seat) -> list[str]:
    """The other players of the game whose mail bounces, for every seat mail (the
    creator and the other players read it; the reader's own mail would not arrive)."""
    others = [row for row in seats if row.seat != reader.seat and row.email and not row.is_bot]
    found = bouncing(session, [row.email for row in others])
    return [row.name for row in others if row.email.lower() in found]


def answer_stranger(runtime: Any, game: Game, sender: str, key: str) -> None:
    """A short refusal to an address that does not hold the seat: no state of the game."""
    if not sender or "@" not in sender:
        return
    with runtime.service.session() as session:
        outbox.enqueue(
            session,
            runtime,
            "answer_stranger",
            key=f"answer_stranger:{game.id}:{key[:16]}",
            recipient=sender,
            context={"title": game.title, "name": "", "sender": sender},
            game_id=game.id,
        )
        session.commit()
