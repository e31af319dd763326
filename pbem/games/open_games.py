"""Open games: a game whose creator left seats open for anyone, listed on ``/open``
until its seats are full.

- :func:`create_open`: the creator (seat 0, a person) names the other seats (people,
  bots) and leaves some open. Nothing is played yet: the choices are kept in
  ``open_games`` under the id the game will have, and the creator gets a link to her
  page (:func:`creator_game`) by mail.
- :func:`join`: a stranger asks for a seat with a name and an address. The first free
  open seat is held for them (``open_seats``), and a link to confirm goes to that
  address only, never into the answer. The hold lapses after ``limits.open_hold_hours``
  unless confirmed; a lapsed hold frees the seat for the next one who asks.
- :func:`confirm`: the link's holder confirms; the creator is told (by name). When no
  open seat is left unconfirmed, the game starts.
- :func:`start_with_bots`: from her page, the creator starts the game at once, with bots
  in the open seats nobody confirmed (a pending hold is dropped; its link then says so).
  :func:`cancel`: she calls it off instead; whoever held a seat is told.

Starting makes the game (:meth:`pbem.games.service.GameService.create_game`, with the
same id): every person at the table gets the usual invitation with their own link.

Limits (every worker agrees: they are counted in the database, ``seat_requests``):
joins per person (the canonical address) and per client a day, pending holds per person
at once, and open games made per person and per client a day. An address already at a
table is answered as any other join is, and mailed nothing more: the answer never tells
whether an address plays somewhere.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from engines import REGISTRY, bot_levels_of, get_engine
from engines.api import Engine, resolve_options
from engines.text import Text
from pbem.errors import BadInput, Gone, NotFound, PbemError, Rejected, TooMany, words
from pbem.eventlog import chance as chance_mod
from pbem.eventlog import contributions as contrib
from pbem.games.admin_lines import policy_text
from pbem.games.context import Runtime
from pbem.games.notices import Notice
from pbem.games.policy import check_policy
from pbem.games.seat_rules import again
from pbem.games.service import SeatSpec
from pbem.games.tables import SeatRequest
from pbem.games.tokens import hash_token, new_token
from pbem.i18n import T, current_language
from pbem.models import Game, OpenGame, OpenSeat, PendingGame
from pbem.validate import (
    canonical_address,
    check_name_free,
    check_unique_names,
    clean_email,
    clean_name,
    is_game_id,
    name_key,
    same_person,
)
from pbem.zones import utc, when

log = logging.getLogger(__name__)

# ``limits.<key>`` and its default.
LIMITS = {
    "hold_hours": ("open_hold_hours", 24),
    "joins_address": ("open_joins_per_address_per_day", 3),
    "joins_client": ("open_joins_per_client_per_day", 10),
    "pending": ("open_pending_per_address", 2),
    "creates_address": ("open_games_per_address_per_day", 3),
    "creates_client": ("open_games_per_client_per_day", 10),
}
LISTED = 50  # open games per page of /open
CHUNK = 60  # open games read at once while filling a page
SCANNED = 1200  # open games read at most for one page (the newest)

JOIN_SENT = (
    "Thank you. If {email} can take a seat at this table, a link to confirm is on its way "
    "to it; the seat is held for you until {until}. Nothing more happens until you confirm."
)


def limit(runtime: Runtime, key: str) -> float:
    setting, default = LIMITS[key]
    return float(runtime.config.get("limits", {}).get(setting, default))


@dataclass
class OpenCreated:
    game_id: str
    token: str  # the creator's page


@dataclass
class Joined:
    message: str
    token: str | None = None  # the confirmation link's (only for tests; never shown)


@dataclass
class Confirmed:
    game_id: str
    message: str
    started: bool = False


@dataclass
class SeatLine:
    """One seat of an open game as anyone may read it: a name or "open", never an
    address."""

    number: int
    kind: str  # person, bot, open, joined, held
    name: str = ""
    until: datetime | None = None  # a pending hold's end


@dataclass
class OpenListing:
    """What ``/open`` and the OPEN command show of one game."""

    id: str
    engine: str
    engine_title: str
    title: str
    options: list[str]
    policy: str
    deadline_days: float
    seats: list[SeatLine]
    seats_left: int
    held: int
    status: str
    created_at: datetime
    creator_name: str
    next_free_at: datetime | None = None  # when the first pending hold lapses
    policy_settings: dict[str, Any] = field(default_factory=dict)  # as pages word it

    @property
    def full(self) -> bool:
        return self.seats_left == 0


@dataclass
class CreatorPage:
    game: OpenListing
    holds: list[SeatLine] = field(default_factory=list)


def now_of(runtime: Runtime) -> datetime:
    return utc(runtime.clock())


# Creating ------------------------------------------------------------------------


def create_open(
    runtime: Runtime,
    engine_slug: str,
    seats: Sequence[SeatSpec | None],
    options: Mapping[str, Any] | None = None,
    *,
    title: str = "",
    policy: Mapping[str, Any] | None = None,
    client: str | None = None,
    pending: str | None = None,
    contribution: Mapping[str, Any] | None = None,
) -> OpenCreated:
    """Keeps a game with open seats (``None`` in ``seats``) for strangers to join; seat
    0 is the creator's (a person). Refused, changing nothing, whatever the game itself
    would refuse (the title, the count of seats, options, policy, names, bot levels).

    The game's seed is drawn and committed to now: ``pending`` names the first step
    (:meth:`pbem.games.service.GameService.begin_game`) when the creator saw the
    commitment before giving ``contribution`` (her record for the dice; the server
    draws it, marked so, when None). The joiners add theirs when they confirm."""
    engine = _engine(engine_slug)
    if not seats or seats[0] is None or seats[0].is_bot or not seats[0].email:
        raise BadInput(T("The first seat is yours: it needs your name and email address."))
    if not any(spec is None for spec in seats):
        raise BadInput(T("An open game needs at least one open seat."))
    if not engine.min_seats <= len(seats) <= engine.max_seats:
        raise BadInput(
            T(
                "%(title)s is for %(least)d to %(most)d players, not %(count)d.",
                title=engine.title,
                least=engine.min_seats,
                most=engine.max_seats,
                count=len(seats),
            )
        )
    levels = bot_levels_of(engine)
    try:
        resolved = resolve_options(engine, options)
    except ValueError as error:
        raise BadInput(words(error)) from None
    checked = check_policy(policy)
    listed: list[dict[str, Any]] = []
    names: list[str] = []
    for index, spec in enumerate(seats):
        if spec is None:
            listed.append({"kind": "open"})
            continue
        name = clean_name(spec.name, required=False) or f"Player {index + 1}"
        names.append(name)
        if spec.is_bot:
            if spec.bot_level not in levels:
                raise BadInput(
                    T(
                        "A bot plays %(title)s at one of these levels: %(levels)s.",
                        title=engine.title,
                        levels=", ".join(levels),
                    )
                )
            listed.append({"kind": "bot", "name": name, "level": spec.bot_level})
        else:
            email = clean_email(spec.email)
            for other in listed:
                if other.get("email") and same_person(other["email"], email):
                    raise BadInput(T("Each person at the table needs an address of their own."))
            person = {"kind": "person", "name": name, "email": email, "timezone": spec.timezone}
            if spec.language:
                person["language"] = spec.language
            listed.append(person)
    check_unique_names(names)
    creator = listed[0]["email"]
    token = new_token()
    now = now_of(runtime)
    given = dict(
        contribution or contrib.record(0, "creator", "server", chance_mod.new_contribution())
    )
    if contrib.problem(given, len(seats)):
        raise BadInput(
            T(
                "Your contribution is not valid: %(problem)s.",
                problem=contrib.problem(given, len(seats)),
            )
        )
    if pending is None:
        pending, _ = runtime.service.begin_game()
    runtime.service.pending_game(pending)  # still waiting (refused otherwise)
    with runtime.service.session() as session:
        game_id = pending
        if session.get(Game, game_id) or session.get(OpenGame, game_id):
            raise Rejected(T("This game was listed already; nothing more was done."))
        waiting = session.get(PendingGame, pending)
        waiting.contributions = [given]
        session.add(waiting)
        _count(session, runtime, "open_create", game_id, canonical_address(creator), client)
        session.add(
            OpenGame(
                id=game_id,
                engine=engine.slug,
                title=title or engine.title,
                options=resolved,
                policy=checked,
                seats=listed,
                creator_email=creator,
                creator_token_hash=hash_token(token),
                status="open",
                open_left=sum(1 for spec in seats if spec is None),
                created_at=now,
            )
        )
        runtime.service.tell(
            session,
            Notice(
                kind="open_created",
                key=f"open_created:{game_id}",
                game_id=game_id,
                address=creator,
                name=listed[0]["name"],
                facts={"title": title or engine.title, "token": token},
            ),
        )
        session.commit()
    return OpenCreated(game_id, token)


def _engine(slug: str) -> Engine:
    if not isinstance(slug, str) or slug not in REGISTRY:
        raise BadInput(T("Choose one of the games offered."))
    return get_engine(slug)


def _count(
    session: Session,
    runtime: Runtime,
    kind: str,
    game_id: str,
    person: str,
    client: str | None,
) -> None:
    """Counts one request of ``kind`` (``open_create``, ``open_join``) by ``person``
    and from ``client`` (None from the command line or by mail): :class:`TooMany` past
    either day's limit, and nothing is written then."""
    now = now_of(runtime)
    what = "create" if kind == "open_create" else "join"
    asking = {"requester": person[:320], "client": (client or "")[:64]}
    for key in ("requester", "client"):
        if not asking[key]:
            continue
        allowed = int(limit(runtime, f"{what}s_{'address' if key == 'requester' else key}"))
        made = [
            utc(moment)
            for moment in session.exec(
                select(SeatRequest.created_at)
                .where(
                    SeatRequest.kind == kind,
                    getattr(SeatRequest, key) == asking[key],
                    col(SeatRequest.created_at) > now - timedelta(days=1),
                )
                .order_by(col(SeatRequest.created_at))
            )
        ]
        if len(made) >= allowed:
            raise TooMany(_too_many(what, key, allowed, again(made, allowed, now)))
    session.add(SeatRequest(game_id=game_id, seat=0, kind=kind, created_at=now, **asking))


