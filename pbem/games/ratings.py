"""Ratings per title: OpenSkill's Plackett-Luce model, one rating per address and title.

When a game ends (the transition that finishes it, in its transaction) every seat is
recorded in ``player_games`` (who held it at the end, rank, figures) and, if the game
counts, the ratings of its people move. The rules:

- Who a seat is: the person who held it at the end (a replaced player's games count
  for whoever took the seat over). A resigned seat is its former player's, ranked last
  among the people (resigners tie with each other). A seat a bot plays for now but a
  person still holds is that person's. A bot's seat is nobody's: bots are not rated,
  and the people are ranked among themselves, in the order of the game's result
  (:func:`pbem.games.results.standings`: winners first, then by score, ties shared).
- Which games count: a finished game with at least two different people at it; one
  where an address holds two seats is recorded but not rated.
- Everybody's rating is kept (an address with no handle too), so a handle claimed later
  shows its whole history; the pages show ratings only behind a handle.
- Once: ``rated_games`` names each game recorded; a game is never counted twice. A game
  imported already finished (from another server) is not rated here: the transition of
  an import has no state before it. A game imported running and finished here is.
- The move stands whatever happens here: the rows are worked out first, reading only
  (a failure is logged and the game left unrated), then added to the move's own
  transaction, written in its one flush.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from pbem.games.context import Runtime
from pbem.games.outcomes import Transition
from pbem.games.results import standings
from pbem.games.tables import FormerPlayer
from pbem.models import Event, PlayerGame, Profile, RatedGame, Rating, Seat
from pbem.zones import utc

log = logging.getLogger(__name__)

MIN_GAMES = 1  # games at a title before a handle shows on its leaderboard (ratings.min_games)
BOARD_PAGE = 50  # handles per page of a leaderboard
MOVE_KINDS = ("move", "auto_move")


def model():
    from openskill.models import PlackettLuce

    return PlackettLuce()


def conservative(mu: float, sigma: float) -> float:
    return mu - 3 * sigma


def install(runtime: Runtime) -> None:
    """Adds the game-end recorder to the runtime's game service."""

    def on_transition(session: Session, transition: Transition) -> None:
        if not transition.finished or transition.before is None:
            return
        try:
            rows = plan(session, runtime, transition.game.id, transition.events)
        except Exception:  # noqa: BLE001 - the move stands, whatever goes wrong here
            log.exception("game %s was not rated", transition.game.id)
            return
        session.add_all(rows)  # written with the move's own rows, in its one flush

    runtime.service.listeners.append(on_transition)


@dataclass
class _Seat:
    number: int
    person: str
    name: str
    rank: int
    resigned: bool


def record(session: Session, runtime: Runtime, game_id: str) -> bool:
    """Records the finished game ``game_id``'s seats and rates its people (see the
    module's docstring); False if it was recorded before (nothing is done again)."""
    rows = plan(session, runtime, game_id)
    session.add_all(rows)
    session.flush()
    return bool(rows)


def plan(
    session: Session, runtime: Runtime, game_id: str, events: Sequence[Mapping] = ()
) -> list[Any]:
    """The rows that record the finished game ``game_id`` (none if it is recorded
    already, or not finished): read only, nothing is changed, so a failure here leaves
    the session as it was. ``events``: the batch being appended, not flushed yet (the
    game-end transaction writes everything in one flush at its end)."""
    with session.no_autoflush:
        return _plan(session, runtime, game_id, events)


def _plan(session: Session, runtime: Runtime, game_id: str, events: Sequence[Mapping]) -> list[Any]:
    from pbem.models import Game

    if session.get(RatedGame, game_id) is not None:
        return []
    game = session.get(Game, game_id)
    if game is None or game.status != "finished" or not game.result:
        return []
    now = utc(runtime.clock())
    finished_at = utc(game.finished_at or now)
    seats = sorted(session.exec(select(Seat).where(Seat.game_id == game_id)), key=lambda s: s.seat)
    formers: dict[int, FormerPlayer] = {}
    for former in session.exec(
        select(FormerPlayer)
        .where(FormerPlayer.game_id == game_id, FormerPlayer.reason == "resigned")
        .order_by(col(FormerPlayer.left_at))
    ):
        formers[former.seat] = former
    names = [seat.name for seat in seats]
    ranks = {row["seat"]: row["rank"] for row in (standings(game.result, names) or {})["rows"]}
    people: list[_Seat] = []
    for seat in seats:
        former = formers.get(seat.seat)
        if former is not None and former.email:
            people.append(_Seat(seat.seat, former.email.lower(), former.name, 0, True))
        elif seat.email:
            people.append(_Seat(seat.seat, seat.email.lower(), seat.name, 0, False))
    # The people among themselves: resigners last, then the result's order.
    keys = sorted({(p.resigned, ranks.get(p.number, len(seats))) for p in people})
    for person in people:
        person.rank = keys.index((person.resigned, ranks.get(person.number, len(seats)))) + 1
    figures = _figures(session, game_id, events)
    rated = len(people) >= 2 and len({p.person for p in people}) == len(people)
    written: list[Any] = []
    after: dict[int, tuple[float, float]] = {}
    if rated:
        written, after = _rate(session, game.engine, people, now)
    by_seat = {p.number: p for p in people}
    for seat in seats:
        person = by_seat.get(seat.seat)
        moves, hours, missed = figures.get(seat.seat, (0, 0.0, 0))
        mu, sigma = after.get(seat.seat, (None, None))
        written.append(
            PlayerGame(
                game_id=game_id,
                seat=seat.seat,
                person=person.person if person else "",
                engine=game.engine,
                title=game.title,
                name=person.name if person else seat.name,
                rank=ranks.get(seat.seat, len(seats)),
                seats=len(seats),
                resigned=bool(person and person.resigned),
                private=bool(game.private),
                moves=moves,
                move_hours=hours,
                missed_deadlines=missed,
                mu=mu,
                sigma=sigma,
                finished_at=finished_at,
            )
        )
    written.append(RatedGame(game_id=game_id, engine=game.engine, rated=rated, recorded_at=now))
    return written


