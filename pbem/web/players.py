"""Players as people on the web (:mod:`pbem.games.profiles`, :mod:`pbem.games.ratings`):
``/players/<handle>`` (a claimed, shown profile: games, titles, ratings with their
history, figures), ``/ratings/<title>`` (the leaderboard: handles only, best
conservative rating first, a page at a time), and the forms on "my games" that claim,
hide, show or delete the address's profile (the page's link proves the address).

No page here shows an address or a seat's link; a hidden, deleted or unknown handle
gets the same 404.
"""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_babel import gettext
from flask_limiter.util import get_remote_address

from engines import REGISTRY
from pbem.errors import NotFound, PbemError
from pbem.games import profiles, ratings
from pbem.i18n import localize
from pbem.mail.games_link import holder_of
from pbem.web.present import runtime

bp = Blueprint("players", __name__)


@bp.get("/players/<handle>")
def profile(handle: str):
    page = profiles.public_profile(runtime(), handle)
    charts = {rating.engine: profiles.chart(rating.history) for rating in page.ratings}
    return render_template("player.html", page=page, charts=charts)


@bp.get("/ratings/<engine>")
def board(engine: str):
    found = REGISTRY.get(engine) if isinstance(engine, str) else None
    if found is None:
        raise NotFound(gettext("There is no such game."))
    try:
        number = int(request.args.get("page", "1"))
    except ValueError:
        number = 0
    if not 1 <= number <= 10_000:
        raise NotFound(gettext("There is no such page of ratings."))
    lines, more = ratings.leaderboard(runtime(), engine, number)
    return render_template(
        "ratings.html",
        engine=found,
        lines=lines,
        page=number,
        more=more,
        least=ratings.min_games(runtime()),
    )


@bp.post("/my-games/<token>/profile")
def change(token: str):
    """Claims or renames (``handle``), hides, shows or deletes (``do``) the profile of
    the address the link opens."""
    run = runtime()
    with run.service.reading() as session:
        person = holder_of(run, session, token)
    action = request.form.get("do", "claim")
    try:
        if action == "claim":
            handle = profiles.claim(run, person, request.form.get("handle"), get_remote_address())
            flash(gettext("Your profile is public at %(address)s.", address="/players/" + handle))
        elif action in ("hide", "show"):
            profiles.set_hidden(run, person, action == "hide")
            flash(
                gettext("Your profile is hidden.")
                if action == "hide"
                else gettext("Your profile is public.")
            )
        elif action == "delete":
            profiles.delete(run, person, get_remote_address())
            flash(gettext("Your profile is deleted. Your games keep the names you had in them."))
        else:
            flash(gettext("Choose one of the buttons."))
    except PbemError as error:
        if error.status == 404:
            raise
        flash(localize(error.message))
    return redirect(url_for("mygames.page", token=token, _anchor="profile"), code=303)
