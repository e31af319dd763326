"""Seat link tokens: new random ones, and the hash a seat row keeps of them."""

from __future__ import annotations

import hashlib
import secrets


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token() -> str:
    """A seat's secret link token: 256 random bits."""
    return secrets.token_urlsafe(32)
