"""Operations: ``/healthz`` for load balancers and ``/metrics`` in plain text.

``/healthz`` answers 200 when the database answers and takes a write, the worker's
heartbeat is recent and the outbox is not backing up, else 503, with the reason in a
small JSON body. The write is a probe committed on every call (a row added to the
heartbeats and removed in the same transaction, so nobody ever sees it): a full disk or
a read-only server fails it in whichever web worker answers, and the first call after
the database recovers says ok. A failure this worker met in the last minute is named
too (``last_failure``), for the operator, without making the answer 503.

``/metrics`` answers only a request with ``Authorization: Bearer <ops.metrics_token>``
(401 otherwise) or, when no token is configured, a request from the loopback address
(403 otherwise). Workers are labelled by a keyed digest of their name, never host:pid.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request
from sqlalchemy import func
from sqlmodel import Session, col, delete, select

from pbem.games import tallies
from pbem.games.context import Runtime
from pbem.mail.dispatch import FAILURE_REASONS
from pbem.mail.models import Heartbeat
from pbem.models import GameCount
from pbem.web.hardening import failure_kind, recent_database_failure
from pbem.zones import utc

bp = Blueprint("ops", __name__)

OUTBOX_BACKLOG_LIMIT = 1000


def _runtime():
    return current_app.extensions["pbem"]


def heartbeat_limit(config: dict) -> timedelta:
    """How old the newest worker heartbeat may be: three sweeps, at least three minutes."""
    sweep = float(config["scheduler"]["sweep_every_seconds"])
    dispatch = float(config["mail"]["dispatch_every_seconds"])
    return timedelta(seconds=max(180.0, 3 * min(sweep, dispatch)))


def health(runtime: Runtime) -> tuple[bool, dict[str, Any]]:
    report: dict[str, Any] = {}
    try:
        with Session(runtime.db) as session:
            session.exec(select(1)).one()
            beat = session.exec(select(func.max(Heartbeat.beat_at))).one()
            mails = tallies.mails_by_status(tallies.counts(session))
            backlog = mails.get("pending", 0) + mails.get("sending", 0)
    except Exception as error:  # noqa: BLE001 - any database failure is "unhealthy"
        return False, {"database": f"unreachable: {type(error).__name__}"}
    failure = write_probe(runtime.db)
    report["database"] = f"failing: {failure}" if failure else "ok"
    earlier = recent_database_failure()
    if earlier:
        report["last_failure"] = earlier
    now = utc(runtime.clock())
    if beat is None:
        report["worker"] = "no heartbeat yet"
    else:
        age = (now - utc(beat)).total_seconds()
        report["worker_heartbeat_age_seconds"] = round(age, 1)
        report["worker"] = (
            "ok" if age <= heartbeat_limit(runtime.config).total_seconds() else "late"
        )
    report["outbox_backlog"] = backlog
    healthy = not failure and report["worker"] == "ok" and backlog < OUTBOX_BACKLOG_LIMIT
    return healthy, report


def write_probe(db: Any) -> str | None:
    """Whether the database takes a write now: None when it does, else the failure's
    kind (never the driver's message, which can name hosts). A heartbeat row is added
    and removed in one committed transaction, so the commit writes to the journal as a
    move would, and no reader ever sees the row."""
    name = f"healthz-probe-{uuid.uuid4().hex}"
    moment = utc(datetime.now(UTC))
    try:
        with Session(db) as session:
            session.add(Heartbeat(name=name, pid=os.getpid(), started_at=moment, beat_at=moment))
            session.flush()
            session.exec(delete(Heartbeat).where(col(Heartbeat.name) == name))
            session.commit()
    except Exception as error:  # noqa: BLE001 - any failure to write is the answer
        return failure_kind(error)
    return None


def failed_by_reason(session: Session) -> dict[str, int]:
    """Failed mails by why they failed (the prefix the dispatcher gives ``last_error``):
    ``unbuildable``, ``refused`` (a 5xx answer), ``gave_up`` (retries ran out), ``other``;
    from the tallies."""
    found = tallies.failed_by_reason(tallies.counts(session))
    return {
        reason: found.get(reason, 0)
        for reason in (*(name.replace(" ", "_") for name in FAILURE_REASONS), "other")
    }


@bp.get("/healthz")
def healthz():
    healthy, report = health(_runtime())
    report["status"] = "ok" if healthy else "unhealthy"
    return jsonify(report), 200 if healthy else 503


def metrics_refusal(runtime: Runtime) -> Response | None:
    """None when this request may read /metrics, else the 401 or 403 answer."""
    token = str(runtime.config.get("ops", {}).get("metrics_token") or "")
    if token:
        given = request.headers.get("Authorization", "")
        scheme, _, value = given.partition(" ")
        if scheme.lower() == "bearer" and hmac.compare_digest(value.strip(), token):
            return None
        answer = Response("This address needs a valid bearer token.\n", 401, mimetype="text/plain")
        answer.headers["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return answer
    try:
        local = ipaddress.ip_address(request.remote_addr or "").is_loopback
    except ValueError:
        local = False
    if local:
        return None
    return Response(
        "Metrics are open only to this host; set ops.metrics_token to read them from elsewhere.\n",
        403,
        mimetype="text/plain",
    )


def worker_label(runtime: Runtime, name: str) -> str:
    """A stable label for a worker that does not tell its host name or process id."""
    key = runtime.secret_key.encode()
    return hmac.new(key, name.encode(), hashlib.sha256).hexdigest()[:10]


MAIL_STATUSES = ("pending", "sending", "sent", "failed", "bouncing", "dropped", "held")


def cheap_counts(session: Session) -> tuple[int, list[tuple[str, int]], dict[str, int]]:
    """Events appended, games by status and mails by status, without reading the event
    log, the games or the outbox: the games from ``game_counts``, the events and the
    mails from the tallies (both kept by triggers), a few rows whatever the size."""
    by_status = session.exec(
        select(col(GameCount.status), func.sum(GameCount.games))
        .group_by(col(GameCount.status))
        .order_by(col(GameCount.status))
    ).all()
    games = [(status, int(count)) for status, count in by_status if count]
    counted = tallies.counts(session)
    mails = tallies.mails_by_status(counted)
    return counted.get(tallies.EVENTS, 0), games, {s: mails.get(s, 0) for s in MAIL_STATUSES}


@bp.get("/metrics")
def metrics():
    runtime = _runtime()
    refusal = metrics_refusal(runtime)
    if refusal is not None:
        return refusal
    lines = []
    with Session(runtime.db) as session:
        events, games, counts = cheap_counts(session)
        failed = failed_by_reason(session)
        beats = session.exec(select(Heartbeat)).all()
    lines.append("# TYPE pbem_events_appended_total counter")
    lines.append(f"pbem_events_appended_total {events}")
    lines.append("# TYPE pbem_games gauge")
    for status, count in sorted(games):
        lines.append(f'pbem_games{{status="{status}"}} {count}')
    lines.append("# TYPE pbem_mails gauge")
    for status in MAIL_STATUSES:
        lines.append(f'pbem_mails{{status="{status}"}} {counts.get(status, 0)}')
    lines.append("# TYPE pbem_mails_failed gauge")
    for reason, count in failed.items():
        lines.append(f'pbem_mails_failed{{reason="{reason}"}} {count}')
    lines.append("# TYPE pbem_worker_heartbeat_age_seconds gauge")
    lines.append("# TYPE pbem_sweep_duration_seconds gauge")
    now = utc(runtime.clock())
    for beat in beats:
        label = worker_label(runtime, beat.name)
        age = (now - utc(beat.beat_at)).total_seconds()
        lines.append(f'pbem_worker_heartbeat_age_seconds{{worker="{label}"}} {age:.1f}')
        if beat.sweep_seconds is not None:
            lines.append(
                f'pbem_sweep_duration_seconds{{worker="{label}"}} {beat.sweep_seconds:.3f}'
            )
    return Response("\n".join(lines) + "\n", mimetype="text/plain")
