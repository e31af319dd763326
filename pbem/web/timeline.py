"""A game's events as a viewer reads them: a turn page's latest lines, one event's entry
(the history page, :mod:`pbem.web.history`, keeps a viewer's), and the score chart.
Lines come from ``engine.describe(..., viewer)`` only; who made a move is named by the
roster as of that event (:mod:`pbem.eventlog.roster`), so a seat's later holder never
takes credit for an earlier one's moves. Logs from before rosters
were logged fall back to today's seat rows.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from flask import has_request_context
from flask_babel import gettext, ngettext
from sqlmodel import col, select

from engines.api import Engine
from pbem import zones
from pbem.eventlog.log import MOVE_KINDS, TAKE_BACK_WINDOW, apply_event
from pbem.eventlog.roster import Mover, Roster, mover
from pbem.eventlog.roster_log import Rosters, or_seats, rosters
from pbem.eventlog.store import game_engine
from pbem.games import names, talk
from pbem.games.admin_lines import describe_admin
from pbem.i18n import speaking
from pbem.models import Game, Seat
from pbem.web.i18n import current
from pbem.web.present import runtime

HISTORY_LINES = 40
_SERIES_CACHE: OrderedDict[tuple, Series] = OrderedDict()
CHART_POINTS = 600
_SERIES_LOCK = threading.Lock()


def row_lines(
    engine: Engine,
    row: Mapping[str, Any],
    before: Any,
    after: Any,
    viewer: int | None,
    roster: Roster,
    zone: str | None = None,
) -> list[str]:
    """The readable lines of one event, as ``viewer`` may see it (``roster``: the roster
    once it happened; times in ``zone``, UTC when None). A move a bot played for a
    person's seat says so."""
    seat = row["seat"]
    who = roster.name(seat)
    kind = row["kind"]
    if kind in MOVE_KINDS:
        lines = names.fill_lines(
            engine.describe(before, seat, row["payload"]["move"], after, viewer),
            roster.names,
            lambda: names.public_marks(engine, after),
        )
        made_by = mover(roster, row)
        return lines + ([mover_note(made_by)] if made_by is not None and made_by.for_person else [])
    if kind == "created":
        given = row["payload"].get("contributions")
        if given:
            return [
                ngettext(
                    "The game was set up; the seed's commitment was published, and the set-up "
                    "mixed %(num)s contribution to the dice.",
                    "The game was set up; the seed's commitment was published, and the set-up "
                    "mixed %(num)s contributions to the dice.",
                    len(given),
                )
            ]
        return [gettext("The game was set up; the seed's commitment was published.")]
    if kind == "take_back":
        return [
            gettext(
                "%(name)s took back a move: the game is back as it was after event %(seq)s.",
                name=who,
                seq=row["payload"].get("to_seq"),
            )
        ]
    if kind == "engine_upgraded":
        payload = row["payload"]
        return [
            gettext(
                "The game moved from version %(old)s to version %(new)s of the rules; its "
                "whole history plays out the same there.",
                old=payload.get("from"),
                new=payload.get("to"),
            )
        ]
    if kind == "seed_revealed":
        return [gettext("The game is over: the seed was revealed, so anyone can check every draw.")]
    if kind == talk.KIND:  # table talk: the text only for its audience
        return [talk_line(row, roster.names, viewer)]
    with speaking(page_language()):  # lines written through pbem.i18n read the page's
        line = describe_admin(row, zone)
    return [line] if line else [f"{kind.replace('_', ' ').capitalize()}: {who}."]


def talk_line(row: Mapping[str, Any], seat_names: Sequence[str], reader: int | None) -> str:
    """A message's line in the history, in the page's language: to anyone outside a
    private message's audience only that it was sent (as
    :func:`pbem.games.talk.history_line` says it)."""
    payload = row.get("payload") or {}
    sender, to = row.get("seat"), payload.get("to")

    def name(seat: Any) -> str:
        if isinstance(seat, int) and 0 <= seat < len(seat_names):
            return seat_names[seat]
        return gettext("Someone")

    if not talk.may_read(row, reader):
        return gettext("%(name)s sent %(to)s a private note.", name=name(sender), to=name(to))
    text = talk.text_of(row)
    if to is None:
        return gettext("%(name)s said to the table: “%(text)s”", name=name(sender), text=text)
    if reader == sender:
        return gettext("You said to %(to)s (private): “%(text)s”", to=name(to), text=text)
    return gettext("%(name)s said to you (private): “%(text)s”", name=name(sender), text=text)


