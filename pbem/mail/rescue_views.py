"""The rescue page of a seat, reached from its link: the game's deadline policy,
vacation, the player's own "hand my seat to a bot" and "leave the game" (each confirmed
in a second step), and votes about absent seats (see :mod:`pbem.games.seat_rules`).
"""

from __future__ import annotations

from flask import Blueprint, current_app, flash, redirect, render_template, request, url_for
from sqlmodel import Session

from pbem.errors import BadInput
from pbem.games import rescue, seat_rules
from pbem.mail.models import SeatClock, utc
from pbem.scheduler import CONSEQUENCES

bp = Blueprint("rescue", __name__, url_prefix="/rescue/<token>", template_folder="templates")

CONFIRM = {
    "to_bot": (
        "Hand your seat to a bot?",
        "A bot plays your seat from now on. Your link keeps working: you can take the seat "
        "back from this page at any time.",
        "Yes, hand my seat to a bot",
    ),
    "leave": (
        "Leave this game?",
        "Your link stops working at once and the seat is open to a new player on the "
        "game's public page; a bot plays it meanwhile. You can ask for it there again "
        "while nobody else has taken it.",
        "Yes, leave the game",
    ),
}


def _runtime():
    return current_app.extensions["pbem"]


@bp.get("")
def page(token: str):
    runtime = _runtime()
    seat = rescue.holder_seat(runtime, token)
    game = runtime.service.game(seat.game_id)
    seats = runtime.service.seats(seat.game_id)
    now = utc(runtime.clock())
    with Session(runtime.db) as session:
        clock = session.get(SeatClock, (seat.game_id, seat.seat))
        absent = {row.seat: seat_rules.absence(session, game, row, now) for row in seats}
    cap = int(float(runtime.config["scheduler"]["max_vacation_days"]))
    used = clock.vacation_days_used if clock else 0.0
    return render_template(
        "rescue.html",
        token=token,
        me=seat,
        game=game,
        seats=seats,
        absent=absent,
        consequence=CONSEQUENCES[game.policy.get("at_deadline", "wait")],
        vacation_left=max(int(cap - used), 0),
        paused_until=clock.paused_until if clock else None,
    )


@bp.post("")
def act(token: str):
    runtime = _runtime()
    me = rescue.holder_seat(runtime, token)
    action = request.form.get("action", "")
    raw = request.form.get("seat", str(me.seat)).strip()
    if not raw.isdigit() or len(raw) > 3:
        raise BadInput("Choose a seat of this game.")
    target = int(raw)
    mine = target == me.seat
    if action in CONFIRM and mine and request.form.get("confirm") != "yes":
        title, text, button = CONFIRM[action]
        return render_template(
            "rescue_confirm.html",
            token=token,
            action=action,
            seat=me.seat,
            title=title,
            text=text,
            button=button,
        )
    if action == "vacation":
        outcome = rescue.start_vacation(runtime, me.game_id, me.seat, request.form.get("days"))
    elif action == "to_bot":
        outcome = rescue.hand_to_bot(runtime, me.game_id, target, by=me.seat)
    elif action == "leave":
        outcome = rescue.leave_game(runtime, me.game_id, target, by=me.seat)
        flash(outcome.message)
        return redirect(url_for("play.page", token=token), code=303)
    elif action == "reclaim":
        outcome = rescue.reclaim(runtime, me.game_id, target, by=me.seat)
    elif action == "replace":
        outcome = rescue.invite_replacement(
            runtime,
            me.game_id,
            target,
            request.form.get("name", ""),
            request.form.get("email", ""),
            by=me.seat,
        )
    else:
        raise BadInput("Choose one of the offered actions.")
    flash(outcome.message)
    if action == "reclaim" and outcome.token:
        return redirect(url_for("rescue.page", token=outcome.token))
    return redirect(url_for("rescue.page", token=token))
