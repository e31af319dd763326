"""The JSON API: a game's spectator view, a seat's view with its legal moves, and moves.

A move is posted as ``{"move": {...}, "expected_seq": N}`` with ``Content-Type:
application/json`` (which a cross-site form cannot send, so no CSRF token is needed).
A stale seq answers 409 with ``fresh_seq``; an illegal move 422 with the engine's reason.
A move's answer carries a signed ``receipt`` of the game at the move (:mod:`pbem.receipts`).
Every error is ``{"error": {"status": N, "message": "..."}}`` (see :mod:`pbem.web.openapi`).
"""

from __future__ import annotations

from flask import Blueprint, jsonify, request

from pbem import receipts
from pbem.bounds import INT_MAX, is_count
from pbem.errors import BadInput
from pbem.games import names, seat_links
from pbem.mail import budget
from pbem.web.openapi import OPENAPI
from pbem.web.present import runtime

bp = Blueprint("api", __name__, url_prefix="/api")


def game_summary(game) -> dict:
    return {
        "id": game.id,
        "game": game.engine,
        "title": game.title,
        "status": game.status,
        "seq": game.head_seq,
        "head_hash": game.head_hash,
        "to_move": list(game.to_move or []),
        "phase": game.phase,
    }


@bp.get("/games/<game_id>")
def spectator(game_id: str):
    head = runtime().service.head(game_id)
    return jsonify({**game_summary(head.game), "view": head.engine.view(head.state, None)})


def seat_answer(token: str) -> dict:
    service = runtime().service
    seat = seat_links.holder_seat(runtime(), token)
    budget.seat_taken(runtime(), seat.game_id, seat.email)  # the link is in use
    head = service.head(seat.game_id)
    due = seat.seat in head.engine.to_move(head.state)
    legal = head.engine.legal_moves(head.state, seat.seat) if due else []
    view = head.engine.view(head.state, seat.seat)
    seat_names = [row.name for row in service.seats(seat.game_id)]
    marks = names.marks_of(view)
    return {
        **game_summary(head.game),
        "seat": seat.seat,
        "view": view,
        "legal_moves": [
            {
                "move": move,
                "label": names.fill(head.engine.move_label(move, view), seat_names, marks),
            }
            for move in legal
        ],
    }


@bp.get("/play/<token>")
def seat_view(token: str):
    return jsonify(seat_answer(token))


@bp.post("/play/<token>/moves")
def post_move(token: str):
    """A move from a seat's link; a link that opens no seat answers 404, an invitation not
    yet accepted 403, a lapsed invitation or a replaced player's link 410."""
    service = runtime().service
    seat = seat_links.holder_seat(runtime(), token)
    budget.seat_taken(runtime(), seat.game_id, seat.email)  # the link is in use
    body = request.get_json(silent=True) if request.is_json else None
    if not isinstance(body, dict):
        raise BadInput('Send a JSON object {"move": {...}, "expected_seq": N}.')
    expected = body.get("expected_seq")
    if not is_count(expected):
        raise BadInput(f"expected_seq must be a whole number from 0 to {INT_MAX}.")
    # A seat's first move without a contribution to the dice: the server draws one.
    expected = service.contribute_before_move(seat.game_id, seat.seat, expected, body.get("move"))
    outcome = service.submit_move(seat.game_id, seat.seat, body.get("move"), expected, actor="api")
    # The bots it left due have moved already (:meth:`GameService.after_commit`), but
    # for those at a slow level: the runner plays them right after this answer.
    receipt = receipts.issue(
        runtime(), seat.game_id, outcome.seq, outcome.head_hash, event_time(outcome, seat.game_id)
    )
    return jsonify(
        {
            "seq": outcome.seq,
            "head_hash": outcome.head_hash,
            "duplicate": outcome.duplicate,
            "receipt": receipt.as_json() if receipt is not None else None,
        }
    )


def event_time(outcome, game_id: str) -> str:
    """When the event a move's answer names was recorded (a receipt is dated so)."""
    rows = [row for row in outcome.events if row.get("seq") == outcome.seq]
    if not rows:  # a move made before (a duplicate): its event, read again
        rows = runtime().service.events(game_id, after=outcome.seq - 1, upto=outcome.seq)
    return rows[0]["created_at"]


@bp.get("/openapi.json")
def openapi():
    return jsonify(OPENAPI)
