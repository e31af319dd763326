"""Bounces that prove themselves: VERP (variable envelope return path).

With replies by mail on (``mail.reply_address``), each outbox row goes out with its own
envelope sender (SMTP ``MAIL FROM``): ``LOCAL+b-ID.MAC@DOMAIN``, where ``LOCAL@DOMAIN``
is the address of ``mail.sender``, ID the row's id and MAC the first 80 bits of
HMAC-SHA256 over ``"ID:RECIPIENT"`` (the row's recipient, lower-cased) under a key
derived from the server key (purpose ``bounce-tag``), in lower-case base32, like a
reply tag (:mod:`.tags`). A delivery report goes back to that address, so it says
which mail failed.

A delivery report counts only when it was delivered to such an address whose MAC
verifies, the row exists, and the report names that row's recipient among its failed
recipients: then that address is marked bouncing (``mail_addresses``; the dispatcher
holds mail to it). Anything else that reaches a bounce address, and any report
delivered elsewhere, is recorded (``bounce_ignored``, with why) and changes nothing:
nobody can mark an address bouncing by writing a report about it.

Which addresses bounce (:func:`bouncing`) is shown by the players' names on the game's
pages (:func:`flag_bouncing_players`) and in every seat mail (:func:`bouncing_names`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from datetime import datetime
from email.message import EmailMessage
from email.utils import parseaddr
from typing import Any

from sqlmodel import Session, col, select

from pbem import seal
from pbem.games.context import Runtime
from pbem.mail.inbound import message as msg
from pbem.mail.inbound import tags
from pbem.mail.models import Mail, MailAddress
from pbem.models import Seat
from pbem.zones import utc

MAC_BYTES = 10
PREFIX = "b-"
BOUNCE_TAG = re.compile(r"^b-(\d{1,18})\.([a-z2-7]{16})$")


def sender_parts(config: dict) -> tuple[str, str] | None:
    """(LOCAL, DOMAIN) of ``mail.sender``'s address, or None when it has none."""
    address = parseaddr(str(config.get("mail", {}).get("sender", "") or ""))[1].strip()
    local, at, domain = address.rpartition("@")
    if not at or not local or not domain:
        return None
    return local.split("+", 1)[0], domain.lower()


def mac(secret_key: str, mail_id: int, recipient: str) -> str:
    key = seal.derive_key(secret_key, "bounce-tag")
    digest = hmac.new(
        key, f"{mail_id}:{recipient.strip().lower()}".encode(), hashlib.sha256
    ).digest()
    return base64.b32encode(digest[:MAC_BYTES]).decode("ascii").lower()


def envelope_sender(config: dict, secret_key: str, mail: Mail) -> str:
    """The ``MAIL FROM`` of an outbox row: its bounce address when replies by mail are on
    (reports come back to pbem), else the sender's own address."""
    parts = sender_parts(config)
    if parts is None:
        return ""
    local, domain = parts
    if tags.reply_address_config(config) is None or mail.id is None:
        return f"{local}@{domain}"
    return f"{local}+{PREFIX}{mail.id}.{mac(secret_key, mail.id, mail.recipient)}@{domain}"


def is_bounce_address(config: dict, address: str) -> bool:
    """Whether ``address`` has the form of one of our bounce addresses (its MAC is not
    checked here: a forged one is taken in, recorded and ignored)."""
    parts = sender_parts(config)
    if parts is None or tags.reply_address_config(config) is None:
        return False
    local, at, domain = address.strip().rpartition("@")
    if not at or domain.lower() != parts[1] or "+" not in local:
        return False
    base, _, tag = local.partition("+")
    return base.lower() == parts[0].lower() and tag.lower().startswith(PREFIX)


def read(config: dict, secret_key: str, address: str) -> int | None:
    """The id of the outbox row a bounce address names, or None (not one, or its form
    or MAC is wrong). The MAC is checked against the row's recipient by :func:`take`."""
    if not is_bounce_address(config, address):
        return None
    match = BOUNCE_TAG.match(address.strip().rpartition("@")[0].partition("+")[2].lower())
    return int(match[1]) if match else None


def take(
    runtime: Runtime, secret_key: str, recipients: list[str], message: EmailMessage, kind: str
) -> tuple[str, str]:
    """What a message delivered to ``recipients`` (at least one of them a bounce address,
    or the message a delivery report) does: ``("bounce", ADDRESS)`` when it proves that
    mail to ADDRESS fails (then marked bouncing), else ``("bounce_ignored", why)``."""
    if kind != "bounce":
        return "bounce_ignored", "not a delivery report"
    candidates = [
        (address, read(runtime.config, secret_key, address))
        for address in recipients
        if is_bounce_address(runtime.config, address)
    ]
    if not candidates:
        return "bounce_ignored", "a delivery report not sent to a bounce address"
    failed = dict(msg.failed_recipients(message))
    with Session(runtime.db) as session:
        for _address, mail_id in candidates:
            row = session.get(Mail, mail_id) if mail_id is not None else None
            if row is None:
                continue
            if not hmac.compare_digest(
                _given_mac(_address), mac(secret_key, row.id, row.recipient)
            ):
                continue
            recipient = row.recipient.strip().lower()
            if recipient not in failed:
                return "bounce_ignored", "the report names another address than the mail's"
            mark(session, recipient, failed[recipient], utc(runtime.clock()))
            session.commit()
            return "bounce", recipient
    return "bounce_ignored", "the bounce address does not verify"


def _given_mac(address: str) -> str:
    return address.strip().rpartition("@")[0].partition("+")[2].lower().rpartition(".")[2]


def mark(session: Session, address: str, detail: str, now: datetime) -> None:
    """Marks ``address`` bouncing (since ``now``, unless it already was) with the
    report's detail, in the open transaction."""
    row = session.get(MailAddress, address) or MailAddress(address=address, updated_at=now)
    if row.bouncing_since is None:
        row.bouncing_since = now
    row.bounce_detail = detail[:500]
    row.updated_at = now
    session.add(row)


def bouncing(session: Any, addresses: list[str]) -> dict[str, datetime]:
    """Which of ``addresses`` bounce, with since when (lower-cased addresses)."""
    wanted = [address.lower() for address in addresses if address]
    if not wanted:
        return {}
    rows = session.exec(
        select(MailAddress).where(
            col(MailAddress.address).in_(wanted), col(MailAddress.bouncing_since).is_not(None)
        )
    )
    return {row.address: row.bouncing_since for row in rows}


def flag_bouncing_players(runtime: Runtime, shown: list[dict], seats: list[Any]) -> None:
    """Sets ``bouncing`` on each player of a page's list whose mail bounces."""
    with runtime.service.reading() as session:
        found = bouncing(session, [getattr(seat, "email", "") or "" for seat in seats])
    if not found:
        return
    by_seat = {seat.seat: (getattr(seat, "email", "") or "").lower() for seat in seats}
    for player in shown:
        player["bouncing"] = by_seat.get(player["seat"], "") in found


def bouncing_names(session: Any, seats: list[Seat], reader: Seat) -> list[str]:
    """The other players of the game whose mail bounces, for every seat mail (the
    creator and the other players read it; the reader's own mail would not arrive)."""
    others = [row for row in seats if row.seat != reader.seat and row.email and not row.is_bot]
    found = bouncing(session, [row.email for row in others])
    return [row.name for row in others if row.email.lower() in found]