def _too_many(what: str, key: str, allowed: int, later: Text) -> Text:
    """The refusal of one request too many of ``what`` (create, join) by ``key``."""
    if what == "create" and key == "requester":
        return T(
            "Too many open games were made from this address in the last 24 hours (at most "
            "%(most)d); %(again)s",
            most=allowed,
            again=later,
        )
    if what == "create":
        return T(
            "Too many open games were made from your network address in the last 24 hours "
            "(at most %(most)d); %(again)s",
            most=allowed,
            again=later,
        )
    if key == "requester":
        return T(
            "Too many seats were asked for from this address in the last 24 hours (at most "
            "%(most)d); %(again)s",
            most=allowed,
            again=later,
        )
    return T(
        "Too many seats were asked for from your network address in the last 24 hours (at "
        "most %(most)d); %(again)s",
        most=allowed,
        again=later,
    )


# Reading -------------------------------------------------------------------------


def _holds(session: Session, game_ids: Sequence[str]) -> dict[str, dict[int, OpenSeat]]:
    found: dict[str, dict[int, OpenSeat]] = {game_id: {} for game_id in game_ids}
    if game_ids:
        for hold in session.exec(select(OpenSeat).where(col(OpenSeat.game_id).in_(game_ids))):
            found[hold.game_id][hold.seat] = hold
    return found


