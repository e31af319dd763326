"""The outbox: mail rows written in the same transaction as whatever caused them.

:func:`enqueue` renders a mail and adds its row; links to a seat or its settings are
stored sealed (:func:`pbem.mail.render.seal_links`), so the row opens nothing until the
dispatcher sends it (:func:`pbem.mail.deferred.opened`). Every mail goes through here:
those of each appended batch (:mod:`pbem.mail.listener`), of the game's notices
(:mod:`pbem.mail.notice_mails`), of the sweep (:mod:`pbem.scheduler`) and the answers
to mail (:mod:`pbem.mail.inbound`).
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

from sqlmodel import Session, col, func, select

from pbem import i18n, links, receipts
from pbem.games.context import Runtime
from pbem.mail import games_link, render
from pbem.mail.models import Mail
from pbem.zones import utc


def secret(runtime: Runtime) -> str:
    """The server's secret key, read once per runtime."""
    if "secret_key" not in runtime.extras:
        runtime.extras["secret_key"] = runtime.secret_key
    return runtime.extras["secret_key"]


# Mails whose recipient need not hold any seat: no link to "all your games" in them
# (a refusal to a stranger, the mails of a spectator following a game).
NO_GAMES_LINK = frozenset(
    {"answer_stranger", "answer_gone", "follow_confirm", "follow_turn", "follow_result"}
)


def enqueue(
    session: Session,
    runtime: Runtime,
    kind: str,
    *,
    key: str,
    recipient: str,
    context: dict[str, Any],
    game_id: str | None = None,
    seat: int | None = None,
    unsubscribe: str = "",
) -> Mail:
    """Renders a mail and adds it to the outbox in the open transaction.

    A context without ``language`` is written in the recipient's
    (:func:`address_language`).
    Links to a seat or its settings are stored sealed (:func:`render.seal_links`): the
    outbox row opens nothing; the dispatcher opens them as it sends (:func:`pbem.mail.deferred.opened`).
    The footer's link to the recipient's games is the address's own (``my_games``),
    except in a refusal to someone who holds no seat (:data:`NO_GAMES_LINK`)."""
    if kind not in NO_GAMES_LINK:
        context = {"my_games": games_link.address_link(runtime, session, recipient), **context}
    if "language" not in context:
        context = {**context, "language": address_language(session, recipient)}
    subject, text, html, unsubscribe = sealed_render(runtime, kind, context, unsubscribe)
    mail = new_mail(runtime, kind, key, recipient, subject, text, html, unsubscribe, game_id, seat)
    session.add(mail)
    return mail


def address_language(session: Session, address: str) -> str:
    """The language of a mail to ``address`` that no seat's context names: that of the
    address's newest seat with a language chosen, else English (a stranger's, too)."""
    from pbem.models import Seat

    if not address:
        return i18n.DEFAULT
    chosen = session.exec(
        select(Seat.language)
        .where(func.lower(Seat.email) == address.strip().lower(), col(Seat.language).is_not(None))
        .order_by(col(Seat.created_at).desc())
        .limit(1)
    ).first()
    return i18n.known(chosen) or i18n.DEFAULT


def sealed_render(
    runtime: Runtime, kind: str, context: dict[str, Any], unsubscribe: str
) -> tuple[str, str, str, str]:
    """A mail's subject, text, HTML and unsubscribe link, the links sealed."""
    subject, text, html = render.render(
        kind, {"base_url": links.base_url(runtime.config), **with_receipt(runtime, context)}
    )
    server_key = secret(runtime)
    text, html, unsubscribe = (
        render.seal_links(runtime.config, server_key, part) for part in (text, html, unsubscribe)
    )
    return subject, text, html, unsubscribe


def with_receipt(runtime: Runtime, context: dict[str, Any]) -> dict[str, Any]:
    """The context of a mail about a game's head (``game_id``, ``head_seq``,
    ``head_hash``) with the head's signed receipt (:mod:`pbem.receipts`) for its footer."""
    if "receipt" in context or any(
        context.get(name) is None for name in ("game_id", "head_seq", "head_hash")
    ):
        return context
    signed = receipts.issue(runtime, context["game_id"], context["head_seq"], context["head_hash"])
    return {**context, "receipt": signed.text() if signed is not None else ""}


def new_mail(
    runtime: Runtime,
    kind: str,
    key: str,
    recipient: str,
    subject: str,
    text: str,
    html: str,
    unsubscribe: str,
    game_id: str | None,
    seat: int | None,
) -> Mail:
    """An outbox row, ready to send now, with its Message-ID and thread."""
    return Mail(
        **mail_values(
            runtime, kind, key, recipient, subject, text, html, unsubscribe, game_id, seat
        )
    )


def mail_values(
    runtime: Runtime,
    kind: str,
    key: str,
    recipient: str,
    subject: str,
    text: str,
    html: str,
    unsubscribe: str,
    game_id: str | None,
    seat: int | None,
    wait: timedelta = timedelta(0),
) -> dict[str, Any]:
    """The column values of an outbox row (:func:`new_mail`), as a plain dict: ready to
    send after ``wait``."""
    host = render.domain(runtime.config["mail"]["sender"])
    now = utc(runtime.clock())
    thread = f"<{game_id}.{seat}@{host}>" if game_id is not None else ""
    if kind == "invitation":
        message_id = thread
    else:
        message_id = f"<{kind}.{secrets.token_hex(8)}.{game_id or 'pbem'}@{host}>"
    return {
        "key": key[:200],
        "kind": kind,
        "game_id": game_id,
        "seat": seat,
        "recipient": recipient,
        "subject": subject,
        "body_text": text,
        "body_html": html,
        "message_id": message_id,
        "thread_id": thread if thread != message_id else "",
        "unsubscribe": unsubscribe,
        "status": "pending",
        "attempts": 0,
        "next_attempt_at": now + wait,
        "lease_owner": "",
        "lease_until": None,
        "last_error": "",
        "created_at": now,
        "sent_at": None,
    }


def has_mail(session: Session, key: str) -> bool:
    return session.exec(select(col(Mail.id)).where(Mail.key == key)).first() is not None
