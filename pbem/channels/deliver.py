"""The worker's sender of webhook and push notices (``notice_deliveries``), beside the
mail dispatcher and run with it (:func:`pbem.scheduler.dispatch`).

Claiming is one conditional ``UPDATE`` per row (``status = 'pending'`` and no live
lease), so two workers never send the same row. Then, for each row:

- a push whose turn is no longer wanted (the game ended or is paused, the player moved
  since, the seat is no longer due, a bot plays it, or it has another player than the
  subscription's) is ``dropped``;
- over the target's budget for the UTC day (``limits.mails_per_address_per_game_per_day``
  per webhook or subscription, as mail's per address and game) it is ``held``;
- otherwise it is posted (:mod:`pbem.channels.safehttp`). A 2xx answer marks it
  ``sent``. A 404 or 410 from a push service means the subscription is gone: the
  subscription is deleted and the row ``failed``. Another 4xx, or an address refused
  as unsafe, fails it at once; a 429, a 5xx or no answer is retried with backoff up to
  ``notices.max_attempts``.

A push carries the seat's own link (read when it is sent, for the subscription's holder
only), encrypted for the subscribing browser (RFC 8291, ``aes128gcm``) and signed with
the server's VAPID key (:mod:`pbem.channels.vapid`).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from pywebpush import WebPusher
from sqlalchemy import func, or_
from sqlmodel import Session, col, delete, select, update

from pbem import links
from pbem.channels import safehttp, vapid
from pbem.games.context import Runtime
from pbem.mail import budget, seat_mails
from pbem.models import Game, GameWebhook, NoticeDelivery, PushSubscription, Seat
from pbem.zones import utc

log = logging.getLogger(__name__)

BATCH = 50
LEASE = timedelta(minutes=5)
RETRY_BASE = timedelta(seconds=30)
RETRY_MAX = timedelta(hours=1)
KEEP = timedelta(days=30)
PUSH_TTL = 24 * 3600


@dataclass
class DeliveryReport:
    sent: int = 0
    retried: int = 0
    failed: int = 0
    dropped: int = 0
    held: int = 0


class Permanent(Exception):
    """A delivery that is not to be sent: ``status`` is ``dropped`` (no longer wanted),
    ``held`` (over budget) or ``failed`` (it never could be)."""

    def __init__(self, status: str, why: str):
        super().__init__(why)
        self.status = status


def _setting(runtime: Runtime, name: str, default: Any) -> Any:
    return runtime.config.get("notices", {}).get(name, default)


def deliver(runtime: Runtime, now: datetime | None = None) -> DeliveryReport:
    """Sends the ready deliveries (at most :data:`BATCH` a call)."""
    now = utc(now or runtime.clock())
    report = DeliveryReport()
    with Session(runtime.db) as session:
        ready = list(
            session.exec(
                select(NoticeDelivery.id)
                .where(
                    NoticeDelivery.status == "pending",
                    col(NoticeDelivery.next_attempt_at) <= now,
                    or_(
                        col(NoticeDelivery.lease_until).is_(None),
                        col(NoticeDelivery.lease_until) < now,
                    ),
                )
                .order_by(col(NoticeDelivery.next_attempt_at))
                .limit(BATCH)
            )
        )
    for number in ready:
        try:
            _one(runtime, number, now, report)
        except Exception:  # noqa: BLE001 - one bad delivery must not stop the others
            log.exception("notice delivery %s", number)
    return report


def _claim(runtime: Runtime, number: int, now: datetime) -> NoticeDelivery | None:
    with Session(runtime.db) as session:
        claimed = session.exec(
            update(NoticeDelivery)
            .where(
                col(NoticeDelivery.id) == number,
                col(NoticeDelivery.status) == "pending",
                or_(
                    col(NoticeDelivery.lease_until).is_(None),
                    col(NoticeDelivery.lease_until) < now,
                ),
            )
            .values(lease_until=now + LEASE)
        ).rowcount
        session.commit()
        return session.get(NoticeDelivery, number) if claimed else None


def _finish(runtime: Runtime, number: int, **values: Any) -> None:
    with Session(runtime.db) as session:
        session.exec(
            update(NoticeDelivery).where(col(NoticeDelivery.id) == number).values(**values)
        )
        session.commit()


def _one(runtime: Runtime, number: int, now: datetime, report: DeliveryReport) -> None:
    row = _claim(runtime, number, now)
    if row is None:
        return
    try:
        request = _request(runtime, row)
    except Permanent as why:
        _finish(runtime, number, status=why.status, last_error=str(why)[:500], lease_until=None)
        setattr(report, why.status, getattr(report, why.status) + 1)
        return
    url, body, headers = request
    attempts = row.attempts + 1
    try:
        answer = safehttp.post(
            url,
            body,
            headers,
            allow_loopback=bool(_setting(runtime, "allow_loopback", False)),
            timeout=float(_setting(runtime, "timeout_seconds", 10)),
            max_body=int(_setting(runtime, "max_body_bytes", 16384)),
            max_answer=int(_setting(runtime, "max_response_bytes", 65536)),
        )
    except safehttp.Unsafe as error:
        _finish(runtime, number, status="failed", attempts=attempts, lease_until=None,
                last_error=f"refused: {error}"[:500])  # fmt: skip
        report.failed += 1
        return
    except OSError as error:
        _retry(runtime, row, attempts, now, f"no answer: {error}", report)
        return
    if 200 <= answer.status < 300:
        _finish(runtime, number, status="sent", attempts=attempts, sent_at=now,
                lease_until=None, last_error="")  # fmt: skip
        report.sent += 1
    elif row.channel == "push" and answer.status in (404, 410):
        with Session(runtime.db) as session:
            session.exec(delete(PushSubscription).where(col(PushSubscription.id) == row.target))
            session.commit()
        _finish(runtime, number, status="failed", attempts=attempts, lease_until=None,
                last_error=f"gone: the push service answered {answer.status}; "
                "the subscription is deleted")  # fmt: skip
        report.failed += 1
    elif answer.status == 429 or answer.status >= 500:
        _retry(runtime, row, attempts, now, f"answered {answer.status}", report)
    else:
        _finish(runtime, number, status="failed", attempts=attempts, lease_until=None,
                last_error=f"refused: answered {answer.status}")  # fmt: skip
        report.failed += 1


def _retry(
    runtime: Runtime, row: NoticeDelivery, attempts: int, now: datetime, why: str, report: Any
) -> None:
    if attempts >= int(_setting(runtime, "max_attempts", 8)):
        _finish(runtime, row.id, status="failed", attempts=attempts, lease_until=None,
                last_error=f"gave up: {why}"[:500])  # fmt: skip
        report.failed += 1
        return
    wait = min(RETRY_BASE * (2 ** (attempts - 1)), RETRY_MAX)
    _finish(runtime, row.id, attempts=attempts, next_attempt_at=now + wait, lease_until=None,
            last_error=why[:500])  # fmt: skip
    report.retried += 1


def _over_budget(runtime: Runtime, session: Session, row: NoticeDelivery) -> bool:
    """Whether the target had the day's budget of notices of this game (UTC day)."""
    now = utc(runtime.clock())
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    sent = session.exec(
        select(func.count())
        .select_from(NoticeDelivery)
        .where(
            NoticeDelivery.channel == row.channel,
            NoticeDelivery.target == row.target,
            NoticeDelivery.game_id == row.game_id,
            NoticeDelivery.status == "sent",
            col(NoticeDelivery.sent_at) >= day,
        )
    ).one()
    return sent >= budget.per_day(runtime.config)


