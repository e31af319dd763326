"""The history page: every event of a game as one viewer may read it, grouped by turn and
phase, filtered by player and by kind, with the board after any event.

Lines come from :func:`pbem.web.timeline.entry` (so from ``engine.describe(..., viewer)``
and the talk's own rules: a seat reads only what it may). Turns and phases come from the
engine's optional ``turn_line`` (see :mod:`engines.api`); an event belongs to the turn and
phase the event before it left, the one it was made in.

Events never change (each hash chains every event before it), so a viewer's lines are
folded once and kept by (game, viewer, zone) with the seq and hash they reach: a page
after a new move folds only the new events, and a repeat view folds none. Filters work
on the kept lines; without JavaScript they come as query parameters (``player``,
``kind``, ``turn``), and the page's script applies the same ones at once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from flask import abort, has_request_context, render_template, request, url_for
from flask_babel import gettext
from markupsafe import Markup, escape

from engines.api import Engine
from pbem.errors import BadInput
from pbem.eventlog.log import (
    MOVE_KINDS,
    TAKE_BACK_WINDOW,
    apply_event,
    created_engine,
    engine_after,
    setup_state,
)
from pbem.eventlog.roster_log import or_seats, rosters
from pbem.eventlog.store import game_engine
from pbem.games import names, talk
from pbem.i18n import N_, localize
from pbem.models import Game
from pbem.web.i18n import current
from pbem.web.present import players, runtime
from pbem.web.timeline import (
    chains,
    chart,
    entry,
    roster_at,
    roster_seats,
    scores_of,
    seat_names,
    with_phase_named,
)
from pbem.web.titles import board_template

# The kinds a reader filters by; an event may be of several (a move that drew).
KINDS = {
    "moves": N_("Moves"),
    "draws": N_("Draws"),
    "talk": N_("Talk"),
    "seats": N_("Seat changes"),
}
SEAT_KINDS = frozenset(
    {
        "seat_to_bot",
        "seat_replaced",
        "seat_reclaimed",
        "seat_offered",
        "seat_left",
        "seat_taken",
        "seat_resigned",
        "vacation",
        "vacation_ended",
    }
)
FOLDS_KEPT = 64  # (game, viewer, zone, language) folds kept, least recently used dropped first
LINES_KEPT = 60_000  # and no more lines than this in all of them (about 1 kB each)
LIST_REACH = 250  # events either side of the step whose turns are listed in full


def kinds_of(row: dict[str, Any]) -> list[str]:
    """The filter kinds of an event: a move, a draw (any event whose outcome came from
    the game's seed: the set-up and the moves that drew), talk, a seat change."""
    kind = row["kind"]
    found = []
    if kind in MOVE_KINDS:
        found.append("moves")
    if row.get("chance"):
        found.append("draws")
    if kind == talk.KIND:
        found.append("talk")
    if kind in SEAT_KINDS:
        found.append("seats")
    return found


def turn_and_phase(engine: Engine, state: Any, seat_names: Sequence[str]) -> tuple[str, str]:
    """The turn and phase of ``state`` as a reader sees them, placeholders filled: the
    engine's ``turn_line``, else the public view's ``round`` (a view's ``turn`` may name
    the seat to move, so it is not read) and no phase: one group for a view without."""
    cheap = getattr(engine, "turn_line", None)
    if cheap is not None:
        turn, phase = cheap(state)
    else:
        number = engine.view(state, None).get("round")
        turn = (
            gettext("Round %(num)s", num=number)
            if isinstance(number, int)
            else gettext("Every event")
        )
        phase = ""
    if names.has_placeholder(turn) or names.has_placeholder(phase):
        marks = names.public_marks(engine, state)
        turn, phase = names.fill(turn, seat_names, marks), names.fill(phase, seat_names, marks)
    return turn, phase


@dataclass
class Fold:
    """A viewer's history lines up to event ``seq`` (whose hash is ``hash``), with the
    engine and the states of the last events, so the next view folds only newer ones."""

    seq: int
    hash: str
    engine: Engine | None
    earlier: dict[int, Any]
    entries: list[dict[str, Any]] = field(default_factory=list)


_FOLDS: OrderedDict[tuple, Fold] = OrderedDict()
_LOCK = threading.Lock()


def clear_folds() -> None:
    """Forgets every kept fold (a bench's cold page, a test)."""
    with _LOCK:
        _FOLDS.clear()


def history_entries(game: Game, viewer: int | None, zone: str | None) -> list[dict[str, Any]]:
    """Every event of ``game`` up to its head as ``viewer`` reads it (times in ``zone``),
    each with its ``turn``, ``phase`` and filter ``kinds``; oldest first. Kept per
    language too: the lines are written in the page's."""
    key = (game.id, viewer, zone, current() if has_request_context() else "en")
    with _LOCK:
        kept = _FOLDS.get(key)
    if kept is not None and kept.seq == game.head_seq and kept.hash == game.head_hash:
        return kept.entries
    service = runtime().service
    rows: list[dict[str, Any]] = []
    if kept is not None and kept.seq < game.head_seq:
        rows = service.events(game.id, after=kept.seq, upto=game.head_seq)
        if not rows or not chains(kept.hash, rows, game.head_hash):
            rows = []
    if not rows:
        rows = service.events(game.id, upto=game.head_seq)
        kept = Fold(-1, "", None, {})
    folded = _fold(game, viewer, zone, kept, rows)
    with _LOCK:
        _FOLDS[key] = folded
        _FOLDS.move_to_end(key)
        lines = sum(len(fold.entries) for fold in _FOLDS.values())
        while len(_FOLDS) > 1 and (len(_FOLDS) > FOLDS_KEPT or lines > LINES_KEPT):
            lines -= len(_FOLDS.popitem(last=False)[1].entries)
    return folded.entries


def _fold(
    game: Game, viewer: int | None, zone: str | None, kept: Fold, rows: Sequence[dict]
) -> Fold:
    service = runtime().service
    seats = service.seats(game.id)
    with service.reading() as session:
        roster_log = rosters(session, game)
    engine = kept.engine or game_engine(game)
    earlier = dict(kept.earlier)
    entries = list(kept.entries)
    state = earlier.get(kept.seq)
    # The turn and phase the last event left (the ones the next event is made in).
    left = (entries[-1]["left_turn"], entries[-1]["left_phase"]) if entries else None
    for row in rows:
        roster = or_seats(roster_log.at(row["seq"]), seats, game)
        if row["kind"] == "created":
            engine = created_engine(engine, row)
            after = before = setup_state(engine, row)
        elif row["kind"] == "take_back" and row["payload"].get("to_seq") not in earlier:
            before = state
            after = service.state_at(game.id, row["payload"]["to_seq"])[1]
        else:
            before = state
            after = apply_event(engine, state, row, earlier)
        line = entry(engine, row, before, after, viewer, roster, zone)
        next_engine = engine_after(engine, row)
        left_now = turn_and_phase(next_engine, after, roster.names)
        line["turn"], line["phase"] = left or left_now
        line["left_turn"], line["left_phase"] = left_now
        line["kinds"] = kinds_of(row)
        line["scores"] = scores_of(next_engine, after, viewer)
        line["text"] = line_html(line)
        entries.append(line)
        left = left_now
        engine = next_engine
        earlier[row["seq"]] = after
        earlier.pop(row["seq"] - TAKE_BACK_WINDOW, None)
        state = after
    last = rows[-1] if rows else None
    seq, digest = (last["seq"], last["hash"]) if last else (kept.seq, kept.hash)
    # Only the last state is kept (a take-back past it reads its target from the store,
    # as rare as take-backs are): a kept fold costs its lines and one state.
    return Fold(seq, digest, engine, {seq: earlier[seq]} if seq in earlier else {}, entries)


def score_steps(entries: Sequence[dict[str, Any]]) -> list[list[float]]:
    """The running scores after every move (and the set-up), as the score chart of
    :func:`pbem.web.timeline.score_series` has them: none unless every event's view
    carries scores."""
    if any(line["scores"] is None for line in entries):
        return []
    return [line["scores"] for line in entries if line["kind"] in (*MOVE_KINDS, "created")]


def line_html(line: dict[str, Any]) -> Markup:
    """An event's entry in the list after its link, escaped once and kept with the line
    (a long game's page would otherwise escape every line on every view): its time, who
    made it (unless the line names them first) and its lines."""
    local = " data-local" if line["local"] else ""
    parts = [
        f'<span class="muted"><time datetime="{escape(line["at_iso"])}"{local}>',
        f"{escape(line['at'])}</time></span> ",
    ]
    # An engine's words in the page's language (the fold is kept per language).
    lines = [str(localize(text)) for text in line["lines"]]
    if line["who"] and not (lines and lines[0].startswith(str(line["who"]))):
        parts.append(f"<strong>{escape(localize(line['who']))}</strong>: ")
    parts.append(" ".join(str(escape(text)) for text in lines))
    return Markup("".join(parts))


def group(entries: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``entries`` as turns of phases: consecutive events of one turn (and phase) form
    one group. Turns count from 1 in the order played (the ``turn`` jump's numbers)."""
    turns: list[dict[str, Any]] = []
    for line in entries:
        if not turns or turns[-1]["label"] != line["turn"]:
            turns.append({"index": len(turns) + 1, "label": line["turn"], "phases": []})
        phases = turns[-1]["phases"]
        if not phases or phases[-1]["label"] != line["phase"]:
            phases.append({"label": line["phase"], "entries": []})
        phases[-1]["entries"].append(line)
    for turn in turns:
        turn["first"] = turn["phases"][0]["entries"][0]["seq"]
        turn["last"] = turn["phases"][-1]["entries"][-1]["seq"]
    return turns


@dataclass
class Filters:
    """The reader's filters: a seat (None: every player) and kinds (empty: every kind)."""

    player: int | None = None
    kinds: frozenset[str] = frozenset()

    def shows(self, line: dict[str, Any]) -> bool:
        if self.player is not None and line["seat"] != self.player:
            return False
        return not self.kinds or bool(self.kinds.intersection(line["kinds"]))

    @property
    def active(self) -> bool:
        return self.player is not None or bool(self.kinds)


def read_filters(seats: int) -> Filters:
    """The filters of the query string; a value that names no seat or kind is refused."""
    player = None
    given = request.args.get("player", "")
    if given != "":
        if not given.isdigit() or int(given) >= seats:
            raise BadInput(gettext("There is no such player in this game."))
        player = int(given)
    kinds = request.args.getlist("kind")
    unknown = [kind for kind in kinds if kind not in KINDS]
    if unknown:
        raise BadInput(gettext("There is no kind of event called %(kind)s.", kind=repr(unknown[0])))
    return Filters(player, frozenset(kinds))


def read_int(name: str) -> int | None:
    try:
        return int(request.args[name])
    except (KeyError, ValueError):
        return None


def addresses(game: Game, token: str | None, filters: Filters) -> dict[str, Any]:
    """The page's own address, its step fragment's, and the filters as hidden fields and
    as a query tail (so that stepping keeps them)."""
    if token is not None:
        here = url_for("play.history", token=token)
        step_url = url_for("play.history_step", token=token)
    else:
        here = url_for("games.history", game_id=game.id)
        step_url = url_for("games.history_step", game_id=game.id)
    keep = [("player", str(filters.player))] if filters.player is not None else []
    keep += [("kind", kind) for kind in KINDS if kind in filters.kinds]
    tail = "".join(f"&{name}={value}" for name, value in keep)
    return {"here": here, "step_url": step_url, "keep": keep, "keep_query": tail}


def step(game: Game, viewer: int | None, at: int, line: dict[str, Any]) -> dict[str, Any]:
    """What the page shows of the board after event ``at``: the view, players and board."""
    engine, state, _ = runtime().service.state_at(game.id, at)
    shown = roster_seats(roster_at(game, at))
    view = with_phase_named(engine.view(state, viewer), seat_names(shown))
    return {
        "view": view,
        "players": players(view, shown),
        "board": board_template(game.engine),
        "entry": line,
    }


def render_history(game_id: str, viewer: int | None, token: str | None = None) -> str:
    """The history of ``game_id`` for ``viewer`` (a seat, or None for a spectator): the
    board after event ``?at=SEQ`` (the head by default; ``?turn=N`` the first event of
    the N-th turn), and every event grouped by turn and phase, filtered."""
    service = runtime().service
    game = service.game(game_id)
    seats = service.seats(game_id)
    filters = read_filters(len(seats))
    zone = seats[viewer].timezone if viewer is not None else None
    entries = history_entries(game, viewer, zone)
    turns = group(entries)
    at, turn = read_int("at"), read_int("turn")
    if at is None and turn is not None and 1 <= turn <= len(turns):
        at = turns[turn - 1]["first"]
    at = min(max(game.head_seq if at is None else at, 0), game.head_seq)
    current = next(t["index"] for t in turns if t["first"] <= at <= t["last"])
    hidden = {line["seq"] for line in entries if not filters.shows(line)}
    low, high = at - LIST_REACH, at + LIST_REACH
    for each in turns:  # a long game lists the events near the step; the others on asking
        each["listed"] = each["last"] >= low and each["first"] <= high
        each["earlier"] = low - 1 if each["listed"] and each["first"] < low else None
        each["later"] = high + 1 if each["listed"] and each["last"] > high else None
        for phase in each["phases"]:
            phase["listed"] = [line for line in phase["entries"] if low <= line["seq"] <= high]
    for each in turns:
        for phase in each["phases"]:
            phase["shown"] = any(line["seq"] not in hidden for line in phase["entries"])
        each["shown"] = any(phase["shown"] for phase in each["phases"])
    return render_template(
        "history.html",
        game=game,
        at=at,
        viewer=viewer,
        viewer_name=seats[viewer].name if viewer is not None else "",
        token=token,
        turns=turns,
        current=current,
        filters=filters,
        hidden=hidden,
        total=len(entries),
        listed_total=sum(len(phase["listed"]) for each in turns for phase in each["phases"]),
        shown_count=len(entries) - len(hidden),
        kinds=KINDS,
        seat_choices=[(seat.seat, seat.name) for seat in seats],
        chart=chart(score_steps(entries)),
        **addresses(game, token, filters),
        **step(game, viewer, at, entries[at]),
    )


def render_step(game_id: str, viewer: int | None, token: str | None = None) -> str:
    """The board after event ``?at=SEQ`` alone, with its stepper, as the history page's
    script swaps it in (the page itself serves readers without script)."""
    service = runtime().service
    game = service.game(game_id)
    seats = service.seats(game_id)
    filters = read_filters(len(seats))
    zone = seats[viewer].timezone if viewer is not None else None
    at = read_int("at")
    if at is None or not 0 <= at <= game.head_seq:
        abort(404)
    entries = history_entries(game, viewer, zone)
    return render_template(
        "_history_step.html",
        game=game,
        at=at,
        token=token,
        **addresses(game, token, filters),
        **step(game, viewer, at, entries[at]),
    )
