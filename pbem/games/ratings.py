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
- The move stands whatever happens here: a failure is logged, the game left unrated.
"""

from __future__ import annotations

import logging
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
            with session.begin_nested():
                record(session, runtime, transition.game.id)
        except Exception:  # noqa: BLE001 - the move stands, whatever goes wrong here
            log.exception("game %s was not rated", transition.game.id)

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
    from pbem.models import Game

    if session.get(RatedGame, game_id) is not None:
        return False
    game = session.get(Game, game_id)
    if game is None or game.status != "finished" or not game.result:
        return False
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
    figures = _figures(session, game_id)
    rated = len(people) >= 2 and len({p.person for p in people}) == len(people)
    after: dict[int, tuple[float, float]] = {}
    if rated:
        after = _rate(session, game.engine, people, now)
    by_seat = {p.number: p for p in people}
    for seat in seats:
        person = by_seat.get(seat.seat)
        moves, hours, missed = figures.get(seat.seat, (0, 0.0, 0))
        mu, sigma = after.get(seat.seat, (None, None))
        session.add(
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
                moves=moves,
                move_hours=hours,
                missed_deadlines=missed,
                mu=mu,
                sigma=sigma,
                finished_at=finished_at,
            )
        )
    session.add(RatedGame(game_id=game_id, engine=game.engine, rated=rated, recorded_at=now))
    session.flush()
    return True


def _rate(
    session: Session, engine: str, people: list[_Seat], now: datetime
) -> dict[int, tuple[float, float]]:
    rater = model()
    rows: list[Rating] = []
    for person in people:
        row = session.get(Rating, (person.person, engine))
        if row is None:
            fresh = rater.rating()
            row = Rating(
                person=person.person,
                engine=engine,
                mu=fresh.mu,
                sigma=fresh.sigma,
                conservative=conservative(fresh.mu, fresh.sigma),
                games=0,
                updated_at=now,
            )
        rows.append(row)
    teams = [[rater.rating(mu=row.mu, sigma=row.sigma)] for row in rows]
    rated = rater.rate(teams, ranks=[float(person.rank) for person in people])
    after = {}
    for person, row, (new,) in zip(people, rows, rated, strict=True):
        row.mu, row.sigma = float(new.mu), float(new.sigma)
        row.conservative = conservative(row.mu, row.sigma)
        row.games += 1
        row.updated_at = now
        session.add(row)
        after[person.number] = (row.mu, row.sigma)
    return after


def _figures(session: Session, game_id: str) -> dict[int, tuple[int, float, int]]:
    """Per seat: its moves, the hours they took (from the event before each), and the
    moves the server made for it at a passed deadline."""
    found: dict[int, list[float]] = {}
    previous: datetime | None = None
    for seat, kind, actor, created in session.exec(
        select(Event.seat, Event.kind, Event.actor, Event.created_at)
        .where(Event.game_id == game_id)
        .order_by(col(Event.seq))
    ):
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
    return int(runtime.config.get("ratings", {}).get("min_games", MIN_GAMES))


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
