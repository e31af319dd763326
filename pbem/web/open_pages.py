"""Open games on the web (:mod:`pbem.games.open_games`): ``/open`` lists the games that
take players, with filters; an open game's page takes a name and an address to join;
the link mailed to that address confirms the seat (a page with a button: a mail
program that opens links by itself confirms nothing); the creator's page shows who
joined and starts the game with bots in the seats still open.

No page shows an address: seats show names, "open" or "held" (until when). Joining is
limited per client by Flask-Limiter (``limits.open_join``) besides the per-person and
per-client counts the game side keeps in the database.
"""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_limiter.util import get_remote_address

from engines import REGISTRY
from pbem import zones
from pbem.errors import BadInput, PbemError
from pbem.games import open_games
from pbem.i18n import N_, T
from pbem.web.lobby import product_engines
from pbem.web.present import runtime
from pbem.zones import utc

bp = Blueprint("open_pages", __name__, url_prefix="/open")

PACE_WORDS = {
    "any": N_("any pace"),
    "none": N_("no deadline"),
    "1": N_("a deadline of a day or less"),
    "3": N_("a deadline of 3 days or less"),
    "7": N_("a deadline of a week or less"),
}


@bp.get("")
def index():
    """The open games, newest first, filtered by ``?game=``, ``?seats=`` (at least that
    many seats left) and ``?pace=``; a bad filter is named (400), the list unfiltered."""
    args = request.args
    error = ""
    try:
        games = open_games.list_open(
            runtime(), args.get("game") or None, args.get("seats") or None, args.get("pace")
        )
    except BadInput as bad:
        error, games = bad.message, open_games.list_open(runtime())
    page = render_template(
        "open_list.html",
        games=games,
        error=error,
        engines=product_engines(),
        paces=PACE_WORDS,
        chosen={} if error else args,
    )
    return page, 400 if error else 200


@bp.get("/<game_id>")
def game(game_id: str):
    return game_page(game_id)


def game_page(game_id: str, form=None, error: str = "", status: int = 200):
    listing = open_games.open_game(runtime(), game_id)
    return (
        render_template(
            "open_game.html",
            game=listing,
            form=form or {},
            error=error,
            engine=_engine(listing),
            zones=zones.zone_names(),
        ),
        status,
    )


def _engine(listing):
    return REGISTRY.get(listing.engine)


@bp.post("/<game_id>/join")
def join(game_id: str):
    """Someone asks for a seat: it is held for them, and the link to confirm it goes to
    the address they gave, only."""
    try:
        try:
            zone = zones.clean_zone(request.form.get("timezone", "") or "UTC")
        except BadInput as error:
            raise BadInput(T("Your time zone: %(problem)s", problem=error.message)) from None
        joined = open_games.join(
            runtime(),
            game_id,
            request.form.get("name", ""),
            request.form.get("email", ""),
            client=get_remote_address(),
            timezone=zone,
        )
    except PbemError as error:
        if error.status == 404:
            raise
        return game_page(game_id, request.form, error.message, error.status)
    flash(joined.message)
    return redirect(url_for("open_pages.game", game_id=game_id), code=303)


@bp.get("/confirm/<token>")
def confirm_page(token: str):
    hold, listing = open_games.hold_for(runtime(), token)
    lapsed = hold.confirmed_at is None and utc(hold.expires_at) <= utc(runtime().clock())
    return render_template(
        "open_confirm.html",
        hold=hold,
        game=listing,
        token=token,
        done=None,
        lapsed=lapsed,
        commitment=commitment_of(listing.id),
    ), (410 if lapsed else 200)


def commitment_of(game_id: str) -> str:
    """The commitment to the seed of an open game (drawn when it was listed)."""
    try:
        return runtime().service.pending_game(game_id, lapses=False).commitment
    except PbemError:
        return ""


@bp.post("/confirm/<token>")
def confirm(token: str):
    confirmed = open_games.confirm(
        runtime(), token, request.form.get("contribution", ""), "browser"
    )
    listing = open_games.open_game(runtime(), confirmed.game_id)
    return render_template(
        "open_confirm.html", hold=None, game=listing, token=token, done=confirmed
    )


@bp.get("/manage/<token>")
def manage(token: str):
    page = open_games.creator_game(runtime(), token)
    return render_template("open_manage.html", game=page.game, token=token)


@bp.post("/manage/<token>/start")
def start(token: str):
    open_games.start_with_bots(runtime(), token)
    flash(_("The game has started: every player's link is on its way by mail, yours too."))
    return redirect(url_for("open_pages.manage", token=token), code=303)


@bp.post("/manage/<token>/cancel")
def cancel(token: str):
    """Calls the game off, when the form's box says so (a second, deliberate step)."""
    if request.form.get("sure") != "yes":
        raise BadInput(_("Tick the box to call the game off; nothing was changed."))
    open_games.cancel(runtime(), token)
    flash(_("The game is called off; whoever held a seat in it is told by mail."))
    return redirect(url_for("open_pages.manage", token=token), code=303)
