"""The audit page's verification: done once per head and kept, then only new events.

A view replays only the events after the kept mark (the last verified event's seq and
hash, the state replayed there, the draws re-derived so far), with every draw and state
hash checked against the game's seed. What was verified before is not taken on trust
blindly: each view re-hashes the marked event (so a log rewritten from any point with
fresh hashes no longer matches the mark) and a stretch of older events (every one in a
game of up to :data:`RECHECK` events, else a randomly placed stretch of that many), and
any doubt means a replay of the whole log, which names the first bad event. When a game
has ended its whole log is replayed once more, and that result is kept.

The roster is folded along with the state (a malformed roster event fails the audit at
its seq); a resumed check starts from the roster kept with the mark (the roster's events
read from the log for a mark kept without one).

The worker keeps every game's mark at its head (:func:`catch_up`, after each sweep):
the games with events not yet verified are listed in ``audit_queue``
(:class:`pbem.models.AuditQueue`, kept by triggers on ``games``: every new game, import
and appended event lists its game), and it works through them, a stretch of
:data:`VIEW_BUDGET` events at a time, for :data:`CATCH_UP_SECONDS` per sweep, going on
where it stopped at the next sweep. So a page view finds the mark at the head, or a few
events behind, and replays only those: the first view of a 10,000-event game costs about
what a 100-event one does. A view that finds the mark far behind (no worker running)
verifies at most :data:`VIEW_BUDGET` events past it (or from the start when there is
none), keeps the mark where it stopped and says how far it got.

The replay reads in a read transaction; only keeping the mark (and taking the game off
the queue) writes, briefly. On SQLite a write transaction holds the database's write
lock from its start, and the replay of a long log in one would hold up every move.
"""

from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, delete, select

from engines import REGISTRY
from pbem.errors import NotFound
from pbem.eventlog import contributions as contrib
from pbem.eventlog import roster as roster_mod
from pbem.eventlog.log import HASHED_FIELDS, row_hash
from pbem.eventlog.roster_log import rosters
from pbem.eventlog.verify import ChainCheck, NeedsFullCheck, VerifyReport, verify_rows
from pbem.models import AuditMark, AuditQueue, Event, Game

# Older events re-hashed per view: a randomly placed stretch this long (so a view of a
# long game costs about what a view of a short one does).
RECHECK = 128
# The most events a page view replays; the rest is left to the worker and later views.
# The worker verifies in stretches of this many too, keeping the mark after each.
VIEW_BUDGET = 1_000
# The worker's time per sweep (at least one stretch of one game each sweep), and how
# many listed games it reads from the queue at a time.
CATCH_UP_SECONDS = 2.0
CATCH_UP_PAGE = 50
# The worker writes the marks of this many games in one transaction.
KEEP_TOGETHER = 25

log = logging.getLogger(__name__)


@dataclass
class Audit:
    """One view's verification: the report and what this view itself checked."""

    report: VerifyReport
    replayed: int
    rehashed: tuple[int, int] | None
    whole: bool
    # The view stopped at its budget: the report covers events 0 to ``report.events - 1``
    # of a longer log (the mark is kept there; the worker or the next view goes on).
    partial: bool = False
    # The log is verified to its head (and a finished game's replayed whole since it
    # ended): nothing is left for the worker.
    settled: bool = False


@dataclass
class _Keeping:
    """What a check leaves to write: the mark to keep (if any, with the one it started
    from) and the head at which the game leaves the queue (if it does)."""

    game_id: str
    read: AuditMark | None
    kept: AuditMark | None
    settled_at: int | None


def audit_game(
    service: Any,
    game_id: str,
    budget: int | None = None,
    *,
    viewing: bool | None = None,
    worker: bool = False,
) -> Audit:
    """Verifies a game's stored log as far as needed and keeps the result.

    ``budget``: replay at most that many events past the mark, or from the start when
    the game has no mark yet; None: to the head. ``viewing`` (a page view; by default
    whenever there is a budget) accepts a mark kept before the game ended; otherwise an
    ended game not yet replayed whole since its end is replayed whole, whatever the
    budget. ``worker``: the game also leaves the audit queue when its log fails (the
    failure is shown by every view; the game's next event lists it again).
    """
    audit, keeping = _check(service, game_id, budget, viewing, worker)
    if keeping is not None:
        _keep(service, [keeping])
    return audit


