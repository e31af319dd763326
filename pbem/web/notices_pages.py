"""Pages of the turn notices beyond mail (:mod:`pbem.channels`):

- ``/sw.js``: the service worker that shows a push (served from the site's root so its
  scope is the whole site; it shows the notice and opens only this site's addresses);
- ``/push/<game>/<seat>/<signature>``: a seat's push subscriptions, switched on and off
  from its settings page (the signature is the settings page's own);
- ``/calendar/<token>.ics``: an address's deadlines (:mod:`pbem.channels.calendar`);
- ``/games/<game>/feed.atom``: a public game's turns and result as an Atom feed (a
  private game has none: 404);
- ``/games/<game>/follow`` and ``/follow/<id>/<signature>/confirm|stop``: following a
  public game by mail (:mod:`pbem.channels.follow`). The stop address answers RFC
  8058's one-click POST like a seat's settings page.
"""

from __future__ import annotations

import base64
import binascii
from datetime import UTC, datetime
from pathlib import Path

from feedgen.feed import FeedGenerator
from flask import Blueprint, Response, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_limiter.util import get_remote_address
from sqlmodel import Session, col, delete, func, select

from pbem import channels, links, zones
from pbem.channels import calendar, follow, safehttp
from pbem.errors import BadInput, NotFound, TooMany
from pbem.games.results import standings
from pbem.models import PushSubscription
from pbem.web import csrf
from pbem.web.mail_pages import _seat_for
from pbem.web.present import runtime
from pbem.web.timeline import HISTORY_LINES, load_tail, recent_lines
from pbem.zones import utc

bp = Blueprint("notices", __name__)

SUBSCRIPTIONS_PER_SEAT = 10
SERVICE_WORKER = Path(__file__).resolve().parent / "static" / "sw.js"


# The service worker and push subscriptions ------------------------------------------


@bp.get("/sw.js")
def service_worker():
    response = Response(SERVICE_WORKER.read_bytes(), mimetype="text/javascript")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Service-Worker-Allowed"] = "/"
    return response


def _key(value: str, size: int, refusal: str) -> str:
    """A base64url key of ``size`` bytes from a browser's subscription, as given (else
    :class:`BadInput` with ``refusal``)."""
    text = (value or "").strip()
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise BadInput(refusal) from None
    if len(raw) != size or len(text) > 200:
        raise BadInput(refusal)
    return text


@bp.post("/push/<game_id>/<int:seat>/<signature>")
def push(game_id: str, seat: int, signature: str):
    """Switches push on (``action=subscribe``: the browser's subscription) or off
    (``action=unsubscribe``: this browser's, or ``all``) for one seat."""
    run = runtime()
    game, row = _seat_for(game_id, seat, signature)
    action = request.form.get("action", "")
    endpoint = request.form.get("endpoint", "").strip()
    with Session(run.db) as session:
        if action == "unsubscribe":
            query = delete(PushSubscription).where(
                col(PushSubscription.game_id) == game_id, col(PushSubscription.seat) == seat
            )
            if endpoint:
                query = query.where(col(PushSubscription.endpoint) == endpoint)
            session.exec(query)
            session.commit()
            return {"on": False, "message": _("Notices in this browser are off for this seat.")}
        if action != "subscribe":
            raise BadInput(_("Choose one of the offered actions."))
        allow = bool(run.config.get("notices", {}).get("allow_loopback", False))
        safehttp.check_url(endpoint, allow_loopback=allow)
        p256dh = _key(
            request.form.get("p256dh", ""), 65, _("The browser's public key is not valid.")
        )
        auth = _key(request.form.get("auth", ""), 16, _("The browser's secret is not valid."))
        session.exec(
            delete(PushSubscription).where(
                col(PushSubscription.game_id) == game_id,
                col(PushSubscription.seat) == seat,
                col(PushSubscription.endpoint) == endpoint,
            )
        )
        count = session.exec(
            select(func.count())
            .select_from(PushSubscription)
            .where(PushSubscription.game_id == game_id, PushSubscription.seat == seat)
        ).one()
        if count >= SUBSCRIPTIONS_PER_SEAT:
            raise TooMany(
                _(
                    "This seat has notices on in %(count)s browsers already; switch one off first.",
                    count=count,
                )
            )
        session.add(
            PushSubscription(
                game_id=game_id,
                seat=seat,
                holder=row.token_hash or "",
                endpoint=endpoint,
                p256dh=p256dh,
                auth=auth,
                created_at=utc(run.clock()),
            )
        )
        channels.mark(session, game_id)
        session.commit()
    return {
        "on": True,
        "message": _(
            "This browser now tells you when it is your turn in %(title)s.", title=game.title
        ),
    }


# The calendar ---------------------------------------------------------------------------


