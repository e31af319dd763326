"""The rescue page of a seat, reached from its link: the game's deadline policy,
vacation, and the rescue actions of :mod:`pbem.rescue` (bot seats, replacement players,
reclaiming), each asked for as this seat (the creator acts, others vote).
"""

from __future__ import annotations

from flask import Blueprint, current_app, flash, redirect, render_template, request, url_for
from sqlmodel import Session

from pbem import rescue
from pbem.errors import BadInput
from pbem.mail.models import SeatClock
from pbem.scheduler import CONSEQUENCES

bp = Blueprint("rescue", __name__, url_prefix="/rescue/<token>", template_folder="templates")


def _runtime():
    return current_app.extensions["pbem"]


@bp.get("")
def page(token: str):
    runtime = _runtime()
    seat = runtime.service.seat_for_token(token)
    game = runtime.service.game(seat.game_id)
    with Session(runtime.db) as session:
        clock = session.get(SeatClock, (seat.game_id, seat.seat))
    cap = float(runtime.config["scheduler"]["max_vacation_days"])
    used = clock.vacation_days_used if clock else 0.0
    return render_template(
        "rescue.html",
        token=token,
        me=seat,
        game=game,
        seats=runtime.service.seats(seat.game_id),
        consequence=CONSEQUENCES[game.policy.get("at_deadline", "wait")],
        vacation_left=max(cap - used, 0),
        paused_until=clock.paused_until if clock else None,
    )


@bp.post("")
def act(token: str):
    runtime = _runtime()
    me = runtime.service.seat_for_token(token)
    action = request.form.get("action", "")
    try:
        target = int(request.form.get("seat", me.seat))
    except ValueError:
        raise BadInput("Choose a seat of this game.") from None
    if action == "vacation":
        outcome = rescue.start_vacation(runtime, me.game_id, me.seat, request.form.get("days"))
    elif action == "to_bot":
        outcome = rescue.hand_to_bot(runtime, me.game_id, target, by=me.seat)
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
    if outcome.token and target == me.seat:
        return redirect(url_for("rescue.page", token=outcome.token))
    return redirect(url_for("rescue.page", token=token))
