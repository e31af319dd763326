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
special cards by their profit tables, part credit for the way to the next threshold,
the Captain's bonus on the load that ends the phase). A card kept in hand counts for
0.6 of a loaded one (the first bot: 0.8), and for nothing on a last turn after the end
was triggered, so there it trades for what it can load at once.

Profit. Everything is face up and nothing is left to chance, so it rebuilds the table
from its view and looks ahead with the game's own rules: for each tax and cash-in of
its turn, the next turns are played out greedily (every player cashing what leaves them
best placed), and it takes the turn that leaves its coins and prospects furthest ahead
of the best other player's, the Captain's 2 coins counted (they decide which player is
the one to deny).

Measured (``nice -n 10 .venv/bin/python -m bench.bench_bots 200 --title mercatores
--players 3``, then ``--players 2``; one normal seat, rotating, against easy seats):
68.0% of two-player games won (the first bot's investment with this look-ahead: 54.8%);
47.2% of three-player games (baseline 33.3%), above each easy seat in 62.1% of
pairings; 42.1% of four-player games (``--players 4``; baseline 25%), 64.3% of
pairings. A move costs about 0.3 ms of CPU at the median and 5 ms at p99 with two to
four players (``bench/bench_bots.py --cpu 100 --players N``; the look-ahead on the
rules' states cost 30 to 80 ms at p99); the slowest, 18 ms, is a trade among 80 from a
hand of nine cards. In three-player games the investment does nearly all of it (the
first bot's investment with this look-ahead: 35.3%); the normal seat takes the Captain
in about half the games and wins 71% of those, 25% of the others; a fifth of its games
end in a tie for first.

Tried and dropped, for no gain within the noise of 200-game runs (about 3.5 points):
leaving the next player a poorer market (2 to 3 points worse), a hand worth half once
another player could end the phase on their next turn, a hand worth nothing after the
load that ends the phase, and a larger Captain's bonus (5: the same wins). In
three-player games (47.8% before the Captain's coins were counted): racing for the
Captain with a bonus per card in the resources (0.3 a card: 41.2%; 0.8: 35.3%, though
it then took the Captain in 66% and 83.5% of games; -0.25: 32.8%); a kept card worth
0.45 (47.1%) or 0.8 (39.2%); part credit 0.5 (46.0%) or 1.0 (43.5%); a cost of 0.3 per
pile and special card, each a taxed profit turn (40.6%); other players' goods counted
at 0.7 in Trade Routes and Quays (44.8%); a cost for loading goods another player's
Trade Route or Quay counts (0.5 a card and 0.25 a ship: 43.0%; twice that: 39.8%); a
look-ahead of 1 or 2 turns (42.3%, 45.8%) or 6 (48.4%, and slower), or to the end of
the game once 20 cards or fewer are left (the same wins); prospects worth 0.75 (46.8%);
the margin taken half against the mean of the others (48.3%).
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
    "turns": 3,  # greedy turns looked ahead after one's own
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

    scored = []
    for index, move in enumerate(legal):
        value, cards = score(move)
        scored.append((value + rng.random() * 1e-6, index, cards))
    if final_turn and params["final"] and view["captain"] is not None:
        top = sorted(scored, reverse=True)[: int(params["final"])]
        ends = {}
        for _value, _index, cards in top:
            key = tuple(ordered(cards))
            if key not in ends:
                ends[key] = played_out(view, [*resources, *cards])
        return legal[max(top, key=lambda entry: ends[tuple(ordered(entry[2]))])[1]]
    return legal[max(scored)[1]]


def played_out(view: Mapping[str, Any], mine: Sequence[str]) -> float:
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
    captain = view["captain"]
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


__all__ = ["PARAMS", "choose_move", "look_ahead", "table_state"]