def page_language() -> str:
    """The language of the page being written (English outside a request)."""
    return current() if has_request_context() else "en"


def mover_who(made_by: Mover) -> str:
    """Who made a move, in the page's language ("Anna", "Anna (bot)", "Anna (resigned)")."""
    if made_by.resigned:
        return gettext("%(name)s (resigned)", name=made_by.name)
    return gettext("%(name)s (bot)", name=made_by.name) if made_by.bot else made_by.name


def mover_note(made_by: Mover) -> str:
    """The mark after a move a bot played, in the page's language ("" for a person's own
    move)."""
    if made_by.resigned:
        return gettext("(played by a bot for %(name)s, who resigned)", name=made_by.name)
    if made_by.for_person:
        return gettext("(played by a bot for %(name)s)", name=made_by.name)
    if made_by.bot:
        return gettext("(played by %(name)s, a bot)", name=made_by.name)
    return ""


def seat_names(seats: Sequence[Seat]) -> list[str]:
    return [seat.name for seat in seats]


def with_phase_named(view: dict[str, Any], seat_names: Sequence[str]) -> dict[str, Any]:
    """``view`` with the player its phase line names filled in by name (and colour),
    as every other line a player reads (:func:`pbem.games.names.fill`)."""
    phase = view.get("phase")
    if isinstance(phase, str) and names.has_placeholder(phase):
        view = {**view, "phase": names.fill(phase, seat_names, names.marks_of(view))}
    return view


@dataclass
class Tail:
    """A game's read model, its seats, and its last events with the state after each.

    Loaded in one session with a handful of queries, so a page for a 2,000-event game
    costs what one for a 20-event game does.
    """

    game: Game
    engine: Engine
    seats: list[Seat]
    rows: dict[int, dict[str, Any]]
    states: dict[int, Any]
    rosters: Rosters | None = None

    @property
    def names(self) -> list[str]:
        return seat_names(self.seats)

    def roster_at(self, seq: int) -> Roster:
        """The roster once event ``seq`` happened (today's seats for a log without one)."""
        found = self.rosters.at(seq) if self.rosters is not None else None
        return or_seats(found, self.seats, self.game)


class KeptStates:
    """The states after recent events, by (game id, seq, event hash), least recently used
    dropped first.

    An event's hash chains every event before it, so the state after it never changes:
    a turn page folds only the events no page has folded yet instead of its whole tail
    (up to :data:`TAKE_BACK_WINDOW` moves, most of the largest board's page CPU). Engines
    never mutate a state (:func:`pbem.eventlog.log.apply_event`), so one kept state
    serves every page and thread. ``size`` bounds the count: the windows of about 16
    busy games (the largest title's state holds some 27 kB in about 120 containers, so the
    collector's full passes stay short); a page of a game not kept folds as before."""

    def __init__(self, size: int = 1024):
        self.size = size
        self._states: OrderedDict[tuple[str, int, str], Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, game_id: str, seq: int, digest: str) -> Any | None:
        key = (game_id, seq, digest)
        with self._lock:
            state = self._states.get(key)
            if state is not None:
                self._states.move_to_end(key)
            return state

    def put(self, game_id: str, seq: int, digest: str, state: Any) -> None:
        with self._lock:
            self._states[(game_id, seq, digest)] = state
            self._states.move_to_end((game_id, seq, digest))
            while len(self._states) > self.size:
                self._states.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._states.clear()


STATES = KeptStates()
ROWS_KEPT = 256  # games whose last events are kept
_ROWS: OrderedDict[str, dict[int, dict[str, Any]]] = OrderedDict()
_ROWS_LOCK = threading.Lock()


def chains(kept_hash: str, newer: Sequence[Mapping[str, Any]], head_hash: str) -> bool:
    """Whether the events ``newer`` follow on from an event whose hash is ``kept_hash``,
    each naming the one before it (``prev_hash``), up to ``head_hash``: what a page kept
    may then be used with them; otherwise every event is read again."""
    chained: str | None = kept_hash
    for row in newer:
        chained = row["hash"] if row["prev_hash"] == chained else None
    return chained is not None and chained == head_hash