def _request(runtime: Runtime, row: NoticeDelivery) -> tuple[str, bytes, dict[str, str]]:
    """What to post for ``row``: the address, the body and the headers; :class:`Permanent`
    when it should not go."""
    with Session(runtime.db) as session:
        if row.payload.get("event") != "result" and _over_budget(runtime, session, row):
            raise Permanent("held", f"over budget: {budget.per_day(runtime.config)} notices today")
        if row.channel == "webhook":
            hook = session.get(GameWebhook, row.target)
            if hook is None:
                raise Permanent("dropped", "dropped: the webhook was removed")
            return hook.url, *webhook_body(hook.kind, row.payload)
        subscription = session.get(PushSubscription, row.target)
        if subscription is None:
            raise Permanent("dropped", "dropped: the subscription was removed")
        game = session.get(Game, row.game_id)
        seat = session.get(Seat, (row.game_id, row.seat))
        why = _unwanted(game, seat, subscription, row)
        if why:
            raise Permanent("dropped", f"dropped: {why}")
        token = seat_mails.seat_token(session, runtime, seat)
    message = {
        "title": row.payload["title"],
        "body": row.payload["text"],
        "url": links.play_url(runtime.config, token) if token else "",
    }
    return push_request(runtime, subscription, message)


def _unwanted(
    game: Game | None, seat: Seat | None, subscription: PushSubscription, row: NoticeDelivery
) -> str:
    if game is None or seat is None:
        return "the seat is gone"
    if game.status != "active":
        return "the game is over"
    if game.paused_at is not None:
        return "the game is paused"
    if seat.is_bot:
        return "a bot plays the seat now"
    if seat.token_hash != subscription.holder:
        return "the seat has another player now"
    if seat.last_move_seq is not None and seat.last_move_seq > int(row.payload.get("upto", 0)):
        return "the player moved since"
    if not seat.due:
        return "the seat is no longer due"
    return ""