def _check(
    service: Any, game_id: str, budget: int | None, viewing: bool | None, worker: bool
) -> tuple[Audit, _Keeping | None]:
    """The verification of :func:`audit_game` (in a read transaction), and what it leaves
    to write."""
    viewing = budget is not None if viewing is None else viewing
    with service.reading() as session:
        game = service.store.game(session, game_id)
        engine = REGISTRY.get(game.engine)
        seed = service._seed(session, game_id)
        mark = _mark_of(session, game_id)
        audit = None
        if engine is not None and _usable(mark, game, engine, viewing=viewing):
            audit = _resume(session, game, engine, seed, mark, budget)
        if audit is None:
            upto = game.head_seq
            if budget is not None and mark is None and (viewing or game.status != "finished"):
                upto = min(upto, max(1, budget) - 1)
            partial = upto < game.head_seq
            rows = service.store.rows(session, game_id, upto=upto)
            report = verify_rows(game.engine, rows, seed=seed, game_id=game_id)
            report = _against(report, rows, game, mark, partial)
            audit = Audit(report, len(rows), None, True, partial)
            commitment = rows[0]["payload"].get("commitment", "") if rows else ""
        else:
            commitment = mark.commitment
    report = audit.report
    finished = game.status == "finished"
    whole_at_end = finished and (
        (audit.whole and not audit.partial) or (not audit.whole and mark.whole_at_end)
    )
    audit.settled = report.ok and not audit.partial and (not finished or whole_at_end)
    kept = None
    if report.ok and (audit.whole or audit.replayed):
        kept = AuditMark(
            game_id=game_id,
            seq=report.events - 1,
            hash=report.head_hash,
            engine_version=engine.version,
            commitment=commitment,
            state=engine.dump(report.states[-1]),
            draws=report.draws_checked,
            seed_revealed=report.seed_revealed,
            whole_at_end=whole_at_end,
            verified_at=service.clock(),
            roster=report.roster.to_json() if report.roster is not None else None,
        )
    settled_at = None
    if audit.settled and (kept is not None or worker):
        settled_at = report.events - 1
    elif worker and not report.ok:
        settled_at = game.head_seq
    report.states = []
    if audit.partial and report.ok:
        # The hash the check reached is not the game's head yet.
        report.message = report.message.replace("; head hash ", "; the hash where it stopped ", 1)
    if kept is None and settled_at is None:
        return audit, None
    return audit, _Keeping(game_id, mark, kept, settled_at)


def _keep(service: Any, keepings: list[_Keeping]) -> None:
    """Writes each mark to keep (unless another check kept one at least as far since the
    check read its own) and takes each settled game off the queue if its head has not
    moved since, in one short transaction (one by one if two checks of a game raced)."""
    with service.session() as session:
        for keeping in keepings:
            _keep_one(session, keeping)
        try:
            session.commit()
            return
        except IntegrityError:
            session.rollback()
    if len(keepings) == 1:
        return  # another view of the same game kept its (equally verified) mark first
    for keeping in keepings:
        _keep(service, [keeping])


def _keep_one(session: Session, keeping: _Keeping) -> None:
    kept = keeping.kept
    if kept is not None:
        stored = session.get(AuditMark, keeping.game_id)
        if stored is None:
            session.add(kept)
        elif _same_mark(stored, keeping.read) or _further(kept, stored):
            for name in AuditMark.model_fields:
                setattr(stored, name, getattr(kept, name))
            session.add(stored)
    if keeping.settled_at is not None:
        _dequeue(session, keeping.game_id, keeping.settled_at)


def _same_mark(stored: AuditMark, read: AuditMark | None) -> bool:
    """Whether the stored mark is the one the check started from (nobody kept another)."""
    return read is not None and (stored.seq, stored.hash, stored.verified_at) == (
        read.seq,
        read.hash,
        read.verified_at,
    )


def _further(kept: AuditMark, stored: AuditMark) -> bool:
    return kept.seq > stored.seq or (
        kept.seq == stored.seq and kept.whole_at_end and not stored.whole_at_end
    )


