"""Rules 'Titles': the counts, card bonuses, ties kept by the holder, the holder's choice."""

from __future__ import annotations

import random

import pytest

from engines.api import IllegalMove, SeededChance
from engines.mare_nostrum import ENGINE as NEWEST
from engines.mare_nostrum.flow import begin_phase
from engines.mare_nostrum.state import civ_of, clone, owns_card
from engines.mare_nostrum.titles import TITLE_BONUS_CARDS, title_count, title_counts
from tests.engines.mare_nostrum.helpers import give_cards, play, put_legions, start

GREECE, CARTHAGE, ROME, EGYPT = range(4)


def checked(state: dict, phase: str = "war") -> dict:
    state = clone(state)
    state["log"] = []
    begin_phase(state, phase)
    return state


def test_title_counts_follow_the_board():
    state = start(4)
    assert title_count(state, CARTHAGE, "navigator") == 4  # 3 caravans + 1 market
    assert title_count(state, EGYPT, "lawgiver") == 5  # 4 cities + 1 temple
    assert title_count(state, ROME, "general") == 8  # 4 legions, 2 triremes, 2 fortresses


def test_a_tie_leaves_the_title_with_its_holder():
    state = put_legions(start(4), "greece", "attica", 1)  # Greece 8 = Rome 8
    assert checked(state)["titles"]["general"] == ROME


def test_a_higher_count_takes_the_title():
    state = put_legions(start(4), "greece", "attica", 2)
    after = checked(state)
    assert after["titles"]["general"] == GREECE
    assert "Greece takes the title of Great General from Rome." in [t for t, _ in after["log"]]


def test_the_holder_chooses_among_tied_challengers():
    state = put_legions(start(4), "greece", "attica", 2)
    state = put_legions(state, "carthage", "africa", 3)  # both 9 against Rome's 8
    state = checked(state)
    assert state["phase"] == "title_choice" and state["title_check"]["candidates"] == [0, 1]
    with pytest.raises(IllegalMove, match="tied challengers"):
        play(state, ROME, {"type": "choose_title_holder", "title": "general", "seat": EGYPT})
    state = play(state, ROME, {"type": "choose_title_holder", "title": "general", "seat": CARTHAGE})
    assert state["titles"]["general"] == CARTHAGE
    assert state["phase"] in ("name_warrior", "war")


@pytest.mark.parametrize(
    "card, title, seat",
    [
        ("archimedes", "general", GREECE),
        ("statue_of_zeus", "general", GREECE),
        ("colossus", "navigator", ROME),
        ("hanging_gardens", "lawgiver", GREECE),
    ],
)
def test_cards_add_two_to_a_title_count(card, title, seat):
    state = start(4)
    before = title_count(state, seat, title)
    assert title_count(give_cards(state, seat, card), seat, title) == before + 2


def test_titles_are_checked_at_the_start_of_each_phase():
    state = give_cards(start(4), GREECE, "archimedes")  # Greece 9 against Rome's 8
    for phase in ("trade", "build", "war"):
        assert checked(state, phase)["titles"]["general"] == GREECE


def counted_alone(state: dict, seat: int, title: str) -> int:
    """One seat's count, province by province, as the rules word it."""
    civ = civ_of(state, seat)
    total = 0
    for province in state["provinces"].values():
        if title == "general":
            total += province["legions"].get(civ, 0) + province["dock"].get(civ, 0)
            total += province["fortress"] == civ
        elif province["marker"] == civ and title == "navigator":
            total += len(province["caravans"]) + (province["market"] is not None)
        elif province["marker"] == civ:
            total += len(province["cities"]) + (province["temple"] is not None)
    total += sum(sea.get(civ, 0) for sea in state["seas"].values()) if title == "general" else 0
    return total + 2 * sum(owns_card(state, civ, card) for card in TITLE_BONUS_CARDS[title])


@pytest.mark.parametrize("seats", [3, 5])
def test_every_seats_count_at_once_is_each_seats_count(seats):
    """The title checks count all seats in one pass over the board: the same numbers."""
    rng = random.Random(seats)
    state = NEWEST.setup(seats, {"turn_limit": 8}, SeededChance(seats))
    while NEWEST.to_move(state):
        for title in ("navigator", "lawgiver", "general"):
            expected = [counted_alone(state, seat, title) for seat in range(seats)]
            assert title_counts(state, title) == expected
            assert [title_count(state, seat, title) for seat in range(seats)] == expected
        seat = min(NEWEST.to_move(state))
        legal = NEWEST.legal_moves(state, seat)
        move = NEWEST.bot_move(NEWEST.view(state, seat), legal, rng, "easy")
        state = NEWEST.apply(state, seat, move, SeededChance(rng.randrange(1 << 30)))
