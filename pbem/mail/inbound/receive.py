"""Taking one message in: ``pbem receive`` (an MTA's pipe) and the LMTP listener.

:func:`take` answers with a sysexits status: ``0`` taken (applied, refused with an
answer, or ignored), ``67`` no such address (not one of ours, or a tag that does not
verify: the MTA bounces it), ``75`` try again later (the database could not be
reached; nothing was kept).

Mail that is not a reply (:func:`pbem.mail.inbound.message.classify`: too big,
malformed, a loop, a delivery report, from the null sender, an auto-reply) is taken
and recorded, never applied and never answered; so is anything sent to the server's
own sender address or a ``+b-`` extension of it (delivery reports and what robots send
there: never bounced back). A tag that verifies for a game this server no longer holds
is answered once a day: the game is not here any more.

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

Answers that refuse (to a stranger, a refused reply, a game no longer here) go at most
once a day per person (:func:`pbem.validate.canonical_address`) and kind, counted in
``inbound_answers`` (as Discourse's ``can_send_rejection_email?``), and never to a robot
(:func:`pbem.mail.inbound.message.is_robot`). A stranger's answer names no game.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import parseaddr
from typing import Any

from sqlalchemy import or_, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlmodel import col, select

from pbem.errors import Conflict, PbemError
from pbem.eventlog.roster import SEAT_KINDS
from pbem.eventlog.store import game_engine
from pbem.games import names
from pbem.games import talk as talk_mod
from pbem.mail import budget, game_over, history, outbox, render, seat_mails
from pbem.mail.inbound import bounces, moves, tags
from pbem.mail.inbound import message as msg
from pbem.mail.models import InboundAnswer, InboundMessage, Mail, MailAddress
from pbem.models import Event, Game, Seat
from pbem.validate import canonical_address
from pbem.zones import utc

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
    return [
        address
        for address in candidates
        if tags.is_ours(runtime.config, address)
        or own_mailbox(runtime, address)
        or bounces.is_bounce_address(runtime.config, address)
    ]


def own_mailbox(runtime: Any, address: str) -> bool:
    """Whether ``address`` is the server's sender address (``mail.sender``), where
    delivery reports come, or one of its ``+b-`` extensions (VERP)."""
    sender_address = parseaddr(runtime.config["mail"].get("sender", ""))[1].lower()
    local, _, domain = sender_address.rpartition("@")
    got_local, _, got_domain = address.strip().strip("<>").lower().rpartition("@")
    if not local or got_domain != domain:
        return False
    return got_local == local or got_local.startswith(f"{local}+b-")


def sent_here(runtime: Any, message_id: str) -> bool:
    """Whether the outbox sent a mail with this Message-ID (``<...>``)."""
    with runtime.service.reading() as session:
        found = session.exec(
            select(col(Mail.id)).where(col(Mail.message_id) == message_id[:200]).limit(1)
        ).first()
    return found is not None


def message_key(message: EmailMessage, raw: bytes) -> str:
    """sha256 of the Message-ID (of the whole message when it has none)."""
    message_id = msg.header(message, "Message-ID").strip()
    if message_id:
        return hashlib.sha256(b"mid:" + message_id.encode("utf-8", "replace")).hexdigest()
    return hashlib.sha256(b"raw:" + raw).hexdigest()


def _take(
    runtime: Any, raw: bytes, recipients: list[str] | None, envelope_sender: str | None
) -> Taken:
    try:
        message = msg.parse(raw[: msg.MAX_BYTES + 1])
    except msg.Malformed as error:
        return _malformed(runtime, raw, recipients, str(error))
    ours = _our_addresses(runtime, list(recipients) if recipients else msg.recipients(message))
    if not ours:
        return Taken(EX_NOUSER, "no_such_address", "not an address of this server")
    domain = render.domain(runtime.config["mail"]["sender"]).lower()
    kind = msg.classify(
        raw, message, domain, envelope_sender, lambda message_id: sent_here(runtime, message_id)
    )
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
        if any(own_mailbox(runtime, address) for address in ours):
            detail = "mail to the sender's address is not read"
            _record(runtime, key, sender, None, None, "to_sender", detail)
            return Taken(EX_OK, "to_sender", detail)
        return Taken(EX_NOUSER, "bad_tag", "the reply address does not verify")
    with runtime.service.reading() as session:
        game = session.get(Game, tag.game_id)
        seat = session.get(Seat, (tag.game_id, tag.seat))
    if not _claim(runtime, key, sender, tag):
        return Taken(EX_OK, "duplicate", "this message was taken before")
    try:
        if game is None or seat is None:
            # The tag proves the mail was ours: the game has gone (moved to another server).
            answered = answer_gone(runtime, tag, sender, key)
            taken = Taken(EX_OK, "gone", "the game is not on this server any more")
            taken.detail += "" if answered else HELD
        else:
            taken = _reply(runtime, message, tag, game, seat, sender, key)
    except Exception:
        _unclaim(runtime, key)  # nothing kept: the MTA tries again later
        raise
    _record(runtime, key, sender, tag.game_id, tag.seat, taken.outcome, taken.detail, update=True)
    return taken


def _malformed(runtime: Any, raw: bytes, recipients: list[str] | None, why: str) -> Taken:
    """A message :func:`msg.parse` refuses: taken and recorded (the MTA must not try it
    again for days), never read further, never answered."""
    headers = msg.parse_headers(raw[: msg.MAX_BYTES + 1])
    ours = _our_addresses(runtime, list(recipients) if recipients else msg.recipients(headers))
    if not ours:
        return Taken(EX_NOUSER, "no_such_address", "not an address of this server")
    _record(runtime, message_key(headers, raw), msg.sender(headers), None, None, "malformed", why)
    return Taken(EX_OK, "malformed", why)


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
    *,
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
        answered = answer_stranger(runtime, game, sender, key)
        detail = "not the address of the seat's player" + ("" if answered else HELD)
        return Taken(EX_OK, "refused_sender", detail)
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
    answered = answer(runtime, tag, key, [], reason)
    return Taken(EX_OK, outcome, reason + ("" if answered else HELD))


# Answers -------------------------------------------------------------------------

ANSWER_EVERY = timedelta(days=1)
HELD = " (not answered: one such answer a day)"


def may_answer(session: Any, runtime: Any, address: str, kind: str, seq: int = 0) -> bool:
    """Whether an answer of ``kind`` that refuses mail may go to ``address`` now: never
    to a robot (:func:`msg.is_robot`), and once a day per person and kind, or again as
    soon as ``seq`` (the game's position, for a player's refusals) differs from the last
    answer's. When it may, the answer is counted in the open transaction (the caller
    commits it with the answer); one statement, so two processes never both answer."""
    if msg.is_robot(address):
        return False
    person, kind = canonical_address(address)[:320], kind[:80]
    now = utc(runtime.clock())
    insert = postgresql_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    table = InboundAnswer.__table__
    counted = session.exec(
        insert(table)
        .values(address=person, kind=kind, seq=seq, answered_at=now)
        .on_conflict_do_update(
            index_elements=[table.c.address, table.c.kind],
            set_={"answered_at": now, "seq": seq},
            where=or_(table.c.answered_at <= now - ANSWER_EVERY, table.c.seq != seq),
        )
        .returning(table.c.answered_at)
    )
    return counted.first() is not None


def answer(
    runtime: Any, tag: tags.Tag, key: str, applied: list[str], refusal: str, said: str = ""
) -> bool:
    """The answer to a reply from the seat's player, through the outbox: what was
    applied, what happened since the mail (as the seat may see it), the receipt, and
    what is due next, with the legal moves when it is the player's turn. A refusal
    (nothing applied) goes once a day per game position (:func:`may_answer`); False
    when it did not go."""
    service = runtime.service
    with service.session() as session:
        game = service.store.game(session, tag.game_id)
        seat = session.get(Seat, (tag.game_id, tag.seat))
        refused_only = bool(refusal) and not applied and not said
        if refused_only and not may_answer(
            session, runtime, seat.email, f"refused:{game.id}", game.head_seq
        ):
            return False
        engine = game_engine(game)
        seats = list(
            session.exec(select(Seat).where(Seat.game_id == game.id).order_by(col(Seat.seat)))
        )
        seat_names = [row.name for row in seats]
        start = min(tag.seq, game.head_seq)
        happened = (
            history.history(session, runtime, game, engine, seat.seat, start)[0] if applied else []
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
            headline = game_over.game_over_context(game, seat_names)["headline"]
            next_up = f"The game is over. {headline}".strip()
        elif game.paused_at is not None:
            next_up = "The game is paused."
        elif listed:
            next_up = "It is your turn" + (" again." if applied else ".")
        else:
            next_up = f"Waiting for {render.names(due)}." if due else ""
        token = seat_mails.seat_token(session, runtime, seat)
        settings = seat_mails.settings_link(runtime, seat) if seat.token_hash else ""
        context = seat_mails.seat_context(runtime, game, seat, token, settings, None)
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
    return True


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


def answer_stranger(runtime: Any, game: Game, sender: str, key: str) -> bool:
    """A short refusal to an address that does not hold the seat: nothing of the game,
    not even its title (the sender may be anyone: the mail is not the game's, so its
    ``List-Id`` is the server's). False when it did not go."""
    return _answer_once(runtime, "stranger", game.id, sender, key)


def answer_gone(runtime: Any, tag: tags.Tag, sender: str, key: str) -> bool:
    """The answer to a reply whose tag verifies for a game this server no longer holds
    (it moved to another server, whose mail brought its players a new link). False when
    it did not go."""
    return _answer_once(runtime, "gone", tag.game_id, sender, key)


def _answer_once(runtime: Any, kind: str, game_id: str, sender: str, key: str) -> bool:
    """Queues the ``answer_<kind>`` mail to ``sender``, once a day per person
    (:func:`may_answer`); False when it did not go."""
    with runtime.service.session() as session:
        if not may_answer(session, runtime, sender, kind):
            return False
        outbox.enqueue(
            session,
            runtime,
            f"answer_{kind}",
            key=f"answer_{kind}:{game_id}:{key[:16]}",
            recipient=sender,
            context={"name": "", "sender": sender},
        )
        session.commit()
    return True
