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
is answered once a day: the game is not here any more. Mail to the general address (the
reply address without a tag) is a command (HELP, LIST, OPEN, JOIN:
:mod:`.commands`), answered at most once a day per person and command.

A reply counts when its address's tag verifies (:mod:`.tags`), its ``From`` is the
address of the person who holds the seat now, the seat is a person's (not a bot's),
the game runs, and the seat is due in the same turn as the mail: it has not moved
since the mail's event and no take-back or change of seat happened since. Then the
first paragraph's lines are applied in order (:mod:`.moves`) until the first one that
is refused, the bots in the other seats move, and an answer goes out through the
outbox (:mod:`.answers`: refusals go once a day per person and kind). A Message-ID is
kept hashed in ``inbound_messages`` first (:mod:`.records`): the same message never
applies twice.

Table talk (:mod:`pbem.games.talk`): from the seat's player (the same ``From`` check),
a reply whose first line starts with ``say:`` goes to the table and one that starts
with ``to NAME:`` to NAME alone, at any time. A reply whose first line names no move
is table talk too, unless it answers a turn of the seat's that is still running (then
it is refused as before, with a word about ``say:``: a mistyped move is never posted).
A talk mail's ``Reply-To`` is the seat's tagged address, so answering it talks.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import parseaddr
from typing import Any

from sqlalchemy.exc import DBAPIError, OperationalError
from sqlmodel import col, select

from engines.api import Engine
from pbem import i18n
from pbem.errors import Conflict, PbemError
from pbem.eventlog.roster import SEAT_KINDS
from pbem.eventlog.store import game_engine
from pbem.games import names
from pbem.games import talk as talk_mod
from pbem.games.context import Runtime
from pbem.games.outcomes import Listener
from pbem.i18n import N_
from pbem.mail import outbox
from pbem.mail.inbound import bounces, commands, moves, tags
from pbem.mail.inbound import message as msg
from pbem.mail.inbound.answers import HELD, answer, answer_gone, answer_listener, answer_stranger
from pbem.mail.inbound.records import (
    Reply,
    claim,
    message_key,
    record_unclaimed,
    unclaim,
    write_record,
)
from pbem.mail.models import Mail
from pbem.models import Event

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
    recorded: bool = field(default=False, repr=False)  # its record is written


