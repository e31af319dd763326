"""Players as people: a public handle for an address, and what ``/players/<handle>`` shows.

A handle is claimed from the address's "my games" page, whose link came by mail to that
address (and can be revoked there): the page proves the address as a mailed
confirmation link would, so claiming takes no second round trip. Nothing is public
until a handle is claimed; the player can hide the profile (its page answers 404 to
everyone) or delete it (the handle is kept from others for :data:`FREED_AFTER`, then
free). Past games keep the names people had in them: a profile lists them as they
were, and a deleted profile changes no game.

A handle: 3 to 24 letters, digits, "-" and "_", unique whatever its case; words that
would pass for the server or its staff (:data:`RESERVED`) are refused, alone or inside
a handle. Claims are counted in the database per address and per client
(``seat_requests``, kind ``handle``): :data:`LIMITS` a day.

A profile never shows an address nor a seat's link: its games (title, date, rank,
everyone's names then), titles, ratings with their history, and figures (wins, average
rank, days per move, missed deadlines), from ``player_games`` (:mod:`pbem.games.ratings`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from engines import REGISTRY
from pbem.errors import BadInput, NotFound, Rejected, TooMany
from pbem.games.context import Runtime
from pbem.games.ratings import conservative, model
from pbem.games.seat_rules import again
from pbem.games.tables import SeatRequest
from pbem.i18n import T
from pbem.models import PlayerGame, Profile, Rating
from pbem.zones import utc

HANDLE = re.compile(r"[A-Za-z0-9_-]{3,24}")
RESERVED = (
    "admin",
    "administrator",
    "bot",
    "moderator",
    "mod",
    "operator",
    "pbem",
    "postmaster",
    "root",
    "server",
    "staff",
    "support",
    "system",
    "webmaster",
    "abuse",
    "noreply",
    "official",
)
# Words refused only as the whole handle (too short to refuse inside others).
RESERVED_WHOLE = ("me", "new", "open", "ratings", "players", "help", "anonymous", "null")
FREED_AFTER = timedelta(days=90)
LIMITS = {"address": 5, "client": 20}  # claims, renames and deletions a day
SHOWN = 200  # games listed on a profile


LEET = str.maketrans("013457", "oieast")


def _reserved(form: str) -> bool:
    """Whether ``form`` (a handle in lower case) passes for the server or its staff: a
    long reserved word anywhere in it, a short one ("bot", "mod") as a part of it or at
    the end of a part ("superbot", "bot_7", but not "bottle")."""
    squeezed = form.replace("-", "").replace("_", "")
    parts = [part for part in re.split(r"[-_0-9]+", form) if part]
    return any(
        word in squeezed if len(word) > 3 else any(part.endswith(word) for part in parts)
        for word in RESERVED
    )


def clean_handle(value: object) -> str:
    """The handle as asked, checked: :class:`BadInput` says what is wrong."""
    handle = str(value or "").strip()
    if not HANDLE.fullmatch(handle):
        raise BadInput(
            T("A handle has 3 to 24 characters: letters, digits, '-' and '_' (no spaces).")
        )
    key = handle.lower()
    if key in RESERVED_WHOLE or any(_reserved(form) for form in (key, key.translate(LEET))):
        raise BadInput(T("That handle is kept for the server's own use; please choose another."))
    return handle


def profile_of(session: Session, person: str) -> Profile | None:
    """The live profile of ``person`` (an address in lower case), if any."""
    return session.exec(
        select(Profile).where(Profile.person == person, col(Profile.freed_at).is_(None))
    ).first()


def _count(session: Session, now: datetime, person: str, client: str | None) -> None:
    for key, value in (("requester", person[:320]), ("client", (client or "")[:64])):
        if not value:
            continue
        allowed = LIMITS["address" if key == "requester" else "client"]
        made = [
            utc(moment)
            for moment in session.exec(
                select(SeatRequest.created_at)
                .where(
                    SeatRequest.kind == "handle",
                    getattr(SeatRequest, key) == value,
                    col(SeatRequest.created_at) > now - timedelta(days=1),
                )
                .order_by(col(SeatRequest.created_at))
            )
        ]
        if len(made) >= allowed:
            later = again(made, allowed, now)
            if key == "requester":
                raise TooMany(
                    T(
                        "Too many changes to a handle from this address in the last 24 hours "
                        "(at most %(most)d); %(again)s",
                        most=allowed,
                        again=later,
                    )
                )
            raise TooMany(
                T(
                    "Too many changes to a handle from your network address in the last 24 "
                    "hours (at most %(most)d); %(again)s",
                    most=allowed,
                    again=later,
                )
            )
    session.add(
        SeatRequest(
            game_id="",
            seat=0,
            kind="handle",
            created_at=now,
            requester=person[:320],
            client=(client or "")[:64],
        )
    )


def claim(runtime: Runtime, person: str, handle: object, client: str | None = None) -> str:
    """``person`` (proven by its "my games" link) takes ``handle``, or renames its
    profile to it. Refused, changing nothing, if the handle is malformed, reserved,
    someone else's, or kept after a deletion."""
    handle = clean_handle(handle)
    key = handle.lower()
    now = utc(runtime.clock())
    with runtime.service.session() as session:
        taken = session.get(Profile, key)
        mine = profile_of(session, person)
        if taken is not None and taken is not mine:
            if taken.freed_at is None or utc(taken.freed_at) > now:
                raise Rejected(T("That handle is taken; please choose another."))
        _count(session, now, person, client)
        if taken is not None and taken is not mine:
            session.delete(taken)
            session.flush()
        if mine is not None and mine.handle_key != key:
            # A rename: the old handle is kept from others for a while.
            mine.person, mine.freed_at = "", now + FREED_AFTER
            session.add(mine)
            session.flush()
            mine = None
        if mine is None:
            mine = Profile(handle_key=key, handle=handle, person=person, created_at=now)
        mine.handle = handle
        session.add(mine)
        try:
            session.commit()
        except IntegrityError:  # someone took it a moment ago
            raise Rejected(T("That handle is taken; please choose another.")) from None
    return handle


