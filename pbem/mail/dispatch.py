"""The dispatcher: claims ready outbox rows, sends them, marks them sent.

Claiming is one atomic ``UPDATE ... WHERE status/lease`` (with ``SKIP LOCKED`` on
PostgreSQL), so two dispatchers never hold the same row. Each row is marked sent in its
own commit right after the server accepted it: if the process dies, only the one mail in
flight (accepted by the server, not yet marked) is sent once more when its lease runs
out, with the same Message-ID.

A mail whose lines need the game's history (``your_turn``) is recorded by the move
only as what to render (:func:`pbem.mail.deferred.defer_seat_mail`); it is rendered here, before
it is sent, and its body (links sealed) kept on the row. Such a mail recorded with a
quiet window (``mail.quiet_minutes``) is first checked: one no longer wanted (the
player moved meanwhile, the turn passed, the game ended) is marked ``dropped`` with
``last_error`` "dropped: <why>" and never sent.

One bad mail never holds up the others. A temporary failure (an SMTP 4xx answer, a
connection that fails) is retried with exponential backoff (capped at an hour) until
``mail.max_attempts``. A mail that cannot be built (a recipient that is not exactly one valid
address, a header with a line break, a link sealed under another key) or that the server refuses for good (a 5xx answer) is marked
``failed`` at once; ``last_error`` starts with the reason (``unbuildable:``,
``refused:``, ``gave up:``), which ``/metrics`` counts. Either way the batch goes on.
Mail to an address a delivery report marked bouncing (``mail_addresses``) is not sent:
its row gets the status ``bouncing``. Mail over its recipient's budget
(:mod:`pbem.mail.budget`) is not sent either: status ``held``, ``last_error``
"over budget: <why>".

Bodies are kept only as long as they are useful: :func:`purge` blanks those of mail
sent more than ``mail.retention_days`` ago, and of failed (bouncing, held) mail after
``mail.failed_retention_days`` (the operator may want to read why it failed).

With replies by mail on, each mail's envelope sender is its own bounce address
(:mod:`pbem.mail.inbound.bounces`, VERP), so a delivery report proves which mail failed.

Without ``mail.host`` (the embedded default) mail goes to ``var/mail/*.eml`` and the
console instead of SMTP.
"""

from __future__ import annotations

import logging
import os
import secrets
import smtplib
import socket
import ssl
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime, getaddresses
from pathlib import Path
from typing import Any

from email_validator import EmailNotValidError, validate_email
from sqlalchemy import and_, or_
from sqlalchemy.engine import Connection
from sqlmodel import Session, col, select, update

from pbem.games.context import Runtime
from pbem.mail import budget, deferred, outbox, pictures, render
from pbem.mail.inbound import bounces, tags
from pbem.mail.models import Mail, MailAddress
from pbem.models import Game
from pbem.zones import utc

log = logging.getLogger(__name__)

LEASE_SECONDS = 300
RETRY_BASE_SECONDS = 30
RETRY_MAX_SECONDS = 3600
PURGE_EVERY = timedelta(hours=1)
FAILURE_REASONS = ("unbuildable", "refused", "gave up")


class ConnectionFailed(OSError):
    """The SMTP server could not be reached or would not let us in (temporary)."""


@dataclass
class DispatchReport:
    claimed: int = 0
    sent: int = 0
    retried: int = 0
    failed: int = 0
    dropped: int = 0
    held: int = 0


def build_message(runtime: Runtime, mail: Mail) -> EmailMessage:
    """The MIME message of an outbox row: text and HTML parts, threading, and the
    headers mail clients and filters act on: ``Auto-Submitted: auto-generated`` (no
    vacation replies), ``List-Id`` (:func:`list_id`) and, when the mail has a settings
    page, ``List-Unsubscribe`` with ``List-Unsubscribe-Post`` (RFC 8058 one-click).

    A turn mail's board (:mod:`pbem.mail.pictures`) is drawn here, as it is sent: the
    HTML part then is ``multipart/related`` with the PNG its ``cid:`` names.

    Raises (``ValueError`` above all) when the row cannot make a valid message."""
    opened_text, opened_html, unsubscribe = deferred.opened(runtime, mail)
    text, html, image = pictures.fill(runtime, mail, opened_text, opened_html)
    message = _message(runtime, mail, text, html, unsubscribe, image)
    if image is not None and len(message.as_bytes()) > pictures.MAX_MAIL_BYTES:
        log.warning("mail %s is too large with its board: sent with the words only", mail.id)
        text, html, image = pictures.fill(runtime, mail, opened_text, opened_html, png=False)
        message = _message(runtime, mail, text, html, unsubscribe, image)
    return message


