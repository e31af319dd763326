"""Verifiable chance: every random draw of a game comes from a committed seed.

A game gets a 32-byte random seed at creation; only ``commitment(seed)`` (sha256, hex)
is published until the game ends. Outcome ``k`` of event ``n`` is
``HMAC-SHA256(seed, f"{game_id}:{n}:{k}")`` read as a 256-bit integer and reduced to
``[0, bound)`` by rejection (no modulo bias): a value in the incomplete top block is
rejected and the draw re-derived from ``f"{game_id}:{n}:{k}:{retry}"``.

Scheme 2 (``"chance": 2`` in the ``created`` payload; every new game) mixes the
players' contributions in: outcome ``k`` of event ``n`` is
``HMAC-SHA256(seed, f"{game_id}:{n}:{k}:{mix}")`` (retries append ``:{retry}``), where
``mix`` folds the sha256 of every contribution recorded before event ``n``, in log
order: ``m = sha256(m || sha256(contribution))`` from 32 zero bytes (:func:`mix_of`).
The creator's contributions (and an open game's joiners') ride in the ``created``
payload and cover the set-up draws of event 0; a seat's later contribution is a
``contribution`` event and covers every draw after it. The server commits to its seed
before it sees any contribution, and a contribution is chosen without knowing the seed,
so neither side alone can steer a draw. Logs without ``"chance"`` are scheme 1 and
verify as they always did.

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
SCHEME = 2  # the chance scheme of new games (1: the seed alone)
CONTRIBUTION_MAX = 200  # characters
NO_MIX = "00" * 32  # the mix before any contribution
# How a contribution reached the server (``by`` in the log).
ROADS = ("browser", "command line", "server")


class ChanceMismatch(Exception):
    """A replay asked for a draw that the log does not hold (or with another bound)."""


def new_seed() -> bytes:
    return secrets.token_bytes(SEED_BYTES)


def commitment(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


def new_contribution() -> str:
    """32 random bytes as hex: a placeholder for a contribution the server draws, which
    :func:`server_contribution` then fixes from the seed."""
    return secrets.token_hex(32)


def server_contribution(seed: bytes, game_id: str, who: str) -> str:
    """The contribution the server draws for ``who`` (a seat's number, or "creator"):
    fixed by the committed seed, so the server has no choice of it to grind (checked by
    ``pbem verify`` once the seed is revealed); it reveals nothing of the seed."""
    return hmac.new(seed, f"{game_id}:contribution:{who}".encode(), "sha256").hexdigest()


def clean_contribution(value: object) -> str:
    """A contribution as given (trimmed); ValueError with a sentence when it is not one."""
    if not isinstance(value, str):
        raise ValueError("A contribution is a line of text.")
    value = value.strip()
    if not value:
        raise ValueError("The contribution is empty: type anything, or let the server draw it.")
    if len(value) > CONTRIBUTION_MAX:
        raise ValueError(f"A contribution is at most {CONTRIBUTION_MAX} characters.")
    if any(not character.isprintable() for character in value):
        raise ValueError("A contribution is one line of printable characters.")
    return value


def contribution_hash(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8")).hexdigest()


def mix_with(mix: str, hash_hex: str) -> str:
    """The mix after one more contribution (its sha256 in hex)."""
    return hashlib.sha256(bytes.fromhex(mix) + bytes.fromhex(hash_hex)).hexdigest()


def mix_of(hashes: Sequence[str]) -> str:
    """The mix of contributions (their sha256 in hex, in log order)."""
    mix = NO_MIX
    for hash_hex in hashes:
        mix = mix_with(mix, hash_hex)
    return mix


def derive(
    seed: bytes, game_id: str, event: int, k: int, bound: int, mix: str | None = None
) -> int:
    """Outcome ``k`` of event ``event``, uniform in ``[0, bound)``; ``mix`` (scheme 2)
    is the mix of the contributions recorded before the event, None for scheme 1."""
    if bound < 1:
        raise ValueError(f"a draw needs a bound of at least 1, got {bound}")
    limit = _SPACE - (_SPACE % bound)
    base = f"{game_id}:{event}:{k}" if mix is None else f"{game_id}:{event}:{k}:{mix}"
    message = base
    retry = 0
    while True:
        digest = hmac.digest(seed, message.encode("utf-8"), "sha256")
        value = int.from_bytes(digest, "big")
        if value < limit:
            return value % bound
        retry += 1
        message = f"{base}:{retry}"


class RecordingChance:
    """Draws outcomes for one event from the seed and records them as [bound, value]."""

    def __init__(self, seed: bytes, game_id: str, event: int, mix: str | None = None):
        self._seed = seed
        self._game_id = game_id
        self._event = event
        self._mix = mix
        self.drawn: list[list[int]] = []

    def below(self, n: int) -> int:
        value = derive(self._seed, self._game_id, self._event, len(self.drawn), n, self._mix)
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
    seed: bytes,
    game_id: str,
    event: int,
    recorded: Sequence[Sequence[int]],
    mix: str | None = None,
) -> str | None:
    """None if every recorded draw of the event follows from the seed (and ``mix``, the
    contributions' mix in scheme 2), else what differs."""
    for k, (bound, value) in enumerate(recorded):
        expected = derive(seed, game_id, event, k, bound, mix)
        if expected != value:
            return f"draw {k} (below {bound}) is {value}, but the seed gives {expected}"
    return None