def _live(hold: OpenSeat | None, now: datetime) -> bool:
    """Whether ``hold`` keeps its seat: confirmed, or pending and not lapsed."""
    return hold is not None and (hold.confirmed_at is not None or utc(hold.expires_at) > now)


def option_words(engine: Engine, options: Mapping[str, Any]) -> list[str]:
    """The game's options as a player reads them ("Module: the cities")."""
    words = []
    for option in engine.options:
        value = options.get(option.name, option.default)
        if isinstance(option.default, bool):
            shown = T("yes") if value else T("no")
        else:
            shown = option.choice_label(value)
            shown = shown if isinstance(shown, str) else str(shown)
        words.append(T("%(option)s: %(value)s", option=option.shown_label, value=shown))
    return words


def _listing(row: OpenGame, holds: dict[int, OpenSeat], now: datetime) -> OpenListing:
    engine = get_engine(row.engine) if row.engine in REGISTRY else None
    seats: list[SeatLine] = []
    left = held = 0
    lapses: list[datetime] = []
    for number, spec in enumerate(row.seats):
        if spec["kind"] != "open":
            seats.append(SeatLine(number, spec["kind"], spec.get("name", "")))
            continue
        hold = holds.get(number)
        if hold is not None and hold.confirmed_at is not None:
            seats.append(SeatLine(number, "joined", hold.name))
        elif _live(hold, now):
            held += 1
            lapses.append(utc(hold.expires_at))
            seats.append(SeatLine(number, "held", until=utc(hold.expires_at)))
        else:
            left += 1
            seats.append(SeatLine(number, "open"))
    return OpenListing(
        id=row.id,
        engine=row.engine,
        engine_title=engine.title if engine else row.engine,
        title=row.title,
        options=option_words(engine, row.options) if engine else [],
        policy=policy_text(row.policy),
        deadline_days=float(row.policy.get("deadline_after_days", 0) or 0),
        seats=seats,
        seats_left=left,
        held=held,
        status=row.status,
        created_at=utc(row.created_at),
        creator_name=row.seats[0].get("name", ""),
        next_free_at=min(lapses) if lapses else None,
        policy_settings=dict(row.policy),
    )