@bp.get("/calendar/<token>.ics")
def calendar_file(token: str):
    run = runtime()
    address = calendar.address_for(run, token)
    response = Response(calendar.ics(run, address), mimetype="text/calendar")
    response.headers["Content-Disposition"] = 'inline; filename="deadlines.ics"'
    return response


# The feed -------------------------------------------------------------------------------


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(zones.iso_utc(text).replace("Z", "+00:00")).astimezone(UTC)


@bp.get("/games/<game_id>/feed.atom")
def feed(game_id: str):
    tail = load_tail(game_id, reach=HISTORY_LINES)
    game = tail.game
    if game.private:
        raise NotFound("There is nothing here.")
    run = runtime()
    page = links.game_url(run.config, game.id)
    host = links.base_url(run.config).split("://", 1)[-1].split("/", 1)[0].split(":")[0]
    since = f"{utc(game.created_at):%Y-%m-%d}"
    generator = FeedGenerator()
    generator.id(f"tag:{host},{since}:games/{game.id}")
    generator.title(f"{game.title}: turns and result")
    generator.link(href=page, rel="alternate")
    generator.link(href=f"{page}/feed.atom", rel="self")
    generator.author({"name": "pbem"})
    generator.language("en")
    entries = recent_lines(tail, None, 0)
    newest = utc(game.created_at)
    for item in reversed(entries):  # feedgen lists the last added first
        moment = _moment(item["at_iso"])
        newest = max(newest, moment)
        entry = generator.add_entry()
        entry.id(f"tag:{host},{since}:games/{game.id}/events/{item['seq']}")
        who = f"{item['who']}: " if item["who"] else ""
        first = item["lines"][0] if item["lines"] else item["kind"].replace("_", " ")
        entry.title(f"{who}{first}"[:200])
        entry.content("\n".join(item["lines"]) or first, type="text")
        entry.link(href=f"{page}/history?seq={item['seq']}")
        entry.updated(moment)
    if game.status == "finished":
        names = [seat.name for seat in sorted(tail.seats, key=lambda seat: seat.seat)]
        standing = standings(game.result, names) or {}
        ended = utc(game.finished_at or game.updated_at)
        newest = max(newest, ended)
        entry = generator.add_entry()
        entry.id(f"tag:{host},{since}:games/{game.id}/result")
        entry.title(f"The game is over. {standing.get('headline', '')}".strip())
        entry.content(" ".join(filter(None, [standing.get("headline"), standing.get("reason")]))
                      or "The game is over.", type="text")  # fmt: skip
        entry.link(href=page)
        entry.updated(ended)
    generator.updated(newest)
    response = Response(generator.atom_str(pretty=False), mimetype="application/atom+xml")
    response.headers["Cache-Control"] = "public, max-age=60"
    return response


# Following a game -----------------------------------------------------------------------


@bp.post("/games/<game_id>/follow", endpoint="follow")
def follow_game(game_id: str):
    choice = request.form.get("every_turn", "no")
    if choice not in ("yes", "no"):
        raise BadInput(_("Choose the result only, or every turn."))
    message = follow.ask(
        runtime(), game_id, request.form.get("email", ""), choice == "yes", get_remote_address()
    )
    flash(message)
    return redirect(url_for("games.spectate", game_id=game_id), code=303)


def one_click() -> bool:
    """RFC 8058's one-click unsubscribe POST to a follower's stop address."""
    if request.method != "POST" or request.endpoint != "notices.follow_stop":
        return False
    form = request.form
    return list(form.keys()) == ["List-Unsubscribe"] and form.getlist("List-Unsubscribe") == [
        "One-Click"
    ]


csrf.exempt_when(one_click)


@bp.route("/follow/<int:follower_id>/<signature>/confirm", methods=["GET", "POST"])
def follow_confirm(follower_id: int, signature: str):
    run = runtime()
    found = follow.follower_for(run, follower_id, signature)
    if follow.lapsed(run, found):
        raise NotFound(_("This link has lapsed; ask again on the game's page."))
    game = run.service.game(found.game_id)
    done = found.confirmed_at is not None
    if request.method == "POST" and not done:
        follow.confirm(run, follower_id, signature)
        done = True
    return render_template(
        "follow.html", game=game, follower=found, done=done, signature=signature, stopped=False
    )


@bp.route("/follow/<int:follower_id>/<signature>/stop", methods=["GET", "POST"])
def follow_stop(follower_id: int, signature: str):
    run = runtime()
    found = follow.follower_for(run, follower_id, signature)
    game = run.service.game(found.game_id)
    if request.method == "POST":
        follow.stop(run, follower_id, signature)
        return render_template(
            "follow.html", game=game, follower=found, done=False, signature="", stopped=True
        )
    return render_template("follow_stop.html", game=game, follower=found, signature=signature)
