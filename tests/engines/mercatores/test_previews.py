"""Move labels at the point of decision: every load and cash-in says what it pays, and
the figure is the one the rules pay (checked by playing the move)."""

from __future__ import annotations

import random
import re

import pytest

from engines.api import SeededChance
from engines.mercatores import ENGINE
from engines.mercatores.data import GOODS_NAMES
from engines.mercatores.scoring import cash_value
from engines.mercatores.state import CASH, LOAD

CASH_PREVIEW = re.compile(r": (\d+) .+ pays? (nothing|(\d+) coins?)$")
LOAD_PART = re.compile(r"(\w+) pile of (\d+) pays (nothing|(\d+) coins?)")
SPECIAL_PART = re.compile(r"counts (\d+) .+, pays (nothing|(\d+) coins?) now$")


def coins_in(word: str, number: str | None) -> int:
    return 0 if word == "nothing" else int(number)


def positions(seats: int, seed: int, options: dict | None = None):
    """Every position of a bot game, with the seat to move and its legal moves."""
    state = ENGINE.setup(seats, options or {}, SeededChance(seed))
    rng = random.Random(seed)
    while ENGINE.to_move(state):
        seat = min(ENGINE.to_move(state))
        legal = ENGINE.legal_moves(state, seat)
        yield state, seat, legal
        move = ENGINE.bot_move(ENGINE.view(state, seat), legal, rng)
        state = ENGINE.apply(state, seat, move, SeededChance(rng.randrange(1000)))


@pytest.mark.parametrize("seats, seed", [(2, 1), (3, 2), (4, 3)])
def test_every_cash_in_label_says_what_the_rules_pay_and_playing_it_pays_that(seats, seed):
    checked = 0
    for state, seat, legal in positions(seats, seed):
        if state.step != CASH:
            continue
        view = ENGINE.view(state, seat)
        for move in legal:
            label = ENGINE.move_label(move, view)
            found = CASH_PREVIEW.search(label)
            assert found, label
            count, coins = cash_value(state, seat, move)
            assert int(found.group(1)) == count
            assert coins_in(found.group(2), found.group(3)) == coins
            after = ENGINE.apply(state, seat, move, SeededChance(0))
            assert after.coins[seat] - state.coins[seat] == coins
            assert len(label) < 120
            checked += 1
    assert checked > 20


@pytest.mark.parametrize("seats, seed", [(2, 4), (3, 5), (4, 6)])
def test_every_load_label_says_what_its_piles_would_pay_once_loaded(seats, seed):
    checked = 0
    for state, seat, legal in positions(seats, seed):
        if state.step != LOAD:
            continue
        view = ENGINE.view(state, seat)
        for move in legal:
            label = ENGINE.move_label(move, view)
            assert label.startswith(ENGINE.move_label(move) + ": ") and label.endswith(" now")
            after = ENGINE.apply(state, seat, move, SeededChance(0))
            for name, size, word, number in LOAD_PART.findall(label):
                kind = next(kind for kind, shown in GOODS_NAMES.items() if shown == name)
                cash = {"type": "cash", "pile": kind}
                assert cash_value(after, seat, cash) == (int(size), coins_in(word, number))
            if move["way"] == "special":
                found = SPECIAL_PART.search(label)
                assert found, label
                card = move["cards"][0]
                if "together with" in label:
                    values = [
                        cash_value(after, seat, {"type": "cash", "special": card, "opponent": o})
                        for o in range(seats)
                        if o != seat
                    ]
                else:
                    values = [cash_value(after, seat, {"type": "cash", "special": card})]
                shown = (int(found.group(1)), coins_in(found.group(2), found.group(3)))
                assert shown in values and shown[1] == max(coins for _, coins in values)
            else:
                assert len(LOAD_PART.findall(label)) == len(
                    {card.split("-")[0] for card in move["cards"]}
                )
            checked += 1
    assert checked > 20


def test_trades_say_nothing_new_and_previews_reach_only_the_mover():
    for state, seat, legal in positions(3, 7):
        view = ENGINE.view(state, seat)
        for other in (None, *(s for s in range(3) if s != seat)):
            assert "previews" not in ENGINE.view(state, other)
        if legal[0]["type"] in ("trade", "tax"):
            assert all(ENGINE.move_label(m, view) == ENGINE.move_label(m) for m in legal)
        else:
            assert "previews" in view


def test_a_cash_in_label_reads_as_a_player_would_say_it():
    state = next(
        state
        for state, seat, legal in positions(2, 1)
        if state.step == CASH and any("pile" in move for move in legal)
    )
    seat = state.turn
    move = next(move for move in ENGINE.legal_moves(state, seat) if "pile" in move)
    count, coins = cash_value(state, seat, move)
    name = GOODS_NAMES[move["pile"]]
    paid = "nothing" if not coins else f"{coins} coin{'s' if coins != 1 else ''}"
    cards = f"{count} {name} card{'s' if count != 1 else ''} {'pays' if count == 1 else 'pay'}"
    assert ENGINE.move_label(move, ENGINE.view(state, seat)) == (
        f"Cash in the {name} pile: {cards} {paid}"
    )
