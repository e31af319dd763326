"""Titles: the counts behind the three titles and how titles change hands (rules 'Titles')."""

from __future__ import annotations

from engines.api import Chance
from engines.mare_nostrum.data import TITLES
from engines.mare_nostrum.state import State, civ_of, owns_card, players, provinces_read, reading

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


def challengers(state: State, title: str) -> list[int]:
    """The seats whose count beats the holder's, keeping only the highest (ties listed)."""
    holder = state["titles"][title]
    counts = {seat: title_count(state, seat, title) for seat in players(state)}
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
        counts = {seat: title_count(state, seat, title) for seat in candidates}
        best = max(counts.values())
        tied = [seat for seat in candidates if counts[seat] == best]
        untitled = [seat for seat in tied if seat not in holding] or tied
        titles[title] = untitled[chance.below(len(untitled))] if len(untitled) > 1 else untitled[0]
    state["titles"] = {title: titles[title] for title in TITLES}
