"""How a game's secret seed is stored: sealed under the server key, bound to the game."""

from __future__ import annotations

from functools import lru_cache

from pbem import seal as sealing
from pbem.errors import PbemError

SEED_PURPOSE = "game-seed"


class SeedSealed(PbemError):
    """A game's seed is sealed under another server key than this process's."""

    status = 500


def seal_seed(secret_key: str | None, game_id: str, seed: bytes) -> str:
    """How a game's seed is stored: sealed under the server key (bound to the game id),
    or as hex for a bare service built without a key (tests, benchmarks)."""
    if not secret_key:
        return seed.hex()
    return sealing.seal(secret_key, SEED_PURPOSE, seed, context=game_id)


@lru_cache(maxsize=4096)
def open_seed(secret_key: str | None, game_id: str, stored: str) -> bytes:
    """The seed :func:`seal_seed` stored; a plain hex seed (a database from before
    seeds were sealed) is read as it is.

    Kept per sealed value (a move opens its game's seed; deriving the key and decrypting
    each time was a measurable part of it); a refusal is not kept."""
    if not sealing.is_sealed(stored):
        return bytes.fromhex(stored)
    seed = sealing.unseal(secret_key, SEED_PURPOSE, stored, context=game_id) if secret_key else None
    if seed is None:
        raise SeedSealed(
            f"The seed of game {game_id} is sealed under another server key: "
            "configure the key this database was written with."
        )
    return seed
