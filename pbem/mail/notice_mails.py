"""Mail as a listener of the game's notices (:mod:`pbem.games.notices`).

:func:`install` adds :func:`on_notice` to the game service's notice listeners. Each
notice becomes its mail in the transaction that told it (the outbox's key is the
notice's key):

- ``seat_event``: a ``notice`` mail to the seat's player, with the headline and lines;
- ``seat_left``: a ``notice`` mail to the person's address, without any link;
- ``seat_offered``: a ``notice`` mail to the newcomer's address with the invitation's
  link and when it lapses;
- ``link_issued``: no mail: the seat's new token is kept sealed for later mails
  (:func:`pbem.mail.seat_mails.store_link`);
- ``link_given``: a ``seat_link`` mail with the seat's link;
- ``talk``: a ``talk`` mail, to a reader who wants table talk at once;
- ``open_created``, ``open_hold``, ``open_joined``: an ``open`` mail to the address
  (:mod:`pbem.mail.open_mails`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from sqlmodel import Session

from pbem import i18n, links, zones
from pbem.games.context import Runtime
from pbem.games.notices import Notice
from pbem.i18n import gettext
from pbem.mail import open_mails, outbox, seat_mails
from pbem.models import Game, Seat


def install(runtime: Runtime) -> None:
    """Adds the notice listener to the runtime's game service."""
    runtime.service.notice_listeners.append(partial(on_notice, runtime))


def on_notice(runtime: Runtime, session: Session, notice: Notice) -> None:
    """Writes the mail ``notice`` calls for, inside its transaction."""
    if notice.kind in open_mails.KINDS:
        open_mails.on_open_notice(runtime, session, notice)
        return
    if notice.kind == "link_issued":
        seat_mails.store_link(session, runtime, notice.game_id, notice.seat, notice.facts["token"])
        return
    game = session.get(Game, notice.game_id)
    if game is None:
        raise ValueError(f"there is no game {notice.game_id}")
    _MAILS[notice.kind](runtime, session, game, notice)


def _seat(session: Session, notice: Notice) -> Seat:
    seat = session.get(Seat, (notice.game_id, notice.seat))
    if seat is None:
        raise ValueError(f"game {notice.game_id} has no seat {notice.seat}")
    return seat


def _worded(value: Any, language: str | None) -> Any:
    """A notice's words (the game side's :class:`engines.text.Text`) in the reader's
    language now: a mail's context is kept as JSON until it is rendered, and JSON keeps
    only the English."""
    if isinstance(value, list | tuple):
        return [i18n.localize(item, language) for item in value]
    return i18n.localize(value, language)


def _seat_event(runtime: Runtime, session: Session, game: Game, notice: Notice) -> None:
    seat = _seat(session, notice)
    seat_mails.mail_seat(
        session,
        runtime,
        game,
        seat,
        "notice",
        notice.key,
        bot_seat_too=bool(notice.facts.get("even_a_bot")),
        headline=_worded(notice.facts["headline"], seat.language),
        lines=_worded(list(notice.facts["lines"]), seat.language),
    )


def _to_address(
    runtime: Runtime,
    session: Session,
    game: Game,
    notice: Notice,
    headline: str,
    lines: list[str],
    **extra: Any,
) -> None:
    """A ``notice`` mail to a person who holds no seat, at the notice's address."""
    language = extra.get("language") or outbox.address_language(session, notice.address)
    headline, lines = _worded(headline, language), _worded(lines, language)
    outbox.enqueue(
        session,
        runtime,
        "notice",
        key=notice.key,
        recipient=notice.address,
        context={
            "title": game.title,
            "game_id": game.id,
            "name": notice.name,
            "seat": notice.seat,
            "headline": headline,
            "lines": lines,
            "settings": "",
            "game_page": links.game_url(runtime.config, game.id),
            **extra,
        },
        game_id=game.id,
    )


def _seat_left(runtime: Runtime, session: Session, game: Game, notice: Notice) -> None:
    _to_address(
        runtime,
        session,
        game,
        notice,
        notice.facts["headline"],
        list(notice.facts["lines"]),
        link="",
        former=True,
        head_hash=game.head_hash,
        head_seq=game.head_seq,
    )


def _seat_offered(runtime: Runtime, session: Session, game: Game, notice: Notice) -> None:
    language = outbox.address_language(session, notice.address)
    with i18n.speaking(language):
        until = zones.when(notice.facts["lapses_at"], "UTC", None, language)
        headline = gettext("A seat is offered to you")
        lines = [
            gettext(
                "You are invited to take over %(name)s's seat in %(title)s.",
                name=notice.facts["holder"],
                title=game.title,
            ),
            gettext(
                "Open the link and accept the seat to play it; nothing happens until you "
                "do. Keep the link to yourself: once you accept, it is your seat."
            ),
            gettext("The link works until %(when)s.", when=until),
        ]
    _to_address(
        runtime,
        session,
        game,
        notice,
        headline,
        lines,
        link=links.play_url(runtime.config, notice.facts["token"]),
        newcomer=True,
        commitment=game.commitment,
        language=language,
    )


def _link_given(runtime: Runtime, session: Session, game: Game, notice: Notice) -> None:
    seat = _seat(session, notice)
    seat_mails.mail_seat(
        session,
        runtime,
        game,
        seat,
        "seat_link",
        notice.key,
        bot_seat_too=bool(notice.facts.get("even_a_bot")),
        message=_worded(notice.facts["message"], seat.language),
        deadline=notice.facts.get("deadline"),
    )


def _talk(runtime: Runtime, session: Session, game: Game, notice: Notice) -> None:
    reader = _seat(session, notice)
    if reader.talk_mail != "at_once":
        return
    private = bool(notice.facts["private"])
    seat_mails.mail_seat(
        session,
        runtime,
        game,
        reader,
        "talk",
        notice.key,
        sender_name=notice.facts["sender_name"],
        private=private,
        talk_verb="wrote to you privately" if private else "said to the table",
        said=notice.facts["said"],
    )


_MAILS: dict[str, Callable[[Any, Session, Game, Notice], None]] = {
    "seat_event": _seat_event,
    "seat_left": _seat_left,
    "seat_offered": _seat_offered,
    "link_given": _link_given,
    "talk": _talk,
}
