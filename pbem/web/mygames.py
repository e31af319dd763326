"""My games: every seat of one mail address across games, from a link in every mail.

Every mail's footer carries the address's "my games" link (``my_games`` in the mail's
context, made by :func:`pbem.mail.games_link.address_link`: the address and its link
generation, encrypted and authenticated under the server's key; raising the generation
revokes every older link).

The page lists each seat the address holds (title, game, whose turn it is, the seat's
deadline in its own time zone) and opens a seat through :func:`open_seat`, a redirect
that checks the link again and that the seat still belongs to the address: the page
itself carries no seat link. A link that does not open (forged, damaged, revoked) gets
the same plain 404 whatever is wrong with it, so nothing can be learnt by trying.
"Replace this link" (a POST with the form's CSRF token) raises the generation and
mails a fresh link to the address, at most once in :data:`REVOKE_EVERY`.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from flask import Blueprint, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import ngettext
from sqlalchemy import func
from sqlmodel import Session, col, select

from pbem import links, zones
from pbem.channels import calendar
from pbem.errors import NotFound, TooMany
from pbem.games import profiles
from pbem.games.tables import SeatClock
from pbem.mail import outbox, render, seat_mails
from pbem.mail.games_link import address_link, holder_of
from pbem.mail.models import MailAddress
from pbem.models import Game, Seat
from pbem.web.i18n import current as current_language
from pbem.web.present import runtime
from pbem.words import join_names
from pbem.zones import utc

bp = Blueprint("mygames", __name__, url_prefix="/my-games")

REVOKE_EVERY = timedelta(minutes=10)
SHOWN = 200  # seats listed, running games first, newest activity first


# What the page shows -------------------------------------------------------------------


def seats_of(run: Any, session: Session, address: str) -> list[dict[str, Any]]:
    """Each seat ``address`` holds: its game, whose turn it is, its deadline (running
    games first, then newest activity first)."""
    found = session.exec(
        select(Seat, Game)
        .join(Game, col(Game.id) == col(Seat.game_id))
        .where(func.lower(Seat.email) == address)
        .order_by(col(Game.status), col(Game.updated_at).desc(), col(Game.id))
        .limit(SHOWN)
    ).all()
    ids = sorted({game.id for _seat, game in found})
    names: dict[tuple[str, int], str] = {}
    clocks: dict[tuple[str, int], SeatClock] = {}
    if ids:
        for row in session.exec(select(Seat).where(col(Seat.game_id).in_(ids))):
            names[row.game_id, row.seat] = row.name
        for clock in session.exec(select(SeatClock).where(col(SeatClock.game_id).in_(ids))):
            clocks[clock.game_id, clock.seat] = clock
    now = utc(run.clock())
    language = current_language()
    rows = []
    for seat, game in found:
        running = game.status == "active"
        due = [number for number in game.to_move or [] if (game.id, number) in names]
        mine = seat.seat in due and running
        others = [names[game.id, number] for number in due if number != seat.seat]
        if not running:
            turn = _("The game is over.")
        elif game.paused_at is not None:
            turn = _("The game is paused.")
        elif mine and seat.is_bot:
            turn = _("A bot plays your seat, and it is its turn.")
        elif mine and others:
            turn = ngettext(
                "Your turn. %(names)s moves too.",
                "Your turn. %(names)s move too.",
                len(others),
                names=join_names(others, language),
            )
        elif mine:
            turn = _("Your turn.")
        elif others:
            turn = _("Waiting for %(names)s.", names=join_names(others, language))
        else:
            turn = ""
        clock = clocks.get((game.id, seat.seat))
        deadline = clock.deadline_at if clock is not None and mine else None
        rows.append(
            {
                "game_id": game.id,
                "seat": seat.seat,
                "title": game.title,
                "game_name": render.engine_title(game.engine),
                "name": seat.name,
                "running": running,
                "due": mine and not seat.is_bot and game.paused_at is None,
                "turn": turn,
                "deadline": zones.when(deadline, seat.timezone, now, language) if deadline else "",
                "opens": bool(seat.token_hash),
            }
        )
    return rows


# Pages ---------------------------------------------------------------------------------


@bp.get("/<token>")
def page(token: str):
    run = runtime()
    with run.service.reading() as session:
        address = holder_of(run, session, token)
        rows = seats_of(run, session, address)
    with run.service.session() as session:
        ics = calendar.link_for(run, session, address)
        session.commit()
    return render_template(
        "my_games.html",
        token=token,
        address=address,
        calendar=ics,
        profile=profiles.own_profile(run, address),
        rotated=request.args.get("calendar") == "new",
        running=[row for row in rows if row["running"]],
        finished=[row for row in rows if not row["running"]],
    )


@bp.get("/<token>/seat/<game_id>/<int:seat>")
def open_seat(token: str, game_id: str, seat: int):
    """Opens one of the address's seats: the link is checked again, and the seat must
    still be the address's, before the seat's own link is given (as a redirect)."""
    run = runtime()
    with run.service.reading() as session:
        address = holder_of(run, session, token)
        row = session.get(Seat, (game_id, seat)) if len(game_id) <= 32 else None
        if row is None or row.email.lower() != address or not row.token_hash:
            raise NotFound(_("This seat is not one of your games any more."))
        seat_token = seat_mails.seat_token(session, run, row)
    if not seat_token:
        raise NotFound(_("This seat's link is not on this server any more."))
    return redirect(links.play_url(run.config, seat_token), code=303)


@bp.post("/<token>/calendar")
def new_calendar(token: str):
    """Replaces the calendar link: the old one opens nothing from now on."""
    run = runtime()
    with run.service.session() as session:
        address = holder_of(run, session, token)
        calendar.link_for(run, session, address, rotate=True)
        session.commit()
    return redirect(url_for("mygames.page", token=token, calendar="new", _anchor="calendar"), 303)


@bp.post("/<token>/revoke")
def revoke(token: str):
    """Replaces the link: every older one stops working, a fresh one goes by mail."""
    run = runtime()
    now = utc(run.clock())
    with run.service.session() as session:
        address = holder_of(run, session, token)
        row = session.get(MailAddress, address)
        if row is None:
            row = MailAddress(address=address, updated_at=now)
        elif row.games_link_generation and utc(row.updated_at) > now - REVOKE_EVERY:
            raise TooMany(
                _(
                    "This link was replaced a few minutes ago; wait a little before "
                    "replacing it again. The newest link is in the last mail from this server."
                )
            )
        row.games_link_generation += 1
        row.updated_at = now
        session.add(row)
        session.flush()
        outbox.enqueue(
            session,
            run,
            "games_link",
            key=f"games_link:{address}:{row.games_link_generation}",
            recipient=address,
            context={"my_games": address_link(run, session, address)},
        )
        session.commit()
    return render_template("my_games_revoked.html", address=address)
