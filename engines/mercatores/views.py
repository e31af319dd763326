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
from engines.mercatores.words import T, Tn, coins, count_of, joined, listing

STEP_WORDS = {TRADE: T("trade"), LOAD: T("load"), TAX: T("tax"), CASH: T("cash in")}


def card_label(card: str) -> str:
    """A card as a player names it: "Corn (1 ship)", "Quay (own + left)"."""
    info = CARDS[card]
    if info["kind"] != "goods":
        return info["name"]
    count = info["ships"]
    if not count:
        return T("%(goods)s (no ships)", goods=info["name"])
    return Tn("%(goods)s (%(num)d ship)", "%(goods)s (%(num)d ships)", count, goods=info["name"])


def own_words(view: Mapping[str, Any]) -> list[str]:
    """What only the view's seat sees, in words (its hand), for the position summary of
    its own mail: nothing for a spectator's view."""
    if "hand" not in view:
        return []
    hand = [CARDS[card]["name"] for card in view["hand"]]
    if not hand:
        return [T("Your hand: empty.")]
    return [T("Your hand: %(cards)s.", cards=joined(hand, ", "))]


def phase_text(state: State) -> str:
    if state.phase == OVER:
        return T("Game over")
    step = STEP_WORDS[state.step]
    if state.phase == INVESTMENT:
        return T("Investment round %(round)d — %(step)s", round=state.round, step=step)
    return T("Profit round %(round)d — %(step)s", round=state.round, step=step)


def score_line(state: State, seat: int | None) -> list[int]:
    """The view's ``scores``, without building the rest of the view."""
    return scores(state)


def turn_line(state: State) -> tuple[str, str]:
    """The round and the step the history groups events by ("Profit round 2", "load")."""
    if state.phase == OVER:
        return T("Game over"), ""
    if state.phase == INVESTMENT:
        return T("Investment round %(round)d", round=state.round), STEP_WORDS[state.step]
    return T("Profit round %(round)d", round=state.round), STEP_WORDS[state.step]


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
            T(
                "%(who)s puts %(give)s into the market and takes %(take)s.",
                who=name,
                give=card_label(move["give"]),
                take=listing([card_label(card) for card in move["take"]]) or T("nothing"),
            )
        ]
        if after.step == LOAD and after.turn == seat and after.phase == INVESTMENT:
            return lines
        lines.append(T("%(who)s has no card left to load.", who=name))
        return lines + investment_turn_end(before, seat, after)
    if kind == "load":
        lines = [
            Tn(
                "%(who)s loads %(cards)s (%(num)d card in resources).",
                "%(who)s loads %(cards)s (%(num)d cards in resources).",
                len(before.resources[seat]) + len(move["cards"]),
                who=name,
                cards=listing([card_label(card) for card in move["cards"]]),
            )
        ]
        return lines + investment_turn_end(before, seat, after)
    if kind == "tax":
        lines = [T("%(who)s pays tax with %(card)s.", who=name, card=card_label(move["card"]))]
    else:
        lines = [cash_line(before, seat, move)]
    return lines + profit_turn_end(before, after)


def who(seat: int) -> str:
    """A seat as text names it: a placeholder the server fills with the player's name
    and colour ("Ann (Red)")."""
    return f"{{seat:{seat}}}"


def cash_line(state: State, seat: int, move: Mapping[str, Any]) -> str:
    name = who(seat)
    count, paid = cash_value(state, seat, move)
    paid = coins(paid)
    if "pile" in move:
        return Tn(
            "%(who)s cashes in their %(goods)s pile of %(num)d card for %(paid)s.",
            "%(who)s cashes in their %(goods)s pile of %(num)d cards for %(paid)s.",
            count,
            who=name,
            goods=GOODS_NAMES[move["pile"]],
            paid=paid,
        )
    info = CARDS[move["special"]]
    if info["kind"] == "warehouse":
        counted = (
            Tn("%(num)d kind of goods", "%(num)d kinds of goods", count)
            if count
            else T("no kinds of goods")
        )
    elif info["kind"] == "quay":
        counted = Tn("%(num)d ship", "%(num)d ships", count) if count else T("no ships")
    else:
        goods = GOODS_NAMES[info["goods"]]
        own = len(pile(state.resources[seat], info["goods"]))
        other = who(move["opponent"])
        if not count:
            counted = T("neither they nor %(other)s hold %(goods)s cards", other=other, goods=goods)
        else:
            counted = Tn(
                "%(own)d of their own and %(theirs)d of %(other)s make %(num)d %(goods)s card",
                "%(own)d of their own and %(theirs)d of %(other)s make %(num)d %(goods)s cards",
                count,
                own=own,
                theirs=count - own,
                other=other,
                goods=goods,
            )
    return T(
        "%(who)s cashes in %(card)s: %(counted)s, for %(paid)s.",
        who=name,
        card=info["name"],
        counted=counted,
        paid=paid,
    )