def _message(
    runtime: Runtime,
    mail: Mail,
    text: str,
    html: str,
    unsubscribe: str,
    image: pictures.Image | None,
) -> EmailMessage:
    message = EmailMessage()
    message["From"] = runtime.config["mail"]["sender"]
    message["To"] = mail.recipient
    message["Subject"] = mail.subject
    message["Date"] = format_datetime(utc(mail.created_at))
    message["Message-ID"] = mail.message_id
    if mail.thread_id:
        message["In-Reply-To"] = mail.thread_id
        message["References"] = mail.thread_id
    message["Auto-Submitted"] = "auto-generated"
    message["List-Id"] = list_id(runtime, mail)
    reply_to = tags.for_mail(runtime, mail)  # replies by mail (pbem.mail.inbound)
    if reply_to:
        message["Reply-To"] = reply_to
    if unsubscribe:
        # RFC 8058: the settings page answers a POST "List-Unsubscribe=One-Click" by
        # switching the seat's mail off, so a mail client's one-click button works.
        message["List-Unsubscribe"] = f"<{unsubscribe}>"
        message["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message.set_content(text)
    message.add_alternative(html, subtype="html")
    if image is not None:
        # The HTML part becomes multipart/related, the PNG inline in it (not an attachment).
        part = message.get_body(preferencelist=("html",))
        part.add_related(  # type: ignore[union-attr]
            image.data,
            maintype="image",
            subtype="png",
            cid=f"<{image.cid}>",
            disposition="inline",
            filename="board.png",
        )
    return message


def list_id(runtime: Runtime, mail: Mail) -> str:
    """The ``List-Id`` (RFC 2919) of a mail: each game is a list of its own,
    ``"<title>" <GAMEID.games.DOMAIN>``; mail about no one game (the digest) belongs to
    the server's list ``<pbem.DOMAIN>``. DOMAIN is the sender's, as in Message-IDs."""
    host = render.domain(runtime.config["mail"]["sender"])
    if not mail.game_id:
        return f"<pbem.{host}>"
    with Session(runtime.db) as session:
        title = session.exec(select(Game.title).where(Game.id == mail.game_id)).first() or ""
    label = f"<{mail.game_id}.games.{host}>"
    if not title:
        return label
    phrase = " ".join(title.split()).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{phrase}" {label}'


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

    def send(self, message: EmailMessage, mail: Mail, mail_from: str) -> None:
        """Sends ``message`` to its ``To`` with ``mail_from`` as the envelope sender."""
        if self.connection is None:
            try:
                self.connection = self._connect()
            except (smtplib.SMTPException, OSError) as error:
                raise ConnectionFailed(f"cannot reach the SMTP server: {error}") from error
        # smtplib's send_message writes with mbox quoting on for ASCII mail, so a body line
        # starting "From " would arrive as ">From ": send the bytes of the message's own
        # policy (no quoting), with SMTPUTF8 only when an address needs it.
        senders = getaddresses(message.get_all("From", []))
        recipients = [address for _, address in getaddresses(message.get_all("To", []))]
        international = any(not address.isascii() for _, address in senders) or any(
            not address.isascii() for address in recipients
        )
        policy = message.policy.clone(linesep="\r\n", utf8=international)
        self.connection.sendmail(
            mail_from or (senders[0][1] if senders else ""),
            recipients,
            message.as_bytes(policy=policy),
            mail_options=["SMTPUTF8", "BODY=8BITMIME"] if international else [],
        )

    def close(self) -> None:
        if self.connection is not None:
            try:
                self.connection.quit()
            except (smtplib.SMTPException, OSError):
                self.connection.close()
            self.connection = None


class FileSender:
    """Writes each mail to ``var/mail/<id>-<kind>.eml`` and logs it (its links masked; the
    file keeps them)."""

    def __init__(self, config: dict):
        self.folder = Path(config["paths"]["var"]) / "mail"

    def send(self, message: EmailMessage, mail: Mail, mail_from: str) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        os.chmod(self.folder, 0o700)
        path = self.folder / f"{mail.id:07d}-{mail.kind}.eml"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            if mail_from:
                handle.write(f"Return-Path: <{mail_from}>\n".encode())
            handle.write(bytes(message))
        text = message.get_body(preferencelist=("plain",))
        log.info(
            "mail %s to %s written to %s\nSubject: %s\n\n%s",
            mail.id,
            mail.recipient,
            path,
            mail.subject,
            text.get_content() if text else "",
        )

    def close(self) -> None:
        return None


def make_sender(config: dict) -> SmtpSender | FileSender:
    return SmtpSender(config) if config["mail"].get("host") else FileSender(config)


def claim(runtime: Runtime, now: datetime, limit: int = 100) -> tuple[str, list[Mail]]:
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


def dispatch(runtime: Runtime, now: datetime | None = None, limit: int = 100) -> DispatchReport:
    """Sends one batch of ready mail; safe to run in several processes at once."""
    now = utc(now or runtime.clock())
    _purge_now_and_then(runtime, now)
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
                outcome = _send_one(runtime, connection, sender, mail, owner, now)
                setattr(report, outcome, getattr(report, outcome) + 1)
        finally:
            sender.close()
    return report


def _send_one(
    runtime: Runtime,
    connection: Connection,
    sender: SmtpSender | FileSender,
    mail: Mail,
    owner: str,
    now: datetime,
) -> str:
    """Builds and sends one claimed row and records the outcome; whatever goes wrong
    with this row is recorded on it and never reaches the rest of the batch.
    Returns the :class:`DispatchReport` field to count it in."""
    waits_render = deferred.is_deferred(mail)
    wrong = not_one_address(mail.recipient)
    if wrong:
        _give_up(connection, mail, owner, now, f"unbuildable: the recipient {wrong}")
        return "failed"
    if _bouncing(runtime, mail.recipient):
        # A delivery report said this address fails: no more mail to it until cleared.
        _mark(connection, mail, owner, status="bouncing", last_error="bouncing: address bounces")
        return "failed"
    try:
        reason = deferred.unwanted(runtime, mail) if waits_render else ""
        if reason:
            _mark(connection, mail, owner, status="dropped", last_error=f"dropped: {reason}")
            return "dropped"
        message = build_message(runtime, mail)
    except Exception as error:  # noqa: BLE001 - any row that cannot be built is failed
        _give_up(connection, mail, owner, now, f"unbuildable: {_describe(error)}")
        return "failed"
    if waits_render:
        _store_body(connection, mail, owner)
    spent = budget.charge(runtime, connection, mail, now) if mail.attempts == 0 else ""
    if spent:
        _mark(connection, mail, owner, status="held", last_error=spent[:500])
        return "held"
    try:
        sender.send(
            message, mail, bounces.envelope_sender(runtime.config, outbox.secret(runtime), mail)
        )
    except smtplib.SMTPRecipientsRefused as error:
        codes = [code for code, _ in error.recipients.values()]
        if codes and all(500 <= code < 600 for code in codes):
            _give_up(connection, mail, owner, now, f"refused: {_describe(error)}")
            return "failed"
        return _retry(runtime, connection, sender, mail, owner, now, error)
    except smtplib.SMTPResponseException as error:
        if 500 <= error.smtp_code < 600:
            _give_up(connection, mail, owner, now, f"refused: {_describe(error)}")
            return "failed"
        return _retry(runtime, connection, sender, mail, owner, now, error)
    except Exception as error:  # noqa: BLE001 - connection errors and the unforeseen retry
        return _retry(runtime, connection, sender, mail, owner, now, error)
    _mark(connection, mail, owner, status="sent", sent_at=utc(runtime.clock()))
    return "sent"


def not_one_address(recipient: str) -> str:
    """Why ``recipient`` is not exactly one mail address an SMTP server can be given
    (no name, no list, no line break), or "" when it is one."""
    try:
        validate_email(
            recipient,
            check_deliverability=False,
            globally_deliverable=False,
            test_environment=True,
        )
    except EmailNotValidError as error:
        return f"{recipient[:80]!r} is not one mail address: {error}"
    return ""


def _bouncing(runtime: Runtime, address: str) -> bool:
    with Session(runtime.db) as session:
        row = session.get(MailAddress, address.strip().lower())
    return row is not None and row.bouncing_since is not None


def _describe(error: BaseException) -> str:
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        return "; ".join(
            f"{code} {message.decode(errors='replace') if isinstance(message, bytes) else message}"
            for code, message in error.recipients.values()
        )
    if isinstance(error, smtplib.SMTPResponseException):
        message = error.smtp_error
        text = message.decode(errors="replace") if isinstance(message, bytes) else str(message)
        return f"{error.smtp_code} {text}"
    return str(error) or type(error).__name__


def _retry(
    runtime: Runtime,
    connection: Connection,
    sender: SmtpSender | FileSender,
    mail: Mail,
    owner: str,
    now: datetime,
    error: BaseException,
) -> str:
    sender.close()  # the next mail starts on a fresh connection
    final = _failed(runtime, connection, mail, owner, now, _describe(error))
    return "failed" if final else "retried"


def _give_up(connection: Connection, mail: Mail, owner: str, now: datetime, reason: str) -> None:
    """Marks a row failed for good, with its reason (never retried)."""
    _mark(
        connection,
        mail,
        owner,
        status="failed",
        attempts=mail.attempts + 1,
        next_attempt_at=now,
        last_error=reason[:500],
    )


def _store_body(connection: Connection, mail: Mail, owner: str) -> None:
    """Keeps the body a deferred mail was just rendered to (its links sealed)."""
    with connection.begin():
        connection.execute(
            update(Mail)
            .where(col(Mail.id) == mail.id, Mail.lease_owner == owner)
            .values(
                subject=mail.subject,
                body_text=mail.body_text,
                body_html=mail.body_html,
                unsubscribe=mail.unsubscribe,
            )
        )


def _mark(connection: Connection, mail: Mail, owner: str, **values: Any) -> None:
    """Records one row's outcome in its own commit (only the row this lease holds)."""
    with connection.begin():
        connection.execute(
            update(Mail)
            .where(col(Mail.id) == mail.id, Mail.lease_owner == owner, Mail.status == "sending")
            .values(lease_owner="", lease_until=None, **values)
        )


def _failed(
    runtime: Runtime,
    connection: Connection,
    mail: Mail,
    owner: str,
    now: datetime,
    error: str,
) -> bool:
    """Records a temporary failure: retried later with backoff, or given up for good
    after ``mail.max_attempts`` (returned)."""
    attempts = mail.attempts + 1
    final = attempts >= int(runtime.config["mail"].get("max_attempts", 12))
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
        last_error=(f"gave up: {error}" if final else error)[:500],
    )
    return final


