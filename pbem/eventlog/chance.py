"""Verifiable chance: every random draw of a game comes from a committed seed.

A game gets a 32-byte random seed at creation; only ``commitment(seed)`` (sha256, hex)
is published until the game ends. Outcome ``k`` of event ``n`` is
``HMAC-SHA256(seed, f"{game_id}:{n}:{k}")`` read as a 256-bit integer and reduced to
``[0, bound)`` by rejection (no modulo bias): a value in the incomplete top block is
rejected and the draw re-derived from ``f"{game_id}:{n}:{k}:{retry}"``.

Each event records its draws as ``[bound, value]`` pairs. Live play uses
:class:`RecordingChance`; replay uses :class:`ReplayChance`, which needs no seed and
fails loudly when the engine asks for a draw that was not recorded or with another bound.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Sequence

SEED_BYTES = 32
_SPACE = 1 << 256


class ChanceMismatch(Exception):
    """A replay asked for a draw that the log does not hold (or with another bound)."""


def new_seed() -> bytes:
    return secrets.token_bytes(SEED_BYTES)


def commitment(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


def derive(seed: bytes, game_id: str, event: int, k: int, bound: int) -> int:
    """Outcome ``k`` of event ``event``, uniform in ``[0, bound)``."""
    if bound < 1:
        raise ValueError(f"a draw needs a bound of at least 1, got {bound}")
    limit = _SPACE - (_SPACE % bound)
    message = f"{game_id}:{event}:{k}"
    retry = 0
    while True:
        digest = hmac.digest(seed, message.encode("utf-8"), "sha256")
        value = int.from_bytes(digest, "big")
        if value < limit:
            return value % bound
        retry += 1
        message = f"{game_id}:{event}:{k}:{retry}"


class RecordingChance:
    """Draws outcomes for one event from the seed and records them as [bound, value]."""

    def __init__(self, seed: bytes, game_id: str, event: int):
        self._seed = seed
        self._game_id = game_id
        self._event = event
        self.drawn: list[list[int]] = []

    def below(self, n: int) -> int:
        value = derive(self._seed, self._game_id, self._event, len(self.drawn), n)
        self.drawn.append([n, value])
        return value


class ReplayChance:
    """Feeds an event's recorded draws back to the engine, checking each bound."""

    def __init__(self, recorded: Sequence[Sequence[int]], event: int | None = None):
        self._recorded = [tuple(pair) for pair in recorded]
        self._event = event
        self._next = 0

    def below(self, n: int) -> int:
        where = f" in event {self._event}" if self._event is not None else ""
        if self._next >= len(self._recorded):
            raise ChanceMismatch(
                f"the engine asked for draw {self._next} (below {n}){where}, "
                f"but only {len(self._recorded)} were recorded"
            )
        bound, value = self._recorded[self._next]
        if bound != n:
            raise ChanceMismatch(
                f"the engine asked for draw {self._next} below {n}{where}, "
                f"but it was recorded below {bound}"
            )
        self._next += 1
        return value

    def finish(self) -> None:
        """Fails if recorded draws were left unused (the replay diverged)."""
        if self._next != len(self._recorded):
            where = f" in event {self._event}" if self._event is not None else ""
            raise ChanceMismatch(
                f"{len(self._recorded) - self._next} recorded draws were not used{where}"
            )


def verify_draws(
    seed: bytes, game_id: str, event: int, recorded: Sequence[Sequence[int]]
) -> str | None:
    """None if every recorded draw of the event follows from the seed, else what differs."""
    for k, (bound, value) in enumerate(recorded):
        expected = derive(seed, game_id, event, k, bound)
        if expected != value:
            return f"draw {k} (below {bound}) is {value}, but the seed gives {expected}"
    return None
