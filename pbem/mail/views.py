"""Pages of mail: ``/dev/mail`` (the mail a local server sent, shown as it was sent,
links opened; never in production) and a seat's notification settings, reached by the
``List-Unsubscribe`` link of its mails.
"""

from __future__ import annotations

import hmac

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for
from sqlmodel import Session, col, select

from pbem.errors import BadInput, NotFound
from pbem.mail import outbox, render
from pbem.mail.models import Mail
from pbem.models import Game, Seat

bp = Blueprint("mail", __name__, template_folder="templates")

NOTIFY = {
    "every_turn": "A mail every time it is my turn, and reminders",
    "digest": "One mail a day listing my games that wait for me",
    "none": "No turn mails (I check the game myself)",
}


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
    return render_template("mail_list.html", mails=mails)


@bp.get("/dev/mail/<int:mail_id>")
def show_mail(mail_id: int):
    runtime = _local_only()
    with Session(runtime.db) as session:
        mail = session.get(Mail, mail_id)
    if mail is None:
        raise NotFound("There is no such mail.")
    try:
        text, html, _ = outbox.opened(runtime, mail)
    except render.UnsealError:
        text, html = mail.body_text, mail.body_html
    return render_template("mail_show.html", mail=mail, text=text, html=html)


def _seat_for(game_id: str, seat: int, signature: str) -> tuple[Game, Seat]:
    runtime = _runtime()
    with Session(runtime.db) as session:
        row = session.get(Seat, (game_id, seat))
        game = session.get(Game, game_id)
    if row is None or game is None or not row.token_hash:
        raise NotFound("This link is not valid (it may have been replaced).")
    expected = render.settings_signature(outbox.secret(runtime), game_id, seat, row.token_hash)
    if not hmac.compare_digest(expected, signature):
        raise NotFound("This link is not valid (it may have been replaced).")
    return game, row


@bp.route("/mail/settings/<game_id>/<int:seat>/<signature>", methods=["GET", "POST"])
def settings(game_id: str, seat: int, signature: str):
    game, row = _seat_for(game_id, seat, signature)
    if request.method == "POST":
        choice = request.form.get("notify", "")
        if choice not in NOTIFY:
            raise BadInput("Choose one of the offered kinds of mail.")
        with Session(_runtime().db) as session:
            fresh = session.get(Seat, (game_id, seat))
            fresh.notify = choice
            session.add(fresh)
            session.commit()
        return redirect(
            url_for("mail.settings", game_id=game_id, seat=seat, signature=signature, saved=1)
        )
    saved = request.args.get("saved") == "1"
    return render_template("mail_settings.html", game=game, seat=row, choices=NOTIFY, saved=saved)
