"""Mercatores' "normal" bot: the first bot's investment, and a profit phase looked ahead.

It plays from its own seat's view and the legal moves only. In the investment phase it
plays as the first ("easy") bot, whose judgement of trades and loads held up against
every change tried (racing to the end count, denying the next player the market's best
cards, counting each pile as one more tax, a hand worth less as the end nears: each
lost games or changed nothing). In the profit phase everything is face up and nothing is
left to chance, so it rebuilds the table from its view and looks ahead with the game's
own rules: for each tax and cash-in of its turn, the next turns are played out greedily
(every player cashing what leaves them best placed), and it takes the turn that leaves
its coins and prospects furthest ahead of the best other player's. It does so in
two-player games, where it was measured to win more often; with three or four players
the look-ahead won nothing measurable and cost time, so it plays as the first bot there.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engines.api import IllegalMove, ScriptedChance
from engines.mercatores import bot
from engines.mercatores.data import CARDS, GOODS_OF, GOODS_TABLES
from engines.mercatores.moves import legal_moves
from engines.mercatores.rules import apply
from engines.mercatores.scoring import cash_value, pays
from engines.mercatores.state import PROFIT, State, kinds_held, ordered, pile

NO_CHANCE = ScriptedChance([])

PARAMS = {
    "later": 0.9,  # worth now of a coin the resources would still pay
    "turns": 3,  # greedy turns looked ahead after one's own
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


def standing(state: State, seat: int, later: float) -> float:
    """Coins, plus what the resources would pay now (discounted), for one seat."""
    own = state.resources[seat]
    total = float(state.coins[seat])
    prospects = 0.0
    for kind in kinds_held(own):
        prospects += pays(GOODS_TABLES[kind], len(pile(own, kind)))
    for card in own:
        if card in GOODS_OF:
            continue
        info = CARDS[card]
        if info["kind"] == "trade_route":
            best = 0
            for other in range(state.seats):
                if other != seat:
                    move = {"type": "cash", "special": card, "opponent": other}
                    best = max(best, cash_value(state, seat, move)[1])
            prospects += best
        else:
            prospects += cash_value(state, seat, {"type": "cash", "special": card})[1]
    return total + later * prospects


def margin(state: State, seat: int, later: float) -> float:
    """One's standing against the best other player's."""
    mine = standing(state, seat, later)
    return mine - max(
        standing(state, other, later) for other in range(state.seats) if other != seat
    )


def greedy_turn(state: State, later: float) -> State:
    """The player to move plays a whole profit turn (tax, then cash) greedily."""
    for _ in range(2):
        if state.phase != PROFIT:
            return state
        seat = state.turn
        moves = legal_moves(state, seat)
        state = max(
            (apply(state, seat, move, NO_CHANCE) for move in moves),
            key=lambda after: standing(after, seat, later),
        )
        if state.turn != seat:
            return state
    return state


def replies(state: State, seat: int, later: float, turns: int) -> State:
    """``turns`` greedy turns after ``seat``'s (the others', then one's own, ...)."""
    for _ in range(turns):
        if state.phase != PROFIT:
            break
        state = greedy_turn(state, later)
    return state


def look_ahead(
    view: Mapping[str, Any], legal: Sequence[dict], later: float, turns: int = 1
) -> dict | None:
    """The move whose turn, followed by ``turns`` greedy turns (the next players', then
    one's own, ...), leaves the best margin; None if the table cannot be rebuilt."""
    try:
        state = table_state(view)
        seat = view["seat"]
        best, best_value = None, None
        for move in legal:
            after = apply(state, seat, move, NO_CHANCE)
            finishing = [after]
            if after.phase == PROFIT and after.turn == seat:
                finishing = [
                    apply(after, seat, cash, NO_CHANCE) for cash in legal_moves(after, seat)
                ]
            value = max(
                margin(replies(done, seat, later, turns), seat, later) for done in finishing
            )
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
    if legal[0]["type"] in ("tax", "cash") and len(view["players"]) == 2:
        chosen = look_ahead(view, legal, params["later"], int(params["turns"]))
        if chosen is not None:
            return chosen
    return bot.choose_move(view, legal, rng)


__all__ = ["PARAMS", "choose_move", "look_ahead", "table_state"]
