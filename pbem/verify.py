"""Offline verification of a game's log: the chain, every state hash, every draw.

``pbem verify FILE`` runs :func:`verify_export` on an exported file. It needs no
database and no server: it replays the log through the engine, re-derives every draw
from the revealed seed, checks each row's hash and its link to the one before, and
names the first event where anything differs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engines import REGISTRY, get_engine
from engines.api import IllegalMove
from engines.api import state_hash as engine_state_hash
from pbem.chance import ChanceMismatch, commitment, verify_draws
from pbem.log import (
    GENESIS_HASH,
    HASHED_FIELDS,
    MOVE_KINDS,
    ReplayError,
    apply_event,
    keyed_state_hash,
    row_hash,
    setup_state,
)

EXPORT_FORMAT = "pbem-export/1"
RECORDED_FORMAT = "pbem-recorded-game/1"


@dataclass
class VerifyReport:
    ok: bool
    message: str
    events: int = 0
    first_bad_seq: int | None = None
    head_hash: str = ""
    seed_revealed: bool = False
    seed_hex: str = ""
    draws_checked: int = 0
    states: list[Any] = field(default_factory=list, repr=False)

    def summary(self) -> str:
        if not self.ok:
            where = f"event {self.first_bad_seq}: " if self.first_bad_seq is not None else ""
            return f"FAILED at {where}{self.message}"
        return self.message


def _bad(seq: int | None, message: str, count: int = 0) -> VerifyReport:
    return VerifyReport(False, message, events=count, first_bad_seq=seq)


def verify_export(data: Any) -> VerifyReport:
    """Verifies an exported file (already parsed from JSON)."""
    if isinstance(data, Mapping) and data.get("format") == RECORDED_FORMAT:
        return verify_recorded(data)
    if not isinstance(data, Mapping) or data.get("format") != EXPORT_FORMAT:
        return _bad(None, f"this is not a {EXPORT_FORMAT} file")
    header = data.get("game")
    rows = data.get("events")
    if not isinstance(header, Mapping) or not isinstance(rows, list):
        return _bad(None, "the file has no game header or no event list")
    if data.get("scope") == "seat":
        return verify_receipts(rows)
    seed = None
    if data.get("seed") is not None:
        try:
            seed = bytes.fromhex(data["seed"])
        except (TypeError, ValueError):
            return _bad(None, "the seed in the file is not hexadecimal")
    report = verify_rows(header.get("engine"), rows, seed=seed, game_id=header.get("id"))
    if report.ok and header.get("head_hash") and header["head_hash"] != report.head_hash:
        return _bad(len(rows), "the header's head hash does not match the last event", len(rows))
    return report


def verify_rows(
    engine_slug: Any,
    rows: Sequence[Any],
    seed: bytes | None = None,
    game_id: str | None = None,
    any_version: bool = False,
) -> VerifyReport:
    """Verifies full event rows in order; the seed may come along or from the log.

    ``any_version`` replays a log made by another version of the engine (to find out
    whether the version change alters it) instead of refusing it outright.
    """
    engine = REGISTRY.get(engine_slug) if isinstance(engine_slug, str) else None
    if engine is None:
        return _bad(None, f"unknown game {engine_slug!r}")
    if not rows:
        return _bad(0, "the log is empty")
    revealed = _revealed_seed(rows)
    if revealed is not None:
        seed = revealed
    prev = GENESIS_HASH
    state = None
    states: list[Any] = []
    earlier: dict[int, Any] = {}
    draws = 0
    commitment_hex = None
    for index, row in enumerate(rows):
        if not isinstance(row, Mapping) or any(
            name not in row for name in (*HASHED_FIELDS, "hash")
        ):
            return _bad(index, "the event is incomplete", index)
        seq = row["seq"]
        if seq != index:
            return _bad(
                index, f"expected event {index} here, found {seq!r} (missing or moved)", index
            )
        if game_id is not None and row["game_id"] != game_id:
            return _bad(seq, f"the event belongs to game {row['game_id']!r}", index)
        game_id = row["game_id"]
        if row["prev_hash"] != prev:
            return _bad(seq, "the link to the previous event is broken (prev_hash differs)", index)
        if row_hash(row) != row["hash"]:
            return _bad(seq, "the event's content does not match its hash (it was changed)", index)
        prev = row["hash"]
        try:
            if index == 0:
                if row["kind"] != "created":
                    return _bad(seq, "the log does not start with 'created'", index)
                if row["payload"].get("engine") != engine.slug:
                    return _bad(seq, "the log is for another game", index)
                made_by = row["payload"].get("engine_version")
                engine = _at_version(engine, made_by)
                if made_by != engine.version and not any_version:
                    return _bad(
                        seq,
                        f"the log was made by version {made_by} "
                        f"of the engine; this program has version {engine.version}",
                        index,
                    )
                commitment_hex = row["payload"].get("commitment")
                if seed is not None and commitment(seed) != commitment_hex:
                    return _bad(
                        seq, "the seed does not match the commitment made at the start", index
                    )
                state = setup_state(engine, row)
            else:
                state = apply_event(engine, state, row, earlier)
        except (ChanceMismatch, ReplayError, IllegalMove, KeyError, TypeError, ValueError) as error:
            reason = error.reason if isinstance(error, IllegalMove) else str(error)
            return _bad(seq, f"replaying the event fails: {reason}", index)
        earlier[seq] = state
        if row["kind"] == "seed_revealed":
            try:
                shown = bytes.fromhex(row["payload"].get("seed", ""))
            except ValueError:
                return _bad(seq, "the revealed seed is not hexadecimal", index)
            if commitment(shown) != commitment_hex:
                return _bad(seq, "the revealed seed does not match the commitment", index)
        if seed is not None and (row["kind"] in MOVE_KINDS or index == 0):
            problem = verify_draws(seed, game_id, seq, row["chance"])
            if problem:
                return _bad(seq, f"a draw does not follow from the seed: {problem}", index)
            draws += len(row["chance"])
        if seed is not None and keyed_state_hash(seed, engine, state) != row["state_hash"]:
            return _bad(seq, "the recorded state hash differs from the replayed state", index)
        states.append(state)
    message = f"{len(rows)} events verified; head hash {prev}"
    if seed is not None:
        message += f"; {draws} draws re-derived from the seed; every state hash matches"
    else:
        message += (
            "; the seed is not revealed yet, so draws and state hashes are checked when it is"
        )
    return VerifyReport(
        True,
        message,
        events=len(rows),
        head_hash=prev,
        seed_revealed=revealed is not None,
        seed_hex=seed.hex() if seed is not None else "",
        draws_checked=draws,
        states=states,
    )


def _at_version(engine: Any, version: Any) -> Any:
    """The engine playing ``version`` when it still plays it, else the engine as it is."""
    try:
        return get_engine(engine.slug, version) if isinstance(version, int) else engine
    except KeyError:
        return engine


def verify_recorded(record: Mapping[str, Any]) -> VerifyReport:
    """A recorded game (``seeds/``): every draw from the seed, the final state and result."""
    from engines.api import Result

    engine = REGISTRY.get(record.get("engine"))
    if engine is None:
        return _bad(None, f"unknown game {record.get('engine')!r}")
    try:
        seed = bytes.fromhex(record["seed"])
        game_id = record["game_id"]
        if commitment(seed) != record["commitment"]:
            return _bad(0, "the seed does not match the commitment")
        engine = _at_version(engine, record["engine_version"])
        if record["engine_version"] != engine.version:
            return _bad(0, f"recorded with version {record['engine_version']} of the engine")
        problem = verify_draws(seed, game_id, 0, record["setup_chance"])
        if problem:
            return _bad(0, f"a setup draw does not follow from the seed: {problem}")
        created = {"payload": record, "chance": record["setup_chance"]}
        state = setup_state(engine, created)
        draws = len(record["setup_chance"])
        for seq, entry in enumerate(record["moves"], start=1):
            problem = verify_draws(seed, game_id, seq, entry["chance"])
            if problem:
                return _bad(seq, f"a draw does not follow from the seed: {problem}", seq)
            row = {
                "kind": "move",
                "seq": seq,
                "seat": entry["seat"],
                "chance": entry["chance"],
                "payload": {"move": entry["move"]},
            }
            state = apply_event(engine, state, row, {})
            draws += len(entry["chance"])
    except (ChanceMismatch, ReplayError, IllegalMove, KeyError, TypeError, ValueError) as error:
        reason = error.reason if isinstance(error, IllegalMove) else str(error)
        return _bad(None, f"replaying the recorded game fails: {reason}")
    moves = len(record["moves"])
    if engine_state_hash(engine, state) != record.get("final_state_hash"):
        return _bad(moves, "the final state differs from the recorded one", moves)
    result = engine.result(state)
    if result is None or result.to_json() != Result.from_json(record["result"]).to_json():
        return _bad(moves, "the result differs from the recorded one", moves)
    return VerifyReport(
        True,
        f"{moves} moves replayed; {draws} draws re-derived from the seed; "
        f"final state and result as recorded",
        events=moves + 1,
        seed_revealed=True,
        seed_hex=seed.hex(),
        draws_checked=draws,
    )


def verify_receipts(entries: Sequence[Any]) -> VerifyReport:
    """A per-seat export: checks that its hashes form one unbroken chain."""
    prev = GENESIS_HASH
    count = 0
    for index, entry in enumerate(entries):
        if isinstance(entry, Mapping) and "final_view" in entry:
            continue
        if not isinstance(entry, Mapping) or entry.get("seq") != index:
            return _bad(index, "an event is missing or out of order", index)
        if entry.get("prev_hash") != prev:
            return _bad(index, "the link to the previous event is broken", index)
        prev = entry.get("hash", "")
        count += 1
    return VerifyReport(
        True,
        f"{count} event receipts form an unbroken chain; head hash {prev}. "
        "The full log, published when the game ends, can be checked against them.",
        events=count,
        head_hash=prev,
    )


def _revealed_seed(rows: Sequence[Any]) -> bytes | None:
    for row in rows:
        if isinstance(row, Mapping) and row.get("kind") == "seed_revealed":
            try:
                return bytes.fromhex(row["payload"]["seed"])
            except (KeyError, TypeError, ValueError):
                return None
    return None