def _dequeue(session: Session, game_id: str, seq: int) -> None:
    """Takes the game off the audit queue if its head is still event ``seq``.

    The game's row is locked for sharing first (PostgreSQL; SQLite's writers run one at a
    time): a move appending meanwhile waits, and its trigger then lists the game again,
    or it committed already and its head is past ``seq``, and the game stays."""
    head = session.exec(
        select(Game.head_seq).where(col(Game.id) == game_id).with_for_update(read=True)
    ).first()
    if head is None or head <= seq:
        session.exec(delete(AuditQueue).where(col(AuditQueue.game_id) == game_id))


def _mark_of(session: Session, game_id: str) -> AuditMark | None:
    return session.get(AuditMark, game_id)


def _against(
    report: VerifyReport, rows: list[dict], game: Game, mark: AuditMark | None, partial: bool
) -> VerifyReport:
    """A chain that holds on its own must also hold what was verified before (events are
    only ever appended) and end at the game's head (unless the check stopped short)."""
    if not report.ok:
        return report
    if mark is not None and (mark.seq >= len(rows) or rows[mark.seq]["hash"] != mark.hash):
        return _failed(
            mark.seq,
            f"this event had the hash {mark.hash[:16]}… when it was verified on "
            f"{mark.verified_at:%Y-%m-%d %H:%M} UTC; the stored log was rewritten since",
            report,
        )
    if not partial and report.head_hash != game.head_hash:
        return _failed(
            report.events - 1, "the game's head hash is not that of its last event", report
        )
    return report


def _failed(seq: int, message: str, report: VerifyReport) -> VerifyReport:
    return VerifyReport(False, message, events=report.events, first_bad_seq=seq)


def _usable(mark: AuditMark | None, game: Game, engine: Any, *, viewing: bool = False) -> bool:
    return (
        mark is not None
        and mark.engine_version == engine.version
        and mark.seq <= game.head_seq
        and (viewing or not (game.status == "finished" and not mark.whole_at_end))
    )


def _resume(
    session: Session,
    game: Game,
    engine: Any,
    seed: bytes,
    mark: AuditMark,
    budget: int | None = None,
) -> Audit | None:
    """The check of the events after the mark (at most ``budget`` of them), or None when
    the whole log must be replayed."""
    upto = game.head_seq if budget is None else min(game.head_seq, mark.seq + max(1, budget))
    partial = upto < game.head_seq
    rows = _rows(session, game.id, mark.seq, upto)
    if not rows or rows[0]["seq"] != mark.seq or rows[0]["hash"] != mark.hash:
        return None
    if row_hash(rows[0]) != mark.hash:
        return None
    first = 0 if mark.seq <= RECHECK else secrets.randbelow(mark.seq - RECHECK + 1)
    last = min(first + RECHECK, mark.seq) - 1
    if last >= first and not _hashes_hold(_rows(session, game.id, first, last), first):
        return None
    if mark.roster is not None:
        roster = roster_mod.from_json(mark.roster)
    else:
        roster = rosters(session, game).at(mark.seq)
    first_row = _rows(session, game.id, 0, 0)
    given = session.exec(
        select(*[getattr(Event, name) for name in (*HASHED_FIELDS, "hash")])
        .where(Event.game_id == game.id, Event.kind == contrib.KIND, Event.seq <= mark.seq)
        .order_by(col(Event.seq))
    )
    fold = contrib.fold_rows([*first_row, *(dict(row._mapping) for row in given)], mark.seq)
    check = ChainCheck.resume(
        engine,
        seed,
        game.id,
        seq=mark.seq,
        head_hash=mark.hash,
        state=engine.load(mark.state),
        commitment_hex=mark.commitment,
        draws=mark.draws,
        revealed=mark.seed_revealed,
        roster=roster,
        fold=fold,
    )
    try:
        for row in rows[1:]:
            failed = check.feed(row)
            if failed is not None:
                return None
    except NeedsFullCheck:
        return None
    report = check.report()
    if not partial and report.head_hash != game.head_hash:
        return None
    report.states = [check.state]
    rehashed = (first, last) if last >= first else None
    return Audit(report, len(rows) - 1, rehashed, False, partial)


# Per service (a process may serve several databases): the listed game a worker's pass
# stopped at for lack of time, where the next pass begins.
_STOPPED_AT: WeakKeyDictionary[Any, str] = WeakKeyDictionary()


