"""Mercatores rules: applying a move (the protocol's entry points are re-exported here).

Rules cited by section refer to the project's rules file for Mercatores.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from engines.api import Chance, IllegalMove
from engines.mercatores.data import (
    CARDS,
    GOODS_NAMES,
    GOODS_OF,
)
from engines.mercatores.moves import check_shape, legal_moves, something_pays, take_count
from engines.mercatores.scoring import cash_value, result
from engines.mercatores.state import (
    CASH,
    INVESTMENT,
    LOAD,
    OVER,
    PROFIT,
    TAX,
    TRADE,
    State,
    ordered,
    pile,
    replace_at,
    without,
)
from engines.mercatores.turns import (
    end_investment_turn,
    end_profit_turn,
    may_empty_hand,
    setup,
    to_move,
)
from engines.mercatores.words import T, Tn

__all__ = ["apply", "legal_moves", "result", "setup", "to_move"]


def apply(state: State, seat: int, move: Mapping[str, Any], chance: Chance) -> State:
    """The next state after ``seat``'s ``move``; ``IllegalMove`` says why a move is refused."""
    check_shape(move)
    if state.phase == OVER:
        raise IllegalMove(T("The game is over: no more moves."))
    if seat not in to_move(state):
        raise IllegalMove(T("It is not your turn: %(who)s is to move.", who=who(state.turn)))
    if move["type"] != state.step:
        raise IllegalMove(wrong_step(state, seat, move["type"]))
    if state.step == TRADE:
        return apply_trade(state, seat, move, chance)
    if state.step == LOAD:
        return apply_load(state, seat, move, chance)
    if state.step == TAX:
        return apply_tax(state, seat, move)
    return apply_cash(state, seat, move)


WRONG_STEP = {
    TRADE: T("First trade: put one card from your hand into the market and take cards from it."),
    LOAD: T("Now load: play cards from your hand to your resources."),
    TAX: T("First pay the tax: discard one goods card from your resources."),
    CASH: T("Now cash in one goods pile or one special card."),
}


def wrong_step(state: State, seat: int, kind: str) -> str:
    """Why a move of this type is not the one expected now."""
    if kind == TAX and state.step == CASH:
        if seat == state.unloading:
            return T(
                "You hold the Unloading card, so you pay no tax: "
                "now cash in one goods pile or one special card."
            )
        return T("You owe no more tax this turn: now cash in one goods pile or one special card.")
    if kind in (TAX, CASH) and state.phase == INVESTMENT:
        return T(
            "Taxes and cash-ins belong to the profit phase. %(step)s", step=WRONG_STEP[state.step]
        )
    if kind in (TRADE, LOAD) and state.phase == PROFIT:
        return T("The investment phase is over. %(step)s", step=WRONG_STEP[state.step])
    return WRONG_STEP[state.step]


def apply_trade(state: State, seat: int, move: Mapping[str, Any], chance: Chance) -> State:
    """Rules 'Trade': give one card, take 2 (goods given) or 3 (special given)."""
    hand = state.hands[seat]
    give, take = move["give"], move["take"]
    if give not in hand:
        raise IllegalMove(T("You do not hold %(card)s in your hand.", card=describe_card(give)))
    if give in take:
        raise IllegalMove(T("You may not take back the card you have just put into the market."))
    if len(set(take)) != len(take):
        raise IllegalMove(T("You cannot take the same card twice."))
    for card in take:
        if card not in state.market:
            raise IllegalMove(T("%(card)s is not in the market.", card=describe_card(card)))
    wanted = take_count(state, give)
    if len(take) != wanted:
        if wanted < (2 if give in GOODS_OF else 3):
            if wanted == 0:
                raise IllegalMove(T("The market holds only no card: take nothing."))
            if wanted == 1:
                raise IllegalMove(T("The market holds only one card: take it."))
            raise IllegalMove(
                Tn(
                    "The market holds only %(num)d card: take all of them.",
                    "The market holds only %(num)d cards: take all of them.",
                    wanted,
                )
            )
        if give in GOODS_OF:
            raise IllegalMove(
                Tn(
                    "After giving a goods card you take exactly %(num)d card from the market.",
                    "After giving a goods card you take exactly %(num)d cards from the market.",
                    wanted,
                )
            )
        raise IllegalMove(
            Tn(
                "After giving a special card you take exactly %(num)d card from the market.",
                "After giving a special card you take exactly %(num)d cards from the market.",
                wanted,
            )
        )
    new_hand = ordered(without(hand, [give]) + tuple(take))
    state = replace(
        state,
        hands=replace_at(state.hands, seat, new_hand),
        market=ordered(without(state.market, take) + (give,)),
        step=LOAD,
    )
    if not new_hand:
        # Nothing left to load (possible only when the deck has run out): the turn ends.
        return end_investment_turn(state, chance)
    return state


