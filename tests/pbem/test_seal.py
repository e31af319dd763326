"""Sealing secrets at rest: AES-GCM under keys derived from the server key, bound to
their purpose and their row."""

from __future__ import annotations

import pytest

from pbem import seal
from pbem.eventlog.seeds import SeedSealed, open_seed, seal_seed


def test_a_seal_opens_only_with_its_key_purpose_and_context():
    sealed = seal.seal("key", "game-seed", b"secret", context="game1")
    assert sealed.startswith("g1.") and "secret" not in sealed
    assert seal.unseal("key", "game-seed", sealed, context="game1") == b"secret"
    assert seal.seal("key", "game-seed", b"secret", context="game1") != sealed  # fresh nonce
    assert seal.unseal("other", "game-seed", sealed, context="game1") is None
    assert seal.unseal("key", "mail-link", sealed, context="game1") is None
    assert seal.unseal("key", "game-seed", sealed, context="game2") is None
    damaged = sealed[:-2] + ("A" if sealed[-2] != "A" else "B") + sealed[-1]
    assert seal.unseal("key", "game-seed", damaged, context="game1") is None
    for broken in ("g1.", "g1.!!!", "plain", ""):
        assert seal.unseal("key", "game-seed", broken) is None


def test_a_sealed_seed_copied_to_another_game_does_not_open():
    stored = seal_seed("key", "game1", b"\x01" * 32)
    assert open_seed("key", "game1", stored) == b"\x01" * 32
    with pytest.raises(SeedSealed, match="another server key"):
        open_seed("key", "game2", stored)
    with pytest.raises(SeedSealed):
        open_seed(None, "game1", stored)
    assert open_seed("key", "game1", "ab" * 32) == b"\xab" * 32  # an older plain seed
