"""Mercatores' "hard" bot: the normal bot's move, unless a search shows a better one.

It plays from its own seat's view and the legal moves only, and is deterministic given
them and its random source (a budget of playouts, not of time).

Investment. The normal bot (:mod:`engines.mercatores.bot_normal`) rates every trade by
the best load it allows and every load by the resources and hand it leaves
(``bot_normal.ratings``), and plays out its last turn. The hard bot takes the normal
bot's own move and its ``CANDIDATES`` - 1 other best-rated moves, and plays each of
them on the same sampled deals (``PLAYOUTS`` playouts shared evenly): each deal gives
the cards the seat cannot see (the other hands, the deck) at random from the cards it
has not seen (every card not in its hand, the market or anyone's resources), and every
candidate is played there with the same random source after it (common random numbers),
so the difference between two moves is measured on the same luck. A playout plays on
with the normal bot's yardstick for every seat (among every load, or among
``ROLLOUT_TRADES`` trades drawn at random; without the last-turn play-out) for at most
``DEPTH`` moves or to the end of the investment phase, and scores where it got to: the
profit phase played out greedily on the look-ahead's counts
(:mod:`engines.mercatores.lookahead`) to the final scores, or an investment cut short
judged by coins, Captain and what resources and hand promise (the normal bot's
yardstick); the seat's margin over each other seat is squashed to (0, 1) and the two
(or three) averaged, a head-to-head measure (before, the margin over the best other
seat alone: being ahead of the third seat counted for nothing). A rollout used to draw
its load too among five at random, so the load after a candidate trade, which decides
what the trade is worth, was often a poor one. The hard bot leaves the normal bot's
move only for one that beats it on the same deals by ``CONFIDENCE`` standard errors and
``MARGIN`` on average: with a few dozen playouts a move, the search's noise alone would
otherwise pick worse moves than the normal bot's (the search before this rule, choosing
by UCB1 among the normal bot's best-rated moves with the first bot as its rollout, lost
to the normal bot: 33.9% of 3-player games and 47.5% of pairings).

Profit. Everything is face up and nothing is left to chance, so every tax and cash-in
the rules allow is played out to the end of the game with every seat playing the normal
bot's move (``played_to_end``: the normal bot's choice depends on nothing hidden), and
the move that ends with the most head-to-head points against the other seats (a seat
ended above 1, a tie 1/2), then the widest margin over the best of them, is played; the
normal bot's move on a tie. The normal bot itself looks ahead with every seat greedy on
its counts, which is not how the normal bots then play; the played-out move differs
from it on about one profit move in ten.

Offered as ``hard`` (a slow level: ``slow_bot_levels``). One hard seat against normal
ones, seats rotated, each deal once per seat (``nice -n 10 .venv/bin/python
bench/bench_hard.py mercatores N --players P --seed S``), 3 players: 56.2% of 24 games
and 69.8% of 48 pairings (seed 11), 48.9% of 45 games and 67.8% of 90 pairings (seed
13), 58.9% of 30 games and 70.0% of 60 pairings (seed 7), together 53.7% of 99 games
(baseline 33.3%) and 68.9% of 198 pairings; a move costs 371 to 411 ms of CPU at the
median, 1.23 to 1.27 s at p99 (a machine shared by several runs). The steps: the profit phase's play-out alone (the investment as the normal bot's,
``--set CANDIDATES=1``, 150 games, seed 11): 39.0% of games, 57.8% of 300 pairings;
the investment's rollouts rating every load and the head-to-head measure alone, 21 games
of a run with seed 11: 50.0% of games, 60.7% of 42 pairings. Before these changes:
33.8% of 75 games and 53.7% of 150 pairings (seeds 7 and 11). 4 players (seed 11):
47.9% of 24 games (baseline 25%), 75.0% of 72 pairings, 421 ms at the median and 1.17 s
at p99 (before: 33.1% of 75 games and 60.0% of 225 pairings, seeds 7 and 11).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import partial
from typing import Any

from engines import search as generic
from engines.api import IllegalMove, SeededChance
from engines.mercatores import bot, bot_normal
from engines.mercatores.bot_normal import NO_CHANCE
from engines.mercatores.data import CARD_ORDER, CARDS
from engines.mercatores.lookahead import Search as LookAhead
from engines.mercatores.moves import legal_moves as moves_legal
from engines.mercatores.moves import load_choices
from engines.mercatores.rules import apply as apply_rules
from engines.mercatores.scoring import scores
from engines.mercatores.state import INVESTMENT, PROFIT, State, kinds_held, ordered, pile

PLAYOUTS = 100  # playouts per investment move, shared evenly by the candidates
ROLLOUT_TRADES = 5  # trades a rollout move chooses among
DEPTH = 18  # moves a playout plays after the candidate, at most
CANDIDATES = 5  # the normal bot's best-rated investment moves the search chooses among
CONFIDENCE = 2.0  # standard errors by which a move must beat the normal bot's on the same deals
MARGIN = 0.01  # and the least average gain (of the squashed margin) to leave the normal bot's
SCALE = 3.0  # coins of margin that make a cut-short playout worth about 0.73


# ---------------------------------------------------------------- the seat's view, sampled


def determinize(view: Mapping[str, Any], seat: int, rng: random.Random, version: int = 2) -> State:
    """A full state that agrees with ``view``: the cards the seat has not seen (not in its
    hand, the market or anyone's resources) dealt at random to the other hands, the deck
    and the discard pile, in the sizes the view shows."""
    players = view["players"]
    n = len(players)
    resources = []
    for player in players:
        mine = player["resources"]
        resources.append(
            ordered([c for cards in mine["piles"].values() for c in cards] + mine["specials"])
        )
    hand = tuple(view.get("hand") or ())
    seen = set(hand) | set(view["market"]) | {card for cards in resources for card in cards}
    unseen = [card for card in CARD_ORDER if card not in seen]
    rng.shuffle(unseen)
    hands: list[tuple[str, ...]] = []
    for other in range(n):
        if other == seat:
            hands.append(ordered(hand))
            continue
        size = players[other]["hand_size"]
        hands.append(ordered(unseen[:size]))
        del unseen[:size]
    deck = ordered(unseen[: view["deck_size"]])
    discard = ordered(unseen[view["deck_size"] :])
    phase = view["stage"]
    unloading = view["unloading"]
    last_turn = view["last_turn"]
    end = view["end_triggered"] or ""
    # The seat that started the phase is not in the view; a phase ended by the deck tells
    # it (its last turn is the seat before the first); else the first seat is assumed.
    first = (last_turn + 1) % n if end == "deck" and last_turn is not None else 0
    return State(
        seats=n,
        end_cards=view["end_cards"],
        phase=phase,
        step=view["step"],
        turn=view["turn"] if view["turn"] is not None else 0,
        round=view["round"],
        deck=deck,
        market=ordered(view["market"]),
        hands=tuple(hands),
        resources=tuple(resources),
        discard=discard,
        coins=tuple(player["coins"] for player in players),
        captain=view["captain"],
        unloading=unloading,
        end=end,
        last_turn=last_turn,
        round_start=unloading if phase == PROFIT and unloading is not None else first,
        rules_version=version,
        first=first,
    )


def light_view(state: State, seat: int) -> dict:
    """What the bots read from a view, built from a state without the rest of a view."""
    players = []
    for other in range(state.seats):
        own = state.resources[other]
        players.append(
            {
                "resources": {
                    "piles": {kind: pile(own, kind) for kind in kinds_held(own)},
                    "specials": [card for card in own if CARDS[card]["kind"] != "goods"],
                },
                "ships": sum(CARDS[card]["ships"] for card in own),
                "coins": state.coins[other],
            }
        )
    return {
        "seat": seat,
        "players": players,
        "hand": list(state.hands[seat]),
        "step": state.step,
        "turn": state.turn,
        "round": state.round,
        "end_cards": state.end_cards,
        "end_triggered": state.end or None,
        "captain": state.captain,
        "unloading": state.unloading,
    }


# ---------------------------------------------------------------- playouts

ROLLOUT_PARAMS = dict(bot_normal.PARAMS, final=0)  # no last-turn play-out inside a playout


def rollout(
    engine: Any, state: State, seat: int, legal: Sequence[dict], rng: random.Random
) -> dict:
    """The normal bot's choice by its yardstick (without its last-turn play-out), among
    every load, or among at most ``ROLLOUT_TRADES`` trades drawn at random (a playout
    needs a plausible game at a small cost; a load is cheap to rate, and the load after a
    trade decides what the trade was worth)."""
    if len(legal) > ROLLOUT_TRADES and legal[0]["type"] == "trade":
        legal = rng.sample(legal, ROLLOUT_TRADES)
    rated = bot_normal.ratings(light_view(state, seat), legal, ROLLOUT_PARAMS)
    return legal[max(range(len(legal)), key=lambda i: (rated[i][0], -i))]


def evaluate(engine: Any, state: State, seat: int) -> float:
    """A playout's end: the profit phase played out greedily to the final scores, or an
    investment cut short judged by coins, Captain and prospects; the seat's margin over
    each other seat squashed to (0, 1), averaged over the others (a head-to-head measure:
    being ahead of both others counts, not only of the best)."""
    standings = final_standings(state)
    others = [s for other, s in enumerate(standings) if other != seat]
    return sum(squash(standings[seat] - s) for s in others) / len(others)


def squash(margin: float) -> float:
    return 1.0 / (1.0 + math.exp(-margin / SCALE))


def final_standings(state: State) -> list[float]:
    """Each seat's final score (in the profit phase, played out greedily on the
    look-ahead's counts) or, in an investment cut short, its prospects."""
    if state.phase == PROFIT:
        look = LookAhead(state.seats, state.captain, bot_normal.PARAMS["later"])
        end = look.replies(look.position(state), 200)
        return [look.standing(end, other) for other in range(state.seats)]
    return [standing(state, other) for other in range(state.seats)]


def standing(state: State, seat: int) -> float:
    """Coins, the Captain's bonus, and what the resources and hand promise (the normal
    bot's yardstick on the seat's best load of its hand)."""
    view = light_view(state, seat)
    yardstick = bot.Yardstick(bot.Table(view), state.resources[seat], bot_normal.PARAMS["part"])
    hand = state.hands[seat]
    weight = 0.0 if state.end else bot_normal.PARAMS["hand"]
    best = yardstick.worth((), hand, weight)
    for _way, cards in load_choices(hand):
        kept = [card for card in hand if card not in cards]
        best = max(best, yardstick.worth(cards, kept, weight))
    captain = bot_normal.PARAMS["captain"] if state.captain == seat else 0.0
    return state.coins[seat] + captain + best


class Investment:
    """The engine as the search plays it: a playout stops where the profit phase begins
    (no seat is due), and the evaluation plays the profit phase out on counts, far faster
    than move by move."""

    def __init__(self, engine: Any):
        self.engine = engine

    def to_move(self, state: State) -> frozenset[int]:
        if state.phase != INVESTMENT:
            return frozenset()
        return self.engine.to_move(state)

    def legal_moves(self, state: State, seat: int) -> list[dict]:
        return self.engine.legal_moves(state, seat)

    def apply(self, state: State, seat: int, move: Mapping[str, Any], chance: Any) -> State:
        return self.engine.apply(state, seat, move, chance)

    def result(self, state: State) -> Any:
        return self.engine.result(state)


def candidates(view: Mapping[str, Any], legal: Sequence[dict], count: int) -> list[dict]:
    """The normal bot's ``count`` best-rated investment moves, best first (ties in the
    order of ``legal``)."""
    rated = bot_normal.ratings(view, legal)
    order = sorted(range(len(legal)), key=lambda i: (-rated[i][0], i))
    return [legal[i] for i in order[:count]]


def compare(
    engine: Any,
    view: Mapping[str, Any],
    moves: Sequence[dict],
    rng: random.Random,
    deals: int,
    depth: int,
) -> list[list[float]]:
    """Each move's playout values on the same ``deals`` sampled deals: every move is
    played on the same deal with the same random source after it (common random
    numbers), so the differences between moves show through the luck of the deal."""
    search = generic.Search(
        engine=Investment(engine),
        determinize=partial(determinize, version=engine.version),
        rollout=rollout,
        evaluate=evaluate,
        playouts=0,
        depth=depth,
    )
    seat = view["seat"]
    values: list[list[float]] = [[] for _ in moves]
    for _ in range(deals):
        seed = rng.getrandbits(64)
        for index, move in enumerate(moves):
            local = random.Random(seed)
            state = search.determinize(view, seat, local)
            after = search.engine.apply(state, seat, move, SeededChance(local.getrandbits(64)))
            values[index].append(generic.playout(search, after, seat, local))
    return values


def confident_best(values: Sequence[Sequence[float]]) -> int:
    """The index of the move to play: 0 (the normal bot's) unless another beats it on
    the same deals by more than ``CONFIDENCE`` standard errors and ``MARGIN`` on average."""
    best, best_mean = 0, 0.0
    base = values[0]
    for index in range(1, len(values)):
        diffs = [a - b for a, b in zip(values[index], base, strict=True)]
        n = len(diffs)
        if n < 2:
            continue
        mean = sum(diffs) / n
        spread = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1) / n)
        if mean > MARGIN and mean > CONFIDENCE * spread and mean > best_mean:
            best, best_mean = index, mean
    return best


