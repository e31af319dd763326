"""Use cases: create a game, submit a move, read a state, export, import, verify.

Each use case loads what it needs, asks the engine, and appends events in one
transaction with the read model (and, through listeners, the outbox) updated alongside.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import random
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, tuple_
from sqlalchemy.engine import Engine as SqlEngine
from sqlalchemy.orm.attributes import flag_modified
from sqlmodel import Session, col, select

from engines import REGISTRY, at_version, bot_levels_of, get_engine, versions_of
from engines import bot_move as engine_bot_move
from engines.api import Engine, IllegalMove, Result, canonical_json, resolve_options
from pbem import chance as chance_mod
from pbem import seal as sealing
from pbem.bounds import is_count
from pbem.db import for_reads
from pbem.errors import BadInput, Conflict, NotFound, PbemError, Rejected
from pbem.exports import export_text
from pbem.log import GENESIS_HASH, timestamp
from pbem.models import Event, Game, GameSecret, Seat
from pbem.store import EventStore, Head, game_engine
from pbem.validate import clean_name, clean_title, is_game_id

DEFAULT_POLICY = {
    "reminder_after_hours": 24,
    "reminder_every_hours": 24,
    "deadline_after_days": 7,
    "at_deadline": "wait",
}
AT_DEADLINE = ("wait", "bot_turn", "bot_seat", "replace")
SEED_PURPOSE = "game-seed"


class SeedSealed(PbemError):
    """A game's seed is sealed under another server key than this process's."""

    status = 500


def seal_seed(secret_key: str | None, game_id: str, seed: bytes) -> str:
    """How a game's seed is stored: sealed under the server key (bound to the game id),
    or as hex for a bare service built without a key (tests, benchmarks)."""
    if not secret_key:
        return seed.hex()
    return sealing.seal(secret_key, SEED_PURPOSE, seed, context=game_id)


def open_seed(secret_key: str | None, game_id: str, stored: str) -> bytes:
    """The seed :func:`seal_seed` stored; a plain hex seed (a database from before
    seeds were sealed) is read as it is."""
    if not sealing.is_sealed(stored):
        return bytes.fromhex(stored)
    seed = sealing.unseal(secret_key, SEED_PURPOSE, stored, context=game_id) if secret_key else None
    if seed is None:
        raise SeedSealed(
            f"The seed of game {game_id} is sealed under another server key: "
            "configure the key this database was written with."
        )
    return seed


# The largest values a deadline policy may hold (a year), so that every date stays finite.
POLICY_LIMITS = {
    "reminder_after_hours": 24 * 365,
    "reminder_every_hours": 24 * 365,
    "deadline_after_days": 365,
}


def utcnow() -> datetime:
    return datetime.now(UTC)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A seat's secret link token: 256 random bits."""
    return secrets.token_urlsafe(32)


@dataclass
class SeatSpec:
    """A seat at game creation: a person (name, email) or a bot."""

    name: str
    email: str = ""
    is_bot: bool = False
    timezone: str = "UTC"
    bot_level: str = "normal"


@dataclass
class CreatedGame:
    game_id: str
    tokens: list[str | None]
    commitment: str


@dataclass
class Transition:
    """What one appended batch of events changed: passed to listeners in its transaction."""

    game: Game
    engine: Engine
    events: list[dict[str, Any]]
    before: Any
    after: Any
    due_before: frozenset[int]
    due_after: frozenset[int]
    finished: bool = False
    tokens: list[str | None] | None = None
    seats: list[Seat] = field(default_factory=list)


@dataclass
class MoveOutcome:
    seq: int
    state: Any
    head_hash: str
    duplicate: bool = False
    events: list[dict[str, Any]] = field(default_factory=list)


Listener = Callable[[Session, Transition], None]

# Game listings --------------------------------------------------------------------------

