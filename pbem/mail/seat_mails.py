"""Mails to a seat's player (:func:`mail_seat`) or to a former player
(:func:`mail_former`), with the context every seat mail shares, and each seat's link:
its current token kept sealed (:class:`~pbem.games.tables.SeatLink`) so that later
mails can carry it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from pbem import i18n, links, zones
from pbem.games.context import Runtime
from pbem.games.tables import SeatLink
from pbem.games.tokens import hash_token
from pbem.mail import render
from pbem.mail.models import Mail
from pbem.mail.outbox import address_language, enqueue, secret
from pbem.models import Event, Game, Seat
from pbem.zones import utc


def store_link(session: Session, runtime: Runtime, game_id: str, seat: int, token: str) -> None:
    """Keeps a seat's current token sealed, so later mails can carry the link."""
    link = session.get(SeatLink, (game_id, seat)) or SeatLink(game_id=game_id, seat=seat)
    link.sealed = render.seal(secret(runtime), token)
    link.token_hash = hash_token(token)
    session.add(link)


def seat_token(session: Session, runtime: Runtime, seat: Seat) -> str | None:
    """The seat's current link token, if the outbox holds it (not for a revoked one)."""
    link = session.get(SeatLink, (seat.game_id, seat.seat))
    if link is None or seat.token_hash is None or link.token_hash != seat.token_hash:
        return None
    return render.unseal(secret(runtime), link.sealed)


def settings_link(runtime: Runtime, seat: Seat) -> str:
    return render.settings_url(
        runtime.config, secret(runtime), seat.game_id, seat.seat, seat.token_hash or ""
    )


def mail_seat(
    session: Session,
    runtime: Runtime,
    game: Game,
    seat: Seat,
    kind: str,
    key: str,
    *,
    bot_seat_too: bool = False,
    **extra: Any,
) -> Mail | None:
    """Writes a mail of ``kind`` to a seat's player (none for a seat without an address,
    nor for a seat a bot plays unless ``bot_seat_too``: its player still hears how the
    game ends), with the context every seat mail shares."""
    if (seat.is_bot and not bot_seat_too) or not seat.email:
        return None
    token = seat_token(session, runtime, seat)
    deadline = extra.pop("deadline", None)
    settings = settings_link(runtime, seat) if seat.token_hash else ""
    context = {
        **seat_context(runtime, game, seat, token, settings, deadline),
        "newcomer": is_newcomer(session, game.id, seat.seat),
        "bouncing": bouncing_others(session, game, seat),
        **extra,
    }
    return enqueue(
        session,
        runtime,
        kind,
        key=key,
        recipient=seat.email,
        context=context,
        game_id=game.id,
        seat=seat.seat,
        unsubscribe=context["settings"],
    )


def bouncing_others(session: Session, game: Game, seat: Seat) -> list[str]:
    """The names of the game's other players whose mail bounces (every seat mail says
    so: :func:`pbem.mail.inbound.bounces.bouncing_names`)."""
    from pbem.mail.inbound import bounces

    seats = list(session.exec(select(Seat).where(Seat.game_id == game.id).order_by(col(Seat.seat))))
    return bounces.bouncing_names(session, seats, seat)


def seat_context(
    runtime: Runtime,
    game: Game,
    seat: Seat,
    token: str | None,
    settings: str,
    deadline: datetime | None,
) -> dict[str, Any]:
    """The context every seat mail shares (each template lists, at its top, the keys
    it reads), in the seat's language (``language``: :func:`pbem.mail.render.render`
    writes the mail in it)."""
    language = i18n.known(seat.language) or i18n.DEFAULT
    return {
        "language": language,
        "title": game.title,
        "game_name": render.engine_title(game.engine),
        "game_id": game.id,
        "game_page": links.game_url(runtime.config, game.id),
        "name": seat.name,
        "seat": seat.seat,
        "link": links.play_url(runtime.config, token) if token else "",
        "settings": settings,
        "head_hash": game.head_hash,
        "head_seq": game.head_seq,
        "phase": i18n.localize_kept(game.phase, game.engine, language),
        "commitment": game.commitment,
        "policy": game.policy,
        "deadline": zones.when(deadline, seat.timezone, utc(runtime.clock()), language),
        "lines": [],
        "others": [],
        "newcomer": False,
        "former": False,
    }


def is_newcomer(session: Session, game_id: str, seat: int) -> bool:
    """Whether the seat's player came to it after the game began (took it over from
    someone else): such a player never had the invitation, so their mails carry the
    seed commitment."""
    taken = session.exec(
        select(Event)
        .where(
            Event.game_id == game_id,
            Event.seat == seat,
            col(Event.kind).in_(("seat_taken", "seat_replaced")),
        )
        .order_by(col(Event.seq).desc())
        .limit(1)
    ).first()
    return taken is not None and not (taken.payload or {}).get("returning")


def mail_former(
    session: Session,
    runtime: Runtime,
    game: Game,
    former: Any,
    kind: str,
    key: str,
    *,
    seat_name: str = "",
    **extra: Any,
) -> Mail | None:
    """Writes a mail of ``kind`` (``game_over``, ``notice``) to a former player of the
    game (a :class:`~pbem.games.tables.FormerPlayer`: someone who held a seat and was
    replaced or left): no link, no settings, ``former=True``, ``seat_name`` (the name
    the seat has now) and ``until`` (when they left, in their time zone), in the
    language of their address (:func:`pbem.mail.outbox.address_language`)."""
    if not former.email:
        return None
    language = address_language(session, former.email)
    context = {
        "language": language,
        "title": game.title,
        "game_name": render.engine_title(game.engine),
        "game_id": game.id,
        "game_page": links.game_url(runtime.config, game.id),
        "name": former.name,
        "seat": former.seat,
        "seat_name": seat_name or former.name,
        "until": zones.when(former.left_at, former.timezone, None, language),
        "link": "",
        "settings": "",
        "head_hash": game.head_hash,
        "head_seq": game.head_seq,
        "phase": i18n.localize_kept(game.phase, game.engine, language),
        "commitment": game.commitment,
        "policy": game.policy,
        "deadline": "",
        "lines": [],
        "others": [],
        "newcomer": False,
        "former": True,
        **extra,
    }
    return enqueue(
        session,
        runtime,
        kind,
        key=key,
        recipient=former.email,
        context=context,
        game_id=game.id,
    )
