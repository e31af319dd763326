"""Use cases: create a game, submit a move, read a state; export, import, verify,
listing and engine upgrades through thin methods over their own modules
(:mod:`pbem.games.portable`, :mod:`pbem.games.listing`, :mod:`pbem.games.upgrade`).

Each use case loads what it needs, asks the engine, and appends events in one
transaction with the read model (and, through listeners, the outbox) updated alongside.

A move, the hot path, runs on one connection of its own with statements compiled once
(:class:`pbem.db.Prepared`, no unit of work, no ORM bookkeeping): it reads the game, its
seed, its seats and their clocks in one query and writes the event, the game's head, the
seats that changed, and through the mail listener the clocks that changed and what to
mail (rendered later by the dispatcher). The writes go through the move's
:class:`pbem.db.Batch`: one statement on PostgreSQL (one round trip), one by one on
SQLite. The database still decides a race: the event's key (game, seq) takes one writer
only. A move that ends the game takes the full path.

Bots answer at once: a move or an administrative event that leaves a bot seat due has
the due bots move right after its transaction commits (never inside it), before the
call returns, whatever road it came by (:meth:`GameService.after_commit`). A bot that
fails is logged and left to the scheduler's sweep; the event that made it due stands.
A bot at a slow level (the engine's ``slow_bot_levels``) never moves there: the game is
handed to the process's background runner (:mod:`pbem.games.bot_runner`), which plays
it right after the call returns, or, in a process without one (a command, a mail's
receipt), left to the scheduler's sweep.
"""

from __future__ import annotations

import logging
import random
import secrets
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, make_dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import JSON, and_, bindparam, case, literal_column
from sqlalchemy import select as core_select
from sqlalchemy.engine import Connection
from sqlalchemy.engine import Engine as SqlEngine
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm.attributes import flag_modified
from sqlmodel import Session, col, delete, select

from engines import REGISTRY, bot_levels_of, get_engine, is_slow_bot
from engines import bot_move as engine_bot_move
from engines.api import Engine, IllegalMove, Result, canonical_json, resolve_options
from pbem.db import BATCH, Batch, KeptConnections, Prepared, for_reads, read_alone
from pbem.errors import BadInput, Conflict, NotFound, Rejected, words
from pbem.eventlog import chance as chance_mod
from pbem.eventlog import contributions as contrib
from pbem.eventlog import roster as roster_mod
from pbem.eventlog.log import GENESIS_HASH, timestamp
from pbem.eventlog.roster import Holder, Roster
from pbem.eventlog.seeds import open_seed, seal_seed
from pbem.eventlog.store import EventStore, Head, game_engine
from pbem.games import listing, names
from pbem.games.listing import LISTING_PAGE, GamePage
from pbem.games.notices import Notice, NoticeListener
from pbem.games.outcomes import Listener, MoveOutcome, Transition
from pbem.games.policy import check_policy
from pbem.games.tables import SeatClock
from pbem.games.tokens import hash_token, new_token
from pbem.i18n import T
from pbem.models import Event, Game, GameSecret, OpenGame, PendingGame, Seat
from pbem.validate import check_unique_names, clean_name

if TYPE_CHECKING:
    from pbem.games.bot_runner import BotRunner
    from pbem.games.upgrade import UpgradeCheck

log = logging.getLogger(__name__)

# Set while :meth:`GameService.play_bots` runs in this thread (the bots' own moves do not
# start another round of bots: the running one goes on until no bot is due).
_PLAYING_BOTS: ContextVar[bool] = ContextVar("pbem_playing_bots", default=False)
# While :meth:`GameService.bots_held` holds the bots back: the games whose bots became due.
_HELD: ContextVar[set[str] | None] = ContextVar("pbem_bots_held", default=None)


def utcnow() -> datetime:
    return datetime.now(UTC)


@dataclass
class SeatSpec:
    """A seat at game creation: a person (name, email) or a bot."""

    name: str
    email: str = ""
    is_bot: bool = False
    timezone: str = "UTC"
    bot_level: str = "normal"
    # The language of the seat's pages and mails (pbem.i18n.LANGUAGES); None: unchosen.
    language: str | None = None


PENDING_LAPSES = timedelta(days=1)  # a game's first step waits this long for its second


@dataclass
class CreatedGame:
    game_id: str
    tokens: list[str | None]
    commitment: str


@dataclass
class LoadedGame:
    """What a move reads, as plain rows: the game, its sealed seed, the seats (in seat
    order) and the clocks the seats have."""

    game: GameRow
    seed: str
    seats: list[SeatRow]
    clocks: dict[int, ClockRow]
    # The contributions' mix (chance scheme 2), None for a game drawing from its seed alone.
    mix: str | None = None


_GAMES, _SEATS, _CLOCKS = Game.__table__, Seat.__table__, SeatClock.__table__
_SECRETS = GameSecret.__table__
# The columns a move and its listeners use (the game's times and result, a seat's creation,
# a clock's vacation days are left out: a move that ends the game reads the full rows).
_GAME_COLUMNS = [
    column.key
    for column in _GAMES.columns
    if column.key not in ("created_at", "finished_at", "result", "options")
]
_SEAT_COLUMNS = [column.key for column in _SEATS.columns if column.key != "created_at"]
_CLOCK_COLUMNS = [column.key for column in _CLOCKS.columns if column.key != "vacation_days_used"]


def _row_type(name: str, model: type, columns: Sequence[str]) -> type:
    """A plain row type for a move's read: ``columns`` of ``model``'s table, in the order
    the move's query selects them, typed as the model types them."""
    hints = {**model.__annotations__}
    row_type = make_dataclass(name, [(column, hints.get(column, Any)) for column in columns])
    row_type.__module__ = __name__
    return row_type


