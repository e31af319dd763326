"""The event log's pure parts: row hashing, the chain, and folding events into state.

Used by the store (live and replay) and by ``pbem verify`` (offline, on an exported
file), so both check exactly the same things.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from engines.api import Engine, canonical_json, state_json
from pbem.eventlog.chance import ReplayChance

GENESIS_HASH = "0" * 64
MOVE_KINDS = ("move", "auto_move")
HASHED_FIELDS = (
    "game_id",
    "seq",
    "kind",
    "seat",
    "payload",
    "chance",
    "state_hash",
    "prev_hash",
    "actor",
    "created_at",
)


def keyed_state_hash(seed: bytes, engine: Engine, state: Any) -> str:
    """The state hash recorded in each event: HMAC-SHA256 over the canonical JSON of
    ``dump(state)``, keyed from the game's seed.

    A plain sha256 would let a player test guesses about what is hidden from them (a
    hand, a face-down token) against the hashes they are shown; keyed by the seed, the
    hashes say nothing until the seed is revealed at the end, and from then on anyone
    can check every one of them. The JSON is read from the state in place where the
    engine offers it (:func:`engines.api.state_json`), not from a copy.
    """
    return hmac.digest(_state_key(seed), state_json(engine, state), "sha256").hex()


@functools.lru_cache(maxsize=64)
def _state_key(seed: bytes) -> bytes:
    """The key of a game's state hashes, derived from its seed (kept for the games
    moved most recently: every move of a game derives the same one)."""
    return hmac.digest(seed, b"pbem:state-hash", "sha256")


def timestamp(moment: datetime) -> str:
    """The text form of an event's time: UTC, microseconds, a trailing Z."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    if moment.year < 1000:  # strftime does not pad the year to four digits
        return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    # The same text as that strftime, at a fraction of its cost.
    return moment.isoformat(timespec="microseconds") + "Z"


# A private table-talk event keeps its text and salt under this payload key, outside
# the hash: the chain holds the salted commitment to them (see :mod:`pbem.games.talk`).
TALK_KIND = "talk"
SEALED = "sealed"


def hashed_payload(row: Mapping[str, Any]) -> Any:
    """The payload as the chain hashes it: a talk event's ``sealed`` part left out."""
    payload = row["payload"]
    if row["kind"] == TALK_KIND and isinstance(payload, Mapping) and SEALED in payload:
        return {key: value for key, value in payload.items() if key != SEALED}
    return payload


def row_hash(row: Mapping[str, Any]) -> str:
    """sha256(prev_hash || canonical JSON of the row without its own hash; a private
    talk event's sealed text left out, :func:`hashed_payload`)."""
    body = canonical_json(
        {name: hashed_payload(row) if name == "payload" else row[name] for name in HASHED_FIELDS}
    )
    # Not canonical_bytes: every row holds a time ("…:39.123456Z") and hashes ("…3f0e…"),
    # which its float check cannot tell from numbers, so it would only add its cost.
    return hashlib.sha256((row["prev_hash"] + body).encode("utf-8")).hexdigest()


def row_dict(event: Any) -> dict[str, Any]:
    """An event (model or mapping) as the plain dict that is hashed and exported."""
    get = event.get if isinstance(event, Mapping) else lambda name: getattr(event, name)
    return {name: get(name) for name in (*HASHED_FIELDS, "hash")}


@dataclass
class Folded:
    """A state reached by folding events, with the seq it is after (and, when known, the
    engine object of the version the game was on there)."""

    state: Any
    seq: int
    engine: Engine | None = None


UPGRADE_KIND = "engine_upgraded"


def same_game_at(engine: Engine, version: Any) -> Engine:
    """``engine``'s game at ``version`` (resolved through the registry, which knows
    every version, when the game is registered)."""
    from engines import REGISTRY, at_version

    newest = REGISTRY.get(engine.slug, engine)
    return at_version(newest, version)


def created_engine(engine: Engine, created: Mapping[str, Any]) -> Engine:
    """The engine object of the version a game was created with (its event 0)."""
    return same_game_at(engine, created["payload"].get("engine_version", engine.version))


def upgraded_engine(engine: Engine, row: Mapping[str, Any]) -> Engine:
    """The engine object an ``engine_upgraded`` event moves the game to."""
    return same_game_at(engine, row["payload"].get("to"))


def carry_over(old: Engine, new: Engine, state: Any) -> Any:
    """``state`` moved from engine ``old`` to ``new`` (another version of the same game)."""
    upgrade = getattr(new, "upgrade_state", None)
    if upgrade is not None:
        return upgrade(state)
    return new.load(old.dump(state))


