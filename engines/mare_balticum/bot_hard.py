"""Mare Balticum's "hard" bot: a search over the rules themselves (:mod:`engines.search`).

For every playout it rebuilds a full game from its own seat's view and nothing else: the
board, holds, warehouses, the bag's counts, demand and contracts are public; what it
cannot see is drawn at random so that it agrees with what it sees:

- which number token lies on which of another player's covered market spaces (version
  2: the spaces are shown, the numbers are not; version 1: the numbers are shown, the
  spaces are not);
- during a passage of time, what the players who have already chosen chose (a choice
  the "normal" bot would make in their place);
- whose turn ended when time began to pass, and which sea areas are still waiting for
  their refill (neither is in the view).

From the rebuilt game it plays the candidate move, lets the "normal" bot play every seat
on for a couple of rounds, and rates what it reaches by the final scoring applied to the
goods as they lie (multipliers not yet placed planned as the normal bot plans them, fish
still in the hold at part of their worth). The candidates are every legal move but the
sails, of which it keeps those the normal bot would rate best, and the normal bot's own
choice. A playout's verdict is noisy, so a move other than the normal bot's is played
only when paired playouts (one rebuilt game, the same draws and the same choices, only
the two moves differ) confirm that it does better. The budget is a number of playouts,
so its move depends only on the view and its random source.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

from engines.api import SeededChance
from engines.search import Search, choose, playout

from . import bot_normal, legal, rules, views
from .data import AREA_IDS, BAG_KINDS, CAPACITY, FISH, GOODS, NUMBER_TOKENS
from .scoring import score_warehouse
from .state import OVER, START, TIME, State
from .state import copy_json as _copy

PLAYOUTS = 100  # per move, for the search among the candidates
CHECKS = 40  # paired playouts that must confirm a move other than the normal bot's
MARGIN = 0.03  # by how much, on average, it must beat the normal bot's move in them
DEPTH = 20  # moves a playout plays on after the candidate (about two rounds at 3 players)
SAILS = 5  # sails kept among the candidates, besides the normal bot's choice
HOLD_WORTH = 0.6  # a fish in the hold, against one landed (it may never be)
SCALE = 4.0  # points of lead that make a win about three times as likely as a loss


# --------------------------------------------------------------------------- the game
def determinize(view: Mapping[str, Any], seat: int, rng: random.Random) -> State:
    """A full state that agrees with ``view``; what the seat cannot see drawn by ``rng``."""
    players = view["players"]
    seats = len(players)
    version = 2 if "covered" in players[seat] else 1
    state = State.__new__(State)
    state.rules_version = version
    state.seats = seats
    state.options = dict(view["options"])
    state.order = tuple(view["order"])
    state.vessels = view["vessels_per_player"]
    state.goods = {area: tuple(view["goods"][area]) for area in AREA_IDS}
    state.fleets = tuple(tuple(player["fleet"]) for player in players)
    state.holds = tuple(tuple(player["hold"].get(kind, 0) for kind in FISH) for player in players)
    state.warehouses = tuple(
        tuple(player["warehouse"].get(kind, 0) for kind in GOODS) for player in players
    )
    markets, played = [], []
    for other, player in enumerate(players):
        market, tokens = _market(player, other == seat, version, rng)
        markets.append(market)
        played.append(tokens)
    state.markets = tuple(markets)
    state.played = tuple(played)
    state.contracts = tuple(player["contract"] for player in players)
    state.bag = tuple(view["bag"].get(kind, 0) for kind in BAG_KINDS)
    state.removed = tuple(view["removed"].get(kind, 0) for kind in GOODS)
    state.time_track = view["time_track"]
    state.demand = {port: tuple(shown) for port, shown in view["demand"].items()}
    state.phase = view["stage"]
    state.round = view["round"]
    state.final_turns = view["final_turns"]
    state.events = ()
    state.refill = ()
    state.pending = ()
    if state.phase == TIME:
        state.actions = 0
        state.turn = rng.randrange(seats)
        occupied = {here for fleet in state.fleets for here in fleet}
        state.refill = tuple(
            (area, CAPACITY[area])
            for area in AREA_IDS
            if not state.goods[area] and area not in occupied
        )
        _pending(state, view, seat, rng)
    else:
        state.actions = 3 - view["actions_left"] if state.phase != OVER else 0
        current = view["current"]
        state.turn = state.order.index(current) if current is not None else 0
    return state


def _market(
    player: Mapping[str, Any], own: bool, version: int, rng: random.Random
) -> tuple[tuple[int | None, ...], tuple[int | str, ...]]:
    """A seat's market spaces and the production tokens it played, in order: its own as
    they are, another's drawn to agree with what the view shows of them."""
    if own or "market" in player:
        market = player["market"]
        return tuple(market[kind] for kind in FISH), tuple(player["played"])
    if version >= 2:
        covered = list(player["covered"])
        numbers = rng.sample(list(NUMBER_TOKENS), len(covered))
        placed = dict(zip(covered, numbers, strict=True))
        left = iter(numbers)
        tokens = tuple("tax" if token == "tax" else next(left) for token in player["played"])
    else:
        numbers = [token for token in player["played"] if token != "tax"]
        kinds = rng.sample(list(FISH), len(numbers))
        placed = dict(zip(kinds, numbers, strict=True))
        tokens = tuple(player["played"])
    return tuple(placed.get(kind) for kind in FISH), tokens


