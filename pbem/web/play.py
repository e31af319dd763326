"""A seat's pages by magic link: the turn page, moves, take-back, history and export.

Every page here is built from ``view(state, seat)`` for the link's seat only. A form
carries the seq it was rendered at: a stale one answers "the game moved on" with the
fresh page, an illegal one the engine's reason; in both cases nothing is applied.

A move that cannot be taken back (it hands the turn over, ends the game, draws at random,
or is chosen while others choose too; see :func:`second_step`) asks for a second step: its
form carries the reason for the page's script to show in a dialog, and a form without
``confirmed`` gets a confirm page (Confirm / Cancel, same CSRF token and seq) instead of
the move. ``/play/<token>/head`` answers the game's head in a few bytes, for the script
that tells a waiting page when the game has moved on. The turn page carries the server's
signed receipt of the game's head (:mod:`pbem.receipts`), so the page after a move holds
proof that the server accepted it.
"""

from __future__ import annotations

import json
from collections import OrderedDict

from flask import Blueprint, Response, g, redirect, render_template, request, url_for
from flask_babel import gettext
from markupsafe import escape

from engines import is_slow_bot
from engines.api import Engine
from pbem import receipts, zones
from pbem.bounds import INT_MAX
from pbem.errors import BadInput, Conflict, NotFound, PbemError, Rejected, TooMany
from pbem.games import invitations, names, seat_links, talk, vacations
from pbem.games.portable import export_chunks, export_record
from pbem.games.tables import SeatClock
from pbem.games.takeback import take_back, target_in
from pbem.i18n import localize
from pbem.links import base_url
from pbem.mail import addresses, budget
from pbem.mail.inbound.bounces import flag_bouncing_players
from pbem.models import Seat
from pbem.web import boards, csrf, i18n, theme
from pbem.web.history import render_history, render_step
from pbem.web.present import holder, players, runtime, seat_and_head
from pbem.web.timeline import load_tail, recent_lines, view_after, with_phase_named
from pbem.web.titles import board_template, changed_places
from pbem.words import join_names
from pbem.zones import utc

bp = Blueprint("play", __name__, url_prefix="/play/<token>")

PAGE_CACHE_SIZE = 512
PAGES: OrderedDict[tuple, str] = OrderedDict()
# Where the seat's deadline goes on the turn page: filled in as the page is served (the
# cached page outlives the time left and the seat's time zone).
DEADLINE_SLOT = "<!-- pbem:deadline -->"


def mentions(value, place: str) -> bool:
    """Whether a move names ``place`` anywhere in its fields."""
    if isinstance(value, dict):
        return any(mentions(item, place) for item in value.values())
    if isinstance(value, list):
        return any(mentions(item, place) for item in value)
    return value == place


class CountingChance:
    """A chance that answers 0 and counts how often it was asked (a preview's draws)."""

    def __init__(self) -> None:
        self.draws = 0

    def below(self, n: int) -> int:
        self.draws += 1
        return 0


def second_step(engine: Engine, state, seat: int, move: dict, seat_names: list[str]) -> str:
    """Why ``move`` asks for a confirmation, as a sentence, or "" when it can be taken
    back (:mod:`pbem.games.takeback`: the seat stays the only one due, nothing drawn).
    Found by applying the move to a copy of the state, so it holds for every title."""
    chance = CountingChance()
    try:
        after = engine.apply(state, seat, move, chance)
    except Exception:  # an illegal or malformed move: the move itself will say why
        return ""
    if chance.draws:  # what follows may hang on the draw, which cannot be un-seen
        return gettext("This move draws at random, so it cannot be taken back.")
    due = engine.to_move(after)
    if not due:
        return gettext("This move ends the game; it cannot be taken back.")
    if due != frozenset({seat}):
        others = [seat_names[other] for other in sorted(due - {seat}) if other < len(seat_names)]
        if seat not in due and others:
            return gettext(
                "This hands the turn over to %(names)s; it cannot be taken back.",
                names=join_names(others, i18n.current()),
            )
        return gettext("The others are choosing too, so this move cannot be taken back.")
    if engine.to_move(state) != frozenset({seat}):
        return gettext("The others are choosing too, so this move cannot be taken back.")
    return ""


