"""Public pages of a game: the spectator page, the history, the audit and the full export."""

from __future__ import annotations

from flask import (
    Blueprint,
    Response,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext
from flask_limiter.util import get_remote_address

from pbem.errors import Rejected
from pbem.eventlog.audit import VIEW_BUDGET, audit_game
from pbem.games import invitations, seat_links, talk, vacations
from pbem.games.portable import export_chunks, export_record
from pbem.links import base_url
from pbem.mail.inbound.bounces import flag_bouncing_players
from pbem.validate import clean_email
from pbem.web.history import render_history, render_step
from pbem.web.present import players, runtime
from pbem.web.timeline import (
    HISTORY_LINES,
    chart,
    load_tail,
    recent_lines,
    score_series,
    with_phase_named,
)
from pbem.web.titles import board_template

bp = Blueprint("games", __name__, url_prefix="/games/<game_id>")


def final_scores(game, engine, viewer: int | None) -> dict:
    """The score chart (running scores) or, failing that, the final breakdown."""
    series = score_series(game, engine, viewer) if game.status == "finished" else []
    return {"chart": chart(series), "result": game.result}


@bp.get("")
def spectate(game_id: str):
    tail = load_tail(game_id, reach=HISTORY_LINES)
    game, engine = tail.game, tail.engine
    view = with_phase_named(engine.view(tail.states[game.head_seq], None), tail.names)
    shown = players(view, tail.seats)
    flag_bouncing_players(runtime(), shown, tail.seats)  # "mail bounces" by a player's name
    vacations.mark_away(shown, vacations.away_until(runtime(), game_id), None)
    return render_template(
        "game.html",
        game=game,
        view=view,
        players=shown,
        board=board_template(game.engine),
        lines=recent_lines(tail, None, 0),
        scores=final_scores(game, engine, None),
        open_seats=seat_links.open_seats(runtime(), game_id) if game.status == "active" else [],
        talk=talk.messages(runtime().service, game_id, None),  # the table's talk only
    )


@bp.get("/head")
def head(game_id: str):
    """The game's head for the spectator page's script: ``{"seq", "head", "status"}``."""
    game = runtime().service.game(game_id)
    response = jsonify({"seq": game.head_seq, "head": game.head_hash, "status": game.status})
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.post("/seats/<int:seat>/take")
def take_open_seat(game_id: str, seat: int):
    """Someone asks for an open seat; its link goes to the address they gave, only.
    Requests are counted per address given and per client address."""
    outcome = invitations.request_open_seat(
        runtime(),
        game_id,
        seat,
        request.form.get("name", ""),
        request.form.get("email", ""),
        client=get_remote_address(),
    )
    # The link is on its way (the only outcome that comes back): said in the page's language.
    address = clean_email(request.form.get("email", ""))
    flash(
        gettext(
            "A link to take the seat is on its way to %(address)s; it works once.", address=address
        )
        if outcome.done
        else outcome.message
    )
    return redirect(url_for("games.spectate", game_id=game_id), code=303)


@bp.get("/history")
def history(game_id: str):
    return render_history(game_id, None)


@bp.get("/history/step")
def history_step(game_id: str):
    """The board after one event, for the history page's script."""
    return render_step(game_id, None)


@bp.get("/audit")
def audit(game_id: str):
    service = runtime().service
    game = service.game(game_id)
    # A view replays a bounded stretch; the worker keeps long games' marks current.
    checked = audit_game(service, game_id, budget=VIEW_BUDGET)
    seed = None
    if game.status == "finished" and checked.report.ok and not checked.partial:
        # Verified: the revealed seed matches the commitment, as the server's own does.
        seed = checked.report.seed_hex if checked.report.seed_revealed else None
    elif game.status == "finished":
        revealed = [row for row in service.events(game_id) if row["kind"] == "seed_revealed"]
        seed = revealed[-1]["payload"]["seed"] if revealed else None
    fold = service.contributions(game_id)
    names = [seat.name for seat in service.seats(game_id)]
    return render_template(
        "audit.html",
        game=game,
        report=checked.report,
        checked=checked,
        seed=seed,
        fold=fold,
        names=names,
        label=contribution_label,
    )


def contribution_label(entry, names) -> str:
    """Who made a contribution to the dice and how, in the page's language:
    "creator (browser)", "Anna, seat 2 (server-drawn for a mail-only player)"."""
    seat = entry.get("seat")
    creator = entry.get("role") == "creator"
    if isinstance(seat, int) and names is not None and 0 <= seat < len(names):
        values = {"name": names[seat], "number": seat + 1}
        if creator:
            who = gettext("creator %(name)s, seat %(number)s", **values)
        else:
            who = gettext("%(name)s, seat %(number)s", **values)
    elif isinstance(seat, int) and not creator:
        who = gettext("seat %(number)s", number=seat + 1)
    else:
        who = gettext("creator")
    by = entry.get("by")
    if by == "browser":
        how = gettext("browser")
    elif by == "command line":
        how = gettext("command line")
    elif by == "server" and entry.get("role") == "player":
        how = gettext("server-drawn for a mail-only player")
    elif by == "server":
        how = gettext("server-drawn")
    else:
        how = str(by)
    return gettext("%(who)s (%(how)s)", who=who, how=how)


@bp.get("/export.json")
def export(game_id: str):
    service = finished_game(
        game_id,
        gettext(
            "The full log is published when the game ends; each seat may download its own "
            "export from its page meanwhile."
        ),
    )
    return download(export_chunks(service, game_id), "application/json", f"{game_id}.json")


def finished_game(game_id: str, refusal: str):
    """The service, once the game has ended; before, ``refusal`` (what each seat has)."""
    service = runtime().service
    if service.game(game_id).status != "finished":
        raise Rejected(refusal)
    return service


def download(body, mimetype: str, filename: str) -> Response:
    response = Response(body, mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@bp.get("/record.txt")
def record(game_id: str):
    """The finished game's readable record (:mod:`pbem.games.record`), as plain text."""
    service = finished_game(
        game_id,
        gettext(
            "The game's record is published when the game ends; each seat may download its "
            "own record from its page meanwhile."
        ),
    )
    text = export_record(service, game_id, server=base_url(runtime().config))
    return download(text, "text/plain", f"{game_id}-record.txt")
