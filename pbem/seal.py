"""Secrets at rest, sealed with AES-GCM under keys derived from the server's key.

A copy of the database alone must open no seat and predict no draw, so whatever would
(a seat's link token, a link inside a stored mail, a running game's seed) is stored
sealed: AES-256-GCM with a fresh 96-bit nonce, under a key derived from the server's
secret key with HKDF-SHA256 and a purpose label, so the key for one use opens nothing
else. ``context`` (a game id, say) is bound as associated data: a seal copied onto
another row does not open there.

A sealed value reads ``g1.<base64url(nonce + ciphertext + tag)>``.
"""

from __future__ import annotations

import base64
import binascii
import secrets
from functools import lru_cache

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

PREFIX = "g1."
NONCE_BYTES = 12


@lru_cache(maxsize=64)
def derive_key(secret_key: str, purpose: str) -> bytes:
    """The 256-bit key for ``purpose``, derived from the server's secret key."""
    if not secret_key:
        raise ValueError("sealing needs the server's secret key")
    hkdf = HKDF(
        algorithm=hashes.SHA256(), length=32, salt=b"pbem-seal", info=purpose.encode("utf-8")
    )
    return hkdf.derive(secret_key.encode("utf-8"))


def is_sealed(value: str) -> bool:
    return isinstance(value, str) and value.startswith(PREFIX)


def seal(secret_key: str, purpose: str, plain: bytes, context: str = "") -> str:
    """``plain`` encrypted and authenticated for ``purpose`` (and ``context``)."""
    nonce = secrets.token_bytes(NONCE_BYTES)
    cipher = AESGCM(derive_key(secret_key, purpose)).encrypt(nonce, plain, context.encode("utf-8"))
    return PREFIX + base64.urlsafe_b64encode(nonce + cipher).decode("ascii").rstrip("=")


def unseal(secret_key: str, purpose: str, sealed: str, context: str = "") -> bytes | None:
    """What :func:`seal` sealed, or ``None`` for another key, purpose, context or a
    damaged seal."""
    if not is_sealed(sealed):
        return None
    text = sealed[len(PREFIX) :]
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        return None
    if len(raw) < NONCE_BYTES + 16:
        return None
    try:
        return AESGCM(derive_key(secret_key, purpose)).decrypt(
            raw[:NONCE_BYTES], raw[NONCE_BYTES:], context.encode("utf-8")
        )
    except InvalidTag:
        return None