def tail_rows(session: Any, game: Game, lower: int) -> dict[int, dict[str, Any]]:
    """Events ``lower`` to the head of ``game`` by seq: the ones a page of this game
    read before (kept per game, least recently used dropped first), and only the newer
    ones read. Kept ones are used only when the newer ones chain onto them (their
    ``prev_hash``) up to the game's head hash; else every one is read again."""
    store = runtime().service.store
    with _ROWS_LOCK:
        kept = _ROWS.get(game.id)
    rows = None
    if kept and min(kept) <= lower:
        last = max(kept)
        newer = store.rows(session, game.id, after=last) if last < game.head_seq else []
        if chains(kept[last]["hash"], newer, game.head_hash):
            window = game.head_seq - TAKE_BACK_WINDOW  # the most a page reads
            kept = {seq: row for seq, row in kept.items() if seq >= window}
            kept.update((row["seq"], row) for row in newer)
            rows = {seq: row for seq, row in kept.items() if seq >= lower}
    if rows is None:
        rows = {row["seq"]: row for row in store.rows(session, game.id, after=lower - 1)}
        kept = rows
    with _ROWS_LOCK:
        _ROWS[game.id] = kept
        _ROWS.move_to_end(game.id)
        while len(_ROWS) > ROWS_KEPT:
            _ROWS.popitem(last=False)
    return dict(rows)


VIEWS_KEPT = 512
_VIEWS: OrderedDict[tuple, dict[str, Any]] = OrderedDict()


def view_after(tail: Tail, seq: int, seat: int | None) -> dict[str, Any]:
    """``engine.view`` of the state after event ``seq`` for ``seat`` (to be read, not
    changed), kept by (game, seq, event hash, seat): a seat's view after its last move
    serves every page of that seat until it moves again, to mark what changed since."""
    row = tail.rows.get(seq)
    if row is None:
        return tail.engine.view(tail.states[seq], seat)
    key = (tail.game.id, seq, row["hash"], seat)
    with _ROWS_LOCK:
        view = _VIEWS.get(key)
        if view is not None:
            _VIEWS.move_to_end(key)
            return view
    view = tail.engine.view(tail.states[seq], seat)
    with _ROWS_LOCK:
        _VIEWS[key] = view
        while len(_VIEWS) > VIEWS_KEPT:
            _VIEWS.popitem(last=False)
    return view


def clear_states() -> None:
    """Forgets every kept state, event and view (a bench's cold page, a test)."""
    STATES.clear()
    with _ROWS_LOCK:
        _ROWS.clear()
        _VIEWS.clear()


def load_tail(game_id: str, reach: int = TAKE_BACK_WINDOW) -> Tail:
    """The last ``reach`` events of a game (:func:`tail_rows`) and the states around
    them: the head's from the read model, earlier ones kept (:class:`KeptStates`) where
    a page has had them already, the others folded from the nearest earlier one."""
    service = runtime().service
    store = service.store
    with service.reading() as session:
        game = store.game(session, game_id)
        engine = game_engine(game)
        seats = list(
            session.exec(select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.seat)))
        )
        lower = max(game.head_seq - reach, 0)
        rows = tail_rows(session, game, lower)
        floor = rows.pop(lower, None)
        states: dict[int, Any] = {}

        def state_after(seq: int, row: Mapping[str, Any] | None) -> Any:
            """The head from the read model's head state, as every move goes on from it
            (kept for the pages after the next move); an earlier one kept, else folded."""
            if seq == game.head_seq and game.head_state is not None:
                found = engine.load(game.head_state)
            else:
                found = STATES.get(game_id, seq, row["hash"]) if row is not None else None
                if found is not None:
                    return found
                target = (
                    row["payload"].get("to_seq") if row and row["kind"] == "take_back" else None
                )
                if row is None or seq == lower:
                    found = store.state_at(session, game, engine, seq)
                elif target is not None and target not in states:
                    found = store.state_at(session, game, engine, target)
                else:
                    found = apply_event(engine, states[seq - 1], row, states)
            if row is not None:
                STATES.put(game_id, seq, row["hash"], found)
            return found

        states[lower] = state_after(lower, floor)
        for seq in sorted(rows):
            states[seq] = state_after(seq, rows[seq])
        kept = rosters(session, game)
    return Tail(game, engine, seats, rows, states, kept)


