"""Pages of mail: ``/dev/mail`` (the mail a local server sent, shown as it was sent,
links opened; never in production) and a seat's settings, reached by the
``List-Unsubscribe`` link of its mails: which mails, the player's time zone and preferred
hour, how table talk comes by mail (``seats.talk_mail``), and "end my vacation now"
while the seat is on vacation.

The same address answers RFC 8058's one-click unsubscribe: a POST whose form is exactly
``List-Unsubscribe=One-Click`` (a mail provider sends it, without the site's CSRF token)
switches the seat's mail to "none" and says so. The signature in the address is what
makes it the seat's: a forged one is a 404 and changes nothing.
"""

from __future__ import annotations

import hmac

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for
from flask_babel import gettext as _
from sqlmodel import Session, col, func, select

from pbem import i18n, zones
from pbem.channels import vapid
from pbem.errors import BadInput, NotFound
from pbem.games import talk, vacations
from pbem.games.tables import SeatClock
from pbem.i18n import N_
from pbem.mail import budget, deferred, outbox, render
from pbem.mail.models import Mail
from pbem.models import Game, PushSubscription, Seat
from pbem.web import csrf
from pbem.web.i18n import current as current_language
from pbem.web.i18n import for_seat
from pbem.zones import utc

bp = Blueprint("mail", __name__, template_folder="templates")

NOTIFY = {
    "every_turn": N_("A mail every time it is my turn, and reminders"),
    "digest": N_("One mail a day listing my games that wait for me"),
    "none": N_("No turn mails (I check the game myself)"),
}

# A mail's status in the outbox (pbem.mail.models.Mail.status) as /dev/mail names it.
MAIL_STATUS = {
    "pending": N_("pending"),
    "sending": N_("sending"),
    "sent": N_("sent"),
    "failed": N_("failed"),
    "held": N_("held"),
    "dropped": N_("dropped"),
    "bouncing": N_("bouncing"),
}


def mail_status(status: str) -> str:
    """A mail's status in the page's language (an unknown one as it is)."""
    words = MAIL_STATUS.get(status)
    return _(words) if words else status


def _runtime():
    return current_app.extensions["pbem"]


def _local_only():
    runtime = _runtime()
    if runtime.config["server"].get("production"):
        abort(404)
    return runtime


@bp.get("/dev/mail")
def sent_mail():
    runtime = _local_only()
    with Session(runtime.db) as session:
        mails = list(session.exec(select(Mail).order_by(col(Mail.id).desc()).limit(200)))
    return render_template("mail_list.html", mails=mails, mail_status=mail_status)


@bp.get("/dev/mail/<int:mail_id>")
def show_mail(mail_id: int):
    runtime = _local_only()
    with Session(runtime.db) as session:
        mail = session.get(Mail, mail_id)
    if mail is None:
        raise NotFound(_("There is no such mail."))
    try:
        text, html, _sealed = deferred.opened(runtime, mail)
    except render.UnsealError:
        text, html = mail.body_text, mail.body_html
    return render_template(
        "mail_show.html", mail=mail, text=text, html=html, mail_status=mail_status
    )


def _seat_for(game_id: str, seat: int, signature: str) -> tuple[Game, Seat]:
    runtime = _runtime()
    with Session(runtime.db) as session:
        row = session.get(Seat, (game_id, seat))
        game = session.get(Game, game_id)
    if row is None or game is None or not row.token_hash:
        raise NotFound(_("This link is not valid (it may have been replaced)."))
    expected = render.settings_signature(outbox.secret(runtime), game_id, seat, row.token_hash)
    if not hmac.compare_digest(expected, signature):
        raise NotFound(_("This link is not valid (it may have been replaced)."))
    return game, for_seat(row)


def one_click() -> bool:
    """Whether this request is an RFC 8058 one-click unsubscribe: a POST to a seat's
    settings address whose form is exactly ``List-Unsubscribe=One-Click``."""
    if request.method != "POST" or request.endpoint != "mail.settings":
        return False
    form = request.form
    return list(form.keys()) == ["List-Unsubscribe"] and form.getlist("List-Unsubscribe") == [
        "One-Click"
    ]


csrf.exempt_when(one_click)


@bp.route("/mail/settings/<game_id>/<int:seat>/<signature>", methods=["GET", "POST"])
def settings(game_id: str, seat: int, signature: str):
    game, row = _seat_for(game_id, seat, signature)
    runtime = _runtime()
    if request.method == "POST" and one_click():
        _save(game_id, seat, notify="none")
        return render_template("mail_settings_unsubscribed.html", game=game, seat=row)
    budget.seat_taken(runtime, game_id, row.email)  # a link only its mails carry
    if request.method == "POST":
        action = request.form.get("action", "save")
        if action == "end_vacation":
            vacations.end_vacation(runtime, game_id, seat, by=seat)
            return redirect(
                url_for(
                    "mail.settings",
                    game_id=game_id,
                    seat=seat,
                    signature=signature,
                    saved="vacation",
                ),
                code=303,
            )
        if action != "save":
            raise BadInput(_("Choose one of the offered actions."))
        choice = request.form.get("notify", "")
        if choice not in NOTIFY:
            raise BadInput(_("Choose one of the offered kinds of mail."))
        changes: dict = {"notify": choice}
        if "talk_mail" in request.form:
            if request.form["talk_mail"] not in talk.PREFERENCES:
                raise BadInput(_("Choose one of the offered kinds of mail about table talk."))
            changes["talk_mail"] = request.form["talk_mail"]
        if "timezone" in request.form:
            changes["timezone"] = zones.clean_zone(request.form["timezone"])
        if "mail_hour" in request.form:
            changes["mail_hour"] = zones.clean_hour(request.form["mail_hour"])
        if "language" in request.form:
            changes["language"] = i18n.clean_language(request.form["language"])
        _save(game_id, seat, **changes)
        return redirect(
            url_for("mail.settings", game_id=game_id, seat=seat, signature=signature, saved=1)
        )
    with Session(runtime.db) as session:
        clock = session.get(SeatClock, (game_id, seat))
    now = utc(runtime.clock())
    away = clock.paused_until if clock and clock.paused_until else None
    on_vacation = away is not None and utc(away) > now and game.status == "active"
    return render_template(
        "mail_settings.html",
        game=game,
        seat=row,
        choices=NOTIFY,
        talk_choices=talk.PREFERENCE_WORDS,
        saved=request.args.get("saved", ""),
        zones=zones.zone_names(),
        zone=row.timezone if row.timezone in zones.zone_names() else "UTC",
        hours=range(24),
        vacation_until=zones.day_and_time(away, row.timezone, current_language())
        if on_vacation
        else None,
        languages=i18n.LANGUAGES,
        language=current_language(),
        zone_now=zones.local(now, row.timezone),
        push_key=vapid.public_key(runtime),
        push_address=url_for("notices.push", game_id=game_id, seat=seat, signature=signature),
        push_count=push_count(game_id, seat),
    )


def push_count(game_id: str, seat: int) -> int:
    """How many browsers have notices on for this seat."""
    with Session(_runtime().db) as session:
        return session.exec(
            select(func.count())
            .select_from(PushSubscription)
            .where(PushSubscription.game_id == game_id, PushSubscription.seat == seat)
        ).one()


def _save(game_id: str, seat: int, **changes) -> None:
    """Changes this seat's settings only."""
    with Session(_runtime().db) as session:
        fresh = session.get(Seat, (game_id, seat))
        for name, value in changes.items():
            setattr(fresh, name, value)
        session.add(fresh)
        session.commit()