def investment_turn_end(before: State, seat: int, after: State) -> list[str]:
    lines = []
    drawn = ordered(set(before.deck) - set(after.deck))
    if drawn:
        cards = listing([card_label(card) for card in drawn])
        lines.append(T("Refill: the market gets %(cards)s.", cards=cards))
    if before.end != END_BY_CARDS and after.end == END_BY_CARDS:
        lines.append(
            Tn(
                "%(who)s has %(num)d card in resources and takes the Captain and the "
                "Unloading card: every other player takes one more turn.",
                "%(who)s has %(num)d cards in resources and takes the Captain and the "
                "Unloading card: every other player takes one more turn.",
                len(after.resources[seat]),
                who=who(seat),
            )
        )
    elif not before.end and after.end == END_BY_DECK:
        lines.append(T("The deck is empty: the investment phase ends with this round."))
    if after.phase != INVESTMENT:
        lines.append(T("The investment phase is over: hands and market are discarded."))
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
        return T(
            "%(who)s has the most cards in resources and takes the Captain and Unloading card.",
            who=captain,
        )
    if state.first == 0:
        return T(
            "%(players)s hold the most cards in resources (%(count)d); the tie goes to "
            "%(who)s, first in seat order, who takes the Captain and the Unloading card.",
            players=listing(best),
            count=max(counts),
            who=captain,
        )
    return T(
        "%(players)s hold the most cards in resources (%(count)d); the tie goes to "
        "%(who)s, first in turn order, who takes the Captain and the Unloading card.",
        players=listing(best),
        count=max(counts),
        who=captain,
    )


def profit_turn_end(before: State, after: State) -> list[str]:
    if after.phase == OVER:
        return round_start_lines(after)
    if after.round != before.round:
        return [T("The Unloading card passes to %(who)s.", who=who(after.unloading))] + (
            round_start_lines(after)
        )
    return []


def round_start_lines(state: State) -> list[str]:
    if state.phase == OVER:
        winners = result(state).winners
        best = max(scores(state))
        names = listing([who(seat) for seat in winners])
        # rules 'End of the game': the Captain counts 2 coins
        captain = state.captain in winners
        if len(winners) == 1 and not captain:
            line = Tn(
                "Every player's resources are empty: the game is over. "
                "%(winner)s wins with %(num)d coin.",
                "Every player's resources are empty: the game is over. "
                "%(winner)s wins with %(num)d coins.",
                best,
                winner=names,
            )
        elif len(winners) == 1:
            line = Tn(
                "Every player's resources are empty: the game is over. "
                "%(winner)s wins with %(num)d coin (the Captain's %(captain)d included).",
                "Every player's resources are empty: the game is over. "
                "%(winner)s wins with %(num)d coins (the Captain's %(captain)d included).",
                best,
                winner=names,
                captain=CAPTAIN_VALUE,
            )
        elif not captain:
            line = Tn(
                "Every player's resources are empty: the game is over. "
                "%(winners)s share the win with %(num)d coin each.",
                "Every player's resources are empty: the game is over. "
                "%(winners)s share the win with %(num)d coins each.",
                best,
                winners=names,
            )
        else:
            line = Tn(
                "Every player's resources are empty: the game is over. "
                "%(winners)s share the win with %(num)d coin each "
                "(the Captain's %(captain)d included for %(holder)s).",
                "Every player's resources are empty: the game is over. "
                "%(winners)s share the win with %(num)d coins each "
                "(the Captain's %(captain)d included for %(holder)s).",
                best,
                winners=names,
                captain=CAPTAIN_VALUE,
                holder=who(state.captain),
            )
        return [line]
    if state.turn != state.round_start:
        return [
            T(
                "Profit round %(round)d: %(who)s starts, since %(holder)s holds the "
                "Unloading card but has no resources left.",
                round=state.round,
                who=who(state.turn),
                holder=who(state.round_start),
            )
        ]
    return [
        T(
            "Profit round %(round)d: %(who)s starts with the Unloading card.",
            round=state.round,
            who=who(state.turn),
        )
    ]


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


