"""The signed "my games" link of a mail address (see :mod:`pbem.web.mygames`).

The link's last segment is the address and its link generation, encrypted and
authenticated with AES-256-GCM under a key derived from the server's secret key for
this purpose only (:func:`pbem.seal.derive_key`). The nonce is derived from the same
plain text (HMAC-SHA256 under that key), so an address's link stays the same from mail
to mail until it is revoked. Nobody can make a link for another address without the
server's key, the address is not readable in it, and raising the address's generation
(``mail_addresses.games_link_generation``) revokes every older link at once.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from sqlmodel import Session

from pbem import links, seal
from pbem.errors import NotFound
from pbem.mail.models import MailAddress

PURPOSE = "my-games-link"
NONCE_BYTES = 12
REFUSAL = (
    "This link to your games does not work: it may have been replaced by a newer one. "
    "The newest is at the foot of every mail from this server."
)


def link_token(secret_key: str, address: str, generation: int) -> str:
    """The secret segment of ``address``'s link at ``generation``."""
    plain = f"{generation}:{address.strip().lower()}".encode()
    key = seal.derive_key(secret_key, PURPOSE)
    nonce = hmac.new(key, plain, hashlib.sha256).digest()[:NONCE_BYTES]
    sealed = AESGCM(key).encrypt(nonce, plain, PURPOSE.encode())
    return base64.urlsafe_b64encode(nonce + sealed).decode("ascii").rstrip("=")


def read_token(secret_key: str, token: Any) -> tuple[str, int] | None:
    """The (address, generation) a link's segment names, or None for anything else."""
    if not isinstance(token, str) or not 40 <= len(token) <= 600:
        return None
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
        plain = AESGCM(seal.derive_key(secret_key, PURPOSE)).decrypt(
            raw[:NONCE_BYTES], raw[NONCE_BYTES:], PURPOSE.encode()
        )
        generation, _, address = plain.decode().partition(":")
        return address, int(generation)
    except (binascii.Error, ValueError, InvalidTag, UnicodeDecodeError):
        return None


def _secret(run: Any) -> str:
    """The server's secret key, read once per runtime (as the outbox reads it)."""
    if "secret_key" not in run.extras:
        run.extras["secret_key"] = run.secret_key
    return run.extras["secret_key"]


def generation_of(session: Session, address: str) -> int:
    row = session.get(MailAddress, address.strip().lower())
    return row.games_link_generation if row is not None else 0


def address_link(run: Any, session: Session, address: str) -> str:
    """The "my games" link of ``address`` as it is now (empty for no address)."""
    if not address:
        return ""
    token = link_token(_secret(run), address, generation_of(session, address))
    return f"{links.base_url(run.config)}/my-games/{token}"


def holder_of(run: Any, session: Session, token: str) -> str:
    """The address a link opens, or :class:`NotFound` (the same for every failure)."""
    found = read_token(_secret(run), token)
    if found is None or found[1] != generation_of(session, found[0]):
        raise NotFound(REFUSAL)
    return found[0]