def move_groups(
    engine, moves: list[dict], view: dict, seat_names: list[str], state=None, seat: int = 0
) -> list[dict]:
    """Legal moves grouped by type, each with its readable label (the seats it names
    filled with today's holders), its JSON and, given the state, why it asks for a
    second step (:func:`second_step`)."""
    groups: dict[str, list[dict]] = {}
    marks = names.marks_of(view)
    for move in moves:
        label = names.fill(engine.move_label(move, view), seat_names, marks)
        confirm = second_step(engine, state, seat, move, seat_names) if state is not None else ""
        entry = {"label": label, "json": json.dumps(move, sort_keys=True), "confirm": confirm}
        groups.setdefault(str(move.get("type")), []).append(entry)
    return [
        {"type": kind, "name": names.kind_name(engine, kind), "moves": entries}
        for kind, entries in groups.items()
    ]


def render_page(seat: Seat, message: str = "", status: int = 200) -> tuple[str, int]:
    tail = load_tail(seat.game_id)
    game, engine = tail.game, tail.engine
    state = tail.states[game.head_seq]
    view = with_phase_named(engine.view(state, seat.seat), tail.names)
    due = seat.seat in engine.to_move(state)
    legal = engine.legal_moves(state, seat.seat) if due else []
    pick = boards.pick_choice(game.engine, request.args.get("pick"))
    named = pick and pick != boards.UNKNOWN_PICK
    picked = [move for move in legal if mentions(move, pick)] if named else []
    if pick and due and not picked and not message:
        message = gettext(
            "No move names %(place)s now; here is every move.",
            place=boards.place_name(game.engine, pick),
        )
    since = seat.last_move_seq - 1 if seat.last_move_seq else 0
    before = max(seat.last_move_seq, min(tail.states)) if seat.last_move_seq else None
    before_view = view_after(tail, before, seat.seat) if before in tail.states else None
    can_take_back = target_in(
        engine, game.status, game.head_seq, tail.rows, tail.states.__getitem__, seat.seat
    )
    shown = players(view, tail.seats)
    for player in shown:  # a bot at a slow level thinks a while: the page says so
        player["thinking"] = player["is_bot"] and is_slow_bot(engine, player["bot_level"])
    flag_bouncing_players(runtime(), shown, tail.seats)  # "mail bounces" by a player's name
    vacations.mark_away(shown, vacations.away_until(runtime(), seat.game_id), seat.timezone)
    own = next((player for player in shown if player["seat"] == seat.seat), {})
    page = render_template(
        "play.html",
        game=game,
        seat=seat,
        view=view,
        players=shown,
        board=board_template(game.engine),
        groups=move_groups(engine, picked or legal, view, tail.names, state, seat.seat),
        pick=pick if picked else "",
        pick_missed=bool(pick) and not picked and due,
        due=due,
        seq=game.head_seq,
        lines=recent_lines(tail, seat.seat, since, seat.timezone),
        can_take_back=can_take_back is not None,
        message=message,
        message_bad=status >= 400,
        token=request.view_args["token"],
        deadline_slot=DEADLINE_SLOT,
        changed=changed_places(game.engine, before_view, view),
        talk=talk.said_for(tail_talk(seat.game_id), tail.names, seat.seat, 50, seat.timezone),
        talk_to=[(number, name) for number, name in enumerate(tail.names) if number != seat.seat],
        talk_max=talk.MAX_CHARS,
        own_address_bounces=bool(own.get("bouncing")),
        receipt=head_receipt(tail),
        contribute=runtime().service.needs_contribution(seat.game_id, seat.seat),
    )
    return page, status


def head_receipt(tail):
    """The signed receipt of the game's head, dated when its event was recorded (the
    tail keeps that event's row, but for a game still at its first event)."""
    game = tail.game
    row = tail.rows.get(game.head_seq)
    if row is None:
        row = runtime().service.events(game.id, after=game.head_seq - 1, upto=game.head_seq)[0]
    return receipts.issue(runtime(), game.id, game.head_seq, game.head_hash, row["created_at"])


def tail_talk(game_id: str) -> list:
    with runtime().service.reading() as session:
        return talk.talk_rows(session, game_id)


def with_deadline(html: str, seat: Seat) -> str:
    """The page with the seat's deadline in its own zone, and how long is left (as its
    mails write it, :func:`pbem.zones.when`)."""
    if DEADLINE_SLOT not in html:
        return html
    with runtime().service.reading() as session:
        clock = session.get(SeatClock, (seat.game_id, seat.seat))
        fresh = session.get(Seat, (seat.game_id, seat.seat))
    deadline = clock.deadline_at if clock else None
    if deadline is None:
        return html.replace(DEADLINE_SLOT, "")
    zone = fresh.timezone if fresh is not None else seat.timezone
    now = utc(runtime().clock())
    text = zones.when(deadline, zone, now, i18n.current())
    if utc(deadline) <= now:
        text = gettext("%(when)s (passed)", when=text)
    deadline_text = gettext("Deadline: %(when)s.", when=text)
    return html.replace(DEADLINE_SLOT, f' <span class="deadline">{escape(deadline_text)}</span>')