def counted(found: Mapping[str, Any], *, partner: bool = False) -> str:
    """What a pile or special card counts: "6 Corn cards", "3 kinds of goods", "9 ships"."""
    thing, count = found["thing"], found["count"]
    if thing in GOODS_NAMES:
        return count_of(count, GOODS_NAMES[thing])
    info = CARDS[thing]
    if info["kind"] == "warehouse":
        return Tn("%(num)d kind of goods", "%(num)d kinds of goods", count)
    if info["kind"] == "quay":
        return Tn("%(num)d ship", "%(num)d ships", count)
    goods = GOODS_NAMES[info["goods"]]
    if partner:  # a load's preview names the opponent it counts with
        return Tn(
            "%(num)d %(goods)s card together with %(who)s",
            "%(num)d %(goods)s cards together with %(who)s",
            count,
            goods=goods,
            who=who(found["opponent"]),
        )
    return Tn(
        "%(num)d %(goods)s card (yours and theirs)",
        "%(num)d %(goods)s cards (yours and theirs)",
        count,
        goods=goods,
    )


def preview_text(move: Mapping[str, Any], found: list[dict]) -> str:
    """A preview in words: a cash-in pays now; a load says what it would pay right after."""
    if move["type"] == "cash":
        paid = coins(found[0]["coins"])
        if found[0]["count"] == 1:
            return T("%(counted)s pays %(paid)s", counted=counted(found[0]), paid=paid)
        return T("%(counted)s pay %(paid)s", counted=counted(found[0]), paid=paid)
    parts = []
    for item in found:
        paid = coins(item["coins"])
        if item["thing"] in GOODS_NAMES:
            name = GOODS_NAMES[item["thing"]]
            parts.append(
                Tn(
                    "%(goods)s pile of %(num)d pays %(paid)s",
                    "%(goods)s pile of %(num)d pays %(paid)s",
                    item["count"],
                    goods=name,
                    paid=paid,
                )
            )
        else:
            parts.append(
                T(
                    "counts %(counted)s, pays %(paid)s",
                    counted=counted(item, partner=True),
                    paid=paid,
                )
            )
    return T("%(paid)s now", paid=joined(parts, "; "))


# ---------------------------------------------------------------- labels


def move_label(move: Mapping[str, Any], view: Mapping[str, Any] | None = None) -> str:
    """A legal move's label; with the mover's view, a load or cash-in also says what it
    pays now ("Cash in the Corn pile: 6 Corn cards pay 2 coins")."""
    label = base_label(move)
    found = (view or {}).get("previews", {}).get(move_key(move)) if view else None
    if found:
        return T("%(label)s: %(preview)s", label=label, preview=preview_text(move, found))
    return label


def base_label(move: Mapping[str, Any]) -> str:
    kind = move.get("type")
    if kind == "trade":
        take = listing([card_label(card) for card in move["take"]]) or T("nothing")
        return T("Give %(give)s, take %(take)s", give=card_label(move["give"]), take=take)
    if kind == "load":
        return T("Load %(cards)s", cards=listing([card_label(card) for card in move["cards"]]))
    if kind == "tax":
        return T("Pay tax with %(card)s", card=card_label(move["card"]))
    if kind == "cash" and "pile" in move:
        return T("Cash in the %(goods)s pile", goods=GOODS_NAMES[move["pile"]])
    if kind == "cash":
        card = CARDS[move["special"]]["name"]
        if "opponent" in move:
            return T("Cash in %(card)s with %(who)s", card=card, who=who(move["opponent"]))
        return T("Cash in %(card)s", card=card)
    return str(kind)


# ---------------------------------------------------------------- rules reference

QUAY_COUNTS = {
    ("self", "left"): T("ship symbols in yours and your left neighbour's"),
    ("self", "right"): T("ship symbols in yours and your right neighbour's"),
    ("left", "right"): T("ship symbols in your left neighbour's and your right neighbour's"),
}


def special_counts(special: dict) -> str:
    """What a special card counts, in words (rules 'Special cards count')."""
    if special["kind"] == "warehouse":
        return T("different goods kinds in your resources")
    if special["kind"] == "quay":
        return QUAY_COUNTS[tuple(special["arrows"])]
    return T("%(goods)s cards: yours plus one opponent's", goods=GOODS_NAMES[special["goods"]])


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
    "trade": T("Trade"),
    "load": T("Load"),
    "tax": T("Tax"),
    "cash": T("Cash in"),
}


def kind_name(kind: str) -> str | None:
    """What a player calls moves of ``kind`` (a group's heading on the turn page)."""
    return KIND_NAMES.get(kind)


def rule_anchor(kind: str) -> str | None:
    """The id of the rules reference's section that explains moves of ``kind``."""
    return RULE_SECTIONS.get(kind)
