"""A Mercatores bot that plays from its own seat's view and legal moves only.

Investment: it scores each legal trade and load by how well the resulting resources
and hand fill the profit tables (piles of goods that reach a threshold, special cards
whose counts look good on the table as it lies) and picks the best, so it builds large
piles of paying goods. Profit: it taxes the card whose loss costs least, and cashes in
what pays most now, preferring cards whose count may shrink (Trade Routes and Quays
count other players' goods; a Warehouse loses a kind with every pile cashed).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engines.mercatores.data import CARDS, GOODS_OF, GOODS_TABLES
from engines.mercatores.moves import card_class
from engines.mercatores.scoring import pays

HAND_WEIGHT = 0.8  # a card in hand may still be loaded, or may be lost when the phase ends
PART_CREDIT = 0.8  # worth of the way from one threshold to the next
LATER = 0.9  # worth now of what stays in the resources for later turns
CAPTAIN_BONUS = 2.5  # the Captain's 2 coins, and the first turn without tax


def progress(table: tuple[tuple[int, int], ...], count: float, part: float = PART_CREDIT) -> float:
    """Coins a count earns, plus ``part`` credit for the way to the next threshold."""
    earned = pays(table, int(count))
    lower = 0
    for threshold, _coins in table:
        if count < threshold:
            return earned + part * (count - lower) / (threshold - lower)
        lower = threshold
    return float(earned)


class Table:
    """What the bot reads from its view: everyone's resources as simple counts."""

    def __init__(self, view: Mapping[str, Any]):
        self.seat = view["seat"]
        self.seats = len(view["players"])
        self.counts: list[dict[str, int]] = []
        self.ship_counts: list[int] = []
        for player in view["players"]:
            piles = player["resources"]["piles"]
            self.counts.append({kind: len(cards) for kind, cards in piles.items()})
            self.ship_counts.append(player["ships"])

    def quay_count(self, arrows: Sequence[str], own_ships: float) -> float:
        """Ships a Quay would count, given (an estimate of) one's own ships."""
        n, seat = self.seats, self.seat
        if n == 2 and set(arrows) == {"left", "right"}:
            return 2 * (own_ships + self.ship_counts[1 - seat])
        whose = {"left": (seat + 1) % n, "right": (seat - 1) % n}
        count = sum(self.ship_counts[whose[arrow]] for arrow in arrows if arrow != "self")
        return count + (own_ships if "self" in arrows else 0)

    def best_opponent(self, kind: str) -> int:
        """The most goods of a kind any one opponent holds."""
        return max(
            self.counts[other].get(kind, 0) for other in range(self.seats) if other != self.seat
        )


# A goods card's kind and ships, for the yardstick's tally (special cards are not in it).
GOODS_SHIPS = {card: (kind, CARDS[card]["ships"]) for card, kind in GOODS_OF.items()}
# A special card's class (``moves.card_class``: alike in every rule) and its data.
SPECIAL_CLASSES = {
    card: (card_class(card), info) for card, info in CARDS.items() if card not in GOODS_OF
}


class Yardstick:
    """How well resources plus a hand fill the profit tables, for one view's table and
    own resources: piles and special cards by their profit tables, with ``part`` credit
    for the way to a pile's next threshold, and each card in hand weighted.

    A bot measures hundreds of ways a turn could end for one move, all on the same
    resources: their tally is taken once, and what a count earns on a table is worked
    out once. The sums run in the same order whatever is cached, so the measure is the
    same to the last bit."""

    def __init__(self, table: Table, resources: Sequence[str], part: float = PART_CREDIT):
        self.table = table
        self.part = part
        kinds: dict[str, float] = {}
        own_ships = 0.0
        for card in resources:
            if card in GOODS_OF:
                kinds[GOODS_OF[card]] = kinds.get(GOODS_OF[card], 0) + 1.0
                own_ships += 1.0 * CARDS[card]["ships"]
        self.kinds = kinds
        self.own_ships = own_ships
        self.specials = [(1.0, card) for card in resources if card not in GOODS_OF]
        self.earned: dict[tuple, dict[float, float]] = {}
        self.opponents: dict[str, int] = {}

    def progress(self, table: tuple[tuple[int, int], ...], count: float) -> float:
        by_count = self.earned.get(table)
        if by_count is None:
            by_count = self.earned[table] = {}
        found = by_count.get(count)
        if found is None:
            found = by_count[count] = progress(table, count, self.part)
        return found

    def best_opponent(self, kind: str) -> int:
        found = self.opponents.get(kind)
        if found is None:
            found = self.opponents[kind] = self.table.best_opponent(kind)
        return found

    def worth(self, loaded: Sequence[str], hand: Sequence[str], hand_weight: float) -> float:
        """The resources with ``loaded`` added to them, plus the hand (each card weighted
        by ``hand_weight``)."""
        kinds = self.kinds.copy()
        own_ships = self.own_ships
        specials = self.specials
        for weight, cards in ((1.0, loaded), (hand_weight, hand)):
            for card in cards:
                goods = GOODS_SHIPS.get(card)
                if goods is None:
                    specials = [*specials, (weight, card)]
                    continue
                kinds[goods[0]] = kinds.get(goods[0], 0) + weight
                own_ships += weight * goods[1]
        progress = self.progress
        total = sum([progress(GOODS_TABLES[kind], count) for kind, count in kinds.items()])
        counted: dict[tuple, float] = {}
        for weight, card in specials:
            # A special card's count as the table lies (own goods as weighted counts):
            # the same for every card of its class.
            kind, info = SPECIAL_CLASSES[card]
            value = counted.get(kind)
            if value is None:
                if info["kind"] == "warehouse":
                    count = sum(1 for held in kinds.values() if held >= 1)
                elif info["kind"] == "quay":
                    count = self.table.quay_count(info["arrows"], own_ships)
                else:
                    count = kinds.get(info["goods"], 0) + self.best_opponent(info["goods"])
                value = counted[kind] = progress(info["table"], count)
            total += weight * value
        return total