LISTING_PAGE = 50
LISTING_PAGE_MAX = 200
LISTING_STATUSES = ("active", "finished")
# What a listing shows: never head_state, options or policy.
LISTING_COLUMNS = (
    col(Game.id),
    col(Game.engine),
    col(Game.title),
    col(Game.status),
    col(Game.head_seq),
    col(Game.phase),
    col(Game.to_move),
    col(Game.updated_at),
)


@dataclass
class GamePage:
    """One page of a game listing: its rows (id, engine, title, status, head_seq, phase,
    to_move, updated_at), the cursor of the next page (None on the last) and the number
    of games of each status under the same title filter."""

    games: list[Any]
    next: str | None
    counts: dict[str, int]
    status: str | None = None
    engine: str | None = None

    @property
    def total(self) -> int:
        return self.counts.get(self.status, 0) if self.status else sum(self.counts.values())


def check_listing_status(status: str | None) -> str | None:
    if status in (None, ""):
        return None
    if status not in LISTING_STATUSES:
        raise BadInput("The status is active or finished.")
    return status


def check_listing_engine(engine: str | None) -> str | None:
    if engine in (None, ""):
        return None
    if engine not in REGISTRY:
        raise BadInput("There is no game of that name here.")
    return engine


def make_cursor(updated_at: datetime, game_id: str) -> str:
    """The opaque cursor of the page after the game (updated_at, game_id)."""
    raw = f"{updated_at.isoformat()}|{game_id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def read_cursor(cursor: object) -> tuple[datetime, str]:
    """The (updated_at, game id) of a cursor; :class:`BadInput` for anything else."""
    refusal = BadInput("This page link is not valid: start again from the first page.")
    if not isinstance(cursor, str) or not 8 <= len(cursor) <= 200:
        raise refusal
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        stamp, _, game_id = raw.partition("|")
        at = datetime.fromisoformat(stamp)
    except ValueError:
        raise refusal from None
    if not is_game_id(game_id):
        raise refusal
    return at, game_id


@dataclass
class UpgradeCheck:
    """Whether a game can move to a newer engine version, and if not, where it diverges."""

    game_id: str
    engine: str
    from_version: int
    to_version: Any
    ok: bool = False
    message: str = ""
    first_bad_seq: int | None = None
    seq: int | None = None

    def refuse(self, message: str) -> UpgradeCheck:
        self.ok, self.message = False, message
        return self

    def diverge(self, seq: int, message: str) -> UpgradeCheck:
        self.first_bad_seq = seq
        return self.refuse(f"event {seq}: {message}")


