"""Nim with a drawn pile: a tiny title written from :mod:`engines.api` alone, for the
title contract tests (not a product; never registered outside the tests).

Two players take 1 to 3 stones in turn from one pile whose size (10 to 15) is drawn at
setup; whoever takes the last stone wins. It has a rules reference but no templates,
board layout or mail grammar of its own, so the server's generic board, generic rules
page and plain move lists are what show it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engines.api import Chance, IllegalMove, MalformedMove, Result

SMALLEST, LARGEST, MOST = 10, 15, 3


class DrawnNim:
    slug = "drawn_nim"
    title = "Drawn Nim (test title)"
    listed = False  # a test fixture: the lobby does not offer it
    version = 1
    versions = (1,)
    bot_levels = ("normal",)
    min_seats = 2
    max_seats = 2
    options = ()

    def at_version(self, version: int) -> DrawnNim:
        if version != self.version:
            raise KeyError(f"{self.title} has no version {version}.")
        return self

    def setup(self, seats: int, options: Mapping[str, Any], chance: Chance) -> dict:
        if seats != 2:
            raise ValueError("Drawn Nim is for 2 players.")
        return {"pile": SMALLEST + chance.below(LARGEST - SMALLEST + 1), "turn": 0, "winner": None}

    def to_move(self, state: dict) -> frozenset[int]:
        return frozenset() if state["winner"] is not None else frozenset({state["turn"]})

    def legal_moves(self, state: dict, seat: int) -> list[dict]:
        if seat not in self.to_move(state):
            return []
        return [{"type": "take", "n": n} for n in range(1, min(MOST, state["pile"]) + 1)]

    def apply(self, state: dict, seat: int, move: Mapping[str, Any], chance: Chance) -> dict:
        if not isinstance(move, Mapping) or move.get("type") != "take":
            raise MalformedMove("A Drawn Nim move takes stones.")
        if dict(move) not in self.legal_moves(state, seat):
            raise IllegalMove("You may take 1 to 3 stones, no more than the pile holds.")
        pile = state["pile"] - move["n"]
        return {"pile": pile, "turn": 1 - seat, "winner": seat if pile == 0 else None}

    def view(self, state: dict, seat: int | None) -> dict:
        return {
            "pile": state["pile"],
            "to_move": sorted(self.to_move(state)),
            "players": [{"name": "First"}, {"name": "Second"}],
            "winner": state["winner"],
        }

    def result(self, state: dict) -> Result | None:
        if state["winner"] is None:
            return None
        scores = tuple(1.0 if seat == state["winner"] else 0.0 for seat in (0, 1))
        return Result(scores, (state["winner"],), reason="takes the last stone")

    def dump(self, state: dict) -> dict:
        return dict(state)

    def load(self, data: Mapping[str, Any]) -> dict:
        return dict(data)

    def describe(self, before, seat, move, after, viewer) -> list[str]:
        return [f"{{seat:{seat}}} takes {move['n']}; {after['pile']} left."]

    def move_label(self, move: Mapping[str, Any], view: Mapping[str, Any] | None = None) -> str:
        n = move.get("n")
        return f"Take {n} stone{'s' if n != 1 else ''}"

    def rules_reference(self) -> dict:
        return {"pile": f"{SMALLEST} to {LARGEST} stones, drawn", "take": list(range(1, MOST + 1))}

    def bot_move(
        self, view: Mapping, legal_moves: Sequence[dict], rng: random.Random, level: str = "normal"
    ) -> dict:
        best = view["pile"] % (MOST + 1)
        return {"type": "take", "n": best} if best else legal_moves[0]


DRAWN_NIM = DrawnNim()
