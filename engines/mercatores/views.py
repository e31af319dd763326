"""What each seat may see (view), the history lines of a move (describe), move labels.

A view is built by adding what the viewer may see: the market, every player's
resources, coins, hand size and the Captain and Unloading cards are public; a hand is
added only for its owner. The deck and the discard pile are shown as counts only (the
discard pile holds the hands thrown away when the investment phase ends).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.mercatores.data import CARDS, GOODS_NAMES, SEAT_NAMES
from engines.mercatores.scoring import cash_value, result, scores
from engines.mercatores.state import (
    CASH,
    END_BY_CARDS,
    END_BY_DECK,
    INVESTMENT,
    LOAD,
    OVER,
    TAX,
    TRADE,
    State,
    kinds_held,
    ordered,
    pile,
    ships,
)

STEP_WORDS = {TRADE: "trade", LOAD: "load", TAX: "tax", CASH: "cash in"}


def card_label(card: str) -> str:
    """A card as a player names it: "Corn (1 ship)", "Quay (own + left)"."""
    info = CARDS[card]
    if info["kind"] != "goods":
        return info["name"]
    count = info["ships"]
    return f"{info['name']} ({'no' if count == 0 else count} ship{'' if count == 1 else 's'})"


def listing(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def phase_text(state: State) -> str:
    if state.phase == OVER:
        return "Game over"
    stage = "Investment" if state.phase == INVESTMENT else "Profit"
    return f"{stage} round {state.round} — {STEP_WORDS[state.step]}"


def player_view(state: State, seat: int) -> dict:
    own = state.resources[seat]
    return {
        "seat": seat,
        "name": SEAT_NAMES[seat],
        "hand_size": len(state.hands[seat]),
        "resources": {
            "piles": {kind: pile(own, kind) for kind in kinds_held(own)},
            "specials": [card for card in own if CARDS[card]["kind"] != "goods"],
        },
        "resource_count": len(own),
        "ships": ships(own),
        "coins": state.coins[seat],
        "captain": state.captain == seat,
        "unloading": state.unloading == seat,
    }


def view(state: State, seat: int | None) -> dict:
    finished = state.phase == OVER
    shown: dict[str, Any] = {
        "game": "mercatores",
        "seat": seat,
        "to_move": [] if finished else [state.turn],
        "phase": phase_text(state),
        "stage": state.phase,
        "step": state.step,
        "round": state.round,
        "turn": None if finished else state.turn,
        "players": [player_view(state, other) for other in range(state.seats)],
        "market": list(state.market),
        "deck_size": len(state.deck),
        "discard_size": len(state.discard),
        "end_cards": state.end_cards,
        "end_triggered": state.end or None,
        "last_turn": state.last_turn,
        "captain": state.captain,
        "unloading": state.unloading,
        "scores": scores(state),
        "finished": finished,
    }
    if seat is not None:
        shown["hand"] = list(state.hands[seat])
    if finished:
        shown["result"] = result(state).to_json()
    return shown


# ---------------------------------------------------------------- describe


def describe(
    before: State, seat: int, move: Mapping[str, Any], after: State, viewer: int | None
) -> list[str]:
    """History lines; every card named here lies face up (market or resources)."""
    name = SEAT_NAMES[seat]
    kind = move["type"]
    if kind == "trade":
        lines = [
            f"{name} puts {card_label(move['give'])} into the market and takes "
            f"{listing([card_label(card) for card in move['take']]) or 'nothing'}."
        ]
        if after.step == LOAD and after.turn == seat and after.phase == INVESTMENT:
            return lines
        lines.append(f"{name} has no card left to load.")
        return lines + investment_turn_end(before, seat, after)
    if kind == "load":
        lines = [
            f"{name} loads {listing([card_label(card) for card in move['cards']])} "
            f"({len(before.resources[seat]) + len(move['cards'])} cards in resources)."
        ]
        return lines + investment_turn_end(before, seat, after)
    if kind == "tax":
        lines = [f"{name} pays tax with {card_label(move['card'])}."]
    else:
        lines = [cash_line(before, seat, move)]
    return lines + profit_turn_end(before, after)


def cash_line(state: State, seat: int, move: Mapping[str, Any]) -> str:
    name = SEAT_NAMES[seat]
    count, coins = cash_value(state, seat, move)
    paid = f"{coins} coin{'' if coins == 1 else 's'}" if coins else "nothing"
    if "pile" in move:
        return f"{name} cashes in {count} {GOODS_NAMES[move['pile']]} for {paid}."
    info = CARDS[move["special"]]
    if info["kind"] == "warehouse":
        counted = f"{count} kind{'' if count == 1 else 's'} of goods"
    elif info["kind"] == "quay":
        counted = f"{count} ship{'' if count == 1 else 's'}"
    else:
        goods = info["goods"]
        own = len(pile(state.resources[seat], goods))
        other = move["opponent"]
        counted = (
            f"{own} own and {count - own} of {SEAT_NAMES[other]}'s {GOODS_NAMES[goods]} "
            f"make {count}"
        )
    return f"{name} cashes in {info['name']}: {counted}, for {paid}."


def investment_turn_end(before: State, seat: int, after: State) -> list[str]:
    lines = []
    drawn = ordered(set(before.deck) - set(after.deck))
    if drawn:
        lines.append(f"Refill: the market gets {listing([card_label(card) for card in drawn])}.")
    if before.end != END_BY_CARDS and after.end == END_BY_CARDS:
        count = len(after.resources[seat])
        lines.append(
            f"{SEAT_NAMES[seat]} has {count} cards in resources and takes the Captain and "
            "the Unloading card: every other player takes one more turn."
        )
    elif not before.end and after.end == END_BY_DECK:
        lines.append("The deck is empty: the investment phase ends with this round.")
    if after.phase != INVESTMENT:
        lines.append("The investment phase is over: hands and market are discarded.")
        if before.captain is None:
            lines.append(captain_by_count(after))
        lines += round_start_lines(after)
    return lines


def captain_by_count(state: State) -> str:
    """Who takes the Captain when the deck ran out: most cards, ties to the earliest seat."""
    counts = [len(cards) for cards in state.resources]
    best = [SEAT_NAMES[seat] for seat, count in enumerate(counts) if count == max(counts)]
    captain = SEAT_NAMES[state.captain]
    if len(best) == 1:
        return (
            f"{captain} has the most cards in resources and takes the Captain and Unloading card."
        )
    return (
        f"{listing(best)} hold the most cards in resources ({max(counts)}); the tie goes to "
        f"{captain}, first in {'seat' if state.first == 0 else 'turn'} order, who takes "
        "the Captain and the Unloading card."
    )


def profit_turn_end(before: State, after: State) -> list[str]:
    if after.phase == OVER:
        return round_start_lines(after)
    if after.round != before.round:
        return [f"The Unloading card passes to {SEAT_NAMES[after.unloading]}."] + (
            round_start_lines(after)
        )
    return []


def round_start_lines(state: State) -> list[str]:
    if state.phase == OVER:
        winners = result(state).winners
        best = max(scores(state))
        names = " and ".join(SEAT_NAMES[seat] for seat in winners)
        won = (
            f"{names} wins with {best} coins"
            if len(winners) == 1
            else (f"{names} share the win with {best} coins each")
        )
        return [f"Every player's resources are empty: the game is over. {won}."]
    opener = f"Profit round {state.round}: {SEAT_NAMES[state.turn]} starts"
    if state.turn != state.round_start:
        holder = SEAT_NAMES[state.round_start]
        return [f"{opener} ({holder} holds the Unloading card but has no resources left)."]
    return [f"{opener} with the Unloading card."]


# ---------------------------------------------------------------- labels


def move_label(move: Mapping[str, Any]) -> str:
    kind = move.get("type")
    if kind == "trade":
        take = listing([card_label(card) for card in move["take"]]) or "nothing"
        return f"Give {card_label(move['give'])}, take {take}"
    if kind == "load":
        return "Load " + listing([card_label(card) for card in move["cards"]])
    if kind == "tax":
        return f"Pay tax with {card_label(move['card'])}"
    if kind == "cash" and "pile" in move:
        return f"Cash in the {GOODS_NAMES[move['pile']]} pile"
    if kind == "cash":
        label = f"Cash in {CARDS[move['special']]['name']}"
        if "opponent" in move:
            label += f" with {SEAT_NAMES[move['opponent']]}"
        return label
    return str(kind)