def _rate(
    session: Session, engine: str, people: list[_Seat], now: datetime
) -> tuple[list[Rating], dict[int, tuple[float, float]]]:
    """The people's ratings after the game (every figure computed before any row
    changes: a failure changes nothing), and each seat's new (mu, sigma)."""
    rater = model()
    before = [session.get(Rating, (person.person, engine)) for person in people]
    fresh = rater.rating()
    teams = [
        [rater.rating(mu=row.mu, sigma=row.sigma) if row else rater.rating()] for row in before
    ]
    rated = rater.rate(teams, ranks=[float(person.rank) for person in people])
    news = [(float(new.mu), float(new.sigma)) for (new,) in rated]
    rows, after = [], {}
    for person, row, (mu, sigma) in zip(people, before, news, strict=True):
        if row is None:
            row = Rating(
                person=person.person,
                engine=engine,
                mu=fresh.mu,
                sigma=fresh.sigma,
                conservative=0.0,
                games=0,
                updated_at=now,
            )
        row.mu, row.sigma, row.conservative = mu, sigma, conservative(mu, sigma)
        row.games += 1
        row.updated_at = now
        rows.append(row)
        after[person.number] = (mu, sigma)
    return rows, after


def _figures(
    session: Session, game_id: str, events: Sequence[Mapping] = ()
) -> dict[int, tuple[int, float, int]]:
    """Per seat: its moves, the hours they took (from the event before each), and the
    moves the server made for it at a passed deadline. ``events``: the batch not yet
    flushed (it ends the log)."""
    pending = sorted(events, key=lambda row: row["seq"])
    first = pending[0]["seq"] if pending else None
    query = select(Event.seq, Event.seat, Event.kind, Event.actor, Event.created_at).where(
        Event.game_id == game_id
    )
    if first is not None:
        query = query.where(col(Event.seq) < first)
    logged = [tuple(row)[1:] for row in session.exec(query.order_by(col(Event.seq)))]
    logged += [
        (row.get("seat"), row["kind"], row.get("actor", ""), row.get("created_at"))
        for row in pending
    ]
    found: dict[int, list[float]] = {}
    previous: datetime | None = None
    for seat, kind, actor, created in logged:
        moment = _moment(created)
        if seat is not None and kind in MOVE_KINDS:
            entry = found.setdefault(seat, [0, 0.0, 0])
            entry[0] += 1
            if previous is not None and moment is not None:
                entry[1] += max(0.0, (moment - previous).total_seconds() / 3600)
            if actor == "deadline":
                entry[2] += 1
        if moment is not None:
            previous = moment
    return {seat: (int(a), float(b), int(c)) for seat, (a, b, c) in found.items()}


def _moment(text: Any) -> datetime | None:
    try:
        return utc(datetime.fromisoformat(str(text)))
    except ValueError:
        return None


# Reading -------------------------------------------------------------------------


def min_games(runtime: Runtime) -> int:
    """``ratings.min_games``, at least 1."""
    return max(1, int(runtime.config.get("ratings", {}).get("min_games", MIN_GAMES)))


@dataclass
class BoardLine:
    place: int
    handle: str
    rating: float
    mu: float
    sigma: float
    games: int


def leaderboard(runtime: Runtime, engine: str, page: int = 1) -> tuple[list[BoardLine], bool]:
    """The handles rated at ``engine`` (shown, with at least :func:`min_games` games),
    best conservative rating first: one page, and whether another follows."""
    least = min_games(runtime)
    with runtime.service.reading() as session:
        rows = session.exec(
            select(Rating, Profile.handle)
            .join(Profile, col(Profile.person) == col(Rating.person))
            .where(
                Rating.engine == engine,
                col(Rating.games) >= least,
                col(Profile.hidden).is_(False),
                col(Profile.freed_at).is_(None),
            )
            .order_by(col(Rating.conservative).desc(), col(Profile.handle_key))
            .offset((page - 1) * BOARD_PAGE)
            .limit(BOARD_PAGE + 1)
        ).all()
    lines = [
        BoardLine((page - 1) * BOARD_PAGE + n + 1, handle, r.conservative, r.mu, r.sigma, r.games)
        for n, (r, handle) in enumerate(rows[:BOARD_PAGE])
    ]
    return lines, len(rows) > BOARD_PAGE


def rated_count(runtime: Runtime, engine: str) -> int:
    with runtime.service.reading() as session:
        return int(
            session.exec(
                select(func.count()).select_from(RatedGame).where(RatedGame.engine == engine)
            ).one()
        )