def own_resources(view: Mapping[str, Any]) -> list[str]:
    mine = view["players"][view["seat"]]["resources"]
    return [card for cards in mine["piles"].values() for card in cards] + mine["specials"]


def cash_now(table: Table, resources: Sequence[str], move: Mapping[str, Any]) -> int:
    """Coins a cash move pays, counted from the view."""
    counts: dict[str, int] = {}
    own_ships = 0
    for card in resources:
        if card in GOODS_OF:
            counts[GOODS_OF[card]] = counts.get(GOODS_OF[card], 0) + 1
            own_ships += CARDS[card]["ships"]
    if "pile" in move:
        return pays(GOODS_TABLES[move["pile"]], counts[move["pile"]])
    info = CARDS[move["special"]]
    if info["kind"] == "warehouse":
        return pays(info["table"], len(counts))
    if info["kind"] == "quay":
        return pays(info["table"], int(table.quay_count(info["arrows"], own_ships)))
    kind = info["goods"]
    return pays(info["table"], counts.get(kind, 0) + table.counts[move["opponent"]].get(kind, 0))


def remaining_after(resources: list[str], move: Mapping[str, Any]) -> list[str]:
    if move["type"] == "tax":
        gone = [move["card"]]
    elif "pile" in move:
        gone = [card for card in resources if GOODS_OF.get(card) == move["pile"]]
    else:
        gone = [move["special"]]
    return [card for card in resources if card not in gone]


def future(table: Table, resources: list[str]) -> float:
    """What is left, valued at what it would pay now (best opponent for Trade Routes)."""
    total = 0.0
    counts: dict[str, int] = {}
    own_ships = 0
    for card in resources:
        if card in GOODS_OF:
            counts[GOODS_OF[card]] = counts.get(GOODS_OF[card], 0) + 1
            own_ships += CARDS[card]["ships"]
    for kind, count in counts.items():
        total += pays(GOODS_TABLES[kind], count)
    for card in resources:
        info = CARDS[card]
        if info["kind"] == "warehouse":
            total += pays(info["table"], len(counts))
        elif info["kind"] == "quay":
            total += pays(info["table"], int(table.quay_count(info["arrows"], own_ships)))
        elif info["kind"] == "trade_route":
            kind = info["goods"]
            total += pays(info["table"], counts.get(kind, 0) + table.best_opponent(kind))
    return total


def choose_move(view: Mapping[str, Any], legal_moves: Sequence[dict], rng: random.Random) -> dict:
    """The bot's move: always one of ``legal_moves``."""
    table = Table(view)
    resources = own_resources(view)
    yardstick = Yardstick(table, resources)
    hand = view.get("hand") or []
    step = legal_moves[0]["type"]
    final_turn = bool(view["end_triggered"])

    def score(move: Mapping[str, Any]) -> float:
        if step == "trade":
            kept = [card for card in hand if card != move["give"]] + list(move["take"])
            return yardstick.worth((), kept, HAND_WEIGHT)
        if step == "load":
            kept = [card for card in hand if card not in move["cards"]]
            held = len(resources) + len(move["cards"])
            bonus = CAPTAIN_BONUS if not final_turn and held >= view["end_cards"] else 0.0
            weight = 0.0 if final_turn else HAND_WEIGHT
            return yardstick.worth(move["cards"], kept, weight) + bonus
        left = remaining_after(resources, move)
        if step == "tax":
            # Ties go to keeping ships (Quays count them) and bigger piles.
            kept_ships = sum(CARDS[card]["ships"] for card in left)
            return future(table, left) + 0.01 * kept_ships + 0.001 * same_kind(left, move["card"])
        return cash_now(table, resources, move) + LATER * future(table, left) + urgency(move)

    scored = [(score(move) + rng.random() * 1e-6, index) for index, move in enumerate(legal_moves)]
    return legal_moves[max(scored)[1]]


def same_kind(resources: Sequence[str], card: str) -> int:
    return sum(1 for other in resources if GOODS_OF.get(other) == GOODS_OF[card])


def urgency(move: Mapping[str, Any]) -> float:
    """Cards whose count other players can shrink are worth cashing first."""
    if "special" not in move:
        return 0.0
    return {"trade_route": 0.3, "quay": 0.2, "warehouse": 0.1}[CARDS[move["special"]]["kind"]]
