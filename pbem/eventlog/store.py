"""The event store: append-only events, snapshots, and the state at any seq.

Events are written one way, :meth:`EventStore.add_rows`, from rows :meth:`EventStore.
new_row` makes (:class:`EventRow`): through the ORM session (the full path: game
creation, administrative events, a game's end), or as plain prepared statements in a
move's :class:`pbem.db.Batch` (the lean path of a move that does not end the game).
Both write the same columns and the same snapshots.

Concurrency is the primary key (game_id, seq): two writers that prepared the same next
event collide on it, and the loser's integrity error becomes a :class:`Conflict`. No
locks are held while the engine thinks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

import sqlalchemy
from sqlalchemy.engine import Engine as SqlEngine
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlmodel import Session, col, select

from engines import get_engine, versions_of
from engines.api import Engine
from pbem.db import Batch, Prepared
from pbem.errors import Conflict, NotFound, Rejected
from pbem.eventlog.log import (
    HASHED_FIELDS,
    TAKE_BACK_WINDOW,
    Folded,
    TakeBackOutOfWindow,
    fold,
    keyed_state_hash,
    row_hash,
)
from pbem.i18n import T
from pbem.models import Event, Game, Snapshot


class EventRow(TypedDict):
    """One event as written: the columns of :class:`pbem.models.Event`."""

    game_id: str
    seq: int
    kind: str
    seat: int | None
    payload: dict[str, Any]
    chance: list[Any]
    state_hash: str
    prev_hash: str
    hash: str
    actor: str
    created_at: str


_EVENTS, _SNAPSHOTS = Event.__table__, Snapshot.__table__
# An event's fields as :func:`pbem.eventlog.log.row_dict` gives them, read as rows of
# columns: building an ORM object per event first cost about half of reading a turn
# page's events (still an ORM statement, so the session flushes what it holds first).
_ROW_COLUMNS = tuple(getattr(Event, name) for name in (*HASHED_FIELDS, "hash"))
_EVENT_INSERT = Prepared(_EVENTS.insert(), [column.key for column in _EVENTS.columns])
_SNAPSHOT_INSERT = Prepared(_SNAPSHOTS.insert(), [column.key for column in _SNAPSHOTS.columns])


@dataclass
class Head:
    """A game's read-model row and its engine state after event ``seq``."""

    game: Game
    engine: Engine
    state: Any
    seq: int
    hash: str


def game_engine(game: Game) -> Engine:
    """The engine a game runs on: the version it was created with (or upgraded to).

    Refused only when this server no longer plays that game or that version.
    """
    try:
        return get_engine(game.engine, game.engine_version)
    except KeyError:
        raise Rejected(
            T(
                "This server does not play this version of the game: it was made with "
                "version %(version)s, and it cannot go on here.",
                version=game.engine_version,
            )
        ) from None