PACES = {"any": None, "none": 0.0, "1": 1.0, "3": 3.0, "7": 7.0}


def list_open(
    runtime: Runtime,
    engine: str | None = None,
    seats_left: Any = None,
    pace: str | None = None,
    limit_to: int = LISTED,
) -> list[OpenListing]:
    """The open games that take players now, newest first: of the title ``engine``, with
    at least ``seats_left`` free seats, and at the ``pace`` of :data:`PACES` ("none": no
    deadline; "3": a deadline of at most three days a move). A bad filter is named."""
    if engine and engine not in REGISTRY:
        raise BadInput(T("There is no such game to filter by."))
    try:
        least = int(seats_left) if seats_left not in (None, "") else 1
    except (TypeError, ValueError):
        raise BadInput(T("Seats left is a whole number.")) from None
    if not 1 <= least <= 10:
        raise BadInput(T("Seats left is a whole number from 1 to 10."))
    if pace not in (None, "", *PACES):
        raise BadInput(T("Choose a pace from the list."))
    days = PACES.get(pace or "any")
    now = now_of(runtime)
    with runtime.service.reading() as session:
        query = select(OpenGame).where(OpenGame.status == "open")
        if engine:
            query = query.where(OpenGame.engine == engine)
        if least > 1:  # a seat left is an open seat nobody confirmed (a pending one may lapse)
            query = query.where(col(OpenGame.open_left) >= least)
        query = query.order_by(col(OpenGame.created_at).desc(), col(OpenGame.id))
        found: list[OpenListing] = []
        # Read in chunks, newest first, until the page is full (or SCANNED rows are read).
        for start in range(0, SCANNED, CHUNK):
            rows = list(session.exec(query.offset(start).limit(CHUNK)))
            holds = _holds(session, [row.id for row in rows])
            for row in rows:
                listing = _listing(row, holds[row.id], now)
                if listing.seats_left < least or not _at_pace(listing, days):
                    continue
                found.append(listing)
                if len(found) >= limit_to:
                    return found
            if len(rows) < CHUNK:
                break
    return found


