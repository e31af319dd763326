"""Mercatores' "hard" bot: the normal bot's best few investment moves, tried on sampled deals.

It plays from its own seat's view and the legal moves only, and is deterministic given
them and its random source (``engines.search``: a budget of playouts, not of time).

Investment. The normal bot (:mod:`engines.mercatores.bot_normal`) rates every trade by
the best load it allows and every load by the resources and hand it leaves; the hard bot
keeps its ``CANDIDATES`` best-rated moves and lets the search choose among them. Each
playout deals the cards the seat cannot see (the other hands, the deck) at random from
the cards it has not seen (every card that is not in its hand, the market or anyone's
resources), plays the candidate, then plays on with the first bot's choice among a few
trades drawn at random (cheap: built on a light view of the state, never a real view)
for at most ``DEPTH`` moves or to the end of the investment phase, and scores what it
reaches: the profit phase is played out greedily on the look-ahead's counts
(:mod:`engines.mercatores.lookahead`) to a final score; an investment cut short is
judged by each seat's coins, Captain, resources and best load of its hand (the normal
bot's yardstick) against the best other seat's.

Profit. Everything is face up and nothing is left to chance, so the normal bot's
look-ahead already searches the real position; the hard bot looks further ahead with it
(``PROFIT_TURNS`` greedy turns after its own).

Offered as ``hard`` (a slow level: ``slow_bot_levels``), as it is no weaker than the
normal bot: one hard seat against two normal ones, seats rotated
(``bench/bench_hard.py mercatores 30 --players 3 --progress``), it won 40% of 13 games
and 48% of head-to-head pairings with these settings, 44.1% of 31 games and 57.3%
of pairings with ``--set CANDIDATES=3`` (baseline 33.3%; the target is 60% of pairings).
A move costs 0.76 s of CPU at the median and 1.28 s at p99 (53 hard moves, two games).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from engines import search as generic
from engines.mercatores import bot, bot_normal
from engines.mercatores.data import CARD_ORDER, CARDS
from engines.mercatores.lookahead import Search as LookAhead
from engines.mercatores.moves import load_choices
from engines.mercatores.state import INVESTMENT, OVER, PROFIT, State, kinds_held, ordered, pile

PLAYOUTS = 120  # playouts per investment move
ROLLOUT_TRADES = 8  # trades a rollout move chooses among
DEPTH = 24  # moves a playout plays after the candidate, at most
CANDIDATES = 6  # the normal bot's best-rated investment moves the search chooses among
PROFIT_TURNS = 8  # greedy profit turns the look-ahead plays after one's own
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


def rollout(
    engine: Any, state: State, seat: int, legal: Sequence[dict], rng: random.Random
) -> dict:
    """The first bot's choice (cheap), among at most ``ROLLOUT_TRADES`` trades drawn at
    random (a playout needs a plausible game, not the best one)."""
    if len(legal) > ROLLOUT_TRADES:
        legal = rng.sample(legal, ROLLOUT_TRADES)
    return bot.choose_move(light_view(state, seat), legal, rng)


def evaluate(engine: Any, state: State, seat: int) -> float:
    """A playout's end: the profit phase played out greedily to the final scores, or an
    investment cut short judged by resources and hand against the best other seat's."""
    if state.phase == PROFIT:
        look = LookAhead(state.seats, state.captain, bot_normal.PARAMS["later"])
        position = look.replies(look.position(state), 200)
        if position[0] == OVER:
            coins = position[4]
            totals = [c + (2 if s == state.captain else 0) for s, c in enumerate(coins)]
            best = max(totals)
            if totals[seat] < best:
                return 0.0
            return 1.0 / sum(1 for total in totals if total == best)
        margin = look.margin(position, seat)
        return 1.0 / (1.0 + math.exp(-margin / SCALE))
    standings = [standing(state, other) for other in range(state.seats)]
    margin = standings[seat] - max(s for other, s in enumerate(standings) if other != seat)
    return 1.0 / (1.0 + math.exp(-margin / SCALE))


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


def normal_scores(view: Mapping[str, Any], legal: Sequence[dict]) -> list[float]:
    """How the normal bot rates each investment move (``bot_normal.invest``'s measure)."""
    params = bot_normal.PARAMS
    resources = bot.own_resources(view)
    hand = view.get("hand") or []
    final_turn = bool(view["end_triggered"])
    end_cards = view["end_cards"]
    yardstick = bot.Yardstick(bot.Table(view), resources, params["part"])

    def after_load(kept: Sequence[str], cards: Sequence[str]) -> float:
        if final_turn:
            return yardstick.worth(cards, kept, 0.0)
        bonus = params["captain"] if len(resources) + len(cards) >= end_cards else 0.0
        return yardstick.worth(cards, kept, params["hand"]) + bonus

    best_loads: dict[tuple[str, ...], float] = {}

    def best_load(new_hand: tuple[str, ...]) -> float:
        if new_hand not in best_loads:
            values = [
                after_load([card for card in new_hand if card not in cards], cards)
                for _way, cards in load_choices(new_hand)
                if len(cards) < len(new_hand)
                or final_turn
                or len(resources) + len(cards) >= end_cards
            ]
            best_loads[new_hand] = max(values) if values else after_load(new_hand, ())
        return best_loads[new_hand]

    def score(move: Mapping[str, Any]) -> float:
        if move["type"] == "trade":
            return best_load(ordered([c for c in hand if c != move["give"]] + move["take"]))
        return after_load([card for card in hand if card not in move["cards"]], move["cards"])

    return [score(move) for move in legal]


def candidates(view: Mapping[str, Any], legal: Sequence[dict], count: int) -> list[dict]:
    """The normal bot's ``count`` best-rated investment moves, best first (ties in the
    order of ``legal``)."""
    rated = normal_scores(view, legal)
    order = sorted(range(len(legal)), key=lambda i: (-rated[i], i))
    return [legal[i] for i in order[:count]]


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
    if legal[0]["type"] in ("tax", "cash"):
        chosen = bot_normal.look_ahead(view, legal, bot_normal.PARAMS["later"], PROFIT_TURNS)
        return chosen if chosen is not None else bot_normal.choose_move(view, legal, rng)
    search = generic.Search(
        engine=Investment(engine),
        determinize=partial(determinize, version=engine.version),
        rollout=rollout,
        evaluate=evaluate,
        playouts=PLAYOUTS if playouts is None else playouts,
        depth=DEPTH if depth is None else depth,
    )
    chosen = candidates(view, legal, CANDIDATES if count is None else count)
    return generic.choose(search, view, chosen, view["seat"], rng)


__all__ = ["choose_move", "determinize", "evaluate", "light_view", "rollout"]