def webhook_body(kind: str, facts: dict[str, Any]) -> tuple[bytes, dict[str, str]]:
    """The body a webhook of ``kind`` gets for a notice, and its headers. Discord and
    Slack get their own shapes (a message with a link); ``json`` the facts as they are."""
    text = f"{facts['text']} {facts['url']}"
    if kind == "discord":
        body: dict[str, Any] = {
            "content": text[:2000],
            "allowed_mentions": {"parse": []},  # a player's name never pings anyone
        }
    elif kind == "slack":
        # Slack reads <...> as links and mentions (<!channel>): a title or a name is escaped
        # as Slack asks, so it can neither ping anyone nor make a link.
        said = facts["text"].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        body = {"text": f"{said} <{facts['url']}|Open the game>"}
    else:
        body = {key: facts[key] for key in sorted(facts)}
    encoded = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
    return encoded, {"Content-Type": "application/json"}


def push_request(
    runtime: Runtime, subscription: PushSubscription, message: dict[str, str]
) -> tuple[str, bytes, dict[str, str]]:
    """An encrypted (``aes128gcm``) and VAPID-signed push of ``message`` (JSON) to one
    subscription: the endpoint, the body and the headers."""
    info = {
        "endpoint": subscription.endpoint,
        "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
    }
    data = json.dumps(message, separators=(",", ":")).encode()
    try:
        body = WebPusher(info).encode(data, "aes128gcm")["body"]
    except Exception as error:  # noqa: BLE001 - a subscription with unusable keys
        raise Permanent(
            "failed", f"refused: the subscription's keys do not work ({error})"
        ) from None
    headers = {
        "Content-Type": "application/octet-stream",
        "Content-Encoding": "aes128gcm",
        "TTL": str(PUSH_TTL),
        "Urgency": "normal",
        "Authorization": vapid.authorization(runtime, subscription.endpoint),
    }
    return subscription.endpoint, body, headers


def purge(runtime: Runtime, now: datetime | None = None) -> int:
    """Deletes deliveries finished more than :data:`KEEP` ago."""
    now = utc(now or runtime.clock())
    with Session(runtime.db) as session:
        gone = session.exec(
            delete(NoticeDelivery).where(
                col(NoticeDelivery.status) != "pending",
                col(NoticeDelivery.created_at) < now - KEEP,
            )
        ).rowcount
        session.commit()
    return gone