def _pending(state: State, view: Mapping[str, Any], seat: int, rng: random.Random) -> None:
    """The secret choices of a passage of time: the seat's own as it made it, another
    player's (once made) as the normal bot would make it."""
    state.pending = (None,) * state.seats
    chosen = []
    for other, player in enumerate(view["players"]):
        if other == seat:
            if view.get("my_choice") is not None:
                chosen.append((other, _copy(view["my_choice"])))
        elif player.get("chosen"):
            moves = legal.production_moves(state, other)
            move = bot_normal.choose_move(views.view(state, other), moves, rng)
            choice = dict(move)
            choice.pop("type")
            chosen.append((other, choice))
    pending = list(state.pending)
    for other, choice in chosen:
        pending[other] = choice
    state.pending = tuple(pending)


def rollout(engine: Any, state: State, seat: int, moves: Sequence[dict], rng: random.Random):
    """The normal bot, from the seat's view of the rebuilt game."""
    if len(moves) == 1:
        return moves[0]
    return bot_normal.choose_move(views.view(state, seat), moves, rng)


def worth(state: State, seat: int) -> float:
    """The seat's final score if the game ended with its goods as they lie: multipliers
    not yet placed planned as the normal bot plans them (highest left to the kinds it has
    most of), fish in the hold at part of their worth."""
    market = dict(zip(FISH, state.markets[seat], strict=True))
    warehouse = dict(zip(GOODS, state.warehouses[seat], strict=True))
    hold = dict(zip(FISH, state.holds[seat], strict=True))
    left = sorted((t for t in rules.unplayed(state, seat) if t != "tax"), reverse=True)
    open_kinds = sorted(
        (kind for kind in FISH if market[kind] is None),
        key=lambda kind: (warehouse[kind] + hold[kind], warehouse[kind]),
        reverse=True,
    )
    planned = dict(market)
    for kind, token in zip(open_kinds, left, strict=False):
        planned[kind] = token
    total = score_warehouse(warehouse, planned, state.contracts[seat])["total"]
    return total + HOLD_WORTH * sum(hold[kind] * (planned[kind] or 0) for kind in FISH)


def evaluate(engine: Any, state: State, seat: int) -> float:
    """The chance of winning, from the lead over the best other seat (see :func:`worth`)."""
    scores = [worth(state, other) for other in range(state.seats)]
    lead = scores[seat] - max(score for other, score in enumerate(scores) if other != seat)
    return 1.0 / (1.0 + math.exp(-lead / SCALE))


def candidates(view: Mapping[str, Any], moves: Sequence[dict], first: dict) -> list[dict]:
    """The moves worth a playout: the normal bot's choice (``first``), every move but a
    sail, and the sails the normal bot rates best."""
    sails = [move for move in moves if move["type"] == "sail"]
    if len(sails) > SAILS:
        values = bot_normal.plan(view)
        held = sum(view["players"][view["seat"]]["hold"].values())

        def gain(move: Mapping[str, Any]) -> float:
            value = bot_normal._area_worth(view, move["to"], values, held)
            if move.get("from") is not None:
                value -= bot_normal._area_worth(view, move["from"], values, held)
            return value

        sails = sorted(sails, key=gain, reverse=True)[:SAILS]
    kept = [first]
    for move in moves:
        if move["type"] == "sail" and move not in sails:
            continue
        if move["type"] == "take_contract" and view["players"][view["seat"]]["contract"]:
            continue  # trading one contract for another: only as the normal bot's choice
        if move not in kept:
            kept.append(move)
    return kept


def search(engine: Any, playouts: int = PLAYOUTS, depth: int = DEPTH) -> Search:
    return Search(engine, determinize, rollout, evaluate, playouts=playouts, depth=depth)


def confirmed(
    search: Search,
    view: Mapping[str, Any],
    seat: int,
    move: dict,
    usual: dict,
    checks: int,
    rng: random.Random,
) -> bool:
    """Whether ``move`` beats ``usual`` (the normal bot's move) by :data:`MARGIN` on
    average over ``checks`` pairs of playouts, each pair played on one rebuilt game with
    the same chance and the same random choices, so that only the two moves differ."""
    lead = 0.0
    for _ in range(checks):
        state = search.determinize(view, seat, rng)
        seed = rng.getrandbits(64)
        for sign, candidate in ((1.0, move), (-1.0, usual)):
            chance = SeededChance(seed)
            after = search.engine.apply(state, seat, candidate, chance)
            lead += sign * playout(search, after, seat, random.Random(seed))
    return lead > MARGIN * checks


def choose_move(
    view: Mapping[str, Any],
    moves: Sequence[dict],
    rng: random.Random,
    playouts: int | None = None,
    depth: int | None = None,
    checks: int | None = None,
) -> dict:
    """The search's move among the candidates, when paired playouts confirm that it
    beats the normal bot's; the normal bot's move otherwise. The budgets not given are
    the module's numbers as they are at the call (so a benchmark may change them)."""
    from . import ENGINE

    playouts = PLAYOUTS if playouts is None else playouts
    depth = DEPTH if depth is None else depth
    checks = CHECKS if checks is None else checks

    if len(moves) == 1:
        return moves[0]
    usual = bot_normal.choose_move(view, moves, rng)
    if view["stage"] == START:
        return usual
    kept = candidates(view, moves, usual)
    plan = search(ENGINE, playouts, depth)
    best = choose(plan, view, kept, view["seat"], rng)
    if best == usual or not confirmed(plan, view, view["seat"], best, usual, checks, rng):
        return usual
    return best


__all__ = ["choose_move", "determinize", "evaluate", "rollout"]
