"""Mercatores' "normal" bot: whole investment turns judged, the profit phase looked ahead.

It plays from its own seat's view and the legal moves only, and is deterministic given
them and its random source (used only to break exact ties).

Investment. The first ("easy") bot judges a trade by how well its resources plus the
hand the trade leaves fill the profit tables, as if every card in hand could still be
loaded. But a turn is a trade and then one load (one kind, two different kinds, or one
special card), so the normal bot judges each trade by the best load it allows that same
turn: for every hand a trade could leave, it tries every load the rules allow (keeping
a card unless the load reaches the end count or the end was triggered) and values the
resources after it plus the kept hand, with the first bot's yardstick (piles and
special cards by their profit tables, part credit of 0.6 for the way to the next
threshold, the Captain's bonus on the load that ends the phase).

The kept hand counts only for what the loads left can bring in: one load a turn, and
the turns left are guessed from the player nearest the end count, taken to load 3 cards
a turn (at most 3 loads, at least 1). The hand's groups (all its cards of one goods
kind, or one special card) are ranked by what each adds to the resources, and only the
best ones count, each card at 0.5 of a loaded one. The first bot counted every card
(at 0.8; this bot at 0.6 before), so it filled its hand with special cards and single
goods it never had the turns to load, and the hand is lost when the phase ends. On a
last turn after the end was triggered a kept card counts for nothing, and the 8 best
turns by that measure are played out: the profit phase, greedily for every player on the
look-ahead's counts (:mod:`engines.mercatores.lookahead`), from the table as the turn
would leave it; the turn that ends furthest ahead of the best other player wins. The
yardstick counts every Warehouse on every kind at once; played out, the taxes take single
cards first, and a pile with spare cards pays better.

Profit. Everything is face up and nothing is left to chance, so it rebuilds the table
from its view and looks ahead with the game's own rules: for each tax and cash-in of
its turn, the rest of the game is played out greedily (every player cashing what leaves
them best placed), and it takes the turn that leaves its coins and prospects furthest
ahead of the best other player's, the Captain's 2 coins counted (they decide which
player is the one to deny).

Measured (``nice -n 10 .venv/bin/python bench/bench_hard.py mercatores 400 --players 3
--players 4 --strong normal --weak easy``; one normal seat, rotating, against easy
seats, each deal once per seat): 52.2% of 3-player games (baseline 33.3%; the bot before
these changes 45.4%), above each easy seat in 66.1% of pairings (61.3%); 38.5% of
4-player games (baseline 25%; before 40.3%), 62.0% of pairings (63.2%). The first 200
of those games: 55.9% (before 47.8%) and 40.4% (38.9%). With ``--seed 13``, 56.2%
(43.7%) and 48.2% (39.3%); with ``--seed 21`` at 4 players, 47.5% (40.9%). A run of
400 games is only 100 deals at 4 players (133 at 3), each dealt once per seat, so seed
sets differ by more than the binomial 2.5 points: the 3-player gain shows on every set,
the 4-player one on two of three. A move costs 0.5 ms of CPU at the median and 12 ms at
p99 at 3 players, 0.6 and 15 ms at 4 (it was 0.3 and 6 ms): the last turn's play-outs
and the profit phase's look-ahead to the end of the game. The hard bot, which rates its
candidates with this bot's yardstick and weights, against two normal bots (``bench/bench_hard.py
mercatores 30 --players 3``): 33.9% of games, 47.5% of pairings.

The steps, on 400 games a player count with ``--seed 13``: the bot as it was, 43.7% of
3-player and 39.3% of 4-player games; the hand counted by the loads left, 48.0% and
45.9%; a kept card at 0.5 and part credit 0.6, 52.0% and 47.8%; the last turn played
out, 53.2% and 49.1%; the profit phase's look-ahead to the end of the game rather than 3
turns, 56.2% and 48.2%.

Tried and dropped on the same runs: playing out the best turns, as on a last turn,
whenever the player nearest the end could end the phase on their next turn (1 and 2
points worse); the loss of cashing one thing a turn under tax, from one's own profit
phase played alone, taken off the yardstick at 0.3 (2 and 5 points worse); counting 2
loads left at most (5 and 7 points worse), 4 or 5 (no gain); a leader's pace of 2.5 or
4 cards a turn (no gain); a kept card worth 0.4 or 0.7 (3 to 9 points worse); part
credit 0.45 (3 points worse); a Captain's bonus of 1.5 or 3.5 (no change); the last
turn's play-out over its 20 best turns rather than 8 (no change); each further special
card of a class (cashed a turn later, after a tax) worth 0.8 of the one before (a point
worse at each count) or 0.6 (4 points worse). On the bot as it was
(300 games, ``--seed 11``): a cost for each profit-phase tax no spare goods card can pay
(0.5 a tax: 3 points worse; 1.0: 8 to 13 points worse); the loss above at 0.5 or 1.0 (1
to 10 points worse); a leader's pace of 2 cards a turn (7 points worse at 4 players).

Before these (the bot as it was: 47.2% of 3-player games, 42.1% of 4-player ones with
``bench/bench_bots.py``), these had been tried and dropped: leaving the next player a
poorer market, a hand worth half once another player could end the phase on their next
turn, a hand worth nothing after the load that ends the phase, racing for the Captain
with a bonus per card in the resources, part credit 0.5 or 1.0, a cost per pile and
special card, other players' goods counted at 0.7 in Trade Routes and Quays, a cost for
loading goods another player's Trade Route or Quay counts, prospects worth 0.75, and the
margin taken half against the mean of the others.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

from engines.api import IllegalMove, ScriptedChance
from engines.mercatores import bot
from engines.mercatores.data import GOODS_OF
from engines.mercatores.lookahead import Search
from engines.mercatores.moves import load_choices
from engines.mercatores.rules import apply
from engines.mercatores.state import CASH, PROFIT, State, ordered

NO_CHANCE = ScriptedChance([])

PARAMS = {
    "later": 0.9,  # worth now of a coin the resources would still pay
    "turns": 100,  # greedy turns looked ahead after one's own (100: to the end of the game)
    "hand": 0.5,  # worth of a card kept in hand, against one loaded
    "part": 0.6,  # worth of the way from one profit threshold to the next
    "captain": 2.5,  # the Captain's 2 coins, and the first round without tax
    "pace": 3.0,  # cards a turn the leader is taken to load, to count the loads left (0: off)
    "most": 3,  # most loads left counted
    "final": 8,  # on the last turn, judge the best loads by the whole profit phase played out
}


def table_state(view: Mapping[str, Any]) -> State:
    """The profit phase's state, rebuilt from a view: everything is face up by then
    (hands and market are discarded; the deck and discard pile play no part). Played on
    version 1's rules, which allow every cash-in version 2 allows."""
    seats = len(view["players"])
    resources = []
    for player in view["players"]:
        mine = player["resources"]
        cards = [card for pile in mine["piles"].values() for card in pile] + mine["specials"]
        resources.append(ordered(cards))
    return State(
        seats=seats,
        end_cards=view["end_cards"],
        phase=PROFIT,
        step=view["step"],
        turn=view["turn"],
        round=view["round"],
        deck=(),
        market=(),
        hands=((),) * seats,
        resources=tuple(resources),
        discard=(),
        coins=tuple(player["coins"] for player in view["players"]),
        captain=view["captain"],
        unloading=view["unloading"],
        end="",
        last_turn=None,
        round_start=view["unloading"],
    )