@bp.get("")
def page(token: str):
    """The turn page; rendered once per game state, seat and choice, then served from
    the cache while the game's head stays the same. An invitation link not yet accepted
    shows only the "take this seat" form; a replaced player's link says what happened."""
    try:
        seat, head_hash, title = seat_and_head(token)
    except NotFound:
        return not_a_seat(token)
    budget.seat_taken(runtime(), seat.game_id, seat.email)  # the link was opened
    created = bool(request.args.get("created"))
    zoom = boards.zoom_level(request.args.get("zoom"))  # never the value given: see boards
    bounces = addresses.address_bounces(runtime(), seat)
    changed = bool(request.args.get("address"))
    pick = boards.pick_choice(title, request.args.get("pick"))  # a known one, or one for all
    key = (token, head_hash, pick, created, seat.timezone, zoom, theme.chosen(), i18n.current())
    away = tuple(sorted(vacations.away_until(runtime(), seat.game_id).items()))
    key += (bounces, changed, away)
    html = PAGES.get(key)
    if html is None:
        message = gettext("Your game is set up; invitations are on their way.") if created else ""
        if changed:
            message = gettext("Your address is changed; a mail is on its way to it.")
        g.csrf_deferred = True
        html = render_page(seat, message)[0]
        g.csrf_deferred = False
        PAGES[key] = html
        while len(PAGES) > PAGE_CACHE_SIZE:
            PAGES.popitem(last=False)
    return with_deadline(csrf.fill(html), seat)


def not_a_seat(token: str):
    """The page of a link that opens no seat: an invitation (the take form, nothing of
    the seat), a lapsed invitation or a retired link (what happened, 410), or not found."""
    found = seat_links.offer_for_token(runtime(), token)
    if found is not None and seat_links.is_lapsed(runtime(), found):
        game = runtime().service.game(found.game_id)
        message = seat_links.lapsed_message(runtime(), found)
        return render_template("lapsed_invitation.html", game=game, message=message), 410
    if found is not None:
        game = runtime().service.game(found.game_id)
        seats = runtime().service.seats(found.game_id)
        before = next((row.name for row in seats if row.seat == found.seat), "")
        return render_template("take_seat.html", game=game, offer=found, former=before, token=token)
    retired = seat_links.retired_for_token(runtime(), token)
    if retired is not None:
        game = runtime().service.game(retired.game_id)
        return render_template("retired_link.html", game=game, message=retired.message), 410
    raise NotFound(gettext("This link is not valid (it may have been replaced)."))


@bp.post("/address")
def change_address(token: str):
    """Gives the seat another address while mail to its own bounces; refused with the
    page and a sentence, nothing changed."""
    seat = holder(token)
    try:
        addresses.change_address(runtime(), seat.game_id, seat.seat, request.form.get("email"))
    except (BadInput, Rejected, NotFound, TooMany) as error:
        html, status = render_page(
            seat,
            gettext("Your address was not changed: %(reason)s", reason=localize(error.message)),
            error.status,
        )
        return with_deadline(csrf.fill(html), seat), status
    return redirect(url_for("play.page", token=token, address=1), code=303)


@bp.post("/take")
def take(token: str):
    """Accepts the seat an invitation link offers; the same link opens it from now on."""
    invitations.take_seat(runtime(), token, request.form.get("name", ""))
    return redirect(url_for("play.page", token=token), code=303)


def form_seq() -> int:
    try:
        seq = int(request.form.get("seq", ""))
    except ValueError:
        seq = -1
    if not 0 <= seq <= INT_MAX:
        raise BadInput(
            gettext("The form does not say which event it was made at; reload the page.")
        )
    return seq


# The most copies a count field (``n.NAME.VALUE``) may ask for.
FORM_COUNT_MAX = 99


def form_count(key: str, raw: str) -> int:
    """A count field's number: empty is 0; anything but a whole number from 0 to
    :data:`FORM_COUNT_MAX` is bad input (nothing is sent to the rules)."""
    text = raw.strip()
    if not text:
        return 0
    if not text.isdigit() or int(text) > FORM_COUNT_MAX:
        what = key[2:].partition(".")[2] or key[2:]
        raise BadInput(
            gettext(
                "How many %(what)s cards: %(given)s is not a whole number from 0 to %(most)s. "
                "Nothing was sent; choose again.",
                what=what,
                given=repr(raw[:20]),
                most=FORM_COUNT_MAX,
            )
        )
    return int(text)