# A move reads the game, its seats and their clocks as these plain rows (not ORM
# objects): the columns listed above, built from the query's row by position.
GameRow = _row_type("GameRow", Game, _GAME_COLUMNS)
SeatRow = _row_type("SeatRow", Seat, _SEAT_COLUMNS)
ClockRow = _row_type("ClockRow", SeatClock, _CLOCK_COLUMNS)
_MOVE_QUERY = (
    core_select(
        *[
            (
                case((_SEATS.c.seat == literal_column("0"), column), else_=None).label(
                    f"g_{column.key}"
                )
                if isinstance(column.type, JSON)  # read once, from seat 0's row
                else column.label(f"g_{column.key}")
            )
            for column in _GAMES.columns
            if column.key in _GAME_COLUMNS
        ],
        _SECRETS.c.seed.label("seed"),
        _SECRETS.c.mix.label("mix"),
        *[_SEATS.c[name].label(f"s_{name}") for name in _SEAT_COLUMNS],
        *[_CLOCKS.c[name].label(f"c_{name}") for name in _CLOCK_COLUMNS],
    )
    .select_from(
        _GAMES.join(_SECRETS, _SECRETS.c.game_id == _GAMES.c.id)
        .join(_SEATS, _SEATS.c.game_id == _GAMES.c.id)
        .outerjoin(
            _CLOCKS, and_(_CLOCKS.c.game_id == _SEATS.c.game_id, _CLOCKS.c.seat == _SEATS.c.seat)
        )
    )
    .where(_GAMES.c.id == bindparam("game_id"))
    .order_by(_SEATS.c.seat)
)
_MOVE_READ = Prepared(_MOVE_QUERY)
# Where each part of the row starts: the game's columns, the seed, a seat's, a clock's.
_SEED_AT = len(_GAME_COLUMNS)
_SEAT_AT = _SEED_AT + 2
_CLOCK_AT = _SEAT_AT + len(_SEAT_COLUMNS)
_HEAD_SEQ = Prepared(core_select(_GAMES.c.head_seq).where(_GAMES.c.id == bindparam("game_id")))
_HEAD_COLUMNS = (
    "head_seq",
    "head_hash",
    "head_state",
    "to_move",
    "phase",
    "turn_started_at",
    "updated_at",
)
_HEAD_UPDATE = Prepared(
    _GAMES.update()
    .where(_GAMES.c.id == bindparam("b_game"))
    .values({name: bindparam(name) for name in _HEAD_COLUMNS})
)
# A game's ``updated_at`` (its last activity: the listings' order and keyset) moves on
# when a move comes at least this long after the time it holds. Both listing indexes
# are keyed on it, so a move within the step leaves them as they are: a player's run of
# moves, or a busy game, rewrites them once a minute instead of at every move. Nothing
# shows the time itself; the game's end and every other change set it exactly.
ACTIVITY_STEP = timedelta(minutes=1)
_HEAD_UPDATE_SAME_ACTIVITY = Prepared(
    _GAMES.update()
    .where(_GAMES.c.id == bindparam("b_game"))
    .values({name: bindparam(name) for name in _HEAD_COLUMNS if name != "updated_at"})
)
_SEAT_UPDATE = Prepared(
    _SEATS.update()
    .where(_SEATS.c.game_id == bindparam("b_game"), _SEATS.c.seat == bindparam("b_seat"))
    .values(
        due=bindparam("due"),
        due_since=bindparam("due_since"),
        last_move_seq=bindparam("last_move_seq"),
    )
)


def named_phase(engine: Engine, state: Any, seats: Sequence[Any]) -> str:
    """The phase line the read model keeps (lobby, mails, ``pbem games``): the engine's
    public phase with the player to act named (and coloured) in place of ``{seat:N}``.
    Read through the engine's ``phase_line`` (:func:`pbem.games.names.phase_line`): every
    move asks for it, and building the whole public view for one line cost a tenth of a
    move's CPU."""
    phase, marks = names.phase_line(engine, state)
    phase = phase[:200]
    if names.has_placeholder(phase):
        holders = [seat.name for seat in sorted(seats, key=lambda seat: seat.seat)]
        phase = names.fill(phase, holders, marks)[:200]
    return phase


def mark_seat(
    seat: Any,
    due_after: Collection[int],
    due_before: Collection[int],
    now: datetime,
    rows: Sequence[Mapping[str, Any]],
) -> bool:
    """Brings a seat's read-model flags up to the new head (whether it is due, since
    when, its last move among ``rows``): True when any of them changed."""
    was = (seat.due, seat.due_since, seat.last_move_seq)
    is_due = seat.seat in due_after
    if is_due and (not seat.due or seat.seat not in due_before):
        seat.due_since = now
    if not is_due:
        seat.due_since = None
    seat.due = is_due
    for row in rows:
        if row["seat"] == seat.seat and row["kind"] in ("move", "auto_move"):
            seat.last_move_seq = row["seq"]
    return (seat.due, seat.due_since, seat.last_move_seq) != was


def _bots_due(session: Session, game: Game) -> bool:
    """Whether, in ``session``'s transaction after an event, a bot seat of ``game`` is due
    (through the partial index ix_seats_due_bots) while the game runs."""
    if game.status != "active" or game.paused_at is not None:
        return False
    session.flush()
    found = session.exec(
        select(Seat.seat)
        .where(
            Seat.game_id == game.id,
            Seat.due == True,  # noqa: E712 - a SQL comparison
            Seat.is_bot == True,  # noqa: E712
        )
        .limit(1)
    ).first()
    return found is not None