def look_ahead(
    view: Mapping[str, Any], legal: Sequence[dict], later: float, turns: int = 1
) -> dict | None:
    """The move whose turn, followed by ``turns`` greedy turns (the next players', then
    one's own, ...), leaves the best margin; None if the table cannot be rebuilt.

    Each candidate is taken by the game's own rules; the rest of its turn and the greedy
    turns after it are played on counts of card classes (:mod:`engines.mercatores.
    lookahead`), which reach the positions the rules would reach at a fraction of the
    cost (``tests/engines/mercatores/test_lookahead.py`` plays both)."""
    try:
        state = table_state(view)
        seat = view["seat"]
        search = Search(state.seats, state.captain, later)
        best, best_value = None, None
        for move in legal:
            after = search.position(apply(state, seat, move, NO_CHANCE))
            finishing = [after]
            if after[0] == PROFIT and after[2] == seat:
                finishing = [search.apply(after, cash) for cash in search.legal(after)]
            value = max(search.margin(search.replies(done, turns), seat) for done in finishing)
            if best_value is None or value > best_value:
                best, best_value = move, value
        return best
    except (IllegalMove, KeyError, ValueError):
        return None


def choose_move(
    view: Mapping[str, Any],
    legal: Sequence[dict],
    rng: random.Random,
    params: Mapping[str, float] = PARAMS,
) -> dict:
    """The bot's move: always one of ``legal``."""
    if legal[0]["type"] in ("tax", "cash"):
        chosen = look_ahead(view, legal, params["later"], int(params["turns"]))
        if chosen is not None:
            return chosen
    if legal[0]["type"] in ("trade", "load"):
        return invest(view, legal, rng, params)
    return bot.choose_move(view, legal, rng)  # the look-ahead could not rebuild the table


def invest(
    view: Mapping[str, Any], legal: Sequence[dict], rng: random.Random, params: Mapping[str, float]
) -> dict:
    """A trade or load: the one whose turn ends with the best resources and hand."""
    resources = bot.own_resources(view)
    scored = []
    for index, (value, cards) in enumerate(ratings(view, legal, params)):
        scored.append((value + rng.random() * 1e-6, index, cards))
    if view["end_triggered"] and params["final"] and view["captain"] is not None:
        top = sorted(scored, reverse=True)[: int(params["final"])]
        ends = {}
        for _value, _index, cards in top:
            key = tuple(ordered(cards))
            if key not in ends:
                ends[key] = played_out(view, [*resources, *cards], view["captain"])
        return legal[max(top, key=lambda entry: ends[tuple(ordered(entry[2]))])[1]]
    return legal[max(scored)[1]]


