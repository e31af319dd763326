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
its seq); a resumed check starts from the roster as of the marked event.

A page view never replays a long log whole: it verifies at most :data:`VIEW_BUDGET`
events past the mark (or from the start when there is none), keeps the mark where it
stopped and says how far it got. The worker keeps the marks of long games current
(:func:`catch_up`, after each sweep), including the whole replay once a game has ended,
so the first view of a 10,000-event game costs about what a 100-event one does.
"""

from __future__ import annotations

import logging
import secrets
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, or_
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, func, select

from engines import REGISTRY
from pbem.eventlog.log import HASHED_FIELDS, row_hash
from pbem.eventlog.roster_log import rosters
from pbem.eventlog.verify import ChainCheck, NeedsFullCheck, VerifyReport, verify_rows
from pbem.models import AuditMark, Event, Game

# Older events re-hashed per view: a randomly placed stretch this long (so a view of a
# long game costs about what a view of a short one does).
RECHECK = 128
# The most events a page view replays; the rest is left to the worker and later views.
VIEW_BUDGET = 1_000
# The worker catches up a game whose mark is this many events behind its head (a shorter
# lag is cheap for the view itself), at most CATCH_UP_GAMES games per sweep, among the
# games that changed in the last CATCH_UP_DAYS days.
CATCH_UP_LAG = 100
CATCH_UP_GAMES = 20
CATCH_UP_DAYS = 2
CATCH_UP_SECONDS = 2.0

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


def audit_game(service: Any, game_id: str, budget: int | None = None) -> Audit:
    """Verifies a game's stored log as far as needed and keeps the result.

    ``budget`` (a page view): replay at most that many events past the mark, or from the
    start when the game has no mark yet, and accept a mark kept before the game ended
    (the worker replays an ended game whole); None (the worker, the tests): to the head.
    """
    with service.session() as session:
        game = service.store.game(session, game_id)
        engine = REGISTRY.get(game.engine)
        seed = service._seed(session, game_id)
        mark = _mark_of(session, game_id)
        audit = None
        if engine is not None and _usable(mark, game, engine, viewing=budget is not None):
            audit = _resume(session, game, engine, seed, mark, budget)
        if audit is None:
            upto = game.head_seq
            if budget is not None and mark is None:
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
        if report.ok and (audit.whole or audit.replayed):
            mark = mark or AuditMark(game_id=game_id)
            mark.seq = report.events - 1
            mark.hash = report.head_hash
            mark.engine_version = engine.version
            mark.commitment = commitment
            mark.state = engine.dump(report.states[-1])
            mark.draws = report.draws_checked
            mark.seed_revealed = report.seed_revealed
            mark.whole_at_end = audit.whole and not audit.partial and game.status == "finished"
            mark.verified_at = service.clock()
            session.add(mark)
            try:
                session.commit()
            except IntegrityError:
                # Another view of the same game kept its (equally verified) mark first.
                session.rollback()
    report.states = []
    if audit.partial and report.ok:
        # The hash the check reached is not the game's head yet.
        report.message = report.message.replace("; head hash ", "; the hash where it stopped ", 1)
    return audit


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
    roster = rosters(session, game).at(mark.seq)
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


def catch_up(
    service: Any,
    now: datetime | None = None,
    games: int = CATCH_UP_GAMES,
    lag: int = CATCH_UP_LAG,
    seconds: float = CATCH_UP_SECONDS,
) -> int:
    """The worker's share: verifies (and keeps) the logs of recently changed games whose
    mark is ``lag`` events or more behind the head, or that ended since it was kept, the
    furthest behind first, for about ``seconds`` at most (the next sweep goes on).
    Returns how many games it checked; a failure is logged and does not stop the others."""
    began = time.monotonic()
    since = (now or service.clock()) - timedelta(days=CATCH_UP_DAYS)
    behind = Game.head_seq - func.coalesce(AuditMark.seq, -1)
    with service.reading() as session:
        query = (
            select(Game.id)
            .outerjoin(AuditMark, col(AuditMark.game_id) == col(Game.id))
            .where(
                Game.updated_at >= since,
                Game.head_seq >= lag - 1,
                or_(
                    behind >= lag,
                    and_(Game.status == "finished", col(AuditMark.whole_at_end).is_not(True)),
                ),
            )
            .order_by(behind.desc())
            .limit(games)
        )
        found = list(session.exec(query))
    checked = 0
    for game_id in found:
        if checked and time.monotonic() - began > seconds:
            break
        checked += 1
        try:
            audit = audit_game(service, game_id)
            if not audit.report.ok:
                log.warning("audit of %s fails: %s", game_id, audit.report.summary())
        except Exception:  # noqa: BLE001 - one broken game must not stop the others
            log.exception("audit catch-up: %s", game_id)
    return checked


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
