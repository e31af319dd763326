"""The tallies kept by triggers (:class:`pbem.models.Tally`, revision 0018): read in a
handful of rows, and gathered now and then so that they stay a handful.

Reading adds up each name's rows; it never counts events or mails, so ``/metrics`` and
``/healthz`` cost the same with 100 games or 10,000 and a million mails kept.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, text
from sqlmodel import Session, col, select

from pbem.models import Tally

EVENTS = "events"
MAILS = "mails:"
# Only one process gathers at a time (PostgreSQL advisory lock; a busy one skips).
_FOLD_LOCK = 7_165_318


def counts(session: Session) -> dict[str, int]:
    """Every tally by name (the sum of its shards)."""
    rows = session.exec(
        select(col(Tally.name), func.sum(Tally.count)).group_by(col(Tally.name))
    ).all()
    return {name: int(total or 0) for name, total in rows}


def mails_by_status(tallies: dict[str, int]) -> dict[str, int]:
    """Mails by status (the failed ones summed over their reasons)."""
    found: dict[str, int] = {}
    for name, total in tallies.items():
        if name.startswith(MAILS):
            status = name[len(MAILS) :].partition(":")[0]
            found[status] = found.get(status, 0) + total
    return found


def failed_by_reason(tallies: dict[str, int]) -> dict[str, int]:
    """Failed mails by the reason their ``last_error`` starts with."""
    prefix = f"{MAILS}failed:"
    return {
        name[len(prefix) :]: total for name, total in tallies.items() if name.startswith(prefix)
    }


def fold(db: Any) -> int:
    """Moves the rows of PostgreSQL backends that have gone into shard 0, in one
    transaction (the sum of each name is unchanged); returns how many rows went. A
    backend that is still connected keeps its row: only its own transactions write it,
    so gathering never waits on a move. Nothing to do on SQLite."""
    if db.dialect.name != "postgresql":
        return 0
    with db.begin() as connection:
        if not connection.execute(
            text("SELECT pg_try_advisory_xact_lock(:lock)"), {"lock": _FOLD_LOCK}
        ).scalar():
            return 0
        gone = connection.execute(
            text(
                "DELETE FROM tallies WHERE shard <> 0 AND shard NOT IN "
                "(SELECT pid FROM pg_stat_activity WHERE pid IS NOT NULL) "
                "RETURNING name, count"
            )
        ).all()
        totals: dict[str, int] = {}
        for name, count in gone:
            totals[name] = totals.get(name, 0) + int(count)
        for name, count in sorted(totals.items()):
            connection.execute(
                text(
                    "INSERT INTO tallies (name, shard, count) VALUES (:name, 0, :count) "
                    "ON CONFLICT (name, shard) DO UPDATE SET count = tallies.count + :count"
                ),
                {"name": name, "count": count},
            )
    return len(gone)