class GameService:
    """The application service over one database."""

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
    ) -> CreatedGame:
        """Creates a game: event 0 with the seed's commitment, one token per human seat.

        The game plays on ``version`` of the engine to its end (the newest when None).
        """
        if engine_slug not in REGISTRY:
            raise BadInput(f"There is no game called {engine_slug!r}.")
        try:
            engine = get_engine(engine_slug, version)
        except KeyError as error:
            raise BadInput(str(error.args[0])) from None
        levels = bot_levels_of(engine)
        for spec in seats:
            if spec.is_bot and spec.bot_level not in levels:
                raise BadInput(
                    f"A bot plays {engine.title} at one of these levels: {', '.join(levels)}."
                )
        if not engine.min_seats <= len(seats) <= engine.max_seats:
            raise BadInput(
                f"{engine.title} is for {engine.min_seats} to {engine.max_seats} players, "
                f"not {len(seats)}."
            )
        try:
            resolved = resolve_options(engine, options)
        except ValueError as error:
            raise BadInput(str(error)) from None
        policy = check_policy(policy)
        seed = seed or chance_mod.new_seed()
        game_id = game_id or new_game_id()
        now = self.clock()
        recording = chance_mod.RecordingChance(seed, game_id, 0)
        try:
            state = engine.setup(len(seats), resolved, recording)
        except ValueError as error:
            raise BadInput(str(error)) from None
        digest = self.store.digest(seed, engine, state)
        payload = {
            "engine": engine.slug,
            "engine_version": engine.version,
            "options": resolved,
            "seats": len(seats),
            "commitment": chance_mod.commitment(seed),
            "title": title,
        }
        row = self.store.new_row(
            game_id,
            0,
            GENESIS_HASH,
            "created",
            None,
            payload,
            recording.drawn,
            digest,
            actor,
            timestamp(now),
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
                created_at=now,
                updated_at=now,
            )
            session.add(game)
            session.add(GameSecret(game_id=game_id, seed=seal_seed(self.secret_key, game_id, seed)))
            for index, spec in enumerate(seats):
                token = None if spec.is_bot else new_token()
                tokens.append(token)
                session.add(
                    Seat(
                        game_id=game_id,
                        seat=index,
                        name=spec.name.strip() or f"Player {index + 1}",
                        email=spec.email.strip(),
                        token_hash=hash_token(token) if token else None,
                        is_bot=spec.is_bot,
                        bot_level=spec.bot_level if spec.is_bot else "normal",
                        timezone=spec.timezone or "UTC",
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
        """One page of the game list, newest activity first, paged in the database.

        ``after`` is the ``next`` cursor of the page before (keyset pagination on
        ``(updated_at, id)``): a game created while someone pages appears on the first
        page and shifts nothing; a game that moves goes to the top. Only the columns a
        listing shows are read (never ``head_state``), through one index per query
        (see :class:`pbem.models.Game`). Private games, when they exist, are left out here.
        """
        status = check_listing_status(status)
        engine = check_listing_engine(engine)
        if not is_count(limit, 1, LISTING_PAGE_MAX):
            raise BadInput(f"A page holds 1 to {LISTING_PAGE_MAX} games.")
        filters = []
        if engine:
            filters.append(col(Game.engine) == engine)
        query = select(*LISTING_COLUMNS).where(*filters)
        if status:
            query = query.where(col(Game.status) == status)
        if after:
            at, game_id = read_cursor(after)
            query = query.where(tuple_(col(Game.updated_at), col(Game.id)) < tuple_(at, game_id))
        query = query.order_by(col(Game.updated_at).desc(), col(Game.id).desc()).limit(limit + 1)
        counts_query = select(col(Game.status), func.count()).where(*filters)
        with self.session() as session:
            rows = list(session.exec(query))
            counts = dict(session.exec(counts_query.group_by(col(Game.status))).all())
        more = len(rows) > limit
        rows = rows[:limit]
        return GamePage(
            games=rows,
            next=make_cursor(rows[-1].updated_at, rows[-1].id) if more else None,
            counts={key: counts.get(key, 0) for key in LISTING_STATUSES},
            status=status,
            engine=engine,
        )

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
            raise NotFound("This link is not valid (it may have been replaced).")
        with self.reading() as session:
            seat = session.exec(select(Seat).where(Seat.token_hash == hash_token(token))).first()
            if seat is None:
                raise NotFound("This link is not valid (it may have been replaced).")
            return seat

    def rotate_token(self, game_id: str, seat: int) -> str:
        """A fresh link for a seat; the old one stops working at once."""
        token = new_token()
        with self.session() as session:
            row = session.get(Seat, (game_id, seat))
            if row is None:
                raise NotFound("There is no such seat.")
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
    ) -> MoveOutcome:
        """Applies a seat's move prepared at ``expected_seq`` and appends it.

        A stale ``expected_seq`` gets :class:`Conflict`, unless the very same move by the
        same seat already landed there: then it is answered as the success it was.
        """
        if not isinstance(move, Mapping) or not isinstance(move.get("type"), str):
            raise BadInput('A move must be a JSON object with a "type".')
        if isinstance(expected_seq, bool) or not isinstance(expected_seq, int):
            raise BadInput("The move must say which event it was based on (a whole number).")
        with self.session() as session:
            head, stored_seed = self.store.head_and_seed(session, game_id)
            game, engine = head.game, head.engine
            if head.seq != expected_seq:
                duplicate = self._duplicate(session, game_id, seat, move, expected_seq)
                if duplicate is not None:
                    return duplicate
                raise Conflict("The game moved on since this page was shown.", head.seq)
            if game.status != "active":
                raise Rejected("This game is over; no more moves can be made.")
            if not 0 <= seat < game.seat_count:
                raise NotFound("There is no such seat in this game.")
            due = engine.to_move(head.state)
            if seat not in due:
                raise Rejected("It is not your turn.")
            seq = head.seq + 1
            recording_seed = open_seed(self.secret_key, game_id, stored_seed)
            recording = chance_mod.RecordingChance(recording_seed, game_id, seq)
            try:
                after = engine.apply(head.state, seat, dict(move), recording)
            except IllegalMove as error:
                raise Rejected(error.reason) from None
            now = timestamp(self.clock())
            row = self.store.new_row(
                game_id,
                seq,
                head.hash,
                kind,
                seat,
                {"move": dict(move)},
                recording.drawn,
                self.store.digest(recording_seed, engine, after),
                actor,
                now,
            )
            rows, states = [row], [after]
            if not engine.to_move(after):
                reveal = self._reveal_row(
                    session, engine, game_id, seq + 1, row["hash"], after, now
                )
                rows.append(reveal)
                states.append(after)
            # Everything is written in one flush at the commit (a lost race surfaces there).
            with session.no_autoflush:
                self.store.add_rows(session, engine, rows, states, flush=False)
                self._finish_transition(session, game, engine, rows, head.state, after, due)
            self.store.commit(session, game_id, head.seq)
            return MoveOutcome(rows[-1]["seq"], after, rows[-1]["hash"], events=rows)

    def submit_move_by_token(
        self, token: str, move: Any, expected_seq: int, actor: str = ""
    ) -> MoveOutcome:
        seat = self.seat_for_token(token)
        return self.submit_move(seat.game_id, seat.seat, move, expected_seq, actor=actor)

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

        ``change`` updates the read model in the same transaction.
        """
        if kind in ("created", "move", "auto_move", "seed_revealed", "engine_upgraded"):
            raise ValueError(f"{kind} is not an administrative event")
        with self.session() as session:
            head = self.store.head(session, game_id)
            if expected_seq is not None and expected_seq != head.seq:
                raise Conflict("The game moved on since this page was shown.", head.seq)
            state = head.state
            if kind == "take_back":
                target = payload.get("to_seq")
                state = self.store.state_at(session, head.game, head.engine, target)
            now = timestamp(self.clock())
            row = self.store.new_row(
                game_id,
                head.seq + 1,
                head.hash,
                kind,
                seat,
                payload,
                [],
                self.store.digest(self._seed(session, game_id), head.engine, state),
                actor,
                now,
            )
            self.store.add_rows(session, head.engine, [row], [state])
            if change is not None:
                change(session, head.game)
            due = head.engine.to_move(head.state)
            self._finish_transition(session, head.game, head.engine, [row], head.state, state, due)
            self.store.commit(session, game_id, head.seq)
            return MoveOutcome(row["seq"], state, row["hash"], events=[row])

    def play_bots(self, game_id: str, max_moves: int = 500) -> int:
        """Lets bot seats that are due move until a human is due or the game ends."""
        moved = 0
        rng = random.Random(secrets.randbits(64))
        while moved < max_moves:
            head = self.head(game_id)
            if head.game.status != "active":
                break
            bots = {seat.seat: seat.bot_level for seat in self.seats(game_id) if seat.is_bot}
            due = sorted(head.engine.to_move(head.state) & set(bots))
            if not due:
                break
            seat = due[0]
            legal = head.engine.legal_moves(head.state, seat)
            view = head.engine.view(head.state, seat)
            move = engine_bot_move(head.engine, view, legal, rng, bots[seat])
            try:
                self.submit_move(game_id, seat, move, head.seq, kind="auto_move", actor="bot")
            except Conflict:
                continue
            moved += 1
        return moved

    # Export, import and verification -------------------------------------------------

    def export_game(self, game_id: str, seat: int | None = None, full: bool = False) -> dict:
        """The game's log as a file.

        ``seat`` given: only what that seat may know (its own moves, what it saw of the
        others, every event's hashes as receipts). Otherwise the full log, which carries
        the seed once revealed; ``full=True`` includes it even while the game runs (for
        an operator moving a game to another server).
        """
        return json.loads(export_text(self, game_id, seat=seat, full=full))

    def export_text(self, game_id: str, seat: int | None = None, full: bool = False) -> str:
        """:meth:`export_game` as JSON text, extended from the one built for an earlier
        head (see :mod:`pbem.exports`)."""
        return export_text(self, game_id, seat=seat, full=full)

    def import_game(self, data: Any, actor: str = "import") -> str:
        """Imports a full exported log (verified first); the game carries on from there."""
        from pbem.verify import verify_export

        report = verify_export(data)
        if not report.ok:
            raise BadInput(f"The file does not verify: {report.message}")
        if "seed" not in data and not report.seed_revealed:
            raise BadInput("The file has no seed; only a full export can be imported.")
        game_id = data["game"]["id"]
        rows = data["events"]
        seed = data.get("seed") or report.seed_hex
        engine = report.engines[-1]
        title = clean_title(rows[0]["payload"].get("title"))
        names = data["game"].get("seat_names") or []
        if not isinstance(names, list):
            raise BadInput("The seat names in the file must be a list.")
        names = [clean_name(name, required=False) for name in names]
        with self.session() as session:
            if session.get(Game, game_id) is not None:
                raise BadInput(f"A game with the id {game_id} exists here already.")
            created = rows[0]["payload"]
            now = self.clock()
            game = Game(
                id=game_id,
                engine=engine.slug,
                engine_version=engine.version,
                title=title or engine.title,
                options=created["options"],
                seat_count=created["seats"],
                commitment=created["commitment"],
                head_seq=0,
                head_hash=rows[0]["hash"],
                policy=check_policy(None),
                created_at=now,
                updated_at=now,
            )
            session.add(game)
            session.add(
                GameSecret(
                    game_id=game_id,
                    seed=seal_seed(self.secret_key, game_id, bytes.fromhex(seed)),
                )
            )
            bots = set(data["game"].get("bots") or [])
            levels = data["game"].get("bot_levels")
            levels = levels if isinstance(levels, dict) else {}
            for index in range(game.seat_count):
                name = names[index] if index < len(names) else ""
                session.add(
                    Seat(
                        game_id=game_id,
                        seat=index,
                        name=name or f"Player {index + 1}",
                        is_bot=index in bots,
                        bot_level="easy" if levels.get(str(index)) == "easy" else "normal",
                        created_at=now,
                    )
                )
            session.flush()
            states = report.states
            self.store.add_rows(session, engine, rows, states, report.engines)
            self._finish_transition(
                session, game, engine, list(rows), None, states[-1], frozenset()
            )
            self.store.commit(session, game_id, -1)
        return game_id

    def verify_game(self, game_id: str):
        """Verifies the stored chain of a game: hashes, sequence, replayed state hashes."""
        from pbem.verify import verify_rows

        with self.reading() as session:
            game = self.store.game(session, game_id)
            rows = self.store.rows(session, game_id)
            seed = self._seed(session, game_id)
        return verify_rows(game.engine, rows, seed=seed, game_id=game_id)

    def check_engines(self) -> list[dict[str, Any]]:
        """Replays every active game on the engine version it plays (its own).

        Returns one entry per game: ``ok`` when every state hash matches, otherwise
        the first event whose replay diverges (or why the game cannot be replayed).
        Nothing is changed.
        """
        from pbem.verify import verify_rows

        report = []
        for game in self.games("active"):
            entry: dict[str, Any] = {
                "game_id": game.id,
                "engine": game.engine,
                "created_with": self._created_version(game.id),
                "running": game.engine_version,
                "newest": None,
            }
            engine = REGISTRY.get(game.engine)
            if engine is None:
                entry.update(ok=False, problem="this server has no such engine")
            else:
                entry["newest"] = engine.version
                with self.reading() as session:
                    seed = self._seed(session, game.id)
                outcome = verify_rows(game.engine, self.events(game.id), seed=seed, game_id=game.id)
                entry["ok"] = outcome.ok
                if not outcome.ok:
                    entry["problem"] = outcome.summary()
            report.append(entry)
        return report

    def upgrade_check(self, game_id: str, to: int | None = None) -> UpgradeCheck:
        """Whether a game's whole log replays identically on a newer engine version.

        The log is replayed from its first event on version ``to`` (the newest when
        None) and each state is compared with the recorded one carried over to that
        version: the same state hash at every event, the same draws, no move refused.
        Nothing is changed.
        """
        from pbem.chance import ChanceMismatch
        from pbem.log import (
            UPGRADE_KIND,
            ReplayError,
            apply_event,
            carry_over,
            keyed_state_hash,
            setup_state,
        )
        from pbem.verify import verify_rows

        with self.session() as session:
            game = self.store.game(session, game_id)
            rows = self.store.rows(session, game_id)
            seed = self._seed(session, game_id)
        current = game_engine(game)
        newest = get_engine(game.engine)
        target = newest.version if to is None else to
        check = UpgradeCheck(game_id, game.engine, current.version, target)
        if game.status != "active":
            return check.refuse("The game is over; there is nothing to upgrade.")
        if isinstance(target, bool) or not isinstance(target, int):
            return check.refuse("The version must be a whole number.")
        if target not in versions_of(newest):
            known = ", ".join(str(v) for v in versions_of(newest))
            return check.refuse(f"{newest.title} has no version {target} here (it plays {known}).")
        if target <= current.version:
            return check.refuse(
                f"The game plays version {current.version}; it can only move to a newer one."
            )
        recorded = verify_rows(game.engine, rows, seed=seed, game_id=game_id)
        if not recorded.ok:
            return check.refuse(f"Its log does not replay on its own version: {recorded.summary()}")
        engine = at_version(newest, target)
        earlier: dict[int, Any] = {}
        state = None
        for row, old_state, old_engine in zip(rows, recorded.states, recorded.engines, strict=True):
            seq = row["seq"]
            try:
                if seq == 0:
                    state = setup_state(engine, row)
                elif row["kind"] != UPGRADE_KIND:
                    state = apply_event(engine, state, row, earlier)
            except (
                ChanceMismatch,
                ReplayError,
                IllegalMove,
                KeyError,
                TypeError,
                ValueError,
            ) as error:
                reason = error.reason if isinstance(error, IllegalMove) else str(error)
                return check.diverge(seq, f"replaying it on version {target} fails: {reason}")
            except Exception as error:  # noqa: BLE001 - an engine bug is a divergence too
                return check.diverge(seq, f"replaying it on version {target} fails: {error!r}")
            earlier[seq] = state
            expected = keyed_state_hash(seed, engine, carry_over(old_engine, engine, old_state))
            if keyed_state_hash(seed, engine, state) != expected:
                return check.diverge(seq, f"the state on version {target} differs")
        check.ok = True
        check.message = (
            f"All {len(rows)} events replay identically on version {target} "
            f"(now on version {current.version})."
        )
        return check

    def upgrade_engine(
        self, game_id: str, to: int | None = None, actor: str = "operator"
    ) -> UpgradeCheck:
        """Moves a game to a newer engine version if its log replays identically there.

        Recorded as an ``engine_upgraded`` event (from, to) in the hash chain; the read
        model's ``engine_version`` changes with it. Refused (nothing changed) otherwise.
        """
        from pbem.log import carry_over

        check = self.upgrade_check(game_id, to)
        if not check.ok:
            return check
        with self.session() as session:
            head = self.store.head(session, game_id)
            if head.game.engine_version != check.from_version:
                raise Conflict("The game's engine version changed meanwhile.", head.seq)
            new_engine = get_engine(head.game.engine, check.to_version)
            state = carry_over(head.engine, new_engine, head.state)
            row = self.store.new_row(
                game_id,
                head.seq + 1,
                head.hash,
                "engine_upgraded",
                None,
                {"from": check.from_version, "to": check.to_version},
                [],
                self.store.digest(self._seed(session, game_id), new_engine, state),
                actor,
                timestamp(self.clock()),
            )
            self.store.add_rows(session, new_engine, [row], [state])
            head.game.engine_version = check.to_version
            due = head.engine.to_move(head.state)
            self._finish_transition(session, head.game, new_engine, [row], head.state, state, due)
            self.store.commit(session, game_id, head.seq)
        check.seq = row["seq"]
        return check

    def _created_version(self, game_id: str) -> int | None:
        with self.session() as session:
            created = session.get(Event, (game_id, 0))
            return created.payload.get("engine_version") if created is not None else None

    # Internals -----------------------------------------------------------------------

    def _seed(self, session: Session, game_id: str) -> bytes:
        secret = session.get(GameSecret, game_id)
        if secret is None:
            raise NotFound("There is no such game.")
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
            game_id,
            seq,
            prev,
            "seed_revealed",
            None,
            {"seed": seed.hex()},
            [],
            self.store.digest(seed, engine, state),
            "server",
            now,
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
    ) -> None:
        """Updates the read model for the appended rows, then calls the listeners."""
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
        game.phase = str(engine.view(after, None).get("phase", ""))[:200]
        result: Result | None = engine.result(after)
        finished = result is not None and not due_after
        if finished and game.status != "finished":
            game.status = "finished"
            game.result = result.to_json()
            game.finished_at = now
        session.add(game)
        seats = list(session.exec(select(Seat).where(Seat.game_id == game.id)))
        changed = []
        for seat in seats:
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
            if (seat.due, seat.due_since, seat.last_move_seq) != was:
                changed.append(seat)
            session.add(seat)
        if len(changed) > 1:
            # The same columns for every changed seat: one batched UPDATE, not one each.
            for seat in changed:
                for name in ("due", "due_since", "last_move_seq"):
                    flag_modified(seat, name)
        transition = Transition(
            game,
            engine,
            rows,
            before,
            after,
            frozenset(due_before),
            frozenset(due_after),
            finished,
            tokens,
            seats,
        )
        for listener in self.listeners:
            listener(session, transition)


def check_policy(policy: Mapping[str, Any] | None) -> dict[str, Any]:
    """A deadline policy with defaults filled in; :class:`BadInput` for a bad value."""
    merged = dict(DEFAULT_POLICY)
    for key, value in dict(policy or {}).items():
        if key not in DEFAULT_POLICY:
            raise BadInput(f"Unknown deadline setting {key!r}.")
        merged[key] = value
    for key in ("reminder_after_hours", "reminder_every_hours", "deadline_after_days"):
        try:
            merged[key] = float(merged[key])
        except (TypeError, ValueError):
            raise BadInput(f"The deadline setting {key!r} must be a number.") from None
        if not math.isfinite(merged[key]) or not 0 <= merged[key] <= POLICY_LIMITS[key]:
            raise BadInput(
                f"The deadline setting {key!r} must be a number from 0 to {POLICY_LIMITS[key]}."
            )
        if merged[key] == int(merged[key]):
            merged[key] = int(merged[key])
    if merged["at_deadline"] not in AT_DEADLINE:
        raise BadInput("At the deadline: choose wait, bot_turn, bot_seat or replace.")
    return merged


def new_game_id() -> str:
    alphabet = "abcdefghijkmnpqrstuvwxyz23456789"
    return "".join(secrets.choice(alphabet) for _ in range(10))
