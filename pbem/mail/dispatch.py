"""The dispatcher: claims ready outbox rows, sends them, marks them sent.

Claiming is one atomic ``UPDATE ... WHERE status/lease`` (with ``SKIP LOCKED`` on
PostgreSQL), so two dispatchers never hold the same row. Each row is marked sent in its
own commit right after the server accepted it: if the process dies, only the one mail in
flight (accepted by the server, not yet marked) is sent once more when its lease runs
out, with the same Message-ID. A failure is retried with exponential backoff (capped at
an hour) until ``mail.max_attempts``; a recipient the server refuses outright fails at
once.

Without ``mail.host`` (the embedded default) mail goes to ``var/mail/*.eml`` and the
console instead of SMTP.
"""

from __future__ import annotations

import os
import secrets
import smtplib
import socket
import ssl
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path
from typing import Any

from sqlalchemy import and_, or_
from sqlalchemy.engine import Connection
from sqlmodel import Session, col, select, update

from pbem.mail.models import Mail, utc

LEASE_SECONDS = 300
RETRY_BASE_SECONDS = 30
RETRY_MAX_SECONDS = 3600


@dataclass
class DispatchReport:
    claimed: int = 0
    sent: int = 0
    retried: int = 0
    failed: int = 0


def build_message(config: dict, mail: Mail) -> EmailMessage:
    """The MIME message of an outbox row: text and HTML parts, threading, unsubscribe."""
    message = EmailMessage()
    message["From"] = config["mail"]["sender"]
    message["To"] = mail.recipient
    message["Subject"] = mail.subject
    message["Date"] = format_datetime(utc(mail.created_at))
    message["Message-ID"] = mail.message_id
    if mail.thread_id:
        message["In-Reply-To"] = mail.thread_id
        message["References"] = mail.thread_id
    if mail.unsubscribe:
        message["List-Unsubscribe"] = f"<{mail.unsubscribe}>"
    message.set_content(mail.body_text)
    message.add_alternative(mail.body_html, subtype="html")
    return message


class SmtpSender:
    """Sends over one SMTP connection (opened on the first mail), as configured."""

    def __init__(self, config: dict):
        self.config = config["mail"]
        self.connection: smtplib.SMTP | None = None

    def _connect(self) -> smtplib.SMTP:
        host, port = self.config["host"], int(self.config["port"])
        timeout = float(self.config.get("timeout_seconds", 30))
        security = self.config.get("security", "starttls")
        # ca_file: a certificate authority to trust besides the system's (a private relay).
        context = ssl.create_default_context(cafile=self.config.get("ca_file") or None)
        if security == "ssl":
            connection: smtplib.SMTP = smtplib.SMTP_SSL(
                host, port, timeout=timeout, context=context
            )
        else:
            connection = smtplib.SMTP(host, port, timeout=timeout)
            if security == "starttls":
                connection.starttls(context=context)
        if self.config.get("user"):
            connection.login(self.config["user"], self.config.get("password", ""))
        return connection

    def send(self, message: EmailMessage, mail: Mail) -> None:
        if self.connection is None:
            self.connection = self._connect()
        self.connection.send_message(message)

    def close(self) -> None:
        if self.connection is not None:
            try:
                self.connection.quit()
            except (smtplib.SMTPException, OSError):
                self.connection.close()
            self.connection = None


class FileSender:
    """Writes each mail to ``var/mail/<id>-<kind>.eml`` and prints it on the console."""

    def __init__(self, config: dict):
        self.folder = Path(config["paths"]["var"]) / "mail"

    def send(self, message: EmailMessage, mail: Mail) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{mail.id:07d}-{mail.kind}.eml"
        path.write_bytes(bytes(message))
        print(
            f"\n--- mail {mail.id} to {mail.recipient} ({path}) ---\n"
            f"Subject: {mail.subject}\n\n{mail.body_text}",
            flush=True,
        )

    def close(self) -> None:
        return None


def make_sender(config: dict) -> SmtpSender | FileSender:
    return SmtpSender(config) if config["mail"].get("host") else FileSender(config)