# Retention ---------------------------------------------------------------------------


def purge(runtime: Runtime, now: datetime) -> int:
    """Blanks the bodies (and unsubscribe links) of mail sent more than
    ``mail.retention_days`` ago and of mail failed more than ``mail.failed_retention_days``
    ago. The rows stay (their keys keep a reminder or digest from going out twice).
    Returns how many rows were blanked."""
    config = runtime.config["mail"]
    sent_before = utc(now) - timedelta(days=float(config.get("retention_days", 30)))
    failed_before = utc(now) - timedelta(days=float(config.get("failed_retention_days", 90)))
    old = or_(
        and_(col(Mail.status) == "sent", col(Mail.sent_at) < sent_before),
        and_(
            col(Mail.status).in_(("failed", "bouncing", "held")),
            col(Mail.created_at) < failed_before,
        ),
    )
    with Session(runtime.db) as session:
        result = session.exec(
            update(Mail)
            .where(old, or_(col(Mail.body_text) != "", col(Mail.body_html) != ""))
            .values(body_text="", body_html="", unsubscribe="")
        )
        session.commit()
        return result.rowcount or 0


def _purge_now_and_then(runtime: Runtime, now: datetime) -> None:
    """Runs :func:`purge` at most once per :data:`PURGE_EVERY` in this process."""
    last = runtime.extras.get("mail_purged_at")
    if last is not None and abs(now - last) < PURGE_EVERY:
        return
    runtime.extras["mail_purged_at"] = now
    purge(runtime, now)