def apply_load(state: State, seat: int, move: Mapping[str, Any], chance: Chance) -> State:
    """Rules 'Load': one kind, two different kinds, or one special card."""
    hand = state.hands[seat]
    cards, way = move["cards"], move["way"]
    if not cards:
        raise IllegalMove(T("Load at least one card from your hand."))
    if len(set(cards)) != len(cards):
        raise IllegalMove(T("You cannot load the same card twice."))
    for card in cards:
        if card not in hand:
            raise IllegalMove(T("You do not hold %(card)s in your hand.", card=describe_card(card)))
    kinds = [GOODS_OF.get(card) for card in cards]
    if way == "one_kind" and (None in kinds or len(set(kinds)) != 1):
        raise IllegalMove(T("Loading one kind of goods means goods cards of a single kind only."))
    if way == "two_kinds" and (len(cards) != 2 or None in kinds or kinds[0] == kinds[1]):
        raise IllegalMove(
            T("Loading two different goods means exactly two goods cards of two kinds.")
        )
    if way == "special" and (len(cards) != 1 or kinds[0] is not None):
        raise IllegalMove(T("Loading a special card means exactly one special card."))
    new_hand = without(hand, cards)
    resources = ordered(state.resources[seat] + tuple(cards))
    if not new_hand and not may_empty_hand(state, seat, len(resources)):
        raise IllegalMove(
            T(
                "Keep at least one card in your hand: only the turn that brings your resources "
                "to %(count)d cards, or a turn after the end was triggered, may empty it.",
                count=state.end_cards,
            )
        )
    state = replace(
        state,
        hands=replace_at(state.hands, seat, new_hand),
        resources=replace_at(state.resources, seat, resources),
    )
    return end_investment_turn(state, chance)


def apply_tax(state: State, seat: int, move: Mapping[str, Any]) -> State:
    """Rules 'Profit phase', tax: one goods card from resources, not a pile."""
    card = move["card"]
    if card not in state.resources[seat]:
        raise IllegalMove(T("%(card)s is not in your resources.", card=describe_card(card)))
    if card not in GOODS_OF:
        raise IllegalMove(T("The tax is paid with a goods card, not a special card."))
    resources = without(state.resources[seat], [card])
    state = replace(
        state,
        resources=replace_at(state.resources, seat, resources),
        discard=ordered(state.discard + (card,)),
        step=CASH,
    )
    if not resources:
        return end_profit_turn(state)
    return state


def apply_cash(state: State, seat: int, move: Mapping[str, Any]) -> State:
    """Rules 'Profit phase', cash in: a whole pile or one special card."""
    own = state.resources[seat]
    if "pile" in move:
        gone = pile(own, move["pile"])
        if not gone:
            raise IllegalMove(
                T("You have no %(goods)s in your resources.", goods=GOODS_NAMES[move["pile"]])
            )
    else:
        card = move["special"]
        if card not in own:
            raise IllegalMove(T("%(card)s is not in your resources.", card=describe_card(card)))
        if card in GOODS_OF:
            raise IllegalMove(T("Cash in goods as a whole pile: name the pile, not one card."))
        if CARDS[card]["kind"] == "trade_route":
            opponent = move.get("opponent")
            if opponent is None:
                raise IllegalMove(T("Name the opponent whose goods your Trade Route counts."))
            if not 0 <= opponent < state.seats or opponent == seat:
                raise IllegalMove(T("The opponent must be one of the other players."))
        elif "opponent" in move:
            raise IllegalMove(T("Only a Trade Route names an opponent."))
        gone = [card]
    _, coins = cash_value(state, seat, move)
    if coins == 0 and state.rules_version >= 2 and something_pays(state, seat):
        raise IllegalMove(
            T(
                "This pays nothing while something else of yours would pay: a pile or special "
                "card may be discarded for nothing only when nothing would pay."
            )
        )
    state = replace(
        state,
        resources=replace_at(state.resources, seat, without(own, gone)),
        discard=ordered(state.discard + tuple(gone)),
        coins=replace_at(state.coins, seat, state.coins[seat] + coins),
    )
    return end_profit_turn(state)


def who(seat: int) -> str:
    """A seat as text names it: a placeholder the server fills ("{seat:2}")."""
    return "{seat:" + str(seat) + "}"


def describe_card(card: str) -> str:
    return T("%(card)s (%(id)s)", card=CARDS[card]["name"], id=card)