def _at_pace(listing: OpenListing, days: float | None) -> bool:
    if days is None:
        return True
    if days == 0:
        return listing.deadline_days == 0
    return 0 < listing.deadline_days <= days


def open_game(runtime: Runtime, game_id: str) -> OpenListing:
    """One open game as anyone may read it (started and cancelled ones too)."""
    if not is_game_id(game_id):
        raise NotFound(T("There is no such open game."))
    with runtime.service.reading() as session:
        row = session.get(OpenGame, game_id)
        if row is None:
            raise NotFound(T("There is no such open game."))
        return _listing(row, _holds(session, [game_id])[game_id], now_of(runtime))


def creator_game(runtime: Runtime, token: str) -> CreatorPage:
    """The game the creator's link opens."""
    row = _by_creator(runtime, token)
    return CreatorPage(open_game(runtime, row.id))


def _by_creator(runtime: Runtime, token: str) -> OpenGame:
    if not isinstance(token, str) or not 20 <= len(token) <= 100:
        raise NotFound(T("This link is not valid."))
    with runtime.service.reading() as session:
        row = session.exec(
            select(OpenGame).where(OpenGame.creator_token_hash == hash_token(token))
        ).first()
    if row is None:
        raise NotFound(T("This link is not valid."))
    return row


# Joining -------------------------------------------------------------------------


def join(
    runtime: Runtime,
    game_id: str,
    name: Any,
    email: Any,
    client: str | None = None,
    timezone: str = "UTC",
) -> Joined:
    """Holds the first free open seat of ``game_id`` for a stranger and mails the link
    to confirm to ``email`` only (see the module's docstring)."""
    if not is_game_id(game_id):
        raise NotFound(T("There is no such open game."))
    name, email = clean_name(name), clean_email(email)
    person = canonical_address(email)
    now = now_of(runtime)
    until = now + timedelta(hours=limit(runtime, "hold_hours"))
    sent = JOIN_SENT.format(email=email, until=when(until, "UTC"))
    token = new_token()
    with runtime.service.session() as session:
        table = OpenGame.__table__
        # Holds the game's row to the end of this request: a start waits for it.
        still_open = session.exec(
            update(table)
            .where(table.c.id == game_id, table.c.status == "open")
            .values(status="open")
        ).rowcount
        row = session.get(OpenGame, game_id)
        if row is None:
            raise NotFound(T("There is no such open game."))
        if row.status != "open" or still_open != 1:
            raise Gone(T("This game has started (or was called off); it takes no more players."))
        holds = _holds(session, [game_id])[game_id]
        live = {number: hold for number, hold in holds.items() if _live(hold, now)}
        at_table = [spec["email"] for spec in row.seats if spec.get("email")]
        at_table += [hold.email for hold in live.values()]
        if any(same_person(address, email) for address in at_table):
            # Already at this table (or holding a seat): nothing more, and the answer
            # is the one anybody gets.
            _count(session, runtime, "open_join", game_id, person, client)
            session.commit()
            return Joined(sent)
        free = [
            number
            for number, spec in enumerate(row.seats)
            if spec["kind"] == "open" and number not in live
        ]
        if not free:
            lapsing = [utc(hold.expires_at) for hold in live.values() if hold.confirmed_at is None]
            if lapsing:
                raise Rejected(
                    T(
                        "Every open seat is held for someone who has not confirmed yet. A held "
                        "seat frees up if it is not confirmed by %(moment)s.",
                        moment=when(min(lapsing), "UTC", now, language=current_language()),
                    )
                )
            raise Rejected(T("This game is full: every seat is taken."))
        taken = [spec.get("name", "") for spec in row.seats if spec.get("name")]
        check_name_free(name, taken + [hold.name for hold in live.values()])
        pending = session.exec(
            select(col(OpenSeat.game_id)).where(
                OpenSeat.person == person,
                col(OpenSeat.confirmed_at).is_(None),
                col(OpenSeat.expires_at) > now,
            )
        ).all()
        if len(pending) >= limit(runtime, "pending"):
            raise TooMany(
                T(
                    "This address already waits to confirm %(count)d seats (at most "
                    "%(most)d at once): confirm them from your mail, or "
                    "let them lapse, and ask again. Nothing was changed.",
                    count=len(pending),
                    most=int(limit(runtime, "pending")),
                )
            )
        _count(session, runtime, "open_join", game_id, person, client)
        seat = free[0]
        lapsed = holds.get(seat)
        if lapsed is not None:
            session.delete(lapsed)
            session.flush()
        session.add(
            OpenSeat(
                game_id=game_id,
                seat=seat,
                name=name,
                email=email,
                person=person,
                timezone=timezone or "UTC",
                token_hash=hash_token(token),
                created_at=now,
                expires_at=until,
            )
        )
        runtime.service.tell(
            session,
            Notice(
                kind="open_hold",
                key=f"open_hold:{game_id}:{hash_token(token)[:24]}",
                game_id=game_id,
                address=email,
                name=name,
                facts={"title": row.title, "token": token, "lapses_at": until},
            ),
        )
        try:
            session.commit()
        except IntegrityError:
            raise Rejected(T("Someone took that seat a moment ago; please ask again.")) from None
    return Joined(sent, token)