class EventStore:
    """Reads and appends one database's events; works on SQLite and PostgreSQL alike."""

    def __init__(self, db: SqlEngine, snapshot_every: int = 50):
        self.db = db
        self.snapshot_every = max(1, int(snapshot_every))

    # Reading -------------------------------------------------------------------------

    def game(self, session: Session, game_id: str) -> Game:
        game = session.get(Game, game_id) if isinstance(game_id, str) else None
        if game is None:
            raise NotFound(T("There is no such game."))
        return game

    def rows(
        self, session: Session, game_id: str, after: int = -1, upto: int | None = None
    ) -> list[dict[str, Any]]:
        query = sqlalchemy.select(*_ROW_COLUMNS).where(Event.game_id == game_id, Event.seq > after)
        if upto is not None:
            query = query.where(Event.seq <= upto)
        return [dict(row._mapping) for row in session.exec(query.order_by(col(Event.seq)))]

    def head(self, session: Session, game_id: str, *, use_cache: bool = True) -> Head:
        """The state after the newest event: from the cached head state, else replayed."""
        return self._head_of(session, self.game(session, game_id), use_cache)

    def _head_of(self, session: Session, game: Game, use_cache: bool) -> Head:
        engine = game_engine(game)
        if use_cache and game.head_state is not None:
            state = engine.load(game.head_state)
        else:
            state = self.state_at(session, game, engine, game.head_seq, use_snapshots=use_cache)
        return Head(game, engine, state, game.head_seq, game.head_hash)

    def state_at(
        self,
        session: Session,
        game: Game,
        engine: Engine,
        seq: int,
        *,
        use_snapshots: bool = True,
    ) -> Any:
        """The engine state right after event ``seq`` (snapshot plus the events after it)."""
        if not 0 <= seq <= game.head_seq:
            raise NotFound(T("This game has no event %(seq)d.", seq=seq))
        upper = seq
        while True:
            start = self._snapshot_before(session, game, upper) if use_snapshots else None
            after = start.seq if start else -1
            try:
                return fold(engine, self.rows(session, game.id, after, seq), start).state
            except TakeBackOutOfWindow:
                if start is None:
                    raise
                upper = start.seq - TAKE_BACK_WINDOW

    def _snapshot_before(self, session: Session, game: Game, seq: int) -> Folded | None:
        if seq < 0:
            return None
        played = versions_of(get_engine(game.engine))
        snapshot = session.exec(
            select(Snapshot)
            .where(
                Snapshot.game_id == game.id,
                Snapshot.seq <= seq,
                col(Snapshot.engine_version).in_(played),
            )
            .order_by(col(Snapshot.seq).desc())
            .limit(1)
        ).first()
        if snapshot is None:
            return None
        engine = get_engine(game.engine, snapshot.engine_version)
        return Folded(engine.load(snapshot.state), snapshot.seq, engine)

    # Writing -------------------------------------------------------------------------

    def new_row(
        self,
        *,
        game_id: str,
        seq: int,
        prev_hash: str,
        kind: str,
        seat: int | None,
        payload: Mapping[str, Any],
        chance: Sequence[Any],
        state_digest: str,
        actor: str,
        created_at: str,
    ) -> EventRow:
        """The next event of a game, chained to ``prev_hash`` and hashed."""
        row: EventRow = {
            "game_id": game_id,
            "seq": seq,
            "kind": kind,
            "seat": seat,
            "payload": dict(payload),
            "chance": [list(pair) for pair in chance],
            "state_hash": state_digest,
            "prev_hash": prev_hash,
            "actor": actor,
            "created_at": created_at,
            "hash": "",
        }
        row["hash"] = row_hash(row)
        return row

    def add_rows(
        self,
        session: Session | None,
        engine: Engine,
        rows: Sequence[EventRow],
        states: Sequence[Any],
        engines: Sequence[Engine] | None = None,
        *,
        flush: bool = True,
        batch: Batch | None = None,
    ) -> None:
        """Adds event rows (and the snapshots they are due) to the open transaction.

        ``engine`` is the version the states are on; ``engines`` gives one per row when
        they differ (a log that crosses an engine upgrade). With a ``batch`` the rows go
        as plain prepared statements into it (a move's lean path; the batch's flush
        writes them, and a collision there is the caller's to turn into
        :class:`Conflict`); else they are added to the ORM ``session``, flushed at once
        unless ``flush=False`` leaves them to the commit (:meth:`commit` turns a
        collision there into :class:`Conflict` as well).
        """
        per_row = list(engines) if engines is not None else [engine] * len(rows)
        for row, state, on in zip(rows, states, per_row, strict=True):
            snapshot = (
                {
                    "game_id": row["game_id"],
                    "seq": row["seq"],
                    "engine_version": on.version,
                    "state": on.dump(state),
                }
                if row["seq"] % self.snapshot_every == 0
                else None
            )
            if batch is not None:
                batch.add(_EVENT_INSERT, row)
                if snapshot is not None:
                    batch.add(_SNAPSHOT_INSERT, snapshot)
                continue
            assert session is not None, "the full path writes through a session"
            session.add(Event(**row))
            if snapshot is not None:
                session.add(Snapshot(**snapshot))
        if batch is not None or not flush:
            return
        assert session is not None
        game_id = rows[0]["game_id"]
        try:
            session.flush()
        except IntegrityError:
            self._lost_race(session, game_id, rows[0]["seq"] - 1)

    def commit(self, session: Session, game_id: str, expected_head: int) -> None:
        """Commits, turning a lost race on the primary key into :class:`Conflict`."""
        try:
            session.commit()
        except (IntegrityError, OperationalError) as error:
            if isinstance(error, OperationalError) and "locked" not in str(error).lower():
                session.rollback()
                raise
            self._lost_race(session, game_id, expected_head)

    def _lost_race(self, session: Session, game_id: str, expected_head: int) -> None:
        """Rolls back a write that collided on the key and raises :class:`Conflict`."""
        session.rollback()
        fresh = session.get(Game, game_id)
        fresh_seq = fresh.head_seq if fresh is not None else expected_head
        raise Conflict(T("The game moved on: someone else moved first."), fresh_seq) from None

    @staticmethod
    def digest(seed: bytes, engine: Engine, state: Any) -> str:
        return keyed_state_hash(seed, engine, state)
