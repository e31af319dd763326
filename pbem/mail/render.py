"""Rendering mails from ``templates/email/<kind>.txt`` + ``.html``, and the links they carry.

A seat's play link needs its token, which the seats table keeps only as a hash; the
outbox keeps the token sealed with the server's key (:func:`seal`) in ``seat_links``.
A stored mail keeps its links sealed too (:func:`seal_links`); they are opened only
when the mail is sent (:func:`open_links`).
The notification settings link is signed with the seat's current token hash, so it
stops working when the seat's link is replaced.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from pbem import seal as sealing
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


def seal(secret_key: str, token: str) -> str:
    """``token`` encrypted and authenticated with a key derived from the server's key."""
    return sealing.seal(secret_key, "seat-link", token.encode())


def unseal(secret_key: str, sealed: str) -> str | None:
    """The token :func:`seal` sealed, or ``None`` if the seal was made with another key.

    Seals written before AES-GCM (an HMAC keystream, no prefix) are still read."""
    if sealing.is_sealed(sealed):
        plain = sealing.unseal(secret_key, "seat-link", sealed)
        return None if plain is None else plain.decode()
    key = hmac.new(secret_key.encode(), b"seat-link-seal", hashlib.sha256).digest()
    raw = base64.urlsafe_b64decode(sealed.encode())
    nonce, cipher, tag = raw[:16], raw[16:-16], raw[-16:]
    if not hmac.compare_digest(tag, hmac.new(key, nonce + cipher, hashlib.sha256).digest()[:16]):
        return None
    stream = _keystream(key, nonce, len(cipher))
    return bytes(a ^ b for a, b in zip(cipher, stream, strict=True)).decode()


# Links inside stored mail ----------------------------------------------------------

SECRET_SEGMENT = re.compile(r"(?<=/)[A-Za-z0-9_-]{20,}")
SEALED_LINK = re.compile(r"\{sealed:(g1\.[A-Za-z0-9_-]+)\}")


class UnsealError(ValueError):
    """A sealed link in a stored mail that this server's key does not open."""


def seal_links(config: dict, secret_key: str, text: str) -> str:
    """``text`` with every secret in a link to this server sealed, so the stored mail
    opens nothing: each path segment of 20 or more URL-safe characters (a seat's token,
    a settings signature; game ids are shorter). :func:`open_links` puts them back
    when the mail is sent."""
    base = base_url(config)
    url = re.compile(re.escape(base) + r"/[A-Za-z0-9_./~-]*")

    def sealed(match: re.Match) -> str:
        secret = sealing.seal(secret_key, "mail-link", match[0].encode())
        return f"{{sealed:{secret}}}"

    return url.sub(lambda match: base + SECRET_SEGMENT.sub(sealed, match[0][len(base) :]), text)


def open_links(secret_key: str, text: str) -> str:
    """``text`` with the links :func:`seal_links` sealed opened again."""

    def opened(match: re.Match) -> str:
        plain = sealing.unseal(secret_key, "mail-link", match[1])
        if plain is None:
            raise UnsealError("a link in this mail was sealed with another server key")
        return plain.decode()

    return SEALED_LINK.sub(opened, text)


def domain(sender: str) -> str:
    """The domain of the sender address, for Message-IDs."""
    address = sender.rsplit("<", 1)[-1].rstrip(">").strip()
    return address.rsplit("@", 1)[-1] or "localhost"
