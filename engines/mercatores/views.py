"""What each seat may see (view), the history lines of a move (describe), move labels.

A view is built by adding what the viewer may see: the market, every player's
resources, coins, hand size and the Captain and Unloading cards are public; a hand is
added only for its owner. The deck and the discard pile are shown as counts only (the
discard pile holds the hands thrown away when the investment phase ends).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from engines.mercatores.data import (
    ARROW_NAMES,
    CAPTAIN_VALUE,
    CARDS,
    DECK_SIZE,
    GOODS,
    GOODS_NAMES,
    HAND_SIZE,
    INVESTMENT_END_CARDS,
    MARKET_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    SEAT_NAMES,
    SPECIALS,
)
from engines.mercatores.moves import legal_moves
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
    replace_at,
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


def score_line(state: State, seat: int | None) -> list[int]:
    """The view's ``scores``, without building the rest of the view."""
    return scores(state)


def turn_line(state: State) -> tuple[str, str]:
    """The round and the step the history groups events by ("Profit round 2", "load")."""
    if state.phase == OVER:
        return "Game over", ""
    stage = "Investment" if state.phase == INVESTMENT else "Profit"
    return f"{stage} round {state.round}", STEP_WORDS[state.step]


def phase_line(state: State) -> tuple[str, list[str]]:
    """The public view's ``phase`` and each seat's mark (its ``name``), without the rest
    of the view: what the server's phase line and history lines need after every move."""
    return phase_text(state), [SEAT_NAMES[seat] for seat in range(state.seats)]


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
        if not finished and seat == state.turn and state.step in (LOAD, CASH):
            shown["previews"] = previews(state, seat)
    if finished:
        shown["result"] = result(state).to_json()
    return shown


# ---------------------------------------------------------------- describe


def describe(
    before: State, seat: int, move: Mapping[str, Any], after: State, viewer: int | None
) -> list[str]:
    """History lines; every card named here lies face up (market or resources). Players
    are named by seat placeholders (``{seat:N}``), which the server fills."""
    name = who(seat)
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
            f"({plural(len(before.resources[seat]) + len(move['cards']), 'card')} in resources)."
        ]
        return lines + investment_turn_end(before, seat, after)
    if kind == "tax":
        lines = [f"{name} pays tax with {card_label(move['card'])}."]
    else:
        lines = [cash_line(before, seat, move)]
    return lines + profit_turn_end(before, after)


def who(seat: int) -> str:
    """A seat as text names it: a placeholder the server fills with the player's name
    and colour ("Ann (Red)")."""
    return f"{{seat:{seat}}}"