class GameService:
    """The application service over one database."""

    # Due bots move right after the event that made them due (:meth:`after_commit`);
    # False leaves them to the scheduler's sweep, as a crash between the two would.
    bots_at_once: bool = True
    # The background runner that plays bots at slow levels (:mod:`pbem.games.bot_runner`;
    # set by the scheduler's start in ``pbem serve`` and ``pbem worker``). None: they
    # wait for the sweep.
    runner: BotRunner | None = None

    def __init__(
        self,
        db: SqlEngine,
        snapshot_every: int = 50,
        clock: Callable[[], datetime] = utcnow,
        listeners: Sequence[Listener] = (),
        secret_key: str | None = None,
    ):
        """``secret_key`` seals the seeds of running games (every server process has
        one; a bare service without it, for tests and benchmarks, stores them plain)."""
        self.db = db
        self.secret_key = secret_key
        self.store = EventStore(db, snapshot_every)
        self.clock = clock
        self.listeners: list[Listener] = list(listeners)
        self.notice_listeners: list[NoticeListener] = []
        self.connections = KeptConnections.of(db)

    def tell(self, session: Session, notice: Notice) -> None:
        """Hands ``notice`` to every notice listener, in the transaction of ``session``
        (the one that wrote what the notice tells; see :mod:`pbem.games.notices`)."""
        for listener in self.notice_listeners:
            listener(session, notice)

    def session(self) -> Session:
        """A session for work that writes (on SQLite it takes the write lock at once)."""
        return Session(self.db, expire_on_commit=False)

    def reading(self) -> Session:
        """A session for work that only reads: on SQLite it begins deferred, reads a
        snapshot and never waits for a writer (it may not write)."""
        return Session(for_reads(self.db), expire_on_commit=False)

    # Creating ------------------------------------------------------------------------

    def create_game(
        self,
        engine_slug: str,
        seats: Sequence[SeatSpec],
        options: Mapping[str, Any] | None = None,
        *,
        title: str = "",
        policy: Mapping[str, Any] | None = None,
        creator_seat: int | None = 0,
        actor: str = "",
        seed: bytes | None = None,
        game_id: str | None = None,
        version: int | None = None,
        private: bool = False,
        contributions: Sequence[Mapping[str, Any]] | None = None,
        pending: str | None = None,
        chance_scheme: int = chance_mod.SCHEME,
    ) -> CreatedGame:
        """Creates a game: event 0 with the seed's commitment, one token per human seat.
        A ``private`` game is not listed (its pages open by their links only).

        The game plays on ``version`` of the engine to its end (the newest when None).

        Its draws mix the server's seed with ``contributions`` (records of
        :func:`pbem.eventlog.contributions.record`: the creator's, and an open game's
        joiners'), which cover the set-up. ``pending``: the id of a :class:`PendingGame`
        (:meth:`begin_game`) whose seed was committed to before the contributions were
        given; the game takes its id and seed, and the pending row goes in the same
        transaction (a second try is refused). Without either, the server draws the
        creator's contribution itself, marked so (internal callers, tests, benches).
        ``chance_scheme`` 1 makes a game that draws from the seed alone (as every game
        made before contributions did; for tests of old logs).
        """
        engine, resolved, policy, names, roster = self.check_game(
            engine_slug, seats, options, policy=policy, creator_seat=creator_seat, version=version
        )
        if pending is not None:
            if seed is not None or (game_id is not None and game_id != pending):
                raise ValueError("a pending game brings its own seed and id")
            seed, game_id = self._pending_seed(pending)
        seed = seed or chance_mod.new_seed()
        game_id = game_id or new_game_id()
        now = self.clock()
        mix = None
        given: list[dict[str, Any]] = []
        if chance_scheme == 2:
            if contributions is None:
                contributions = [
                    contrib.record(creator_seat, "creator", "server", chance_mod.new_contribution())
                ]
            given = [
                contrib.server_drawn(seed, game_id, entry)
                if entry.get("by") == "server"
                else dict(entry)
                for entry in contributions
            ]
            for entry in given:
                problem = contrib.problem(entry, len(seats))
                if problem:
                    raise BadInput(T("A contribution is not valid: %(problem)s.", problem=problem))
            mix = chance_mod.mix_of([entry["sha256"] for entry in given])
        elif chance_scheme != 1 or contributions:
            raise ValueError("chance scheme 1 takes no contributions")
        recording = chance_mod.RecordingChance(seed, game_id, 0, mix)
        try:
            state = engine.setup(len(seats), resolved, recording)
        except ValueError as error:
            raise BadInput(words(error)) from None
        digest = self.store.digest(seed, engine, state)
        payload = {
            "engine": engine.slug,
            "engine_version": engine.version,
            "options": resolved,
            "seats": len(seats),
            "commitment": chance_mod.commitment(seed),
            "title": title,
            "roster": roster.to_json(),
        }
        if chance_scheme == 2:
            payload["chance"] = 2
            payload["contributions"] = given
        # The creator contributed at creation, whichever way (a seat gives one).
        contributed = {entry["seat"] for entry in given}
        row = self.store.new_row(
            game_id=game_id,
            seq=0,
            prev_hash=GENESIS_HASH,
            kind="created",
            seat=None,
            payload=payload,
            chance=recording.drawn,
            state_digest=digest,
            actor=actor,
            created_at=timestamp(now),
        )
        tokens: list[str | None] = []
        with self.session() as session:
            game = Game(
                id=game_id,
                engine=engine.slug,
                engine_version=engine.version,
                title=title or engine.title,
                options=resolved,
                seat_count=len(seats),
                commitment=payload["commitment"],
                head_seq=0,
                head_hash=row["hash"],
                policy=policy,
                creator_seat=creator_seat,
                private=bool(private),
                created_at=now,
                updated_at=now,
            )
            if pending is not None:
                waiting = session.get(PendingGame, pending)
                if waiting is None:
                    raise Rejected(
                        T(
                            "This game was made already (or its first step lapsed); nothing "
                            "more was done."
                        )
                    )
                session.delete(waiting)
                session.flush()
            session.add(game)
            session.add(
                GameSecret(game_id=game_id, seed=seal_seed(self.secret_key, game_id, seed), mix=mix)
            )
            for index, spec in enumerate(seats):
                token = None if spec.is_bot else new_token()
                tokens.append(token)
                session.add(
                    Seat(
                        game_id=game_id,
                        seat=index,
                        name=names[index],
                        email=spec.email.strip(),
                        token_hash=hash_token(token) if token else None,
                        is_bot=spec.is_bot,
                        bot_level=spec.bot_level if spec.is_bot else "normal",
                        timezone=spec.timezone or "UTC",
                        language=spec.language,
                        contributed=index in contributed,
                        created_at=now,
                    )
                )
            session.flush()
            self.store.add_rows(session, engine, [row], [state])
            self._finish_transition(
                session, game, engine, [row], None, state, frozenset(), tokens=tokens
            )
            self.store.commit(session, game_id, -1)
        return CreatedGame(game_id, tokens, payload["commitment"])

    def check_game(
        self,
        engine_slug: str,
        seats: Sequence[SeatSpec],
        options: Mapping[str, Any] | None = None,
        *,
        policy: Mapping[str, Any] | None = None,
        creator_seat: int | None = 0,
        version: int | None = None,
    ) -> tuple[Engine, dict, dict, list[str], Roster]:
        """What :meth:`create_game` refuses, checked without making anything (a game made
        in two steps is checked before its seed is drawn): the engine, the resolved
        options and policy, the seats' names and the roster."""
        if engine_slug not in REGISTRY:
            raise BadInput(T("There is no game called %(slug)s.", slug=repr(engine_slug)))
        try:
            engine = get_engine(engine_slug, version)
        except KeyError as error:
            raise BadInput(words(error)) from None
        levels = bot_levels_of(engine)
        for spec in seats:
            if spec.is_bot and spec.bot_level not in levels:
                raise BadInput(
                    T(
                        "A bot plays %(title)s at one of these levels: %(levels)s.",
                        title=engine.title,
                        levels=", ".join(levels),
                    )
                )
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
        try:
            resolved = resolve_options(engine, options)
        except ValueError as error:
            raise BadInput(words(error)) from None
        policy = check_policy(policy)
        if creator_seat is not None and (
            isinstance(creator_seat, bool)
            or not isinstance(creator_seat, int)
            or not 0 <= creator_seat < len(seats)
        ):
            raise BadInput(T("The game's creator must hold one of its seats."))
        names = [
            clean_name(spec.name, required=False) or f"Player {index + 1}"
            for index, spec in enumerate(seats)
        ]
        check_unique_names(names)
        roster = Roster(
            tuple(
                Holder(name, spec.is_bot, spec.bot_level if spec.is_bot else "normal")
                for name, spec in zip(names, seats, strict=True)
            ),
            creator_seat,
            policy,
        )
        return engine, resolved, policy, names, roster

    def begin_game(self, contributions: Sequence[Mapping[str, Any]] = ()) -> tuple[str, str]:
        """The first step of making a game in two: the server draws the seed and keeps
        it sealed (as a running game's seed is) under the id the game will have, before
        anyone contributes. Returns ``(id, commitment)``; :meth:`create_game` with
        ``pending=id`` is the second step (:meth:`add_pending_contribution` adds one
        before it)."""
        seed = chance_mod.new_seed()
        game_id = new_game_id()
        now = self.clock()
        with self.session() as session:
            # First steps never taken lapse (an open game's waits while it is listed).
            session.exec(
                delete(PendingGame).where(
                    col(PendingGame.created_at) < now - PENDING_LAPSES,
                    col(PendingGame.id).not_in(select(OpenGame.id)),
                )
            )
            session.add(
                PendingGame(
                    id=game_id,
                    seed=seal_seed(self.secret_key, game_id, seed),
                    commitment=chance_mod.commitment(seed),
                    contributions=[dict(entry) for entry in contributions],
                    created_at=now,
                )
            )
            session.commit()
        return game_id, chance_mod.commitment(seed)

    def pending_game(self, pending: str, lapses: bool = True) -> PendingGame:
        """A game's first step, still waiting (:class:`Rejected` once made, or lapsed
        after :data:`PENDING_LAPSES` unless ``lapses`` is false: an open game waits for
        its players as long as it is listed)."""
        if not isinstance(pending, str) or not 1 <= len(pending) <= 32:
            raise BadInput(T("The form names no game waiting to be made."))
        with self.reading() as session:
            row = session.get(PendingGame, pending)
        if row is None:
            if self.game_exists(pending):
                raise Rejected(T("This game was made already; nothing more was done."))
            raise Rejected(
                T(
                    "This form is not one the server gave (or its first step lapsed): start "
                    "again from the lobby. Nothing was done."
                )
            )
        created = row.created_at if row.created_at.tzinfo else row.created_at.replace(tzinfo=UTC)
        if lapses and self.clock() - created > PENDING_LAPSES:
            raise Rejected(
                T(
                    "This form waited too long (its first step lapsed): start again from the "
                    "lobby. Nothing was done."
                )
            )
        return row

    def game_exists(self, game_id: str) -> bool:
        with self.reading() as session:
            return session.get(Game, game_id) is not None

    def _pending_seed(self, pending: str) -> tuple[bytes, str]:
        row = self.pending_game(pending, lapses=False)
        return open_seed(self.secret_key, row.id, row.seed), row.id

    def drop_pending(self, pending: str) -> None:
        """Forgets a game's first step (an open game called off)."""
        with self.session() as session:
            row = session.get(PendingGame, pending)
            if row is not None:
                session.delete(row)
                session.commit()

    # Contributions -------------------------------------------------------------------

    def contribute(
        self,
        game_id: str,
        seat: int,
        value: Any = None,
        by: str = "server",
        *,
        expected_seq: int | None = None,
        actor: str = "",
    ) -> MoveOutcome:
        """A seat's contribution to the draws (once per seat, a person's seat, while the
        game runs): a ``contribution`` event; every draw after it mixes it in. ``value``
        None: the server draws it (``by`` is then "server")."""
        if value is None or by == "server":
            # Fixed by the seed: the server has no choice of it (pbem verify checks it).
            with self.reading() as session:
                value = chance_mod.server_contribution(
                    self._seed(session, game_id), game_id, str(seat)
                )
            by = "server"
        try:
            value = chance_mod.clean_contribution(value)
        except ValueError as error:
            raise BadInput(words(error)) from None
        if by not in chance_mod.ROADS:
            raise BadInput(
                T("A contribution comes by the browser, the command line or the server.")
            )
        entry = contrib.record(seat, "player", by, value)
        payload = {key: entry[key] for key in ("role", "by", "sha256", "contribution")}
        with self.reading() as session:
            holder = session.get(Seat, (game_id, seat)) if isinstance(seat, int) else None
        if holder is None:
            raise NotFound(T("There is no such seat."))
        payload["name"] = holder.name

        def change(session: Session, game: Game) -> None:
            row = session.get(Seat, (game_id, seat))
            secret = session.get(GameSecret, game_id)
            if row is None:
                raise NotFound(T("There is no such seat."))
            if secret is None or secret.mix is None:
                raise Rejected(
                    T(
                        "This game draws from its seed alone (it was made before contributions); "
                        "nothing was done."
                    )
                )
            if game.status != "active":
                raise Rejected(T("This game is over; its draws are all made. Nothing was done."))
            if row.is_bot:
                raise Rejected(T("A bot's seat gives no contribution."))
            if row.contributed:
                raise Rejected(
                    T(
                        "This seat has given its contribution already (a seat gives one); "
                        "nothing was done."
                    )
                )
            row.contributed = True
            secret.mix = chance_mod.mix_with(secret.mix, entry["sha256"])
            session.add(row)
            session.add(secret)

        return self.append_admin(
            game_id,
            contrib.KIND,
            seat,
            payload,
            actor=actor,
            expected_seq=expected_seq,
            change=change,
        )

    def contributions(self, game_id: str) -> contrib.MixFold | None:
        """The game's contributions to the dice and the events each set covers (None
        for a game that draws from its seed alone)."""
        with self.reading() as session:
            game = self.store.game(session, game_id)
            rows = self.store.rows(session, game_id, -1, 0)
            rows += [
                {"seq": row.seq, "kind": row.kind, "seat": row.seat, "payload": row.payload}
                for row in session.exec(
                    select(Event)
                    .where(Event.game_id == game_id, Event.kind == contrib.KIND)
                    .order_by(col(Event.seq))
                )
            ]
        return contrib.fold_rows(rows, game.head_seq)

    def needs_contribution(self, game_id: str, seat: int) -> bool:
        """Whether the seat (a person's, in a running game drawing with contributions)
        has not given its contribution yet."""
        with self.reading() as session:
            row = session.get(Seat, (game_id, seat))
            secret = session.get(GameSecret, game_id)
            game = session.get(Game, game_id)
        return bool(
            row is not None
            and secret is not None
            and secret.mix is not None
            and game is not None
            and game.status == "active"
            and not row.is_bot
            and not row.contributed
        )

    def contribute_before_move(
        self,
        game_id: str,
        seat: int,
        expected_seq: Any,
        move: Any = None,
        actor: str = "server",
        loaded: LoadedGame | None = None,
    ) -> Any:
        """A seat's first move came without a contribution (by mail, the API, or a page
        without script): the server draws one for it, marked so, just before the move.
        Returns the seq the move should now be based on (one more when the contribution
        landed right after ``expected_seq``). Nothing is drawn for a move that will be
        refused anyway (stale, not the seat's turn, paused, illegal). ``loaded``: the game
        as the move read it; then a seat that needs nothing costs no read at all."""
        if loaded is not None:
            row = next((row for row in loaded.seats if row.seat == seat), None)
            if loaded.mix is None or row is None or row.is_bot or row.contributed:
                return expected_seq
        if not self.needs_contribution(game_id, seat):
            return expected_seq
        head = self.head(game_id)
        if (
            head.seq != expected_seq
            or head.game.paused_at is not None
            or seat not in head.engine.to_move(head.state)
        ):
            return expected_seq
        if move is not None:
            trial = chance_mod.RecordingChance(chance_mod.new_seed(), game_id, head.seq + 1)
            try:
                head.engine.apply(head.state, seat, dict(move), trial)
            except Exception:  # noqa: BLE001 - the move itself answers for what is wrong
                return expected_seq
        try:
            outcome = self.contribute(game_id, seat, None, "server", actor=actor)
        except (Conflict, Rejected):
            return expected_seq
        if isinstance(expected_seq, int) and outcome.seq == expected_seq + 1:
            return outcome.seq
        return expected_seq

    # Reading -------------------------------------------------------------------------

    def head(self, game_id: str) -> Head:
        with self.reading() as session:
            return self.store.head(session, game_id)

    def game(self, game_id: str) -> Game:
        with self.reading() as session:
            return self.store.game(session, game_id)

    def seats(self, game_id: str) -> list[Seat]:
        with self.reading() as session:
            self.store.game(session, game_id)
            return list(
                session.exec(select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.seat)))
            )

    def games(self, status: str | None = None) -> list[Game]:
        with self.reading() as session:
            query = select(Game).order_by(col(Game.updated_at).desc())
            if status:
                query = query.where(Game.status == status)
            return list(session.exec(query))

    def list_games(
        self,
        status: str | None = None,
        engine: str | None = None,
        after: str | None = None,
        limit: int = LISTING_PAGE,
    ) -> GamePage:
        """One page of the game list (see :func:`pbem.games.listing.list_games`)."""
        return listing.list_games(self, status, engine, after, limit)

    def state_at(self, game_id: str, seq: int | None = None) -> tuple[Engine, Any, int]:
        with self.reading() as session:
            game = self.store.game(session, game_id)
            engine = game_engine(game)
            at = game.head_seq if seq is None else seq
            if at == game.head_seq and game.head_state is not None:
                return engine, engine.load(game.head_state), at
            return engine, self.store.state_at(session, game, engine, at), at

    def view(self, game_id: str, seat: int | None, seq: int | None = None) -> dict:
        engine, state, _ = self.state_at(game_id, seq)
        return engine.view(state, seat)

    def events(self, game_id: str, after: int = -1, upto: int | None = None) -> list[dict]:
        with self.reading() as session:
            self.store.game(session, game_id)
            return self.store.rows(session, game_id, after, upto)

    def seat_for_token(self, token: str) -> Seat:
        """The seat a link token opens; a forged or revoked token is simply not found."""
        if not isinstance(token, str) or not 20 <= len(token) <= 100:
            raise NotFound(T("This link is not valid (it may have been replaced)."))
        with self.reading() as session:
            seat = session.exec(select(Seat).where(Seat.token_hash == hash_token(token))).first()
            if seat is None:
                raise NotFound(T("This link is not valid (it may have been replaced)."))
            return seat

    def rotate_token(self, game_id: str, seat: int) -> str:
        """A fresh link for a seat; the old one stops working at once."""
        token = new_token()
        with self.session() as session:
            row = session.get(Seat, (game_id, seat))
            if row is None:
                raise NotFound(T("There is no such seat."))
            row.token_hash = hash_token(token)
            session.add(row)
            session.commit()
        return token

    # Moving --------------------------------------------------------------------------

    def submit_move(
        self,
        game_id: str,
        seat: int,
        move: Any,
        expected_seq: int,
        *,
        kind: str = "move",
        actor: str = "",
        loaded: LoadedGame | None = None,
        listeners: Sequence[Listener] = (),
    ) -> MoveOutcome:
        """Applies a seat's move prepared at ``expected_seq`` and appends it.

        A stale ``expected_seq`` gets :class:`Conflict`, unless the very same move by the
        same seat already landed there: then it is answered as the success it was.

        ``loaded``: the game as the caller read it (:meth:`load_for_move`, in a
        transaction of its own just before), so the move reads nothing; a writer that
        moved in between loses on the event's key (:class:`Conflict`). ``listeners`` hear
        this move alone, after the service's own, in its transaction (their writes join
        its batch, :func:`pbem.db.write`).
        """
        if not isinstance(move, Mapping) or not isinstance(move.get("type"), str):
            raise BadInput(T('A move must be a JSON object with a "type".'))
        if isinstance(expected_seq, bool) or not isinstance(expected_seq, int):
            raise BadInput(T("The move must say which event it was based on (a whole number)."))
        with self.connections.connect() as connection:
            connection.begin()
            # The ORM session works on the move's own connection and transaction (it
            # rolls back with it, it never commits it); only uncommon paths use it.
            session = Session(bind=connection, expire_on_commit=False)
            try:
                outcome = self._move(
                    connection,
                    session,
                    game_id,
                    seat,
                    move,
                    expected_seq,
                    kind,
                    actor,
                    loaded,
                    [*self.listeners, *listeners],
                )
            finally:
                if session.in_transaction():
                    session.close()  # a session never used holds nothing
        return self.after_commit(game_id, outcome)

    def _move(
        self,
        connection: Connection,
        session: Session,
        game_id: str,
        seat: int,
        move: Mapping,
        expected_seq: int,
        kind: str,
        actor: str,
        loaded: LoadedGame | None,
        listeners: Sequence[Listener],
    ) -> MoveOutcome:
        """:meth:`submit_move` in its open transaction."""
        if loaded is None:
            with read_alone(connection):
                loaded = self.load_for_move(connection, game_id)
        game = loaded.game
        engine = game_engine(game)
        if game.head_seq != expected_seq:
            duplicate = (
                self._duplicate(session, game_id, seat, move, expected_seq)
                if expected_seq < game.head_seq
                else None  # a seq from the future: nothing can have landed after it
            )
            if duplicate is not None:
                return duplicate
            raise Conflict(T("The game moved on since this page was shown."), game.head_seq)
        if game.status != "active":
            raise Rejected(T("This game is over; no more moves can be made."))
        if game.paused_at is not None:
            raise Rejected(T("The game is paused; no moves until it is resumed. Nothing was done."))
        if not 0 <= seat < game.seat_count:
            raise NotFound(T("There is no such seat in this game."))
        if game.head_state is not None:
            state = engine.load(game.head_state)
        else:
            state = self.store.state_at(session, game, engine, game.head_seq)
        due = engine.to_move(state)
        if seat not in due:
            raise Rejected(T("It is not your turn."))
        seq = game.head_seq + 1
        recording_seed = open_seed(self.secret_key, game_id, loaded.seed)
        recording = chance_mod.RecordingChance(recording_seed, game_id, seq, loaded.mix)
        try:
            after = engine.apply(state, seat, dict(move), recording)
        except IllegalMove as error:
            raise Rejected(
                names.fill(
                    error.reason,
                    [row.name for row in loaded.seats],
                    names.public_marks(engine, state),
                )
                if names.has_placeholder(error.reason)
                else error.reason
            ) from None
        now = timestamp(self.clock())
        row = self.store.new_row(
            game_id=game_id,
            seq=seq,
            prev_hash=game.head_hash,
            kind=kind,
            seat=seat,
            payload={"move": dict(move)},
            chance=recording.drawn,
            state_digest=self.store.digest(recording_seed, engine, after),
            actor=actor,
            created_at=now,
        )
        due_after = engine.to_move(after)
        if due_after:
            # The common case: the game goes on. Plain statements, no unit of work.
            batch = session.info[BATCH] = Batch(connection)
            try:
                self._append_move(batch, session, loaded, engine, row, state, after, due, listeners)
                if session.in_transaction():
                    session.flush()  # what a listener left to the session
                batch.flush()
            except IntegrityError:
                # Another writer appended this seq first (or its mail record).
                self._conflict(connection, game_id, seq - 1)
            self._commit(connection, game_id, seq - 1)
            bots_due = any(other.is_bot and other.seat in due_after for other in loaded.seats)
            return MoveOutcome(row["seq"], after, row["hash"], events=[row], bots_due=bots_due)
        # The game ends: the seed is revealed in a second event, and the read model
        # and the listeners (the result mails) go through the full path.
        orm_game = self.store.game(session, game_id)
        rows, states = [row], [after]
        rows.append(self._reveal_row(session, engine, game_id, seq + 1, row["hash"], after, now))
        states.append(after)
        # Everything is written in one flush at the end (a lost race surfaces there).
        with session.no_autoflush:
            self.store.add_rows(session, engine, rows, states, flush=False)
            self._finish_transition(
                session, orm_game, engine, rows, state, after, due, listeners=listeners
            )
        try:
            session.flush()
        except IntegrityError:
            self._conflict(connection, game_id, seq - 1)
        self._commit(connection, game_id, seq - 1)
        return MoveOutcome(rows[-1]["seq"], after, rows[-1]["hash"], events=rows)

    def _commit(self, connection: Connection, game_id: str, expected_head: int) -> None:
        """Commits a move's transaction; a lost race on a key (or, on SQLite, a lock
        that could not be had) becomes :class:`Conflict`, as in
        :meth:`EventStore.commit`."""
        try:
            connection.commit()
        except (IntegrityError, OperationalError) as error:
            if isinstance(error, OperationalError) and "locked" not in str(error).lower():
                raise
            self._conflict(connection, game_id, expected_head)

    def _conflict(self, connection: Connection, game_id: str, expected_head: int) -> None:
        """Rolls back a move that collided on a key and raises :class:`Conflict` with the
        game's head as it is now."""
        connection.rollback()
        found = _HEAD_SEQ.rows(connection, {"game_id": game_id})
        connection.rollback()
        fresh = found[0][0] if found else expected_head
        raise Conflict(T("The game moved on: someone else moved first."), fresh) from None

    def load_for_move(self, connection: Connection, game_id: str) -> LoadedGame:
        """The game row, its stored seed, its seats and their clocks in one query (the
        game's JSON columns ride on seat 0's row only, so a large head state is read once):
        what a move reads. :class:`NotFound` when there is no such game."""
        if not isinstance(game_id, str):
            raise NotFound(T("There is no such game."))
        found = _MOVE_READ.rows(connection, {"game_id": game_id}, repeated=_SEED_AT)
        if not found:
            raise NotFound(T("There is no such game."))
        first = found[0]
        game = GameRow(*first[:_SEED_AT])
        seats, clocks = [], {}
        for values in found:
            seat = SeatRow(*values[_SEAT_AT:_CLOCK_AT])
            seats.append(seat)
            if values[_CLOCK_AT] is not None:
                clocks[seat.seat] = ClockRow(*values[_CLOCK_AT:])
        return LoadedGame(game, first[_SEED_AT], seats, clocks, first[_SEED_AT + 1])

    def _append_move(
        self,
        batch: Batch,
        session: Session,
        loaded: LoadedGame,
        engine: Engine,
        row: dict,
        before: Any,
        after: Any,
        due_before: frozenset[int],
        listeners: Sequence[Listener],
    ) -> None:
        """Writes a move that does not end the game with plain statements into the move's
        batch (:class:`pbem.db.Batch`): the event (and its snapshot when one is due), the
        game's head, the seats whose turn or last move changed, then calls ``listeners``
        with the seats and clocks already read (their writes join the batch)."""
        game = loaded.game
        self.store.add_rows(None, engine, [row], [after], batch=batch)
        now = self.clock()
        due_after = engine.to_move(after)
        started = set(due_after) != set(game.to_move or [])
        phase = named_phase(engine, after, loaded.seats)
        values: dict[str, Any] = {
            "head_seq": row["seq"],
            "head_hash": row["hash"],
            "head_state": engine.dump(after),
            "to_move": sorted(due_after),
            "phase": phase,
            "turn_started_at": now if started else game.turn_started_at,
        }
        if game.updated_at is None or now - game.updated_at >= ACTIVITY_STEP:
            values["updated_at"] = now
            batch.add(_HEAD_UPDATE, {"b_game": game.id, **values})
        else:
            batch.add(_HEAD_UPDATE_SAME_ACTIVITY, {"b_game": game.id, **values})
        for name, value in values.items():
            setattr(game, name, value)
        changed = []
        for seat in loaded.seats:
            if mark_seat(seat, due_after, due_before, now, [row]):
                changed.append(
                    {
                        "b_game": game.id,
                        "b_seat": seat.seat,
                        "due": seat.due,
                        "due_since": seat.due_since,
                        "last_move_seq": seat.last_move_seq,
                    }
                )
        if changed:
            batch.add(_SEAT_UPDATE, changed)
        transition = Transition(
            game=game,
            engine=engine,
            events=[row],
            before=before,
            after=after,
            due_before=frozenset(due_before),
            due_after=frozenset(due_after),
            seats=loaded.seats,
            clocks=loaded.clocks,
        )
        for listener in listeners:
            listener(session, transition)

    def append_admin(
        self,
        game_id: str,
        kind: str,
        seat: int | None,
        payload: Mapping[str, Any],
        actor: str = "",
        expected_seq: int | None = None,
        change: Callable[[Session, Game], None] | None = None,
    ) -> MoveOutcome:
        """Appends an administrative event (seat handed to a bot, vacation, ...).

        ``change`` updates the read model in the same transaction; it sees the game's
        head already at the new event (``head_seq``, ``head_hash``).
        """
        if kind in ("created", "move", "auto_move", "seed_revealed", "engine_upgraded"):
            raise ValueError(f"{kind} is not an administrative event")
        with self.session() as session:
            head = self.store.head(session, game_id)
            if expected_seq is not None and expected_seq != head.seq:
                raise Conflict(T("The game moved on since this page was shown."), head.seq)
            check_roster_change(head.game.seat_count, kind, seat, payload)
            state = head.state
            if kind == "take_back":
                target = payload.get("to_seq")
                state = self.store.state_at(session, head.game, head.engine, target)
            now = timestamp(self.clock())
            row = self.store.new_row(
                game_id=game_id,
                seq=head.seq + 1,
                prev_hash=head.hash,
                kind=kind,
                seat=seat,
                payload=payload,
                chance=[],
                state_digest=self.store.digest(self._seed(session, game_id), head.engine, state),
                actor=actor,
                created_at=now,
            )
            self.store.add_rows(session, head.engine, [row], [state])
            if change is not None:
                # The change (and the mails it writes) sees the game at this event: the
                # receipt in a notice names the event the notice announces.
                head.game.head_seq, head.game.head_hash = row["seq"], row["hash"]
                change(session, head.game)
            due = head.engine.to_move(head.state)
            self._finish_transition(session, head.game, head.engine, [row], head.state, state, due)
            bots_due = _bots_due(session, head.game)
            self.store.commit(session, game_id, head.seq)
        outcome = MoveOutcome(row["seq"], state, row["hash"], events=[row], bots_due=bots_due)
        return self.after_commit(game_id, outcome)

    def after_commit(self, game_id: str, outcome: MoveOutcome) -> MoveOutcome:
        """Once the transaction that wrote ``outcome`` has committed: the bot seats it left
        due move now (:meth:`bots_now`), their count in ``outcome.bot_moves``."""
        if outcome.bots_due:
            outcome.bot_moves = self.bots_now(game_id)
        return outcome

    def bots_now(self, game_id: str) -> int:
        """The due bots of a game move now (:meth:`play_quick_bots`), after a committed
        event; when a bot at a slow level is due, the game goes to the background runner
        (:meth:`hand_off`). Their failure is logged, never raised: the event stands and
        the sweep retries the bots. Inside :meth:`play_bots` (a bot's own move) nothing
        more runs here."""
        if not self.bots_at_once or _PLAYING_BOTS.get():
            return 0
        held = _HELD.get()
        if held is not None:
            held.add(game_id)  # they move when the hold ends
            return 0
        try:
            moved, slow = self.play_quick_bots(game_id)
        except Exception:
            log.exception("the bots of %s did not move; the sweep will retry", game_id)
            return 0
        if slow:
            self.hand_off(game_id)
        return moved

    def hand_off(self, game_id: str) -> bool:
        """Hands ``game_id``, whose due bot plays a slow level, to the background runner
        (True), or leaves it to the scheduler's sweep when this process has none (or it
        waits there already)."""
        runner = self.runner
        if runner is not None and runner.submit(game_id):
            return True
        if runner is None or not runner.running:
            log.debug("a slow bot of %s is due; the scheduler will play it", game_id)
        return False

    @contextmanager
    def bots_held(self, game_id: str) -> Iterator[None]:
        """The bots wait while the block appends one caller's events (the lines of a
        reply by mail to ``game_id``); then those that became due move at once
        (:meth:`bots_now`). A block that left no bot due costs nothing more."""
        waiting: set[str] = set()
        held = _HELD.set(waiting)
        try:
            yield
        finally:
            _HELD.reset(held)
            for game in sorted(waiting):
                self.bots_now(game)

    def play_bots(self, game_id: str, max_moves: int = 500) -> int:
        """Lets bot seats that are due move until a human is due or the game ends (at
        most ``max_moves`` moves, and as many lost races), slow levels too: for the
        background runner, the sweep and whoever else plays on purpose."""
        return self._playing(game_id, max_moves, slow=True)[0]

    def play_quick_bots(self, game_id: str, max_moves: int = 500) -> tuple[int, bool]:
        """:meth:`play_bots` for the bots at quick levels only: the moves made, and
        whether it stopped because only bots at a slow level are due."""
        return self._playing(game_id, max_moves, slow=False)

    def _playing(self, game_id: str, max_moves: int, slow: bool) -> tuple[int, bool]:
        playing = _PLAYING_BOTS.set(True)
        try:
            return self._play_bots(game_id, max_moves, slow)
        finally:
            _PLAYING_BOTS.reset(playing)

    def _play_bots(self, game_id: str, max_moves: int, slow: bool) -> tuple[int, bool]:
        moved = conflicts = 0
        rng = random.Random(secrets.randbits(64))
        while moved < max_moves and conflicts < max_moves:
            head = self.head(game_id)
            if head.game.status != "active" or head.game.paused_at is not None:
                break
            bots = {seat.seat: seat.bot_level for seat in self.seats(game_id) if seat.is_bot}
            due = sorted(head.engine.to_move(head.state) & set(bots))
            if not slow:
                due = [seat for seat in due if not is_slow_bot(head.engine, bots[seat])]
                if not due and head.engine.to_move(head.state) & set(bots):
                    return moved, True
            if not due:
                break
            seat = due[0]
            legal = head.engine.legal_moves(head.state, seat)
            view = head.engine.view(head.state, seat)
            move = engine_bot_move(head.engine, view, legal, rng, bots[seat])
            try:
                self.submit_move(game_id, seat, move, head.seq, kind="auto_move", actor="bot")
            except Conflict:
                conflicts += 1
                continue
            moved += 1
        return moved, False

    # Export, import and verification (see :mod:`pbem.games.portable`) --------------------

    def export_game(self, game_id: str, seat: int | None = None, *, full: bool = False) -> dict:
        """The game's log as a file (see :func:`pbem.games.portable.export_game`)."""
        from pbem.games import portable

        return portable.export_game(self, game_id, seat=seat, full=full)

    def export_text(self, game_id: str, seat: int | None = None, *, full: bool = False) -> str:
        """:meth:`export_game` as JSON text, extended from the one built for an earlier
        head (see :mod:`pbem.games.portable`)."""
        from pbem.games import portable

        return portable.export_text(self, game_id, seat=seat, full=full)

    def import_game(self, data: Any, actor: str = "import") -> str:
        """Imports a full exported log (verified first); the game carries on from there."""
        from pbem.games import portable

        return portable.import_game(self, data, actor)

    def verify_game(self, game_id: str):
        """Verifies the stored chain of a game: hashes, sequence, replayed state hashes."""
        from pbem.games import portable

        return portable.verify_game(self, game_id)

    # Engine upgrades (see :mod:`pbem.games.upgrade`) ---------------------------------------

    def check_engines(self) -> list[dict[str, Any]]:
        """Replays every active game on the engine version it plays; nothing is changed."""
        from pbem.games import upgrade

        return upgrade.check_engines(self)

    def upgrade_check(self, game_id: str, to: int | None = None) -> UpgradeCheck:
        """Whether a game's whole log replays identically on a newer engine version."""
        from pbem.games import upgrade

        return upgrade.upgrade_check(self, game_id, to)

    def upgrade_engine(
        self, game_id: str, to: int | None = None, actor: str = "operator"
    ) -> UpgradeCheck:
        """Moves a game to a newer engine version if its log replays identically there."""
        from pbem.games import upgrade

        return upgrade.upgrade_engine(self, game_id, to, actor)

    def _created_version(self, game_id: str) -> int | None:
        from pbem.games import upgrade

        return upgrade.created_version(self, game_id)

    # Internals -----------------------------------------------------------------------

    def _seed(self, session: Session, game_id: str) -> bytes:
        secret = session.get(GameSecret, game_id)
        if secret is None:
            raise NotFound(T("There is no such game."))
        return open_seed(self.secret_key, game_id, secret.seed)

    def _reveal_row(
        self,
        session: Session,
        engine: Engine,
        game_id: str,
        seq: int,
        prev: str,
        state: Any,
        now: str,
    ) -> dict:
        seed = self._seed(session, game_id)
        return self.store.new_row(
            game_id=game_id,
            seq=seq,
            prev_hash=prev,
            kind="seed_revealed",
            seat=None,
            payload={"seed": seed.hex()},
            chance=[],
            state_digest=self.store.digest(seed, engine, state),
            actor="server",
            created_at=now,
        )

    def _duplicate(
        self, session: Session, game_id: str, seat: int, move: Mapping, expected_seq: int
    ) -> MoveOutcome | None:
        landed = session.get(Event, (game_id, expected_seq + 1))
        if (
            landed is not None
            and landed.kind in ("move", "auto_move")
            and landed.seat == seat
            and canonical_json(landed.payload.get("move")) == canonical_json(dict(move))
        ):
            head = self.store.head(session, game_id)
            return MoveOutcome(landed.seq, head.state, landed.hash, duplicate=True)
        return None

    def _finish_transition(
        self,
        session: Session,
        game: Game,
        engine: Engine,
        rows: list[dict],
        before: Any,
        after: Any,
        due_before: frozenset[int],
        tokens: list[str | None] | None = None,
        listeners: Sequence[Listener] | None = None,
    ) -> None:
        """Updates the read model for the appended rows, then calls the listeners (the
        service's when ``listeners`` is None)."""
        now = self.clock()
        last = rows[-1]
        due_after = engine.to_move(after)
        game.head_seq = last["seq"]
        game.head_hash = last["hash"]
        game.head_state = engine.dump(after)
        game.updated_at = now
        if set(due_after) != set(game.to_move or []):
            game.turn_started_at = now
        game.to_move = sorted(due_after)
        result: Result | None = engine.result(after)
        finished = result is not None and not due_after
        if finished and game.status != "finished":
            game.status = "finished"
            game.result = result.to_json()
            game.finished_at = now
        session.add(game)
        seats = list(session.exec(select(Seat).where(Seat.game_id == game.id)))
        game.phase = named_phase(engine, after, seats)
        changed = []
        for seat in seats:
            if mark_seat(seat, due_after, due_before, now, rows):
                changed.append(seat)
            session.add(seat)
        if len(changed) > 1:
            # The same columns for every changed seat: one batched UPDATE, not one each.
            for seat in changed:
                for name in ("due", "due_since", "last_move_seq"):
                    flag_modified(seat, name)
        transition = Transition(
            game=game,
            engine=engine,
            events=rows,
            before=before,
            after=after,
            due_before=frozenset(due_before),
            due_after=frozenset(due_after),
            finished=finished,
            tokens=tokens,
            seats=seats,
        )
        for listener in self.listeners if listeners is None else listeners:
            listener(session, transition)


GAME_ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"  # no l, o, 0 or 1 to misread


def new_game_id() -> str:
    return "".join(secrets.choice(GAME_ID_ALPHABET) for _ in range(10))


def check_roster_change(
    seats: int, kind: str, seat: int | None, payload: Mapping[str, Any]
) -> None:
    """Refuses an administrative event whose roster data the fold would not accept (a
    seat out of range, a nameless newcomer, an unknown bot level, a policy that is not an
    object), so the log never holds an event its verification would reject."""
    if kind not in roster_mod.ROSTER_KINDS:
        return
    placeholder = roster_mod.Roster(
        tuple(roster_mod.Holder(f"Player {number + 1}") for number in range(seats))
    )
    try:
        roster_mod.apply(placeholder, {"kind": kind, "seat": seat, "payload": payload})
    except roster_mod.RosterError as error:
        raise BadInput(
            T("This change cannot be recorded: %(problem)s.", problem=words(error))
        ) from None