def form_move(form) -> dict:
    """The move a form sends: a listed move as JSON, or one composed of chosen things:
    ``move_type``; ``fields``, a JSON object of several fields at once (e.g. a select
    whose options each name an item and its place); ``lists`` naming the list fields that
    are sent (emptied first) even when nothing was chosen; ``f.NAME`` single fields;
    ``l.NAME`` list fields (one entry per value); and ``n.NAME.VALUE=COUNT``, which adds
    VALUE to the list field NAME COUNT times (a number input per kind of card: e.g.
    ``n.cards.coin=2`` adds "coin" twice). In that order, later ones winning."""
    if "move_type" in form:
        move: dict = {"type": form["move_type"]}
        for raw in form.getlist("fields"):
            try:
                fields = json.loads(raw)
            except ValueError:
                fields = None
            if not isinstance(fields, dict):
                raise BadInput(gettext("The choice in this form is not readable; reload the page."))
            move.update({key: value for key, value in fields.items() if key != "type"})
        for name in form.getlist("lists"):
            move[name] = []
        for key in form:
            if key.startswith("f."):
                move[key[2:]] = form[key]
            elif key.startswith("l."):
                move[key[2:]] = form.getlist(key)
        for key in form:
            if key.startswith("n.") and "." in key[2:]:
                name, _, value = key[2:].partition(".")
                times = form_count(key, form[key])
                listed = move.get(name)
                move[name] = [*(listed if isinstance(listed, list) else []), *[value] * times]
        return move
    try:
        return json.loads(form.get("move", ""))
    except ValueError:
        raise BadInput(gettext("The move in this form is not readable; reload the page.")) from None


def after_move(seat: Seat) -> Response:
    """Redirects to the fresh page (the bots the move left due have moved already,
    :meth:`GameService.after_commit`)."""
    return redirect(url_for("play.page", token=request.view_args["token"]), code=303)


def refused(seat: Seat, error: PbemError):
    if isinstance(error, Conflict):
        message = gettext(
            "The game moved on while this page was open. Nothing was applied; here is the fresh page."
        )
    else:
        message = gettext("That move was not made: %(reason)s", reason=localize(error.message))
    html, status = render_page(seat, message, error.status)
    return with_deadline(html, seat), status


def confirm_page(seat: Seat, chosen: dict, seq: int):
    """The second step for a move that cannot be taken back, or ``None`` when the move
    needs none (or will be refused anyway: stale, paused, over, not due, illegal)."""
    tail = load_tail(seat.game_id, reach=0)
    game, engine = tail.game, tail.engine
    if game.status != "active" or game.paused_at is not None or game.head_seq != seq:
        return None
    state = tail.states[game.head_seq]
    if seat.seat not in engine.to_move(state):
        return None
    reason = second_step(engine, state, seat.seat, chosen, tail.names)
    if not reason:
        return None
    view = engine.view(state, seat.seat)
    label = names.fill(engine.move_label(chosen, view), tail.names, names.marks_of(view))
    html = render_template(
        "confirm.html",
        game=game,
        seat=seat,
        label=label,
        reason=reason,
        move=json.dumps(chosen, sort_keys=True),
        seq=seq,
        token=request.view_args["token"],
    )
    return with_deadline(html, seat)


@bp.post("/move")
def move(token: str):
    service = runtime().service
    seat = holder(token)
    seq = form_seq()
    chosen = form_move(request.form)
    if request.form.get("confirmed") != "1" and isinstance(chosen, dict):
        asked = confirm_page(seat, chosen, seq)
        if asked is not None:
            return asked
    # A seat that moves without having given its contribution (a page without script):
    # the server draws one for it, marked so, just before the move.
    seq = service.contribute_before_move(seat.game_id, seat.seat, seq, chosen)
    try:
        try:
            service.submit_move(seat.game_id, seat.seat, chosen, seq, actor="web")
        except Conflict:
            # Only table talk since the page was shown: the move still stands.
            past = talk.head_past_talk(service, seat.game_id, seq)
            if past is None:
                raise
            service.submit_move(seat.game_id, seat.seat, chosen, past, actor="web")
    except (Conflict, Rejected) as error:
        return refused(seat, error)
    return after_move(seat)


