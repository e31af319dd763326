"""Titles: the counts behind the three titles and how titles change hands (rules 'Titles')."""

from __future__ import annotations

from engines.api import Chance
from engines.mare_nostrum.data import TITLES
from engines.mare_nostrum.state import (
    State,
    civ_of,
    owns_card,
    players,
    provinces_read,
    reading,
)

# Cards that add 2 to a title count (rules 'Titles').
TITLE_BONUS_CARDS = {
    "navigator": ("colossus",),
    "lawgiver": ("hanging_gardens",),
    "general": ("archimedes", "statue_of_zeus"),
}


def title_count(state: State, seat: int, title: str) -> int:
    """Navigator: caravans + markets; Lawgiver: cities + temples (in provinces the seat
    controls); General: legions + triremes + fortresses on the board. Card bonuses add 2."""
    civ = civ_of(state, seat)
    total = 0
    if title == "general":
        for province in provinces_read(state):
            total += province["legions"].get(civ, 0) + province["dock"].get(civ, 0)
            total += province["fortress"] == civ
        for sea in reading(state, "seas").values():
            total += sea.get(civ, 0)
    else:
        for province in provinces_read(state):
            if province["marker"] != civ:
                continue
            if title == "navigator":
                total += len(province["caravans"]) + (province["market"] is not None)
            else:
                total += len(province["cities"]) + (province["temple"] is not None)
    for card in TITLE_BONUS_CARDS[title]:
        if owns_card(state, civ, card):
            total += 2
    return total


def title_counts(state: State, title: str) -> list[int]:
    """:func:`title_count` of every seat, in seat order, from one pass over the board
    (the title checks between phases count every seat for every title; a view counts
    one seat's, with :func:`title_count`)."""
    civs = reading(state, "civs")
    counts = dict.fromkeys(civs, 0)  # by civilisation (None while one is unchosen)
    if title == "general":
        for province in provinces_read(state):
            for pieces in (province["legions"], province["dock"]):
                for civ, n in pieces.items():
                    if civ in counts:
                        counts[civ] += n
            if province["fortress"] in counts:
                counts[province["fortress"]] += 1
        for sea in reading(state, "seas").values():
            for civ, n in sea.items():
                if civ in counts:
                    counts[civ] += n
    else:
        navigator = title == "navigator"
        for province in provinces_read(state):
            civ = province["marker"]
            if civ not in counts:
                continue
            if navigator:
                counts[civ] += len(province["caravans"]) + (province["market"] is not None)
            else:
                counts[civ] += len(province["cities"]) + (province["temple"] is not None)
    return [
        counts[civ] + 2 * sum(owns_card(state, civ, card) for card in TITLE_BONUS_CARDS[title])
        for civ in civs
    ]


def challengers(state: State, title: str) -> list[int]:
    """The seats whose count beats the holder's, keeping only the highest (ties listed)."""
    holder = state["titles"][title]
    counts = dict(enumerate(title_counts(state, title)))
    beating = {seat: n for seat, n in counts.items() if n > counts[holder]}
    if not beating:
        return []
    best = max(beating.values())
    return sorted(seat for seat, n in beating.items() if n == best)


def assign_at_setup(state: State, chance: Chance, printed: dict[str, int], exclusive: bool) -> None:
    """Titles not printed for a player go by the counts; a tie is drawn by chance among the
    tied players holding no title yet (rules 'Setup'). ``exclusive``: no one gets two."""
    titles: dict[str, int] = dict(printed)
    for title in TITLES:
        if title in titles:
            continue
        holding = set(titles.values())
        candidates = [s for s in players(state) if not (exclusive and s in holding)]
        every = title_counts(state, title)
        counts = {seat: every[seat] for seat in candidates}
        best = max(counts.values())
        tied = [seat for seat in candidates if counts[seat] == best]
        untitled = [seat for seat in tied if seat not in holding] or tied
        titles[title] = untitled[chance.below(len(untitled))] if len(untitled) > 1 else untitled[0]
    state["titles"] = {title: titles[title] for title in TITLES}