def cash_line(state: State, seat: int, move: Mapping[str, Any]) -> str:
    name = who(seat)
    count, coins = cash_value(state, seat, move)
    paid = coins_text(coins)
    if "pile" in move:
        goods = GOODS_NAMES[move["pile"]]
        return f"{name} cashes in their {goods} pile of {plural(count, 'card')} for {paid}."
    info = CARDS[move["special"]]
    if info["kind"] == "warehouse":
        counted = f"{count or 'no'} kind{'' if count == 1 else 's'} of goods"
    elif info["kind"] == "quay":
        counted = f"{count or 'no'} ship{'' if count == 1 else 's'}"
    else:
        goods = GOODS_NAMES[info["goods"]]
        own = len(pile(state.resources[seat], info["goods"]))
        other = who(move["opponent"])
        if not count:
            counted = f"neither they nor {other} hold {goods} cards"
        else:
            counted = (
                f"{own} of their own and {count - own} of {other} "
                f"make {plural(count, goods + ' card')}"
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
            f"{who(seat)} has {plural(count, 'card')} in resources and takes the Captain and "
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
    best = [who(seat) for seat, count in enumerate(counts) if count == max(counts)]
    captain = who(state.captain)
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
        return [f"The Unloading card passes to {who(after.unloading)}."] + (
            round_start_lines(after)
        )
    return []


def round_start_lines(state: State) -> list[str]:
    if state.phase == OVER:
        winners = result(state).winners
        best = max(scores(state))
        names = listing([who(seat) for seat in winners])
        won = (
            f"{names} wins with {plural(best, 'coin')}"
            if len(winners) == 1
            else (f"{names} share the win with {plural(best, 'coin')} each")
        )
        if state.captain in winners:  # rules 'End of the game': the Captain counts 2 coins
            holder = "" if len(winners) == 1 else f" for {who(state.captain)}"
            won += f" (the Captain's {CAPTAIN_VALUE} included{holder})"
        return [f"Every player's resources are empty: the game is over. {won}."]
    opener = f"Profit round {state.round}: {who(state.turn)} starts"
    if state.turn != state.round_start:
        holder = who(state.round_start)
        return [f"{opener}, since {holder} holds the Unloading card but has no resources left."]
    return [f"{opener} with the Unloading card."]


# ---------------------------------------------------------------- previews


def move_key(move: Mapping[str, Any]) -> str:
    """A legal move as a key of the previews: its canonical JSON."""
    return json.dumps(dict(move), sort_keys=True, separators=(",", ":"))


def payout(state: State, seat: int, move: Mapping[str, Any]) -> dict:
    """What a cash-in would pay in ``state``, by the rules' own ``cash_value``."""
    count, coins = cash_value(state, seat, move)
    thing = move.get("pile") or move["special"]
    shown = {"thing": thing, "count": count, "coins": coins}
    if "opponent" in move:
        shown["opponent"] = move["opponent"]
    return shown


def load_payouts(state: State, seat: int, cards: list[str]) -> list[dict]:
    """What each pile or special card a load touches would pay if cashed in right after."""
    own = state.resources[seat]
    after = replace(state, resources=replace_at(state.resources, seat, ordered((*own, *cards))))
    shown = []
    for kind in dict.fromkeys(CARDS[card]["goods"] for card in cards if card_is_goods(card)):
        shown.append(payout(after, seat, {"type": "cash", "pile": kind}))
    for card in cards:
        info = CARDS[card]
        if info["kind"] == "trade_route":
            # The best opponent to count with, as the player would choose when cashing.
            options = [
                payout(after, seat, {"type": "cash", "special": card, "opponent": other})
                for other in range(state.seats)
                if other != seat
            ]
            shown.append(max(options, key=lambda found: (found["coins"], found["count"])))
        elif info["kind"] != "goods":
            shown.append(payout(after, seat, {"type": "cash", "special": card}))
    return shown


def card_is_goods(card: str) -> bool:
    return CARDS[card]["kind"] == "goods"


def previews(state: State, seat: int) -> dict[str, list[dict]]:
    """Every legal load or cash-in of the seat to move, with what it pays now."""
    found = {}
    for move in legal_moves(state, seat):
        if move["type"] == "cash":
            found[move_key(move)] = [payout(state, seat, move)]
        elif move["type"] == "load":
            found[move_key(move)] = load_payouts(state, seat, move["cards"])
    return found


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def coins_text(coins: int) -> str:
    return plural(coins, "coin") if coins else "nothing"


def counted(found: Mapping[str, Any], *, partner: bool = False) -> str:
    """What a pile or special card counts: "6 Corn cards", "3 kinds of goods", "9 ships"."""
    thing, count = found["thing"], found["count"]
    if thing in GOODS_NAMES:
        return plural(count, f"{GOODS_NAMES[thing]} card")
    info = CARDS[thing]
    if info["kind"] == "warehouse":
        return f"{count} kind{'' if count == 1 else 's'} of goods"
    if info["kind"] == "quay":
        return plural(count, "ship")
    goods = plural(count, f"{GOODS_NAMES[info['goods']]} card")
    if partner:  # a load's preview names the opponent it counts with
        return f"{goods} together with {who(found['opponent'])}"
    return f"{goods} (yours and theirs)"


def preview_text(move: Mapping[str, Any], found: list[dict]) -> str:
    """A preview in words: a cash-in pays now; a load says what it would pay right after."""
    if move["type"] == "cash":
        verb = "pays" if found[0]["count"] == 1 else "pay"
        return f"{counted(found[0])} {verb} {coins_text(found[0]['coins'])}"
    parts = []
    for item in found:
        if item["thing"] in GOODS_NAMES:
            name = GOODS_NAMES[item["thing"]]
            parts.append(f"{name} pile of {item['count']} pays {coins_text(item['coins'])}")
        else:
            parts.append(f"counts {counted(item, partner=True)}, pays {coins_text(item['coins'])}")
    return "; ".join(parts) + " now"


# ---------------------------------------------------------------- labels


def move_label(move: Mapping[str, Any], view: Mapping[str, Any] | None = None) -> str:
    """A legal move's label; with the mover's view, a load or cash-in also says what it
    pays now ("Cash in the Corn pile: 6 Corn cards pay 2 coins")."""
    label = base_label(move)
    found = (view or {}).get("previews", {}).get(move_key(move)) if view else None
    if found:
        label += ": " + preview_text(move, found)
    return label


def base_label(move: Mapping[str, Any]) -> str:
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
            label += f" with {who(move['opponent'])}"
        return label
    return str(kind)


# ---------------------------------------------------------------- rules reference

WHOSE = {"self": "yours", "left": "your left neighbour's", "right": "your right neighbour's"}


def special_counts(special: dict) -> str:
    """What a special card counts, in words (rules 'Special cards count')."""
    if special["kind"] == "warehouse":
        return "different goods kinds in your resources"
    if special["kind"] == "quay":
        return "ship symbols in " + " and ".join(WHOSE[arrow] for arrow in special["arrows"])
    return f"{GOODS_NAMES[special['goods']]} cards: yours plus one opponent's"


def rules_reference() -> dict:
    """The game's numbers for the rules reference page, straight from the card data."""
    goods = [
        {
            "id": kind["id"],
            "name": kind["name"],
            "count": kind["count"],
            "ships": [kind["ships"].count(n) for n in (0, 1, 2)],
            "table": [list(step) for step in kind["table"]],
        }
        for kind in GOODS
    ]
    classes: dict[str, dict] = {}
    for special in SPECIALS:
        name = CARDS[special["id"]]["name"]
        entry = classes.setdefault(
            name,
            {
                "name": name,
                "kind": special["kind"],
                "count": 0,
                "ids": [],
                "table": [list(step) for step in special["table"]],
                "counts": special_counts(special),
                "arrows": [ARROW_NAMES[arrow] for arrow in special.get("arrows", ())],
                "goods": GOODS_NAMES.get(special.get("goods", "")),
            },
        )
        entry["count"] += 1
        entry["ids"].append(special["id"])
    return {
        "goods": goods,
        "specials": list(classes.values()),
        "deck_size": DECK_SIZE,
        "captain": CAPTAIN_VALUE,
        "hand_size": HAND_SIZE,
        "market_size": MARKET_SIZE,
        "end_cards": INVESTMENT_END_CARDS,
        "players": [MIN_PLAYERS, MAX_PLAYERS],
        "take_after_goods": 2,
        "take_after_special": 3,
    }


# The section of the rules reference (templates/rules.html) that explains each kind of
# move, for the link beside the kind's moves on the turn page.
RULE_SECTIONS = {
    "trade": "trade",
    "load": "load",
    "tax": "tax",
    "cash": "cash",
}


KIND_NAMES = {
    "trade": "Trade",
    "load": "Load",
    "tax": "Tax",
    "cash": "Cash in",
}


def kind_name(kind: str) -> str | None:
    """What a player calls moves of ``kind`` (a group's heading on the turn page)."""
    return KIND_NAMES.get(kind)


def rule_anchor(kind: str) -> str | None:
    """The id of the rules reference's section that explains moves of ``kind``."""
    return RULE_SECTIONS.get(kind)
