"""Contributions to a game's draws: who gave them, and which draws each set covered.

In chance scheme 2 (:mod:`pbem.eventlog.chance`) every draw mixes the server's seed
with the contributions recorded before it. The ``created`` payload carries those given
before the set-up (the creator's; an open game's joiners'), each as ``{"seat", "role",
"by", "sha256", "contribution"}``; a seat that contributes later does so by a
``contribution`` event (its seat, and ``by``, ``sha256``, ``contribution`` in the
payload). :class:`MixFold` folds them along the log as the verifier reads it.

``role`` is ``creator`` or ``player``; ``by`` says how the contribution reached the
server (``browser``, ``command line``, or ``server``: drawn by the server, for a
mail-only player or a creator who let it draw).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pbem.eventlog import chance as chance_mod

KIND = "contribution"
ROLES = ("creator", "player")


def record(seat: int | None, role: str, by: str, value: str) -> dict[str, Any]:
    """One contribution as the log records it."""
    if by not in chance_mod.ROADS:
        raise ValueError(f"a contribution comes by one of {', '.join(chance_mod.ROADS)}")
    return {
        "seat": seat,
        "role": role,
        "by": by,
        "sha256": chance_mod.contribution_hash(value),
        "contribution": value,
    }


def drawn_for(entry: Mapping[str, Any]) -> str:
    """Whom a server-drawn contribution was drawn for, as
    :func:`pbem.eventlog.chance.server_contribution` names them."""
    return "creator" if entry.get("role") == "creator" else str(entry.get("seat"))


def server_drawn(seed: bytes, game_id: str, entry: Mapping[str, Any]) -> dict[str, Any]:
    """``entry`` (drawn by the server) with the one contribution the seed gives it."""
    value = chance_mod.server_contribution(seed, game_id, drawn_for(entry))
    return {**entry, "sha256": chance_mod.contribution_hash(value), "contribution": value}


def scheme(created_payload: Mapping[str, Any]) -> int:
    """The chance scheme a game's ``created`` payload names (1 when it names none)."""
    value = created_payload.get("chance", 1)
    return value if value in (1, 2) and not isinstance(value, bool) else 0


def problem(entry: Any, seats: int | None) -> str | None:
    """What is wrong with one recorded contribution, if anything (its text must have
    its recorded sha256)."""
    if not isinstance(entry, Mapping):
        return "a contribution is not an object"
    seat = entry.get("seat")
    if seat is not None and (
        isinstance(seat, bool)
        or not isinstance(seat, int)
        or (seats is not None and not 0 <= seat < seats)
    ):
        return "a contribution names no seat of the game"
    if entry.get("by") not in chance_mod.ROADS:
        return "a contribution does not say how it came (browser, command line or server)"
    text, digest = entry.get("contribution"), entry.get("sha256")
    if not isinstance(text, str) or not isinstance(digest, str) or len(digest) != 64:
        return "a contribution has no text or no sha256"
    if chance_mod.contribution_hash(text) != digest.lower():
        return "its text does not have the sha256 recorded with it (it was changed)"
    return None


def label(entry: Mapping[str, Any], names: Sequence[str] | None = None) -> str:
    """ "creator (browser)", "Anna, seat 2 (server-drawn for a mail-only player)"."""
    seat = entry.get("seat")
    who = "creator" if entry.get("role") == "creator" else ""
    if isinstance(seat, int) and names is not None and 0 <= seat < len(names):
        person = f"{names[seat]}, seat {seat + 1}"
        who = f"{who} {person}".strip() if who else person
    elif isinstance(seat, int) and not who:
        who = f"seat {seat + 1}"
    who = who or "creator"
    road = {
        "browser": "browser",
        "command line": "command line",
        "server": "server-drawn"
        + (" for a mail-only player" if entry.get("role") == "player" else ""),
    }.get(entry.get("by"), str(entry.get("by")))
    return f"{who} ({road})"


@dataclass
class Span:
    """Events ``first``..``last`` drew under the same contributions."""

    first: int
    last: int
    entries: list[dict] = field(default_factory=list)


@dataclass
class MixFold:
    """The contributions met so far along a scheme-2 log, and the mix they give."""

    mix: str = chance_mod.NO_MIX
    entries: list[dict] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)

    def add(self, entry: Mapping[str, Any], seq: int) -> None:
        self.entries.append({**entry, "at": seq})
        self.mix = chance_mod.mix_with(self.mix, str(entry["sha256"]).lower())

    def drew(self, seq: int) -> None:
        """Event ``seq`` drew (or could draw) under the contributions met so far."""
        if self.spans and len(self.spans[-1].entries) == len(self.entries):
            self.spans[-1].last = seq
        else:
            self.spans.append(Span(seq, seq, list(self.entries)))

    def coverage(self, names: Sequence[str] | None = None) -> str:
        """ "draws of event 0 covered by: creator (browser); events 1-57: ..." """
        parts = []
        for span in self.spans:
            where = (
                f"event {span.first}"
                if span.first == span.last
                else f"events {span.first}-{span.last}"
            )
            who = ", ".join(label(entry, names) for entry in span.entries) or "nobody"
            parts.append(f"{where}: {who}")
        return "draws of " + "; ".join(parts) if parts else ""


def fold_rows(rows: Sequence[Mapping[str, Any]], upto: int | None = None) -> MixFold | None:
    """The fold over a log's rows to event ``upto`` (the last row's when None), None for
    a scheme-1 log; no checks (the verifier's). ``rows`` may hold only the first event
    and the contribution events: the events between draw under the same set."""
    if not rows or scheme(rows[0].get("payload") or {}) != 2:
        return None
    upto = rows[-1]["seq"] if upto is None else upto
    fold = MixFold()
    for entry in rows[0]["payload"].get("contributions") or []:
        fold.add(entry, 0)
    at = 0
    for row in rows[1:]:
        if row.get("kind") == KIND and row["seq"] <= upto:
            fold.drew(at)
            fold.drew(row["seq"])
            fold.add({**row["payload"], "seat": row.get("seat")}, row["seq"])
            at = row["seq"] + 1
    if at <= upto:
        fold.drew(at)
        fold.drew(upto)
    return fold
