"""The answers a mail gets: to a reply from the seat's player, to a stranger, to a game
that is not here any more.

The answer to the seat's player (:func:`answer`, or :func:`answer_listener` in the
move's own transaction) says what was applied and what happened, the new head hash as a
receipt and what is due next (with the moves again when it is still the player's turn),
or the reason for a refusal and the legal moves again. It is recorded for the
dispatcher, which renders it (:func:`pbem.mail.deferred.defer_seat_mail`), with the
reply's record (:func:`pbem.mail.inbound.records.write_record`) in the same
transaction.

Answers that refuse (to a stranger, a refused reply, a game no longer here) go at most
once a day per person (:func:`pbem.validate.canonical_address`) and kind, counted in
``inbound_answers`` (:func:`may_answer`, as Discourse's ``can_send_rejection_email?``),
and never to a robot (:func:`pbem.mail.inbound.message.is_robot`). A stranger's answer
names no game.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import bindparam, or_
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from pbem import i18n
from pbem.db import Prepared, write
from pbem.games import clocks
from pbem.games.context import Runtime
from pbem.games.outcomes import Listener, Transition
from pbem.i18n import gettext, localize, ngettext
from pbem.mail import deferred, outbox
from pbem.mail.inbound import message as msg
from pbem.mail.inbound.records import Reply, write_record
from pbem.mail.models import InboundAnswer, Mail
from pbem.models import Game
from pbem.validate import canonical_address
from pbem.words import join_names
from pbem.zones import utc

ANSWER_EVERY = timedelta(days=1)
HELD = " (not answered: one such answer a day)"


def may_answer(session: Any, runtime: Runtime, address: str, kind: str, seq: int = 0) -> bool:
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
    runtime: Runtime,
    reply: Reply,
    applied: list[str],
    refusal: str,
    said: str = "",
    *,
    outcome: str,
    detail: str,
    fresh: bool = False,
    note_held: bool = False,
) -> bool:
    """The answer to a reply from the seat's player, through the outbox, with the
    reply's record (``outcome``, ``detail``) in the same transaction: what was applied,
    what happened since the mail (as the seat may see it), the receipt, and what is due
    next, with the legal moves when it is the player's turn. The mail is rendered by the
    dispatcher (:func:`pbem.mail.deferred.defer_seat_mail`). A refusal (nothing applied)
    goes once a day per game position (:func:`may_answer`; with ``note_held`` the
    record says when it did not go); False when it did not go. ``fresh``: the game
    changed since the reply's load (moves were made), so its row is read again."""
    with runtime.service.session() as session:
        game = reply.loaded.game
        result = None
        if fresh or game.status != "active":
            game = session.get(Game, reply.tag.game_id)
            result = game.result if game.status != "active" else None
        seat = reply.seat
        refused_only = bool(refusal) and not applied and not said
        if refused_only and not may_answer(
            session, runtime, seat.email, f"refused:{game.id}", game.head_seq
        ):
            write_record(session, reply, outcome, detail + (HELD if note_held else ""))
            session.commit()
            return False
        due = frozenset(game.to_move or [])
        _write_answer(
            session,
            runtime,
            reply,
            game,
            due,
            applied,
            refusal,
            said=said,
            start=min(reply.tag.seq, game.head_seq),
            result=result,
            names=reply.seat_names,
            paused=game.paused_at is not None,
        )
        write_record(session, reply, outcome, detail)
        session.commit()
    return True


def answer_stranger(runtime: Runtime, reply: Reply, detail: str) -> bool:
    """A short refusal to an address that does not hold the seat: nothing of the game,
    not even its title (the sender may be anyone: the mail is not the game's, so its
    ``List-Id`` is the server's). False when it did not go."""
    return _answer_once(runtime, "stranger", reply, "refused_sender", detail)


def answer_gone(runtime: Runtime, reply: Reply, detail: str) -> bool:
    """The answer to a reply whose tag verifies for a game this server no longer holds
    (it moved to another server, whose mail brought its players a new link). False when
    it did not go."""
    return _answer_once(runtime, "gone", reply, "gone", detail)


def _answer_once(runtime: Runtime, kind: str, reply: Reply, outcome: str, detail: str) -> bool:
    """Queues the ``answer_<kind>`` mail to the reply's sender, once a day per person
    (:func:`may_answer`), and records the reply (``outcome``, ``detail``; noted when
    the answer did not go) in the same transaction; False when it did not go."""
    sender = reply.sender
    with runtime.service.session() as session:
        answered = may_answer(session, runtime, sender, kind)
        if answered:
            outbox.enqueue(
                session,
                runtime,
                f"answer_{kind}",
                key=f"answer_{kind}:{reply.tag.game_id}:{reply.key[:16]}",
                recipient=sender,
                context={"name": "", "sender": sender},
            )
        write_record(session, reply, outcome, detail + ("" if answered else HELD))
        session.commit()
    return answered


