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
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from engines import REGISTRY
from pbem.eventlog.log import HASHED_FIELDS, row_hash
from pbem.eventlog.verify import ChainCheck, NeedsFullCheck, VerifyReport, verify_rows
from pbem.games.roster_log import rosters
from pbem.models import AuditMark, Event, Game

RECHECK = 256


@dataclass
class Audit:
    """One view's verification: the report and what this view itself checked."""

    report: VerifyReport
    replayed: int
    rehashed: tuple[int, int] | None
    whole: bool


def audit_game(service: Any, game_id: str) -> Audit:
    """Verifies a game's stored log as far as needed and keeps the result."""
    with service.session() as session:
        game = service.store.game(session, game_id)
        engine = REGISTRY.get(game.engine)
        seed = service._seed(session, game_id)
        mark = _mark_of(session, game_id)
        audit = None
        if engine is not None and _usable(mark, game, engine):
            audit = _resume(session, game, engine, seed, mark)
        if audit is None:
            rows = service.store.rows(session, game_id, upto=game.head_seq)
            report = verify_rows(game.engine, rows, seed=seed, game_id=game_id)
            audit = Audit(_against(report, rows, game, mark), len(rows), None, True)
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
            mark.whole_at_end = audit.whole and game.status == "finished"
            mark.verified_at = service.clock()
            session.add(mark)
            try:
                session.commit()
            except IntegrityError:
                # Another view of the same game kept its (equally verified) mark first.
                session.rollback()
    report.states = []
    return audit


def _mark_of(session: Session, game_id: str) -> AuditMark | None:
    return session.get(AuditMark, game_id)


def _against(
    report: VerifyReport, rows: list[dict], game: Game, mark: AuditMark | None
) -> VerifyReport:
    """A chain that holds on its own must also hold what was verified before (events are
    only ever appended) and end at the game's head."""
    if not report.ok:
        return report
    if mark is not None and (mark.seq >= len(rows) or rows[mark.seq]["hash"] != mark.hash):
        return _failed(
            mark.seq,
            f"this event had the hash {mark.hash[:16]}… when it was verified on "
            f"{mark.verified_at:%Y-%m-%d %H:%M} UTC; the stored log was rewritten since",
            report,
        )
    if report.head_hash != game.head_hash:
        return _failed(
            report.events - 1, "the game's head hash is not that of its last event", report
        )
    return report


def _failed(seq: int, message: str, report: VerifyReport) -> VerifyReport:
    return VerifyReport(False, message, events=report.events, first_bad_seq=seq)


def _usable(mark: AuditMark | None, game: Game, engine: Any) -> bool:
    return (
        mark is not None
        and mark.engine_version == engine.version
        and mark.seq <= game.head_seq
        and not (game.status == "finished" and not mark.whole_at_end)
    )


def _resume(
    session: Session, game: Game, engine: Any, seed: bytes, mark: AuditMark
) -> Audit | None:
    """The check of the events after the mark, or None when the whole log must be replayed."""
    rows = _rows(session, game.id, mark.seq, game.head_seq)
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
    if report.head_hash != game.head_hash:
        return None
    report.states = [check.state]
    rehashed = (first, last) if last >= first else None
    return Audit(report, len(rows) - 1, rehashed, False)


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