def claim(runtime: Any, now: datetime, limit: int = 100) -> tuple[str, list[Mail]]:
    """Takes up to ``limit`` ready rows under a lease: (the lease owner, the rows)."""
    owner = f"{socket.gethostname()[:30]}:{os.getpid()}:{secrets.token_hex(6)}"
    lease = timedelta(seconds=float(runtime.config["mail"].get("lease_seconds", LEASE_SECONDS)))
    ready = or_(
        and_(col(Mail.status) == "pending", col(Mail.next_attempt_at) <= now),
        and_(col(Mail.status) == "sending", col(Mail.lease_until) < now),
    )
    with Session(runtime.db) as session:
        # Locks the candidates (PostgreSQL; SQLite's write transaction is exclusive), then
        # leases them: a row another dispatcher holds is skipped, never taken twice.
        ids = list(
            session.exec(
                select(Mail.id)
                .where(ready)
                .order_by(col(Mail.id))
                .limit(limit)
                .with_for_update(skip_locked=True)
            )
        )
        if ids:
            session.exec(
                update(Mail)
                .where(col(Mail.id).in_(ids), ready)
                .values(status="sending", lease_owner=owner, lease_until=now + lease)
            )
        session.commit()
        rows = list(
            session.exec(
                select(Mail)
                .where(Mail.lease_owner == owner, Mail.status == "sending")
                .order_by(col(Mail.id))
            )
        )
    return owner, rows


def dispatch(runtime: Any, now: datetime | None = None, limit: int = 100) -> DispatchReport:
    """Sends one batch of ready mail; safe to run in several processes at once."""
    now = utc(now or runtime.clock())
    owner, rows = claim(runtime, now, limit)
    report = DispatchReport(claimed=len(rows))
    if not rows:
        return report
    sender = make_sender(runtime.config)
    with runtime.db.connect() as connection:
        if connection.dialect.name == "postgresql":
            # Each mark is one UPDATE: in autocommit it costs one round trip, not three.
            connection = connection.execution_options(isolation_level="AUTOCOMMIT")
        try:
            for mail in rows:
                try:
                    sender.send(build_message(runtime.config, mail), mail)
                except smtplib.SMTPRecipientsRefused as error:
                    _failed(runtime, connection, mail, owner, now, str(error), final=True)
                    report.failed += 1
                except (smtplib.SMTPException, OSError) as error:
                    sender.close()
                    final = _failed(runtime, connection, mail, owner, now, str(error))
                    report.failed += final
                    report.retried += not final
                else:
                    sent_at = utc(runtime.clock())
                    _mark(connection, mail, owner, status="sent", sent_at=sent_at)
                    report.sent += 1
        finally:
            sender.close()
    return report


def _mark(connection: Connection, mail: Mail, owner: str, **values: Any) -> None:
    """Records one row's outcome in its own commit (only the row this lease holds)."""
    with connection.begin():
        connection.execute(
            update(Mail)
            .where(col(Mail.id) == mail.id, Mail.lease_owner == owner, Mail.status == "sending")
            .values(lease_owner="", lease_until=None, **values)
        )


def _failed(
    runtime: Any,
    connection: Connection,
    mail: Mail,
    owner: str,
    now: datetime,
    error: str,
    final: bool = False,
) -> bool:
    """Records a failed attempt; returns whether the row gave up for good."""
    attempts = mail.attempts + 1
    final = final or attempts >= int(runtime.config["mail"].get("max_attempts", 12))
    config = runtime.config["mail"]
    base = float(config.get("retry_base_seconds", RETRY_BASE_SECONDS))
    delay = min(
        base * 2 ** (attempts - 1), float(config.get("retry_max_seconds", RETRY_MAX_SECONDS))
    )
    _mark(
        connection,
        mail,
        owner,
        status="failed" if final else "pending",
        attempts=attempts,
        next_attempt_at=now + timedelta(seconds=delay),
        last_error=error[:500],
    )
    return final