def ratings(
    view: Mapping[str, Any], legal: Sequence[dict], params: Mapping[str, float] = PARAMS
) -> list[tuple[float, list[str]]]:
    """Each trade or load rated by the resources and hand its turn ends with, and the
    load that gets it."""
    resources = bot.own_resources(view)
    hand = view.get("hand") or []
    final_turn = bool(view["end_triggered"])
    end_cards = view["end_cards"]
    hand_weight = params["hand"]
    yardstick = bot.Yardstick(bot.Table(view), resources, params["part"])

    others_most = max(
        (
            sum(len(pile) for pile in player["resources"]["piles"].values())
            + len(player["resources"]["specials"])
            for seat, player in enumerate(view["players"])
            if seat != view["seat"]
        ),
        default=0,
    )
    pace = params["pace"]
    gains: dict[tuple, float] = {}

    def loadable(kept: Sequence[str], cards: Sequence[str]) -> Sequence[str]:
        """The kept cards that the loads left can still bring in: one load a turn, the
        best groups (a goods kind, or a special card) first."""
        if not pace or not kept:
            return kept
        leader = max(others_most, len(resources) + len(cards))
        left = min(int(params["most"]), max(1, math.ceil((end_cards - leader) / pace)))
        groups: dict[str, list[str]] = {}
        for card in kept:
            groups.setdefault(GOODS_OF.get(card, card), []).append(card)
        if len(groups) <= left:
            return kept
        base = tuple(cards)
        ranked = []
        for group in groups.values():
            key = (base, tuple(group))
            gain = gains.get(key)
            if gain is None:
                gain = gains[key] = yardstick.worth(cards, group, 1.0)
            ranked.append((gain, group))
        ranked.sort(key=lambda pair: -pair[0])
        return [card for _gain, group in ranked[:left] for card in group]

    def after_load(kept: Sequence[str], cards: Sequence[str]) -> float:
        if final_turn:
            return yardstick.worth(cards, kept, 0.0)
        bonus = params["captain"] if len(resources) + len(cards) >= end_cards else 0.0
        counted = loadable(kept, cards)
        return yardstick.worth(cards, counted, hand_weight) + bonus

    best_loads: dict[tuple[str, ...], tuple[float, list[str]]] = {}

    def best_load(new_hand: tuple[str, ...]) -> tuple[float, list[str]]:
        """The best the turn can end with after a trade that leaves ``new_hand``, and
        the load that gets it."""
        if new_hand not in best_loads:
            best: tuple[float, list[str]] | None = None
            for _way, cards in load_choices(new_hand):
                kept = [card for card in new_hand if card not in cards]
                if kept or final_turn or len(resources) + len(cards) >= end_cards:
                    value = after_load(kept, cards)
                    if best is None or value > best[0]:
                        best = (value, cards)
            # No load at all (an empty hand): the turn ends as it stands.
            best_loads[new_hand] = best if best is not None else (after_load(new_hand, ()), [])
        return best_loads[new_hand]

    def score(move: Mapping[str, Any]) -> tuple[float, list[str]]:
        if move["type"] == "trade":
            return best_load(ordered([c for c in hand if c != move["give"]] + move["take"]))
        kept = [card for card in hand if card not in move["cards"]]
        return after_load(kept, move["cards"]), move["cards"]

    return [score(move) for move in legal]


def played_out(view: Mapping[str, Any], mine: Sequence[str], captain: int) -> float:
    """One's margin over the best other player once the profit phase is played out
    greedily from the table as it will lie with ``mine`` as one's resources."""
    seat = view["seat"]
    resources = []
    for other, player in enumerate(view["players"]):
        if other == seat:
            cards = list(mine)
        else:
            held = player["resources"]
            cards = [card for pile in held["piles"].values() for card in pile] + held["specials"]
        resources.append(ordered(cards))
    state = State(
        seats=len(resources),
        end_cards=view["end_cards"],
        phase=PROFIT,
        step=CASH,
        turn=captain,
        round=1,
        deck=(),
        market=(),
        hands=((),) * len(resources),
        resources=tuple(resources),
        discard=(),
        coins=(0,) * len(resources),
        captain=captain,
        unloading=captain,
        end="",
        last_turn=None,
        round_start=captain,
    )
    search = Search(state.seats, captain, 0.9)
    position = search.position(state)
    if not resources[captain]:
        position = search.end_turn(captain, captain, position[4], position[5])
    return search.margin(search.replies(position, 200), seat)


__all__ = ["PARAMS", "choose_move", "look_ahead", "ratings", "table_state"]
