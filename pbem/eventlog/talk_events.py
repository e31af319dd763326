"""A table-talk event as the log holds it (:mod:`pbem.games.talk` writes and reads them).

A message to the table keeps its text in the payload. A private note keeps, in the
hashed payload, the addressee and a salted commitment to its text (:func:`commitment`);
the text and the salt sit under ``sealed``, outside the hash
(:func:`pbem.eventlog.log.hashed_payload`), so a copy of the log for a seat that may
not read the note leaves them out and still verifies. :func:`problem` is the check
verification makes of each talk event.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Mapping
from typing import Any

from pbem.eventlog.log import SEALED


def commitment(salt: bytes, text: str) -> str:
    """HMAC-SHA256(salt, text), hex: what the chain holds of a private message."""
    return hmac.new(salt, text.encode("utf-8"), hashlib.sha256).hexdigest()


def problem(row: Mapping[str, Any], seats: int | None = None) -> str | None:
    """What is wrong with a talk event (for ``pbem verify``), or None."""
    payload = row.get("payload")
    sender = row.get("seat")
    if not isinstance(payload, Mapping):
        return "a message without a payload"
    if isinstance(sender, bool) or not isinstance(sender, int):
        return "a message from no seat"
    to = payload.get("to")
    if seats is not None and not 0 <= sender < seats:
        return "a message from a seat the game does not have"
    if to is None:
        if not isinstance(payload.get("text"), str) or SEALED in payload:
            return "a message to the table without its text"
        return None
    if (
        isinstance(to, bool)
        or not isinstance(to, int)
        or (seats is not None and not 0 <= to < seats)
    ):
        return "a private message to a seat the game does not have"
    given = payload.get("commitment")
    if not isinstance(given, str) or not re.fullmatch(r"[0-9a-f]{64}", given):
        return "a private message without its commitment"
    sealed = payload.get(SEALED)
    if sealed is None:
        return None
    if not isinstance(sealed, Mapping) or not isinstance(sealed.get("text"), str):
        return "a private message whose sealed text is malformed"
    try:
        salt = bytes.fromhex(sealed.get("salt", ""))
    except (TypeError, ValueError):
        return "a private message whose salt is not hexadecimal"
    if not hmac.compare_digest(commitment(salt, sealed["text"]), given):
        return "a private message's text does not match its commitment (it was changed)"
    return None