def hold_for(runtime: Runtime, token: str) -> tuple[OpenSeat, OpenListing]:
    """The hold a confirmation link names, and its game (for the confirm page)."""
    if not isinstance(token, str) or not 20 <= len(token) <= 100:
        raise NotFound(T("This link is not valid."))
    with runtime.service.reading() as session:
        hold = session.exec(
            select(OpenSeat).where(OpenSeat.token_hash == hash_token(token))
        ).first()
    if hold is None:
        raise NotFound(
            T(
                "This link is not valid any more: it lapsed and someone else took the seat, or "
                "the game started without it. If the game still has an open seat, join again."
            )
        )
    return hold, open_game(runtime, hold.game_id)


def confirm(
    runtime: Runtime, token: str, contribution: Any = None, by: str = "browser"
) -> Confirmed:
    """The holder of a confirmation link takes their seat; the creator is told, and the
    game starts when no open seat is left unconfirmed.

    ``contribution``: the joiner's share of the dice (the server draws it, marked so,
    when None or empty); every joiner's covers the set-up with the creator's."""
    if contribution is None or (isinstance(contribution, str) and not contribution.strip()):
        contribution, by = chance_mod.new_contribution(), "server"
    try:
        contribution = chance_mod.clean_contribution(contribution)
    except ValueError as error:
        raise BadInput(T("Your contribution: %(problem)s", problem=words(error))) from None
    hold, listing = hold_for(runtime, token)
    now = now_of(runtime)
    if hold.confirmed_at is not None:
        return Confirmed(hold.game_id, _confirmed_words(listing), listing.status != "open")
    if listing.status != "open":
        raise Gone(
            T("This game started without this seat's confirmation; it takes no more players.")
        )
    if utc(hold.expires_at) <= now:
        raise Gone(
            T(
                "This link lapsed at %(moment)s: the seat was held for "
                "you until then. If the game still has an open seat, you can join again.",
                moment=when(utc(hold.expires_at), "UTC", language=current_language()),
            )
        )
    games, seats = OpenGame.__table__, OpenSeat.__table__
    with runtime.service.session() as session:
        # The game's row first: a creator starting the game at this moment waits for
        # this confirmation (or it waits for her), and two confirmations count twice.
        counted = session.exec(
            update(games)
            .where(games.c.id == hold.game_id, games.c.status == "open", games.c.open_left > 0)
            .values(open_left=games.c.open_left - 1)
        )
        confirmed = session.exec(
            update(seats)
            .where(
                seats.c.game_id == hold.game_id,
                seats.c.seat == hold.seat,
                seats.c.token_hash == hash_token(token),
                seats.c.confirmed_at.is_(None),
                seats.c.expires_at > now,
            )
            .values(confirmed_at=now, contribution={"by": by, "contribution": contribution})
        )
        if counted.rowcount != 1 or confirmed.rowcount != 1:
            session.rollback()
            listing = open_game(runtime, hold.game_id)
            if _confirmed(runtime, hold):
                return Confirmed(hold.game_id, _confirmed_words(listing), listing.status != "open")
            raise Gone(T("This hold was replaced or the game has started; nothing was changed."))
        row = session.get(OpenGame, hold.game_id)
        session.refresh(row)
        runtime.service.tell(
            session,
            Notice(
                kind="open_joined",
                key=f"open_joined:{row.id}:{hold.seat}:{hold.token_hash[:16]}",
                game_id=row.id,
                address=row.creator_email,
                name=row.seats[0].get("name", ""),
                facts={"title": row.title, "joined": hold.name, "left": row.open_left},
            ),
        )
        session.commit()
        full = row.open_left == 0
    started = False
    if full:
        try:
            started = _start(runtime, hold.game_id, with_bots=False)
        except PbemError as error:  # e.g. an invitation budget: the creator can start it
            log.warning("open game %s did not start: %s", hold.game_id, error.message)
    listing = open_game(runtime, hold.game_id)
    return Confirmed(hold.game_id, _confirmed_words(listing), started)


