"""Pig with a secret bonus: a tiny engine for testing the platform (not a product).

Players take turns rolling a die: each roll adds to the turn's total, a 1 loses it and
ends the turn, ``stop`` banks it. Each player also draws a secret bonus card (1-3) at
setup that only they see until the end, when it is added to their score. The first to
bank ``target`` points ends the game. Chance: die rolls and bonus draws. Hidden
information: the bonus cards.

Moves: ``{"type": "roll"}`` (one die), ``{"type": "roll", "dice": n}`` (n dice at once,
2 to 20: all are lost if any shows a 1), ``{"type": "stop"}``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engines.api import IllegalMove, MalformedMove, Option, Result

MAX_DICE = 20


class Pig:
    slug = "pig"
    title = "Pig (test fixture)"
    listed = False  # a fixture: the lobby and the demo do not offer it
    version = 1
    versions = (1,)
    bot_levels = ("easy", "normal")
    min_seats = 1
    max_seats = 6
    options = (
        Option("target", 20, "Points that end the game.", label="Target"),
        Option("cautious", False, "Stop at 10 points in a turn (bots only)."),
    )

    def at_version(self, version: int) -> Pig:
        if version != self.version:
            raise KeyError(f"{self.title} has no version {version}.")
        return self

    def setup(self, seats: int, options: Mapping[str, Any], chance) -> dict:
        bonus_cards = [1, 1, 2, 2, 3, 3, 1, 2, 3, 1, 2, 3]
        bonus = []
        for _ in range(seats):
            bonus.append(bonus_cards.pop(chance.below(len(bonus_cards))))
        return {
            "target": int(options.get("target", 20)),
            "scores": [0] * seats,
            "bonus": bonus,
            "turn": 0,
            "pot": 0,
            "rolls": 0,
            "over": False,
        }

    def to_move(self, state: dict) -> frozenset[int]:
        return frozenset() if state["over"] else frozenset({state["turn"]})

    def legal_moves(self, state: dict, seat: int) -> list[dict]:
        if seat not in self.to_move(state):
            return []
        return [
            {"type": "roll"},
            {"type": "stop"},
            *({"type": "roll", "dice": n} for n in range(2, MAX_DICE + 1)),
        ]

    def apply(self, state: dict, seat: int, move: Mapping[str, Any], chance) -> dict:
        if state["over"]:
            raise IllegalMove("The game is over.")
        if seat != state["turn"]:
            raise IllegalMove("It is not your turn.")
        if not isinstance(move, Mapping) or not set(move) <= {"type", "dice"}:
            raise MalformedMove("A move is {'type': 'roll'} or {'type': 'stop'}.")
        dice = move.get("dice", 1)
        if (
            type(dice) is not int
            or not 1 <= dice <= MAX_DICE
            or ("dice" in move and (move["type"] != "roll" or dice == 1))
        ):
            raise MalformedMove(f"Roll 2 to {MAX_DICE} dice, or leave out 'dice' for one.")
        new = {**state, "scores": list(state["scores"])}
        seats = len(state["scores"])
        if move["type"] == "roll":
            rolled = [chance.below(6) + 1 for _ in range(dice)]
            new["rolls"] = state["rolls"] + 1
            if 1 in rolled:
                new["pot"] = 0
                new["turn"] = (seat + 1) % seats
            else:
                new["pot"] = state["pot"] + sum(rolled)
        elif move["type"] == "stop":
            new["scores"][seat] += state["pot"]
            new["pot"] = 0
            if new["scores"][seat] >= state["target"]:
                new["over"] = True
            else:
                new["turn"] = (seat + 1) % seats
        else:
            raise MalformedMove(f"Unknown move type {move['type']!r}.")
        return new

    def view(self, state: dict, seat: int | None) -> dict:
        view = {
            "game": self.slug,
            "seat": seat,
            "to_move": sorted(self.to_move(state)),
            "phase": f"Turn of player {state['turn'] + 1}" if not state["over"] else "Over",
            "scores": list(state["scores"]),
            "pot": state["pot"],
            "target": state["target"],
            "players": [{"score": score} for score in state["scores"]],
            "finished": state["over"],
        }
        if seat is not None:
            view["my_bonus"] = state["bonus"][seat]
        if state["over"]:
            view["bonus"] = list(state["bonus"])
            view["result"] = self.result(state).to_json()
        return view

    def result(self, state: dict) -> Result | None:
        if not state["over"]:
            return None
        totals = [
            score + bonus for score, bonus in zip(state["scores"], state["bonus"], strict=True)
        ]
        best = max(totals)
        return Result(
            scores=tuple(totals),
            winners=tuple(i for i, total in enumerate(totals) if total == best),
            breakdown={"banked": list(state["scores"]), "bonus": list(state["bonus"])},
            reason="target reached",
        )

    def dump(self, state: dict) -> dict:
        return {**state, "scores": list(state["scores"]), "bonus": list(state["bonus"])}

    def load(self, data: Mapping[str, Any]) -> dict:
        return self.dump(dict(data))

    def describe(self, before, seat, move, after, viewer) -> list[str]:
        name = f"Player {seat + 1}"
        if move["type"] == "roll":
            if after["pot"] == 0:
                return [f"{name} rolls a 1 and loses the turn's points."]
            return [f"{name} rolls {after['pot'] - before['pot']} (turn: {after['pot']})."]
        return [f"{name} stops and banks {before['pot']} points."]

    def move_label(self, move: Mapping[str, Any], view: Mapping[str, Any] | None = None) -> str:
        if move.get("type") == "roll" and move.get("dice", 1) > 1:
            return f"Roll {move['dice']} dice"
        return {"roll": "Roll the die", "stop": "Stop and bank"}.get(move.get("type"), "?")

    def bot_move(
        self,
        view: Mapping,
        legal_moves: Sequence[dict],
        rng: random.Random,
        level: str = "normal",
    ) -> dict:
        return {"type": "stop"} if view["pot"] >= 10 else {"type": "roll"}


PIG = Pig()
