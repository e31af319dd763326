"""The rescue page of a seat, reached from its link: the game's deadline policy,
vacation (started, or ended early), the player's own "hand my seat to a bot", "resign"
and "leave the game" (each confirmed in a second step, a form without JavaScript), votes about absent seats (see
:mod:`pbem.games.seat_rules`), and for the game's creator the game's settings: its deadline
policy, pause and resume (see :mod:`pbem.games.control`), and sending a pending
invitation again (:func:`pbem.games.invitations.resend_invitation`).
"""

from __future__ import annotations

from flask import Blueprint, current_app, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from flask_babel import npgettext
from sqlmodel import Session, select

from engines import REGISTRY, bot_levels_of
from pbem import zones
from pbem.channels import webhooks
from pbem.errors import BadInput
from pbem.eventlog.roster import BOT_LEVELS
from pbem.games import control, invitations, rescue, seat_links, seat_rules, vacations
from pbem.games.policy import AT_DEADLINE, DEFAULT_POLICY
from pbem.games.tables import SeatClock, SeatOffer
from pbem.i18n import N_
from pbem.mail import budget
from pbem.web.i18n import current as current_language
from pbem.web.i18n import for_seat
from pbem.web.lobby import AT_DEADLINE_TEXT, capital, deadline_clause
from pbem.zones import utc

bp = Blueprint("rescue", __name__, url_prefix="/rescue/<token>", template_folder="templates")

CONFIRM = {
    "to_bot": (
        N_("Hand your seat to a bot?"),
        N_(
            "A bot plays your seat from now on. Your link keeps working: you can take the "
            "seat back from this page at any time."
        ),
        N_("Yes, hand my seat to a bot"),
    ),
    "resign": (
        N_("Resign from this game?"),
        N_(
            "A bot plays your seat to the end of the game, and you are shown as having "
            "resigned. Your link stops working at once and the seat cannot be taken back; "
            "you will still get the result by mail when the game ends."
        ),
        N_("Yes, resign"),
    ),
    "leave": (
        N_("Leave this game?"),
        N_(
            "Your link stops working at once and the seat is open to a new player on the "
            "game's public page; a bot plays it meanwhile. You can ask for it there again "
            "while nobody else has taken it."
        ),
        N_("Yes, leave the game"),
    ),
}
# The kinds of webhook as the page names them (pbem.channels.webhooks.KINDS).
WEBHOOK_KINDS = {"discord": "Discord", "slack": "Slack", "json": N_("Plain JSON")}


def _runtime():
    return current_app.extensions["pbem"]


@bp.get("")
def page(token: str):
    runtime = _runtime()
    seat = for_seat(seat_links.holder_seat(runtime, token))
    budget.seat_taken(runtime, seat.game_id, seat.email)  # the link was opened
    game = runtime.service.game(seat.game_id)
    seats = runtime.service.seats(seat.game_id)
    now = utc(runtime.clock())
    with Session(runtime.db) as session:
        clock = session.get(SeatClock, (seat.game_id, seat.seat))
        absent = {row.seat: seat_rules.absence(session, game, row, now) for row in seats}
        resigned = seat_rules.resigned_seats(session, seat.game_id)
        offers = session.exec(select(SeatOffer).where(SeatOffer.game_id == seat.game_id)).all()
    creator = game.creator_seat == seat.seat and game.status == "active"
    invitations = [
        {
            "seat": offer.seat,
            "name": offer.name,
            "until": _local(seat_links.lapses_at(runtime, offer), seat.timezone),
            "lapsed": seat_links.is_lapsed(runtime, offer),
        }
        for offer in offers
        if creator and not offer.open and offer.email and offer.token_hash
    ]
    cap = int(float(runtime.config["scheduler"]["max_vacation_days"]))
    used = clock.vacation_days_used if clock else 0.0
    return render_template(
        "rescue.html",
        token=token,
        me=seat,
        game=game,
        seats=seats,
        absent=absent,
        resigned=resigned,
        consequence=capital(deadline_clause(game.policy)) + ".",
        vacation_left=max(int(cap - used), 0),
        vacation_left_words=time_left(cap - used),
        paused_until=clock.paused_until if clock else None,
        on_vacation=bool(clock and clock.paused_until and utc(clock.paused_until) > now),
        vacation_until=_local(clock.paused_until, seat.timezone) if clock else "",
        creator=creator,
        invitations=invitations,
        at_deadline=[(key, _(AT_DEADLINE_TEXT[key])) for key in AT_DEADLINE],
        levels=bot_levels_of(REGISTRY[game.engine]) if game.engine in REGISTRY else ("normal",),
        webhooks=webhooks.shown(runtime, game.id) if creator else [],
        webhook_kinds={key: WEBHOOK_KINDS.get(key, text) for key, text in webhooks.KINDS.items()},
    )


def chosen_level(form) -> str:
    """The bot level a seat's own "hand to a bot" names (normal when it names none); the
    game's engine decides whether it offers that level (a clear refusal if not)."""
    level = str(form.get("level", "") or "normal").strip().lower()
    if level not in BOT_LEVELS:
        raise BadInput(_("Choose one of the bot levels offered."))
    return level


