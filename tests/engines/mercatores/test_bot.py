"""The first bot (the "easy" level) plays from its own view and legal moves only, and
plays sensibly."""

from __future__ import annotations

import random

from engines.api import SeededChance
from engines.mercatores import ENGINE
from engines.mercatores.bot import Table, Yardstick, own_resources, progress
from engines.mercatores.data import CARDS, GOODS_OF, GOODS_TABLES
from engines.mercatores.moves import load_choices
from engines.mercatores.state import INVESTMENT, LOAD, ordered, without
from tests.engines.mercatores.helpers import goods, position, profit_position


def bot_choice(state, seat):
    legal = ENGINE.legal_moves(state, seat)
    move = ENGINE.bot_move(ENGINE.view(state, seat), legal, random.Random(0), level="easy")
    assert move in legal
    return move


def test_bot_taxes_the_card_whose_loss_costs_least():
    # Six corn pay 2 but five pay only 1; four cotton pay 1, and so do three.
    resources = [goods("corn", 6) + goods("cotton", 4), goods("cocoa", 2)]
    state = profit_position(2, resources, unloading=1, turn=0)
    move = bot_choice(state, 0)
    assert move["type"] == "tax" and move["card"].startswith("cotton")


def test_bot_cashes_in_what_pays_most():
    state = profit_position(2, [goods("tobacco", 6) + goods("corn", 2), goods("cocoa", 2)])
    assert bot_choice(state, 0) == {"type": "cash", "pile": "tobacco"}


def test_bot_counts_its_trade_route_with_the_best_opponent():
    resources = [
        goods("cotton", 2) + ["t3"],
        goods("cotton", 1, skip=2),
        goods("cotton", 6, skip=3),
    ]
    state = profit_position(3, resources)
    assert bot_choice(state, 0) == {"type": "cash", "special": "t3", "opponent": 2}


def test_bot_loads_the_pile_it_is_building():
    hand = goods("corn", 3) + goods("coffee", 1) + ["w1"]
    hands = [hand, goods("cotton", 3)]
    resources = [goods("corn", 3, skip=3), []]
    state = position(2, hands=hands, market=goods("cocoa", 4), resources=resources, step=LOAD)
    move = bot_choice(state, 0)
    assert move["way"] == "one_kind" and all(card.startswith("corn") for card in move["cards"])


def test_bot_beats_random_play():
    wins = 0
    for seed in range(12):
        state = ENGINE.setup(2, {}, SeededChance(seed))
        rng = random.Random(seed)
        while ENGINE.to_move(state):
            seat = min(ENGINE.to_move(state))
            legal = ENGINE.legal_moves(state, seat)
            if seat == seed % 2:
                move = ENGINE.bot_move(ENGINE.view(state, seat), legal, rng)
            else:
                move = rng.choice(legal)
            state = ENGINE.apply(state, seat, move, SeededChance(rng.randrange(1 << 30)))
        wins += seed % 2 in ENGINE.result(state).winners
    assert wins >= 10


def plain_worth(table, resources, hand, hand_weight, part):
    """The yardstick as first written: every card tallied afresh for each measure."""
    kinds: dict[str, float] = {}
    own_ships = 0.0
    for weight, cards in ((1.0, resources), (hand_weight, hand)):
        for card in cards:
            if card in GOODS_OF:
                kinds[GOODS_OF[card]] = kinds.get(GOODS_OF[card], 0) + weight
                own_ships += weight * CARDS[card]["ships"]
    total = sum(progress(GOODS_TABLES[kind], count, part) for kind, count in kinds.items())
    for weight, cards in ((1.0, resources), (hand_weight, hand)):
        for card in cards:
            if card in GOODS_OF:
                continue
            info = CARDS[card]
            if info["kind"] == "warehouse":
                count = sum(1 for held in kinds.values() if held >= 1)
            elif info["kind"] == "quay":
                count = table.quay_count(info["arrows"], own_ships)
            else:
                count = kinds.get(info["goods"], 0) + table.best_opponent(info["goods"])
            total += weight * progress(info["table"], count, part)
    return total


def test_the_yardstick_measures_to_the_last_bit_as_a_fresh_count_does():
    # Every trade's new hand and every load of seeded four-player games, kept cards at the
    # weights the bots use: the same floats, so the bots' choices cannot change.
    measured = 0
    for seed in range(2):
        state = ENGINE.setup(4, {}, SeededChance(seed))
        rng = random.Random(seed)
        while state.phase == INVESTMENT:
            seat = state.turn
            legal = ENGINE.legal_moves(state, seat)
            view = ENGINE.view(state, seat)
            table, resources = Table(view), own_resources(view)
            yardstick = Yardstick(table, resources, 0.8)
            hands = [tuple(view["hand"])]
            if legal[0]["type"] == "trade":
                hands = [
                    ordered(without(view["hand"], [m["give"]]) + tuple(m["take"])) for m in legal
                ]
            for hand in hands:
                for _way, cards in load_choices(hand):
                    kept = [card for card in hand if card not in cards]
                    for weight in (0.0, 0.6, 0.8):
                        expected = plain_worth(table, resources + cards, kept, weight, 0.8)
                        assert yardstick.worth(cards, kept, weight) == expected
                        measured += 1
            state = ENGINE.apply(state, seat, ENGINE.bot_move(view, legal, rng), SeededChance(seed))
    assert measured > 1000