def take(
    runtime: Runtime,
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


def _our_addresses(runtime: Runtime, candidates: list[str]) -> list[str]:
    return [
        address
        for address in candidates
        if tags.is_ours(runtime.config, address)
        or own_mailbox(runtime, address)
        or bounces.is_bounce_address(runtime.config, address)
    ]


def own_mailbox(runtime: Runtime, address: str) -> bool:
    """Whether ``address`` is the server's sender address (``mail.sender``), where
    delivery reports come, or one of its ``+b-`` extensions (VERP)."""
    sender_address = parseaddr(runtime.config["mail"].get("sender", ""))[1].lower()
    local, _, domain = sender_address.rpartition("@")
    got_local, _, got_domain = address.strip().strip("<>").lower().rpartition("@")
    if not local or got_domain != domain:
        return False
    return got_local == local or got_local.startswith(f"{local}+b-")


def sent_here(runtime: Runtime, message_id: str) -> bool:
    """Whether the outbox sent a mail with this Message-ID (``<...>``)."""
    with runtime.service.reading() as session:
        found = session.exec(
            select(col(Mail.id)).where(col(Mail.message_id) == message_id[:200]).limit(1)
        ).first()
    return found is not None


def _take(
    runtime: Runtime, raw: bytes, recipients: list[str] | None, envelope_sender: str | None
) -> Taken:
    try:
        message = msg.parse(raw[: msg.MAX_BYTES + 1])
    except msg.Malformed as error:
        return _malformed(runtime, raw, recipients, str(error))
    ours = _our_addresses(runtime, list(recipients) if recipients else msg.recipients(message))
    if not ours:
        return Taken(EX_NOUSER, "no_such_address", "not an address of this server")
    domain = sender_domain(runtime.config["mail"]["sender"]).lower()
    kind = msg.classify(
        raw,
        message,
        domain,
        envelope_sender,
        # Every Message-ID the outbox writes is at the sender's domain: others are not ours.
        lambda message_id: (
            message_id.lower().endswith(f"@{domain}>") and sent_here(runtime, message_id)
        ),
    )
    key = message_key(message, raw)
    sender = msg.sender(message)
    if kind == "bounce" or any(bounces.is_bounce_address(runtime.config, a) for a in ours):
        # Only a report delivered to the bounce address of the mail it is about counts.
        outcome, detail = bounces.take(runtime, outbox.secret(runtime), ours, message, kind)
        record_unclaimed(runtime, key, sender, None, None, outcome, detail)
        return Taken(EX_OK, outcome, detail)
    if kind != "reply":
        record_unclaimed(runtime, key, sender, None, None, kind, msg.header(message, "Subject"))
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
            record_unclaimed(runtime, key, sender, None, None, "to_sender", detail)
            return Taken(EX_OK, "to_sender", detail)
        if any(commands.is_general(runtime, address) for address in ours):
            outcome, detail = commands.take(runtime, message, key, sender)
            return Taken(EX_OK, outcome, detail, recorded=True)
        return Taken(EX_NOUSER, "bad_tag", "the reply address does not verify")
    reply = claim(runtime, key, sender, tag)
    if reply is None:
        return Taken(EX_OK, "duplicate", "this message was taken before")
    try:
        if reply.seat is None:
            # The tag proves the mail was ours: the game has gone (moved to another server).
            detail = "the game is not on this server any more"
            answered = answer_gone(runtime, reply, detail)
            taken = Taken(EX_OK, "gone", detail + ("" if answered else HELD), recorded=True)
        else:
            taken = _reply(runtime, message, reply)
    except Exception:
        unclaim(runtime, key)  # nothing kept: the MTA tries again later
        raise
    if not taken.recorded:
        with runtime.service.session() as session:
            write_record(session, reply, taken.outcome, taken.detail)
            session.commit()
    return taken


def sender_domain(sender: str) -> str:
    """The domain of the server's sender address (``mail.sender``), where its
    Message-IDs are made (:func:`pbem.mail.render.domain`)."""
    address = sender.rsplit("<", 1)[-1].rstrip(">").strip()
    return address.rsplit("@", 1)[-1] or "localhost"


def _malformed(runtime: Runtime, raw: bytes, recipients: list[str] | None, why: str) -> Taken:
    """A message :func:`msg.parse` refuses: taken and recorded (the MTA must not try it
    again for days), never read further, never answered."""
    headers = msg.parse_headers(raw[: msg.MAX_BYTES + 1])
    ours = _our_addresses(runtime, list(recipients) if recipients else msg.recipients(headers))
    if not ours:
        return Taken(EX_NOUSER, "no_such_address", "not an address of this server")
    record_unclaimed(
        runtime, message_key(headers, raw), msg.sender(headers), None, None, "malformed", why
    )
    return Taken(EX_OK, "malformed", why)


# A reply -------------------------------------------------------------------------


def _older_turn(runtime: Runtime, reply: Reply) -> bool:
    """Whether the mail's turn is over for the seat: it moved since, or a take-back or a
    change of seat happened since, or the mail names an event the log does not have."""
    if reply.older is None:
        reply.older = _turn_over(runtime, reply)
    return reply.older


def _turn_over(runtime: Runtime, reply: Reply) -> bool:
    tag, game, seat = reply.tag, reply.loaded.game, reply.seat
    if tag.seq > game.head_seq:
        return True
    if seat.last_move_seq is not None and seat.last_move_seq > tag.seq:
        return True
    if tag.seq == game.head_seq:
        return False  # nothing happened since the mail
    with runtime.service.reading() as session:
        changed = session.exec(
            select(col(Event.seq)).where(
                Event.game_id == game.id,
                col(Event.seq) > tag.seq,
                col(Event.kind).in_(("take_back", *SEAT_KINDS)),
            )
        ).first()
    return changed is not None


def _head(runtime: Runtime, reply: Reply) -> tuple[Engine, Any]:
    """The game's engine and its state at the head, from the reply's load."""
    game = reply.loaded.game
    engine = game_engine(game)
    if game.head_state is not None:
        return engine, engine.load(game.head_state)
    return engine, runtime.service.state_at(game.id, game.head_seq)[1]


def _mail_state(runtime: Runtime, reply: Reply, engine: Engine, head_state: Any) -> Any:
    """The state at the event the mail was made at (its list of moves)."""
    seq = min(reply.tag.seq, reply.loaded.game.head_seq)
    if seq == reply.loaded.game.head_seq:
        return head_state
    return runtime.service.state_at(reply.loaded.game.id, seq)[1]


def _reply(runtime: Runtime, message: EmailMessage, reply: Reply) -> Taken:
    game, seat = reply.loaded.game, reply.seat
    sender = reply.sender
    if not sender or sender != seat.email.strip().lower():
        detail = "not the address of the seat's player"
        answered = answer_stranger(runtime, reply, detail)
        return Taken(EX_OK, "refused_sender", detail + ("" if answered else HELD), recorded=True)
    lines = msg.reply_lines(message)
    talked = _talk(runtime, message, lines, reply)
    if talked is not None:
        return talked
    if seat.is_bot:
        return _refuse(
            runtime, reply, N_("A bot plays this seat now; take it back from your link first.")
        )
    if game.status != "active":
        return _refuse(runtime, reply, N_("This game is over; no more moves can be made."))
    if game.paused_at is not None:
        return _refuse(runtime, reply, N_("The game is paused; no moves until it is resumed."))
    if _older_turn(runtime, reply):
        return _refuse(
            runtime,
            reply,
            N_(
                "You replied to the mail of event %(seq)s, and that turn is over: the game "
                "has moved on since. Here is where it stands now."
            ),
            outcome="older_turn",
            seq=reply.tag.seq,
        )
    if not seat.due:
        return _refuse(runtime, reply, N_("It is not your turn."))
    if not lines:
        return _refuse(
            runtime,
            reply,
            N_(
                "Your reply names no move: write a move's number, its name or its written "
                "form on the first line."
            ),
        )
    engine, head_state = _head(runtime, reply)
    mail_state = _mail_state(runtime, reply, engine, head_state)
    mail_list = moves.numbered(engine, mail_state, seat.seat, reply.seat_names)
    applied: list[str] = []
    refusal, theirs = "", ""  # why a line was refused: in English (the record), in theirs
    answered: list[bool] = []  # the answer went with the last move (:func:`answer_listener`)
    head: tuple[Any, Any, Any] | None = (engine, head_state, reply.loaded)
    # The bots wait for the reply's last line, then answer at once.
    with runtime.service.bots_held(game.id):
        for number, line in enumerate(lines, 1):
            last = number == len(lines)

            def listeners(label: str, last: bool = last) -> list[Listener]:
                if not last:
                    return []
                return [answer_listener(runtime, reply, [*applied, label], answered)]

            label, refusal, theirs = _apply_line(runtime, reply, line, mail_list, head, listeners)
            head = None  # the load is used by the first move; later lines read the new head
            if refusal:
                break
            applied.append(label)
    outcome = "applied" if applied and not refusal else ("partly" if applied else "refused")
    if answered and not refusal:  # (a last line refused rolled its listener's writes back)
        return Taken(EX_OK, outcome, "; ".join(applied), applied, recorded=True)
    if refusal and not applied:
        say = N_("To write to the table instead, start your reply with %(keyword)s.")
        refusal += " " + say % {"keyword": '"say:"'}
        theirs += " " + _theirs(reply, say, keyword='"say:"')
    detail = refusal or "; ".join(applied)
    answer(runtime, reply, applied, theirs, outcome=outcome, detail=detail, fresh=bool(applied))
    return Taken(EX_OK, outcome, detail, applied, recorded=True)


SAY = re.compile(r"^say\s*:\s*", re.IGNORECASE)
TO_NAME = re.compile(r"^to\s+([^:\n]{1,200}?)\s*:\s*", re.IGNORECASE)


def _talk(runtime: Runtime, message: EmailMessage, lines: list[str], reply: Reply) -> Taken | None:
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
    seat_names = reply.seat_names
    if said:
        text = SAY.sub("", text, count=1)
    elif addressed:
        try:
            to = talk_mod.recipient_seat(addressed[1], seat_names, reply.seat.seat)
        except PbemError as error:
            return _refuse(runtime, reply, "%(why)s", why=error.message)
        text = TO_NAME.sub("", text, count=1)
    elif _moving(runtime, reply) or _names_a_move(runtime, first, reply):
        return None
    try:
        posted = talk_mod.post(runtime, reply.tag.game_id, reply.seat.seat, to, text, via="mail")
    except PbemError as error:
        return _refuse(runtime, reply, "%(why)s", why=error.message)
    where = "to the table" if to is None else f"to {seat_names[to]} alone"
    detail = f"a message {where}"
    reply.loaded.game.head_seq = posted.seq  # the answer names the game after the talk
    said = (
        _theirs(reply, N_("your message went to the table"))
        if to is None
        else _theirs(reply, N_("your message went to %(name)s alone"), name=seat_names[to])
    )
    answer(runtime, reply, [], "", said=said, outcome="talk", detail=detail)
    return Taken(EX_OK, "talk", detail, recorded=True)


def _moving(runtime: Runtime, reply: Reply) -> bool:
    """Whether the reply answers a turn of the seat's that is still running: then its
    first line must be a move (a typo is refused, never posted to the table) unless it
    starts with ``say:`` or ``to NAME:``."""
    game, seat = reply.loaded.game, reply.seat
    return (
        game.status == "active"
        and game.paused_at is None
        and seat.due
        and not seat.is_bot
        and not _older_turn(runtime, reply)
    )


def _names_a_move(runtime: Runtime, line: str, reply: Reply) -> bool:
    """Whether a reply's first line is (or tries to be) a move: a code, JSON, or a move
    of the mail's list or of the moment."""
    text = line.strip()
    if moves.CODE.match(text) or text.startswith("{"):
        return True
    seat, seat_names = reply.seat.seat, reply.seat_names
    try:
        engine, head_state = _head(runtime, reply)
        mail_state = _mail_state(runtime, reply, engine, head_state)
        mail_list = moves.numbered(engine, mail_state, seat, seat_names)
    except PbemError:
        return False
    for state in (mail_state, head_state):
        try:
            moves.resolve(text, mail_list, engine, state, seat, seat_names, reply.seat.language)
            return True
        except moves.Unreadable:
            continue
        except Exception:  # noqa: BLE001 - a state where the seat has no moves at all
            continue
    return False


def _apply_line(
    runtime: Runtime,
    reply: Reply,
    line: str,
    mail_list: list[moves.Listed],
    head: tuple[Any, Any, Any] | None,
    listeners: Callable[[str], list[Listener]],
) -> tuple[str, str]:
    """Makes the move one line names: (its label, "", "") or ("", why not, why not in the
    player's language: :func:`_theirs`). ``head``: the
    engine, the state and the load the reply read (the move then reads nothing), or
    None to read the head. ``listeners(label)``: the move's own listeners. A move that
    lost the race with another seat's (the game moved on between reading and writing)
    is read again against the new head, once."""
    service = runtime.service
    game_id, seat, seat_names = reply.tag.game_id, reply.seat.seat, reply.seat_names
    for attempt in (1, 2):
        if head is not None and attempt == 1:
            engine, state, loaded = head
            status, seq = loaded.game.status, loaded.game.head_seq
        else:
            fresh = service.head(game_id)
            engine, state, loaded = fresh.engine, fresh.state, None
            status, seq = fresh.game.status, fresh.seq
        if status != "active" or seat not in engine.to_move(state):
            return _not_applied(
                reply, N_('"%(line)s" was not applied: it is no longer your turn.'), line=line
            )
        try:
            move = moves.resolve(
                line, mail_list, engine, state, seat, seat_names, reply.seat.language
            )
            view = engine.view(state, seat)
            label = names.fill(engine.move_label(move, view), seat_names, names.marks_of(view))
            # A mail-only player gives no contribution to the dice: the server draws one
            # for the seat, marked so, before its first move (nothing for a move that
            # will be refused).
            based = service.contribute_before_move(
                game_id, seat, seq, move, actor="mail", loaded=loaded
            )
            if based != seq:
                seq, loaded = based, None
            service.submit_move(
                game_id,
                seat,
                move,
                seq,
                actor="mail",
                loaded=loaded,
                listeners=listeners(label),
            )
        except moves.Unreadable as error:
            return _not_applied(reply, error.message, **error.params)
        except Conflict:
            if attempt == 1:
                continue
            return _not_applied(
                reply,
                N_('"%(line)s" was not applied: the game moved on meanwhile; try again.'),
                line=line,
            )
        except PbemError as error:
            return _not_applied(
                reply, N_('"%(line)s" was not applied: %(why)s'), line=line, why=error.message
            )
        return label, "", ""
    return "", "", ""


def _theirs(reply: Reply, message: str, **params: Any) -> str:
    """``message`` (marked N_) in the language of the reply's seat, its parameters filled."""
    with i18n.speaking(reply.seat.language) as language:
        # A parameter that is itself words to translate (an error's Text): the same language.
        params = {name: i18n.localize(value, language) for name, value in params.items()}
        return i18n.gettext(message, **params)


def _not_applied(reply: Reply, message: str, **params: Any) -> tuple[str, str, str]:
    """A line refused: no label, why in English (the record) and in the player's words."""
    return "", message % params if params else message, _theirs(reply, message, **params)


def _refuse(
    runtime: Runtime, reply: Reply, message: str, outcome: str = "refused", **params: Any
) -> Taken:
    """Refuses the reply: ``message`` (marked N_, filled with ``params``) is recorded in
    English and mailed in the player's language."""
    reason = message % params if params else message
    answered = answer(
        runtime,
        reply,
        [],
        _theirs(reply, message, **params),
        outcome=outcome,
        detail=reason,
        note_held=True,
    )
    return Taken(EX_OK, outcome, reason + ("" if answered else HELD), recorded=True)