def catch_up(service: Any, seconds: float = CATCH_UP_SECONDS, stretch: int = VIEW_BUDGET) -> int:
    """The worker's share: verifies the listed games' new events and keeps their marks,
    for about ``seconds`` (at least one stretch of one game each call); returns how many
    games it worked on.

    It goes through the queue in game id order from where the last call stopped,
    wrapping around once, so every listed game gets its turn whatever the others cost.
    Each game is verified ``stretch`` events at a time (the mark kept after each) up to
    its head; an ended game not yet replayed whole since it ended is replayed whole, in
    one go, as its final check. The marks of games checked in one step are written
    together, :data:`KEEP_TOGETHER` at a time (one commit, one sync, instead of one
    each). A game whose log fails leaves the queue (its views show the failure; its
    next event lists it again); a game whose check raises is logged and stays listed for
    the next pass. Finding the work reads the queue's key alone: the same cost at 100
    and at 10,000 running games."""
    deadline = time.monotonic() + seconds
    start = _STOPPED_AT.pop(service, None)
    laps = [(start, None), (None, start)] if start is not None else [(None, None)]
    worked = 0
    pending: list[_Keeping] = []
    try:
        for first, before in laps:
            for game_id in _listed(service, first, before):
                if worked and time.monotonic() > deadline:
                    _STOPPED_AT[service] = game_id
                    return worked
                worked += 1
                if not _catch_up_game(service, game_id, stretch, deadline, pending):
                    _STOPPED_AT[service] = game_id
                    return worked
                if len(pending) >= KEEP_TOGETHER:
                    _keep(service, pending)
                    pending.clear()
        return worked
    finally:
        if pending:
            _keep(service, pending)


def _listed(service: Any, first: str | None, before: str | None):
    """The listed games' ids from ``first`` (included) to ``before`` (excluded), in
    order, read a page at a time along the queue's primary key."""
    after = None
    while True:
        with service.reading() as session:
            page = list(session.exec(listed_query(first, before, after)))
        yield from page
        if len(page) < CATCH_UP_PAGE:
            return
        after = page[-1]


def listed_query(first: str | None = None, before: str | None = None, after: str | None = None):
    """A page of the audit queue: ids from ``first`` (or past ``after``) and below
    ``before``, in order. It reads the queue's primary key alone."""
    query = select(AuditQueue.game_id).order_by(col(AuditQueue.game_id)).limit(CATCH_UP_PAGE)
    if after is not None:
        query = query.where(col(AuditQueue.game_id) > after)
    elif first is not None:
        query = query.where(col(AuditQueue.game_id) >= first)
    if before is not None:
        query = query.where(col(AuditQueue.game_id) < before)
    return query


def _catch_up_game(
    service: Any, game_id: str, stretch: int, deadline: float, pending: list[_Keeping]
) -> bool:
    """Verifies one listed game a stretch at a time (the mark of each stretch but the
    last written at once: the next one resumes from it; the last one's added to
    ``pending``); False when time ran out first."""
    while True:
        try:
            audit, keeping = _check(service, game_id, stretch, False, True)
        except NotFound:
            with service.session() as session:
                session.exec(delete(AuditQueue).where(col(AuditQueue.game_id) == game_id))
                session.commit()
            return True
        except Exception:  # noqa: BLE001 - one broken game must not stop the others
            log.exception("audit catch-up: %s", game_id)
            return True
        if not audit.report.ok:
            log.warning("audit of %s fails: %s", game_id, audit.report.summary())
        if not audit.partial or not audit.report.ok:
            if keeping is not None:
                pending.append(keeping)
            return True
        _keep(service, [keeping])
        if time.monotonic() > deadline:
            return False


def _rows(session: Session, game_id: str, first: int, last: int) -> list[dict]:
    """Events ``first`` to ``last`` as plain rows (columns only: no model objects)."""
    columns = [getattr(Event, name) for name in (*HASHED_FIELDS, "hash")]
    query = (
        select(*columns)
        .where(Event.game_id == game_id, Event.seq >= first, Event.seq <= last)
        .order_by(col(Event.seq))
    )
    return [dict(row._mapping) for row in session.exec(query)]


def _hashes_hold(rows: list[dict], first: int) -> bool:
    """Whether rows ``first``... are consecutive, each linked to the one before and each
    matching its own hash."""
    prev = None
    for offset, row in enumerate(rows):
        if row["seq"] != first + offset or row_hash(row) != row["hash"]:
            return False
        if prev is not None and row["prev_hash"] != prev:
            return False
        prev = row["hash"]
    return bool(rows)
