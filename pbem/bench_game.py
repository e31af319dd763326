"""The game ``pbem bench`` plays: a race to bank points with one die, small enough that
the figures measure the server (the event store, the listeners, the pages), not rules.

Players take turns. ``roll`` draws a die through chance: a 1 loses the points rolled
this turn and passes the turn, anything else adds to them; ``stop`` banks them and
passes the turn. The first to bank ``target`` points wins. Nothing is hidden.

It is never listed (the lobby, the demo and ``pbem new`` do not offer it): ``pbem
bench`` adds it to the registry of its own process with :func:`register`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engines import REGISTRY
from engines.api import IllegalMove, MalformedMove, Option, Result


class BenchRace:
    slug = "bench-race"
    title = "Bench race"
    listed = False
    version = 1
    versions = (1,)
    bot_levels = ("normal",)
    min_seats = 1
    max_seats = 6
    options = (Option("target", 20, "Points that end the game.", label="Target"),)

    def at_version(self, version: int) -> BenchRace:
        if version != self.version:
            raise KeyError(f"{self.title} has no version {version}.")
        return self

    def setup(self, seats: int, options: Mapping[str, Any], chance: Any) -> dict:
        return {
            "target": int(options.get("target", 20)),
            "scores": [0] * seats,
            "turn": 0,
            "pot": 0,
            "over": False,
        }

    def to_move(self, state: dict) -> frozenset[int]:
        return frozenset() if state["over"] else frozenset({state["turn"]})

    def legal_moves(self, state: dict, seat: int) -> list[dict]:
        if seat not in self.to_move(state):
            return []
        return [{"type": "roll"}, {"type": "stop"}]

    def apply(self, state: dict, seat: int, move: Mapping[str, Any], chance: Any) -> dict:
        if state["over"]:
            raise IllegalMove("The game is over.")
        if seat != state["turn"]:
            raise IllegalMove("It is not your turn.")
        if not isinstance(move, Mapping) or move.get("type") not in ("roll", "stop"):
            raise MalformedMove("A move is {'type': 'roll'} or {'type': 'stop'}.")
        new = {**state, "scores": list(state["scores"])}
        following = (seat + 1) % len(state["scores"])
        if move["type"] == "roll":
            rolled = chance.below(6) + 1
            new["pot"], new["turn"] = (
                (0, following) if rolled == 1 else (state["pot"] + rolled, seat)
            )
        else:
            new["scores"][seat] += state["pot"]
            new["pot"] = 0
            if new["scores"][seat] >= state["target"]:
                new["over"] = True
            else:
                new["turn"] = following
        return new

    def view(self, state: dict, seat: int | None) -> dict:
        view = {
            "game": self.slug,
            "seat": seat,
            "to_move": sorted(self.to_move(state)),
            "phase": "Over" if state["over"] else f"Turn of player {state['turn'] + 1}",
            "scores": list(state["scores"]),
            "pot": state["pot"],
            "target": state["target"],
            "finished": state["over"],
        }
        if state["over"]:
            view["result"] = self.result(state).to_json()
        return view

    def result(self, state: dict) -> Result | None:
        if not state["over"]:
            return None
        best = max(state["scores"])
        return Result(
            scores=tuple(state["scores"]),
            winners=tuple(i for i, score in enumerate(state["scores"]) if score == best),
            reason="target reached",
        )

    def dump(self, state: dict) -> dict:
        return {**state, "scores": list(state["scores"])}

    def load(self, data: Mapping[str, Any]) -> dict:
        return self.dump(dict(data))

    def describe(self, before: dict, seat: int, move: Mapping, after: dict, viewer: Any) -> list:
        name = f"Player {seat + 1}"
        if move["type"] == "stop":
            return [f"{name} banks {before['pot']} points."]
        if after["pot"] == 0:
            return [f"{name} rolls a 1 and loses the turn's points."]
        return [f"{name} rolls {after['pot'] - before['pot']} (turn: {after['pot']})."]

    def move_label(self, move: Mapping[str, Any], view: Mapping[str, Any] | None = None) -> str:
        return {"roll": "Roll the die", "stop": "Stop and bank"}.get(move.get("type"), "?")

    def bot_move(
        self, view: Mapping, legal_moves: Sequence[dict], rng: random.Random, level: str = "normal"
    ) -> dict:
        return {"type": "stop"} if view["pot"] >= 10 else {"type": "roll"}


RACE = BenchRace()


def register() -> BenchRace:
    """Adds the bench's game to this process's registry (once) and returns it."""
    REGISTRY.setdefault(RACE.slug, RACE)
    return RACE