@bp.post("/contribute")
def contribute(token: str):
    """The seat's contribution to the dice, once: sent by the page's script as soon as
    the page opens (answered in JSON), or by its small form without script."""
    service = runtime().service
    seat = holder(token)
    wants_json = "application/json" in request.headers.get("Accept", "")
    before = service.game(seat.game_id)
    try:
        # Sent empty (no script, nothing typed): the server draws it, marked so.
        value = request.form.get("contribution", "").strip() or None
        outcome = service.contribute(seat.game_id, seat.seat, value, "browser", actor="web")
    except (BadInput, Conflict, Rejected) as error:
        if wants_json:
            return {"error": localize(error.message)}, error.status
        html, status = render_page(
            seat,
            gettext("Your contribution was not added: %(reason)s", reason=localize(error.message)),
            error.status,
        )
        return with_deadline(csrf.fill(html), seat), status
    if wants_json:
        return {
            "seq": outcome.seq,
            "head": outcome.head_hash,
            "before": before.head_seq,
            "before_head": before.head_hash,
        }
    return redirect(url_for("play.page", token=token), code=303)


@bp.post("/take-back")
def take_back_move(token: str):
    service = runtime().service
    seat = holder(token)
    try:
        take_back(service, seat.game_id, seat.seat, form_seq())
    except (Conflict, Rejected) as error:
        return refused(seat, error)
    return redirect(url_for("play.page", token=token), code=303)


@bp.get("/head")
def head(token: str):
    """The game's head for a waiting page's script: ``{"seq", "head", "due"}``."""
    seat, head_hash, _ = seat_and_head(token)
    game = runtime().service.game(seat.game_id)
    due = seat.seat in (game.to_move or []) and game.status == "active"
    return {"seq": game.head_seq, "head": head_hash, "due": due, "status": game.status}


@bp.get("/history")
def history(token: str):
    seat = holder(token)
    return render_history(seat.game_id, seat.seat, token)


@bp.get("/history/step")
def history_step(token: str):
    """The board after one event as this seat sees it, for the history page's script."""
    seat = holder(token)
    return render_step(seat.game_id, seat.seat, token)


@bp.get("/export.json")
def export(token: str):
    service = runtime().service
    seat = holder(token)
    response = Response(
        export_chunks(service, seat.game_id, seat=seat.seat), mimetype="application/json"
    )
    response.headers["Content-Disposition"] = (
        f'attachment; filename="{seat.game_id}-seat{seat.seat + 1}.json"'
    )
    return response


@bp.get("/record.txt")
def record(token: str):
    """The seat's readable record: what its export holds, as plain text."""
    service = runtime().service
    seat = holder(token)
    text = export_record(service, seat.game_id, seat=seat.seat, server=base_url(runtime().config))
    response = Response(text, mimetype="text/plain")
    response.headers["Content-Disposition"] = (
        f'attachment; filename="{seat.game_id}-seat{seat.seat + 1}-record.txt"'
    )
    return response


@bp.get("/talk")
def talk_page(token: str, message: str = "", status: int = 200):
    """Table talk on a page of its own (the turn page reloads itself while others move,
    which would lose a message being written)."""
    seat = holder(token)
    game = runtime().service.game(seat.game_id)
    seat_names = [row.name for row in runtime().service.seats(seat.game_id)]
    return render_template(
        "talk_page.html",
        game=game,
        seat=seat,
        message=message,
        token=token,
        talk=talk.said_for(tail_talk(seat.game_id), seat_names, seat.seat, 50, seat.timezone),
        talk_to=[(number, name) for number, name in enumerate(seat_names) if number != seat.seat],
        talk_max=talk.MAX_CHARS,
        talk_page=True,
    ), status


@bp.post("/talk")
def say(token: str):
    """Posts a message to the table, or privately to one seat (``to``: a seat number,
    empty for the table). Refused with the page and a sentence, nothing sent."""
    seat = holder(token)
    chosen = request.form.get("to", "").strip()
    to = None
    if chosen:
        try:
            to = int(chosen)
        except ValueError:
            to = -1
    back = "play.talk_page" if request.form.get("from") == "talk" else "play.page"
    try:
        talk.post(runtime(), seat.game_id, seat.seat, to, request.form.get("text", ""), via="web")
    except (BadInput, Rejected, NotFound, TooMany) as error:
        message = gettext("Your message was not sent: %(reason)s", reason=localize(error.message))
        if back == "play.talk_page":
            return talk_page(token, message, error.status)
        html, status = render_page(seat, message, error.status)
        return with_deadline(csrf.fill(html), seat), status
    return redirect(url_for(back, token=token) + "#talk", code=303)