@bp.post("")
def act(token: str):
    runtime = _runtime()
    me = for_seat(seat_links.holder_seat(runtime, token))
    budget.seat_taken(runtime, me.game_id, me.email)
    action = request.form.get("action", "")
    raw = request.form.get("seat", str(me.seat)).strip()
    if not raw.isdigit() or len(raw) > 3:
        raise BadInput(_("Choose a seat of this game."))
    target = int(raw)
    mine = target == me.seat
    level = chosen_level(request.form) if action == "to_bot" and mine else "normal"
    if action in CONFIRM and mine and request.form.get("confirm") != "yes":
        title, text, button = (_(words) for words in CONFIRM[action])
        return render_template(
            "rescue_confirm.html",
            token=token,
            action=action,
            seat=me.seat,
            level=level if action == "to_bot" else "",
            title=title,
            text=text,
            button=button,
        )
    if action in ("policy", "pause", "resume"):
        flash(game_settings(runtime, me.game_id, me.seat, action))
        return redirect(url_for("rescue.page", token=token))
    if action == "webhook_add":
        hook = webhooks.add(
            runtime, me.game_id, request.form.get("kind"), request.form.get("url"), by=me.seat
        )
        kind = _(WEBHOOK_KINDS.get(hook.kind, webhooks.KINDS[hook.kind]))
        flash(_("The webhook is added: each turn and the result go to %(kind)s.", kind=kind))
        return redirect(url_for("rescue.page", token=token, _anchor="webhooks"))
    if action == "webhook_remove":
        webhooks.remove(runtime, me.game_id, request.form.get("webhook", ""), by=me.seat)
        flash(_("The webhook is removed."))
        return redirect(url_for("rescue.page", token=token, _anchor="webhooks"))
    if action == "vacation":
        outcome = vacations.start_vacation(runtime, me.game_id, me.seat, request.form.get("days"))
    elif action == "end_vacation":
        outcome = vacations.end_vacation(runtime, me.game_id, me.seat, by=me.seat)
    elif action == "to_bot":
        outcome = rescue.hand_to_bot(runtime, me.game_id, target, by=me.seat, level=level)
    elif action == "resign":
        outcome = rescue.resign(runtime, me.game_id, me.seat, by=me.seat)
        flash(outcome.message)
        return redirect(url_for("play.page", token=token), code=303)
    elif action == "leave":
        outcome = rescue.leave_game(runtime, me.game_id, target, by=me.seat)
        flash(outcome.message)
        return redirect(url_for("play.page", token=token), code=303)
    elif action == "reclaim":
        outcome = rescue.reclaim(runtime, me.game_id, target, by=me.seat)
    elif action == "resend":
        outcome = invitations.resend_invitation(runtime, me.game_id, target, by=me.seat)
    elif action == "replace":
        outcome = invitations.invite_replacement(
            runtime,
            me.game_id,
            target,
            request.form.get("name", ""),
            request.form.get("email", ""),
            by=me.seat,
        )
    else:
        raise BadInput(_("Choose one of the offered actions."))
    flash(outcome.message)
    if action == "reclaim" and outcome.token:
        return redirect(url_for("rescue.page", token=outcome.token))
    return redirect(url_for("rescue.page", token=token))


def _local(moment, zone: str) -> str:
    """An instant as the seat's player reads it, in the page's language: "Sun 06 Dec
    2026, 16:00 Europe/Berlin", "So., 6. Dez. 2026, 16:00 Europe/Berlin"."""
    if moment is None:
        return ""
    name = zone if zone in zones.zone_names() else "UTC"
    return f"{zones.day_and_time(moment, name, current_language())} {name}"


def time_left(days: float) -> str:
    """What is left of a vacation allowance, in the page's language: "2 days and 21
    hours", "nothing"."""
    hours = max(round(days * 24), 0)
    whole, rest = divmod(hours, 24)
    day_words = npgettext("time left", "%(num)s day", "%(num)s days", whole)
    hour_words = npgettext("time left", "%(num)s hour", "%(num)s hours", rest)
    if whole and rest:
        return _("%(days)s and %(hours)s", days=day_words, hours=hour_words)
    if whole:
        return day_words
    if rest:
        return hour_words
    return _("nothing")


def game_settings(runtime, game_id: str, seat: int, action: str) -> str:
    """The creator's game settings: a new deadline policy, a pause, or the resumption."""
    if action == "pause":
        control.pause_game(runtime, game_id, by=seat)
        return _("The game is paused; everyone is told.")
    if action == "resume":
        control.resume_game(runtime, game_id, by=seat)
        return _("The game goes on; everyone is told.")
    policy = {key: request.form.get(key, "").strip() for key in DEFAULT_POLICY}
    policy = {key: value for key, value in policy.items() if value}
    control.change_policy(runtime, game_id, policy, by=seat)
    return _("The deadline policy is changed; everyone is told.")