def recent_lines(tail: Tail, viewer: int | None, since: int, zone: str | None = None) -> list[dict]:
    """What happened after event ``since`` (at most the last few dozen events), newest
    first, with times in ``zone`` (a seat's own; None for a spectator: UTC)."""
    first = max(since, tail.game.head_seq - HISTORY_LINES, 0) + 1
    entries = [
        entry(
            tail.engine,
            tail.rows[seq],
            tail.states[seq - 1],
            tail.states[seq],
            viewer,
            tail.roster_at(seq),
            zone,
        )
        for seq in range(first, tail.game.head_seq + 1)
    ]
    return list(reversed(entries))


def entry(
    engine: Engine,
    row: Mapping[str, Any],
    before: Any,
    after: Any,
    viewer: int | None,
    roster: Roster,
    zone: str | None = None,
) -> dict[str, Any]:
    """One event as a history line: ``who`` names the mover of a move as of the event
    (the seat's holder then, marked "(bot)" for a bot seat); ``at`` is when, in ``zone``
    and named (:func:`pbem.zones.stamp`), ``at_iso`` the same in UTC for ``<time>``.
    Without a zone (a reader without a seat) ``at`` is in UTC and ``local`` is set: the
    page's script may show it in the browser's zone instead."""
    made_by = mover(roster, row) if row["kind"] in MOVE_KINDS else None
    return {
        "seq": row["seq"],
        "kind": row["kind"],
        "seat": row["seat"],
        "who": mover_who(made_by) if made_by is not None else "",
        "at": zones.stamp(str(row["created_at"]), zone or "UTC"),
        "local": zone is None,
        "at_iso": zones.iso_utc(str(row["created_at"])),
        "lines": row_lines(engine, row, before, after, viewer, roster, zone),
    }


def roster_at(game: Game, seq: int) -> Roster:
    """The roster of ``game`` once event ``seq`` happened (today's seats for a log
    without one)."""
    service = runtime().service
    with service.reading() as session:
        found = rosters(session, game).at(seq)
    return or_seats(found, service.seats(game.id) if found is None else [], game)


def roster_seats(roster: Roster) -> list[SimpleNamespace]:
    """The seats as ``roster`` has them, in the form of seat rows (for the players list
    of a history step: who held each seat then)."""
    return [
        SimpleNamespace(
            seat=number,
            name=holder.name,
            is_bot=holder.bot,
            bot_level=holder.level,
            resigned=holder.resigned,
        )
        for number, holder in enumerate(roster.seats)
    ]


@dataclass
class Series:
    """A viewer's running scores up to event ``seq`` (whose hash is ``hash``), with the
    states of the last events, so that the next view folds only the events after it."""

    seq: int
    hash: str
    earlier: dict[int, Any]
    steps: list[list[float]]
    scored: bool = True


def score_series(game: Game, engine: Engine, viewer: int | None) -> list[list[float]]:
    """Each seat's public running score after every move, when the view carries scores.

    Kept per game and viewer: after a move only the new events are folded in (a log that
    does not go on from the kept event is folded again from the start).
    """
    key = (game.id, viewer)
    kept = _SERIES_CACHE.get(key)
    if kept is not None and kept.seq == game.head_seq and kept.hash == game.head_hash:
        return kept.steps if kept.scored else []
    service = runtime().service
    rows = []
    if kept is not None and kept.seq < game.head_seq:
        rows = service.events(game.id, after=kept.seq, upto=game.head_seq)
    if not rows or rows[0]["prev_hash"] != kept.hash:
        rows = service.events(game.id, upto=game.head_seq)
        _, state, _ = service.state_at(game.id, 0)
        kept = Series(-1, "", {-1: state}, [])
    series = _fold_scores(game.id, engine, viewer, kept, rows)
    with _SERIES_LOCK:
        _SERIES_CACHE[key] = series
        _SERIES_CACHE.move_to_end(key)
        while len(_SERIES_CACHE) > 256:
            _SERIES_CACHE.popitem(last=False)
    return series.steps if series.scored else []