def _confirmed(runtime: Runtime, hold: OpenSeat) -> bool:
    """Whether ``hold`` is confirmed now (another request of the same link did it)."""
    with runtime.service.reading() as session:
        found = session.get(OpenSeat, (hold.game_id, hold.seat))
    return (
        found is not None and found.token_hash == hold.token_hash and found.confirmed_at is not None
    )


def _confirmed_words(listing: OpenListing) -> str:
    if listing.status == "started":
        return (
            f"You have a seat in {listing.title}, and the game has started: your link to "
            "your seat is on its way by mail."
        )
    return (
        f"You have a seat in {listing.title}. The game starts when every seat is taken "
        "(or when its creator starts it with bots); your link comes by mail then."
    )


def start_with_bots(runtime: Runtime, token: str) -> bool:
    """The creator starts her game now: bots play the open seats nobody confirmed."""
    row = _by_creator(runtime, token)
    if row.status == "started":
        raise Gone(T("This game has started already."))
    if row.status != "open":
        raise Gone(T("This game was called off."))
    return _start(runtime, row.id, with_bots=True)


def cancel(runtime: Runtime, token: str) -> None:
    """The creator calls her open game off: it leaves ``/open``, every hold lapses at
    once, and whoever held or confirmed a seat is told (by mail, at their address)."""
    row = _by_creator(runtime, token)
    table = OpenGame.__table__
    with runtime.service.session() as session:
        called_off = session.exec(
            update(table)
            .where(table.c.id == row.id, table.c.status == "open")
            .values(status="cancelled")
        ).rowcount
        if called_off != 1:
            session.rollback()
            raise Gone(T("This game has started or was called off already; nothing was changed."))
        now = now_of(runtime)
        for hold in session.exec(select(OpenSeat).where(OpenSeat.game_id == row.id)):
            if _live(hold, now):
                runtime.service.tell(
                    session,
                    Notice(
                        kind="open_cancelled",
                        key=f"open_cancelled:{row.id}:{hold.seat}:{hold.token_hash[:16]}",
                        game_id=row.id,
                        address=hold.email,
                        name=hold.name,
                        facts={"title": row.title},
                    ),
                )
            session.delete(hold)
        waiting = session.get(PendingGame, row.id)
        if waiting is not None:
            session.delete(waiting)
        session.commit()