def set_hidden(runtime: Runtime, person: str, hidden: bool) -> None:
    with runtime.service.session() as session:
        mine = profile_of(session, person)
        if mine is None:
            raise NotFound(T("This address has no profile."))
        mine.hidden = hidden
        session.add(mine)
        session.commit()


def delete(runtime: Runtime, person: str, client: str | None = None) -> None:
    """Deletes ``person``'s profile: the page is gone at once, the handle kept from
    others for :data:`FREED_AFTER`. Games keep the names they had; ratings stay with
    the address (a later claim shows them again)."""
    now = utc(runtime.clock())
    with runtime.service.session() as session:
        mine = profile_of(session, person)
        if mine is None:
            raise NotFound(T("This address has no profile."))
        _count(session, now, person, client)
        mine.person, mine.hidden, mine.freed_at = "", True, now + FREED_AFTER
        session.add(mine)
        session.commit()


# The public page -------------------------------------------------------------------


@dataclass
class PlayedGame:
    game_id: str
    title: str
    game_name: str
    finished_at: datetime
    rank: int
    seats: int
    name: str
    table: list[tuple[int, str]]  # (rank, name) of every seat, as named then
    resigned: bool = False
    private: bool = False


@dataclass
class TitleRating:
    engine: str
    game_name: str
    mu: float
    sigma: float
    rating: float
    games: int
    history: list[tuple[datetime, float]] = field(default_factory=list)


@dataclass
class ProfilePage:
    handle: str
    since: datetime
    games: list[PlayedGame]
    titles: list[str]
    ratings: list[TitleRating]
    played: int
    wins: int
    average_rank: float | None
    days_per_move: float | None
    missed_deadlines: int


def engine_title(engine: str) -> str:
    found = REGISTRY.get(engine)
    return found.title if found is not None else engine


