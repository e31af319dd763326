"""Mails rendered after the move's transaction: a ``your_turn`` mail records only the
seat and the events to describe (:func:`defer_seat_mail`); the dispatcher renders it
(:func:`render_deferred`) as it sends it (:func:`opened`), or drops it when it is no
longer wanted (:func:`unwanted`).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session, col, select

from pbem.db import Prepared, write
from pbem.eventlog.store import game_engine
from pbem.games import names
from pbem.games.context import Runtime
from pbem.mail import games_link, render
from pbem.mail.history import history
from pbem.mail.models import Mail
from pbem.mail.outbox import mail_values, sealed_render, secret
from pbem.mail.replies import inbound_context
from pbem.mail.seat_mails import (
    bouncing_others,
    is_newcomer,
    seat_context,
    seat_token,
    settings_link,
)
from pbem.models import Event, Game, Seat

# A mail whose body is still to be rendered keeps, in place of its text, what to render:
# the events its lines cover and what the move knew (the deadline, who else chooses).
DEFERRED = "{deferred}"


def is_deferred(mail: Mail) -> bool:
    return not mail.body_html and mail.body_text.startswith(DEFERRED)


_MAIL_INSERT = Prepared(
    Mail.__table__.insert(), [column.key for column in Mail.__table__.columns if column.key != "id"]
)


def defer_seat_mail(
    session: Session,
    runtime: Runtime,
    game: Game,
    seat: Seat,
    kind: str,
    key: str,
    *,
    start: int,
    others: list[str],
    deadline: datetime | None,
    quiet: timedelta = timedelta(0),
    context: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """Records a seat's mail whose lines need the game's history (``your_turn``) without
    rendering it: the row holds only the events to describe (after ``start`` up to the
    head) and what the move knew. The dispatcher renders it (:func:`render_deferred`),
    outside the move's transaction.

    With a ``quiet`` window the mail waits that long before it goes, and the dispatcher
    drops it if it is no longer wanted by then (:func:`unwanted`: the player moved, the
    turn passed, or a later turn's mail of the seat waits). So turns that begin within
    one window of each other make one mail: the latest, which names its own turn. The
    move's transaction only inserts the row; it reads nothing back. Returns the row's
    values (None when the seat gets no mail).

    ``context``: what the mail says beyond the game at the head (JSON: the answer to a
    reply's headline, the moves it made), kept in the row and laid over the rendered
    context; its keys may fill the subject too."""
    if seat.is_bot or not seat.email:
        return None
    recipe = {
        "from": start,
        "upto": game.head_seq,
        "others": others,
        "deadline": deadline.isoformat() if deadline else None,
    }
    if quiet > timedelta(0):
        recipe["quiet"] = quiet.total_seconds()
    if context:
        recipe["context"] = context
    body = DEFERRED + json.dumps(recipe, separators=(",", ":"))
    subject = render.subject(
        kind, {**(context or {}), "title": game.title, "language": seat.language}
    )
    values = mail_values(
        runtime, kind, key, seat.email, subject, body, "", "", game.id, seat.seat, quiet
    )
    # A plain INSERT in the move's transaction (no unit of work to flush at the commit).
    write(session, _MAIL_INSERT, values)
    return values


def unwanted(runtime: Runtime, mail: Mail) -> str:
    """Why a waiting "your turn" mail (one recorded with a quiet window) should not go
    now: the game ended or is no longer running, a bot plays the seat, someone else
    holds it, the player turned these mails off, moved since, or is no longer due, or a
    later turn's mail of the seat waits (that one goes when its own window ends). ""
    when it should go."""
    recipe = json.loads(mail.body_text[len(DEFERRED) :])
    if not recipe.get("quiet"):
        return ""
    with runtime.service.reading() as session:
        game = session.get(Game, mail.game_id)
        seat = session.get(Seat, (mail.game_id, mail.seat))
        if game is None or seat is None:
            return "the seat is gone"
        if game.status != "active":
            return "the game is over"
        if seat.is_bot:
            return "a bot plays the seat now"
        if seat.email.strip().lower() != mail.recipient.strip().lower():
            return "the seat has another player now"
        if seat.notify != "every_turn":
            return "the player turned these mails off"
        if seat.last_move_seq is not None and seat.last_move_seq > int(recipe["upto"]):
            return "the player moved since"
        if not seat.due:
            return "the seat is no longer due"
        later = session.exec(
            select(Mail.id).where(
                Mail.game_id == mail.game_id,
                Mail.seat == mail.seat,
                Mail.recipient == mail.recipient,
                Mail.kind == mail.kind,
                Mail.status == "pending",
                col(Mail.id) > mail.id,
            )
        ).first()
        if later is not None:
            return "a later turn's mail replaces it"
    return ""


def render_deferred(runtime: Runtime, mail: Mail) -> None:
    """Renders a deferred mail in place (its links sealed, as every stored body), from
    the game as it was at the recorded head: lines, receipt hash and phase."""
    recipe = json.loads(mail.body_text[len(DEFERRED) :])
    upto = int(recipe["upto"])
    deadline = datetime.fromisoformat(recipe["deadline"]) if recipe.get("deadline") else None
    with runtime.service.reading() as session:
        game = runtime.service.store.game(session, mail.game_id)
        seat = session.get(Seat, (game.id, mail.seat))
        if seat is None:
            raise ValueError(f"game {game.id} has no seat {mail.seat}")
        engine = game_engine(game)
        lines, state = history(
            session, runtime, game, engine, seat.seat, recipe["from"], upto, zone=seat.timezone
        )
        event = session.get(Event, (game.id, upto))
        if event is None:
            raise ValueError(f"game {game.id} has no event {upto}")
        token = seat_token(session, runtime, seat)
        newcomer = is_newcomer(session, game.id, seat.seat)
        by_mail = inbound_context(runtime, session, game, engine, state, seat)
        holders = [
            row.name
            for row in session.exec(
                select(Seat).where(Seat.game_id == game.id).order_by(col(Seat.seat))
            )
        ]
        my_games = games_link.address_link(runtime, session, mail.recipient)
        bouncing = bouncing_others(session, game, seat)
    phase, marks = names.phase_line(engine, state)
    phase = names.fill(phase, holders, marks)
    settings = settings_link(runtime, seat) if seat.token_hash else ""
    context = seat_context(runtime, game, seat, token, settings, deadline)
    context.update(
        newcomer=newcomer,
        head_hash=event.hash,
        head_seq=upto,
        phase=phase[:200],
        lines=lines,
        others=list(recipe.get("others") or []),
        **by_mail,
        my_games=my_games,
        bouncing=bouncing,
    )
    context.update(recipe.get("context") or {})
    subject, text, html, unsubscribe = sealed_render(runtime, mail.kind, context, settings)
    mail.subject, mail.body_text, mail.body_html, mail.unsubscribe = (
        subject,
        text,
        html,
        unsubscribe,
    )


def opened(runtime: Runtime, mail: Mail) -> tuple[str, str, str]:
    """A stored mail's text, HTML and unsubscribe link with their links opened, as sent
    (a deferred mail is rendered first, see :func:`render_deferred`).

    :class:`render.UnsealError` when a link was sealed under another server key."""
    if is_deferred(mail):
        render_deferred(runtime, mail)
    key = secret(runtime)
    return tuple(  # type: ignore[return-value]
        render.open_links(key, part) for part in (mail.body_text, mail.body_html, mail.unsubscribe)
    )