def _start(runtime: Runtime, game_id: str, *, with_bots: bool) -> bool:
    """Makes the game (once, whoever asks at the same moment): False when another
    request is starting or started it, or (without ``with_bots``) a seat is open."""
    table = OpenGame.__table__
    claim = update(table).where(table.c.id == game_id, table.c.status == "open")
    if not with_bots:
        claim = claim.where(table.c.open_left == 0)
    with runtime.service.session() as session:
        if session.exec(claim.values(status="starting")).rowcount != 1:
            session.rollback()
            return False
        session.commit()
    try:
        with runtime.service.reading() as session:
            row = session.get(OpenGame, game_id)
            holds = _holds(session, [game_id])[game_id]
            waiting = session.get(PendingGame, game_id)
        specs = _seat_specs(row, holds)
        # The creator's contribution and each confirmed joiner's, in seat order: all
        # given after the seed's commitment, all covering the set-up.
        given = None
        if waiting is not None:
            given = [*waiting.contributions]
            for number in sorted(holds):
                hold = holds[number]
                if hold.confirmed_at is not None and hold.contribution:
                    given.append(
                        contrib.record(
                            number,
                            "player",
                            hold.contribution.get("by", "server"),
                            hold.contribution.get("contribution", ""),
                        )
                    )
        runtime.service.create_game(
            row.engine,
            specs,
            row.options,
            title=row.title,
            policy=row.policy,
            creator_seat=0,
            actor="open",
            game_id=None if waiting is not None else game_id,
            pending=game_id if waiting is not None else None,
            contributions=given,
        )
    except PbemError:
        with runtime.service.session() as session:
            session.exec(update(table).where(table.c.id == game_id).values(status="open"))
            session.commit()
        raise
    with runtime.service.session() as session:
        session.exec(
            update(table)
            .where(table.c.id == game_id)
            .values(status="started", started_at=now_of(runtime))
        )
        # Pending holds that did not make it lapse now: their links say so.
        for hold in holds.values():
            if hold.confirmed_at is None:
                found = session.get(OpenSeat, (game_id, hold.seat))
                if found is not None:
                    session.delete(found)
        session.commit()
    runtime.service.play_bots(game_id)
    return True


def _seat_specs(row: OpenGame, holds: dict[int, OpenSeat]) -> list[SeatSpec]:
    engine = get_engine(row.engine)
    levels = bot_levels_of(engine)
    level = "normal" if "normal" in levels else levels[0]
    specs: list[SeatSpec | None] = []
    used = {
        name_key(spec["name"]) for spec in row.seats if spec.get("name") and spec["kind"] != "open"
    }
    used |= {name_key(hold.name) for hold in holds.values() if hold.confirmed_at is not None}
    for number, spec in enumerate(row.seats):
        if spec["kind"] == "person":
            specs.append(
                SeatSpec(
                    spec["name"],
                    spec["email"],
                    timezone=spec.get("timezone", "UTC"),
                    language=spec.get("language"),
                )
            )
        elif spec["kind"] == "bot":
            specs.append(SeatSpec(spec["name"], is_bot=True, bot_level=spec["level"]))
        else:
            hold = holds.get(number)
            if hold is not None and hold.confirmed_at is not None:
                specs.append(SeatSpec(hold.name, hold.email, timezone=hold.timezone))
                continue
            name, extra = f"Bot {number + 1}", 1
            while name_key(name) in used:
                extra += 1
                name = f"Bot {number + 1}.{extra}"
            used.add(name_key(name))
            specs.append(SeatSpec(name, is_bot=True, bot_level=level))
    return [spec for spec in specs if spec is not None]