def scores_of(engine: Engine, state: Any, viewer: int | None) -> list[float] | None:
    """The scores ``viewer``'s view of ``state`` carries (None: none, or not numbers):
    from the engine's optional ``score_line`` (see :mod:`engines.api`), which builds
    nothing else, else from ``engine.view``."""
    cheap = getattr(engine, "score_line", None)
    scores = cheap(state, viewer) if cheap is not None else engine.view(state, viewer).get("scores")
    if not isinstance(scores, list) or not all(isinstance(s, int | float) for s in scores):
        return None
    return [float(score) for score in scores]


def _fold_scores(
    game_id: str, engine: Engine, viewer: int | None, kept: Series, rows: Sequence[dict]
) -> Series:
    earlier = dict(kept.earlier)
    state = earlier[kept.seq]
    steps = list(kept.steps)
    scored = kept.scored
    for row in rows:
        if row["kind"] == "take_back" and row["payload"].get("to_seq") not in earlier:
            state = runtime().service.state_at(game_id, row["payload"]["to_seq"])[1]
        elif row["kind"] != "created":
            state = apply_event(engine, state, row, earlier)
        earlier[row["seq"]] = state
        earlier.pop(row["seq"] - TAKE_BACK_WINDOW, None)
        if not scored:
            continue
        scores = scores_of(engine, state, viewer)
        if scores is None:
            scored, steps = False, []
        elif row["kind"] in MOVE_KINDS or row["kind"] == "created":
            steps.append(scores)
    last = rows[-1] if rows else None
    seq, digest = (last["seq"], last["hash"]) if last else (kept.seq, kept.hash)
    return Series(seq, digest, earlier, steps, scored)


# The chart's labels are HTML beside a plot of fixed height (``.chart`` in style.css:
# 10rem high, end labels 1.4rem apart), so they keep their size on any screen; heights
# here are percents of the plot.
LABEL_GAP = 14


def chart(series: list[list[float]], width: int = 600, height: int = 160) -> dict | None:
    """Polyline points for the score chart, one line per seat: at most about
    :data:`CHART_POINTS` of them (a longer game is sampled evenly, its last step kept).
    Each line's end label gets a height (``label_at``) that keeps it clear of the others;
    ``ticks`` are the scores named on the vertical axis."""
    if len(series) < 2:
        return None
    top = max(max(step) for step in series) or 1
    count = len(series) - 1
    stride = -(-len(series) // CHART_POINTS)
    shown = [*range(0, count, stride), count]
    lines = []
    for seat in range(len(series[0])):
        points = " ".join(
            f"{index * width / count:.1f},{height - series[index][seat] * height / top:.1f}"
            for index in shown
        )
        lines.append({"seat": seat, "points": points, "last": series[-1][seat]})
    ends = [100 - line["last"] * 100 / top for line in lines]
    for line, at in zip(lines, spread(ends, LABEL_GAP), strict=True):
        line["label_at"] = round(at, 1)
    return {
        "width": width,
        "height": height,
        "top": top,
        "lines": lines,
        "steps": count,
        "ticks": ticks(top),
    }


def spread(heights: Sequence[float], gap: float, low: float = 0, high: float = 100) -> list[float]:
    """``heights`` moved as little as keeps them ``gap`` apart and within [low, high]
    (equal heights, as tied scores, keep their order); answered in the given order."""
    order = sorted(range(len(heights)), key=lambda index: (heights[index], index))
    placed = [min(max(heights[index], low), high) for index in order]
    for position in range(1, len(placed)):
        placed[position] = max(placed[position], placed[position - 1] + gap)
    overflow = placed[-1] - high if placed else 0
    if overflow > 0:
        placed[-1] = high
        for position in range(len(placed) - 2, -1, -1):
            placed[position] = min(placed[position], placed[position + 1] - gap)
        lowest = placed[0]
        if lowest < low:  # more labels than fit: share the height evenly
            step = (high - low) / max(len(placed) - 1, 1)
            placed = [low + position * step for position in range(len(placed))]
    answer = [0.0] * len(heights)
    for position, index in enumerate(order):
        answer[index] = placed[position]
    return answer


def ticks(top: float) -> list[dict]:
    """The scores named on the vertical axis: 0, the top, and a round one between."""
    middle = round(top / 2)
    named = [0, middle, top] if 0 < middle < top and top >= 4 else [0, top]
    return [{"value": round(value), "at": round(100 - value * 100 / top, 1)} for value in named]
