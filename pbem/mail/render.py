"""Rendering mails from ``templates/email/<kind>.txt`` + ``.html``, and the links they carry.

A seat's play link needs its token, which the seats table keeps only as a hash; the
outbox keeps the token sealed with the server's key (:func:`seal`) in ``seat_links``.
The notification settings link is signed with the seat's current token hash, so it
stops working when the seat's link is replaced.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from pbem.config import ROOT

TEMPLATES = ROOT / "templates" / "email"

SUBJECTS = {
    "invitation": "{title}: you are invited to play",
    "your_turn": "{title}: your turn",
    "reminder": "{title}: reminder, it is still your turn",
    "deadline": "{title}: the deadline has passed",
    "game_over": "{title}: the game is over",
    "digest": "Your games waiting for you ({count})",
    "notice": "{title}: {headline}",
    "seat_link": "{title}: your link to the game",
}

_environment: Environment | None = None


def environment() -> Environment:
    global _environment
    if _environment is None:
        _environment = Environment(
            loader=FileSystemLoader(str(TEMPLATES)),
            autoescape=select_autoescape(enabled_extensions=("html",), default=False),
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
    return _environment


def render(kind: str, context: dict[str, Any]) -> tuple[str, str, str]:
    """The subject, text part and HTML part of a mail of ``kind``."""
    subject = SUBJECTS[kind].format(**context)
    text = environment().get_template(f"{kind}.txt").render(**context)
    html = environment().get_template(f"{kind}.html").render(**context)
    return subject[:300], text, html


def when(moment: datetime | None, timezone: str) -> str:
    """An absolute time in UTC and in the seat's time zone, e.g.
    "Sun 6 Dec 2026, 15:00 UTC (16:00 Europe/Berlin)"."""
    if moment is None:
        return ""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    utc = moment.astimezone(UTC)
    text = f"{utc:%a} {utc.day} {utc:%b %Y, %H:%M} UTC"
    try:
        zone = ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        return text
    if timezone.upper() == "UTC":
        return text
    local = utc.astimezone(zone)
    day = "" if local.date() == utc.date() else f"{local:%a} {local.day} {local:%b}, "
    return f"{text} ({day}{local:%H:%M} {timezone})"


# Links -----------------------------------------------------------------------------


def base_url(config: dict) -> str:
    return config["server"]["base_url"].rstrip("/")


def play_url(config: dict, token: str) -> str:
    return f"{base_url(config)}/play/{token}"


def settings_signature(key: str, game_id: str, seat: int, token_hash: str) -> str:
    message = f"notify:{game_id}:{seat}:{token_hash}".encode()
    digest = hmac.new(key.encode(), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode()


def settings_url(config: dict, key: str, game_id: str, seat: int, token_hash: str) -> str:
    signature = settings_signature(key, game_id, seat, token_hash)
    return f"{base_url(config)}/mail/settings/{game_id}/{seat}/{signature}"


def _keystream(key: bytes, nonce: bytes, length: int) -> bytes:
    blocks = []
    for counter in range((length + 31) // 32):
        blocks.append(hmac.new(key, nonce + counter.to_bytes(4, "big"), hashlib.sha256).digest())
    return b"".join(blocks)[:length]


def _seal_key(secret_key: str) -> bytes:
    return hmac.new(secret_key.encode(), b"seat-link-seal", hashlib.sha256).digest()


def seal(secret_key: str, token: str) -> str:
    """``token`` encrypted and authenticated with a key derived from the server's key."""
    key = _seal_key(secret_key)
    nonce = secrets.token_bytes(16)
    plain = token.encode()
    cipher = bytes(a ^ b for a, b in zip(plain, _keystream(key, nonce, len(plain)), strict=True))
    tag = hmac.new(key, nonce + cipher, hashlib.sha256).digest()[:16]
    return base64.urlsafe_b64encode(nonce + cipher + tag).decode()


def unseal(secret_key: str, sealed: str) -> str | None:
    """The token :func:`seal` sealed, or ``None`` if the seal was made with another key."""
    key = _seal_key(secret_key)
    raw = base64.urlsafe_b64decode(sealed.encode())
    nonce, cipher, tag = raw[:16], raw[16:-16], raw[-16:]
    if not hmac.compare_digest(tag, hmac.new(key, nonce + cipher, hashlib.sha256).digest()[:16]):
        return None
    stream = _keystream(key, nonce, len(cipher))
    return bytes(a ^ b for a, b in zip(cipher, stream, strict=True)).decode()


def domain(sender: str) -> str:
    """The domain of the sender address, for Message-IDs."""
    address = sender.rsplit("<", 1)[-1].rstrip(">").strip()
    return address.rsplit("@", 1)[-1] or "localhost"