class ReplayError(Exception):
    """Replaying the log failed at ``seq``; ``detail`` says how."""

    def __init__(self, seq: int, detail: str):
        super().__init__(f"event {seq}: {detail}")
        self.seq = seq
        self.detail = detail


TAKE_BACK_WINDOW = 64


class TakeBackOutOfWindow(ReplayError):
    """A take-back points before the states kept while folding; fold from earlier."""


def apply_event(
    engine: Engine, state: Any, row: Mapping[str, Any], earlier: Mapping[int, Any]
) -> Any:
    """The state after one event. Moves go to the engine; a take-back restores an
    earlier state (``earlier`` maps seq to state; engines never mutate a state, so
    these are shared, not copied); other kinds leave the state alone.
    """
    kind = row["kind"]
    if kind in MOVE_KINDS:
        chance = ReplayChance(row["chance"], row["seq"])
        move = row["payload"].get("move")
        if not isinstance(move, Mapping):
            raise ReplayError(row["seq"], "a move event without a move")
        state = engine.apply(state, row["seat"], move, chance)
        chance.finish()
        return state
    if kind == "take_back":
        target = row["payload"].get("to_seq")
        if target not in earlier:
            raise TakeBackOutOfWindow(row["seq"], f"take-back to event {target} out of reach")
        return earlier[target]
    if kind == UPGRADE_KIND:
        try:
            return carry_over(engine, upgraded_engine(engine, row), state)
        except KeyError as error:
            raise ReplayError(row["seq"], str(error.args[0])) from None
    return state


def engine_after(engine: Engine, row: Mapping[str, Any]) -> Engine:
    """The engine that plays the events after ``row`` (another one after an upgrade)."""
    if row["kind"] == UPGRADE_KIND:
        try:
            return upgraded_engine(engine, row)
        except KeyError as error:
            raise ReplayError(row["seq"], str(error.args[0])) from None
    return engine


def setup_state(engine: Engine, created: Mapping[str, Any]) -> Any:
    """The state after event 0 (``created``): the engine's setup with its recorded draws."""
    payload = created["payload"]
    chance = ReplayChance(created["chance"], 0)
    state = engine.setup(payload["seats"], payload["options"], chance)
    chance.finish()
    return state


def fold(
    engine: Engine,
    rows: Iterable[Mapping[str, Any]],
    start: Folded | None = None,
    seed: bytes | None = None,
) -> Folded:
    """Folds rows (in seq order) into the state after the last one.

    ``start`` resumes from a snapshot; otherwise the first row must be ``created``.
    Given the game's ``seed``, every row's ``state_hash`` is compared to the replayed state.
    Each event is played on the version the game was on: the one it was created with
    (or the snapshot's), the newer one after an ``engine_upgraded`` event.
    """
    folded = start
    earlier: dict[int, Any] = {}
    if start is not None:
        earlier[start.seq] = start.state
        engine = start.engine or engine
    for row in rows:
        if folded is None:
            if row["kind"] != "created":
                raise ReplayError(row["seq"], "the log does not start with 'created'")
            try:
                engine = created_engine(engine, row)
            except KeyError as error:
                raise ReplayError(row["seq"], str(error.args[0])) from None
            state = setup_state(engine, row)
        else:
            if row["seq"] != folded.seq + 1:
                raise ReplayError(row["seq"], f"expected event {folded.seq + 1} here")
            state = apply_event(engine, folded.state, row, earlier)
            engine = engine_after(engine, row)
        folded = Folded(state, row["seq"], engine)
        earlier[row["seq"]] = state
        earlier.pop(row["seq"] - TAKE_BACK_WINDOW, None)
        if seed is not None:
            actual = keyed_state_hash(seed, engine, state)
            if actual != row["state_hash"]:
                raise ReplayError(
                    row["seq"],
                    f"the recorded state hash is {row['state_hash'][:16]}…, "
                    f"but replaying gives {actual[:16]}…",
                )
    if folded is None:
        raise ReplayError(0, "the log is empty")
    return folded


__all__ = [
    "Folded",
    "GENESIS_HASH",
    "MOVE_KINDS",
    "ReplayError",
    "TAKE_BACK_WINDOW",
    "TakeBackOutOfWindow",
    "UPGRADE_KIND",
    "apply_event",
    "carry_over",
    "created_engine",
    "engine_after",
    "fold",
    "row_dict",
    "keyed_state_hash",
    "row_hash",
    "setup_state",
    "timestamp",
]