def choose_move(
    engine: Any,
    view: Mapping[str, Any],
    legal: Sequence[dict],
    rng: random.Random,
    playouts: int | None = None,
    depth: int | None = None,
    count: int | None = None,
) -> dict:
    """The hard bot's move: always one of ``legal`` (the budget defaults to the module's
    ``PLAYOUTS``, ``DEPTH`` and ``CANDIDATES``)."""
    own = random.Random(rng.getrandbits(64))
    normal = bot_normal.choose_move(view, legal, random.Random(own.getrandbits(64)))
    if legal[0]["type"] in ("tax", "cash") and len(legal) > 1:
        return profit_move(engine, view, legal, normal)
    if legal[0]["type"] not in ("trade", "load") or len(legal) == 1:
        return normal
    count = CANDIDATES if count is None else count
    playouts = PLAYOUTS if playouts is None else playouts
    moves = [normal] + [move for move in candidates(view, legal, count) if move != normal]
    moves = moves[: max(count, 1)]
    if len(moves) == 1:
        return normal
    deals = max(1, playouts // len(moves))
    values = compare(engine, view, moves, own, deals, DEPTH if depth is None else depth)
    return moves[confident_best(values)]


def profit_move(engine: Any, view: Mapping[str, Any], legal: Sequence[dict], normal: dict) -> dict:
    """A tax or cash-in: every legal move played out to the end of the game with every
    seat playing the normal bot's move (everything is face up, nothing is drawn, and the
    normal bot's choice depends on nothing else); the move that ends best for the seat
    (``played_to_end``), the normal bot's on a tie or if the table cannot be rebuilt."""
    seat = view["seat"]
    try:
        state = replace(bot_normal.table_state(view), rules_version=engine.version)
        best, best_value = normal, played_to_end(state, seat, normal)
        for move in legal:
            if move != normal:
                value = played_to_end(state, seat, move)
                if value > best_value:
                    best, best_value = move, value
    except (IllegalMove, KeyError, ValueError):
        return normal
    return best


def played_to_end(state: State, seat: int, move: Mapping[str, Any]) -> tuple[float, int]:
    """``move`` by ``seat``, then the profit phase played by the normal bot for every
    seat; the seat's head-to-head points against each other seat (1 a seat it ends
    above, half a tie) and its margin over the best other seat."""
    state = apply_rules(state, seat, move, NO_CHANCE)
    rng = random.Random(0)  # the normal bot's look-ahead draws nothing
    while state.phase == PROFIT:
        mover = state.turn
        legal = moves_legal(state, mover)
        state = apply_rules(
            state, mover, bot_normal.choose_move(light_view(state, mover), legal, rng), NO_CHANCE
        )
    totals = scores(state)
    others = [total for other, total in enumerate(totals) if other != seat]
    mine = totals[seat]
    points = sum(1.0 if mine > total else 0.5 if mine == total else 0.0 for total in others)
    return points, mine - max(others)


__all__ = ["choose_move", "determinize", "evaluate", "light_view", "profit_move", "rollout"]