def answer_listener(
    runtime: Runtime, reply: Reply, applied: list[str], answered: list[bool]
) -> Listener:
    """A listener of the reply's last move that writes the answer and the record in the
    move's own transaction (into its batch): the reply is then one apply and one
    answer. It leaves the answer for later (after the move) when bots move next (the
    answer tells what they did) or when the move began a new turn of the seat's (its
    turn mail, which the answer replaces, is dropped after the move)."""

    def listen(session: Any, transition: Transition) -> None:
        answered.clear()
        bots = {row.seat for row in transition.seats if row.is_bot}
        due = transition.due_after
        if not transition.finished and (
            due & bots or reply.tag.seat in clocks.turns_begun(transition)
        ):
            return
        detail = "; ".join(applied)
        _write_answer(
            session,
            runtime,
            reply,
            transition.game,
            due,
            applied,
            "",
            start=min(reply.tag.seq, transition.game.head_seq),
            result=transition.game.result if transition.finished else None,
            names=[row.name for row in sorted(transition.seats, key=lambda row: row.seat)],
        )
        write_record(session, reply, "applied", detail)
        answered.append(True)

    return listen


_MAIL = Mail.__table__
_DROP_TURN_MAIL = Prepared(
    _MAIL.update()
    .where(
        _MAIL.c.game_id == bindparam("b_game"),
        _MAIL.c.seat == bindparam("b_seat"),
        _MAIL.c.kind == bindparam("b_kind"),
        _MAIL.c.status == bindparam("b_status"),
        _MAIL.c.attempts == bindparam("b_attempts"),
    )
    .values(status=bindparam("status"), last_error=bindparam("last_error"))
)


def _write_answer(
    session: Any,
    runtime: Runtime,
    reply: Reply,
    game: Any,
    due: frozenset[int],
    applied: list[str],
    refusal: str,
    *,
    start: int,
    result: Any,
    names: list[str],
    said: str = "",
    paused: bool = False,
) -> None:
    """Records the answer (rendered later, :func:`pbem.mail.deferred.render_deferred`) to
    the seat's player about the game at its head: ``due`` the seats due there, ``result``
    the game's when it is over."""
    seat = reply.seat
    listed = result is None and seat.seat in due
    with i18n.speaking(seat.language):
        if result is not None:
            from pbem.games import results
            from pbem.mail.game_over import winners_headline

            standing = results.standings(result, names) or {"rows": []}
            winners = [row["name"] for row in standing["rows"] if row["winner"]]
            next_up = f"{gettext('The game is over.')} {winners_headline(winners)}".strip()
        elif paused:
            next_up = gettext("The game is paused.")
        elif listed:
            next_up = gettext("It is your turn again.") if applied else gettext("It is your turn.")
        else:
            waiting = [names[number] for number in sorted(due) if number != seat.seat]
            next_up = (
                gettext("Waiting for %(names)s.", names=join_names(waiting, i18n.spoken()))
                if waiting
                else ""
            )
        if said:
            next_up = f"{said[0].upper()}{said[1:]}. {next_up}".strip()
        headline = said or _headline(applied, refusal)
    deferred.defer_seat_mail(
        session,
        runtime,
        game,
        seat,
        "answer",
        f"answer:{game.id}:{seat.seat}:{reply.key[:16]}:{game.head_seq}",
        start=start if applied else game.head_seq,
        others=[],
        deadline=None,
        context={
            "headline": headline,
            "applied": applied,
            "refusal": localize(refusal, seat.language),
            "next_up": next_up,
            "newcomer": False,
        },
    )
    if applied and listed:
        # The answer lists the moves of the seat's new turn: a "your turn" mail recorded
        # for it would say the same again, so it does not go.
        write(
            session,
            _DROP_TURN_MAIL,
            {
                "b_game": game.id,
                "b_seat": seat.seat,
                "b_kind": "your_turn",
                "b_status": "pending",
                "b_attempts": 0,
                "status": "dropped",
                "last_error": "dropped: the answer to a reply said so",
            },
        )


def _headline(applied: list[str], refusal: str) -> str:
    """What the answer says in its subject, in the spoken language."""
    if applied and refusal:
        return ngettext(
            "%(num)d move made, then one refused",
            "%(num)d moves made, then one refused",
            len(applied),
        )
    if applied:
        if len(applied) == 1:
            return gettext("your move was made")
        return ngettext("your %(num)d move was made", "your %(num)d moves were made", len(applied))
    return gettext("your reply was not applied")
