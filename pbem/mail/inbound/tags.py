"""Reply addresses: ``LOCAL+TAG@DOMAIN`` from ``mail.reply_address`` (``LOCAL@DOMAIN``).

TAG reads ``GAME.SEAT.SEQ.MAC``: the game, the seat and the event the mail was made at
(the game's head then), and MAC, the first 80 bits of HMAC-SHA256 over
``"GAME:SEAT:SEQ"`` under a key derived from the server key (:func:`pbem.seal.derive_key`,
purpose ``reply-tag``), in lower-case base32 (mail systems may fold the case of a local
part). It never carries the seat's link token: a TAG only lets its seat's own player,
writing from the seat's address, answer that mail.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from dataclasses import dataclass
from typing import Any

from pbem import seal
from pbem.games.context import Runtime

TAG = re.compile(r"^([a-z0-9]{1,32})\.(\d{1,3})\.(\d{1,10})\.([a-z2-7]{16})$")
MAC_BYTES = 10


@dataclass(frozen=True)
class Tag:
    game_id: str
    seat: int
    seq: int


def reply_address_config(config: dict) -> tuple[str, str] | None:
    """(LOCAL, DOMAIN) of ``mail.reply_address``, or None when replies are off."""
    address = str(config.get("mail", {}).get("reply_address", "") or "").strip()
    if "@" not in address:
        return None
    local, _, domain = address.rpartition("@")
    local = local.split("+", 1)[0]
    if not local or not domain:
        return None
    return local, domain.lower()


def mac(secret_key: str, game_id: str, seat: int, seq: int) -> str:
    key = seal.derive_key(secret_key, "reply-tag")
    digest = hmac.new(key, f"{game_id}:{seat}:{seq}".encode(), hashlib.sha256).digest()
    return base64.b32encode(digest[:MAC_BYTES]).decode("ascii").lower()


def make_tag(secret_key: str, game_id: str, seat: int, seq: int) -> str:
    return f"{game_id}.{seat}.{seq}.{mac(secret_key, game_id, seat, seq)}"


def reply_address(config: dict, secret_key: str, game_id: str, seat: int, seq: int) -> str:
    """The address a reply to a seat's mail made at event ``seq`` goes to ("" when off)."""
    parts = reply_address_config(config)
    if parts is None:
        return ""
    local, domain = parts
    return f"{local}+{make_tag(secret_key, game_id, seat, seq)}@{domain}"


def is_ours(config: dict, address: str) -> bool:
    """Whether ``address`` is the reply address or one of its tagged forms."""
    parts = reply_address_config(config)
    if parts is None or "@" not in address:
        return False
    local, domain = parts
    got_local, _, got_domain = address.strip().rpartition("@")
    base = got_local.split("+", 1)[0]
    return got_domain.lower() == domain and base.lower() == local.lower()


def read_tag(config: dict, secret_key: str, address: str) -> Tag | None:
    """The tag of one of our reply addresses, or None: another address, no tag, or a
    tag whose MAC does not verify (forged or damaged)."""
    if not is_ours(config, address):
        return None
    local = address.strip().rpartition("@")[0]
    if "+" not in local:
        return None
    match = TAG.match(local.split("+", 1)[1].lower())
    if match is None:
        return None
    game_id, seat, seq, given = match[1], int(match[2]), int(match[3]), match[4]
    if not hmac.compare_digest(given, mac(secret_key, game_id, seat, seq)):
        return None
    return Tag(game_id, seat, seq)


# Which event an outbox row was made at: the seq its key ends with (your_turn,
# invitation, the answers to replies; reminders and deadline mails, whose keys grew a
# part for it); other mails take the game's head when sent.
KEY_SEQ = re.compile(
    r"^(?:(?:your_turn|invitation|answer):.*|(?:reminder|deadline)(?::[^:]+){4}):(\d+)$"
)


def for_mail(runtime: Runtime, mail: Any) -> str:
    """The ``Reply-To`` of an outbox row: a seat's mail about a game gets its tagged
    reply address; other mail (digests, mail to former players) none. Empty when
    ``mail.reply_address`` is unset."""
    if not mail.game_id or mail.seat is None or reply_address_config(runtime.config) is None:
        return ""
    match = KEY_SEQ.match(mail.key or "")
    if match is not None:
        seq = int(match[1])
    else:
        from pbem.models import Game

        with runtime.service.reading() as session:
            game = session.get(Game, mail.game_id)
            if game is None:
                return ""
            seq = game.head_seq
    from pbem.mail.outbox import secret

    return reply_address(runtime.config, secret(runtime), mail.game_id, mail.seat, seq)