def public_profile(runtime: Runtime, handle: str) -> ProfilePage:
    """What ``/players/<handle>`` shows; :class:`NotFound` for a hidden, deleted or
    unknown handle (the same answer for each)."""
    if not isinstance(handle, str) or not HANDLE.fullmatch(handle):
        raise NotFound(T("There is no such player."))
    with runtime.service.reading() as session:
        profile = session.get(Profile, handle.lower())
        if profile is None or profile.hidden or profile.freed_at is not None:
            raise NotFound(T("There is no such player."))
        return _page(session, profile)


def own_profile(runtime: Runtime, person: str) -> Profile | None:
    with runtime.service.reading() as session:
        return profile_of(session, person)


def _page(session: Session, profile: Profile) -> ProfilePage:
    mine = list(
        session.exec(
            select(PlayerGame)
            .where(PlayerGame.person == profile.person)
            .order_by(col(PlayerGame.finished_at).desc(), col(PlayerGame.game_id))
            .limit(SHOWN)
        )
    )
    ids = [row.game_id for row in mine]
    tables: dict[str, list[PlayerGame]] = {}
    if ids:
        for row in session.exec(select(PlayerGame).where(col(PlayerGame.game_id).in_(ids))):
            tables.setdefault(row.game_id, []).append(row)
    games = [
        PlayedGame(
            game_id="" if row.private else row.game_id,
            title="A private game" if row.private else row.title,
            game_name=engine_title(row.engine),
            finished_at=utc(row.finished_at),
            rank=row.rank,
            seats=row.seats,
            name=row.name,
            resigned=row.resigned,
            private=row.private,
            table=[]
            if row.private
            else [
                (other.rank, other.name)
                for other in sorted(tables[row.game_id], key=lambda o: (o.rank, o.seat))
            ],
        )
        for row in mine
    ]
    ratings = []
    for rating in session.exec(
        select(Rating).where(Rating.person == profile.person).order_by(col(Rating.engine))
    ):
        history = [
            (utc(row.finished_at), row.mu - 3 * row.sigma)
            for row in sorted(mine, key=lambda r: (r.finished_at, r.game_id))
            if row.engine == rating.engine and row.mu is not None and row.sigma is not None
        ]
        if history:  # from where everybody starts: a line even after one game
            start = model().rating()
            history.insert(0, (history[0][0], conservative(start.mu, start.sigma)))
        ratings.append(
            TitleRating(
                engine=rating.engine,
                game_name=engine_title(rating.engine),
                mu=rating.mu,
                sigma=rating.sigma,
                rating=rating.conservative,
                games=rating.games,
                history=history,
            )
        )
    moves = sum(row.moves for row in mine)
    hours = sum(row.move_hours for row in mine)
    return ProfilePage(
        handle=profile.handle,
        since=utc(profile.created_at),
        games=games,
        titles=sorted({game.game_name for game in games}),
        ratings=ratings,
        played=len(mine),
        wins=sum(1 for row in mine if row.rank == 1 and not row.resigned),
        average_rank=(sum(row.rank for row in mine) / len(mine)) if mine else None,
        days_per_move=(hours / 24 / moves) if moves else None,
        missed_deadlines=sum(row.missed_deadlines for row in mine),
    )


def chart(points: list[tuple[datetime, float]], width: int = 320, height: int = 80) -> dict:
    """An inline SVG line of a rating's history: the polyline's points and the range
    (no script, no style attribute: the page's CSP allows it)."""
    if not points:
        return {
            "points": "",
            "last": None,
            "low": 0.0,
            "high": 0.0,
            "width": width,
            "height": height,
        }
    values = [value for _, value in points]
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    step = (width - 8) / max(1, len(values) - 1)
    coords = [
        f"{4 + n * step:.1f},{4 + (height - 8) * (1 - (value - low) / span):.1f}"
        for n, value in enumerate(values)
    ]
    last = coords[-1].split(",")
    return {
        "points": " ".join(coords),
        "last": {"x": last[0], "y": last[1]},
        "low": low,
        "high": high,
        "width": width,
        "height": height,
    }
