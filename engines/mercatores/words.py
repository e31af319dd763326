"""Mercatores' words for players: the markers of its own catalogue
(``engines/mercatores/translations``, see :mod:`engines.text`) and the words its
cards, labels, history lines and pages share, so one thing has one name everywhere."""

from __future__ import annotations

from engines.text import joined, markers

T, Tn = markers("mercatores")

AND = T(" and ")


def listing(words: list) -> str:
    """Words in a row: "Corn, Cotton and Coffee" (the last two joined by "and")."""
    return joined(words, ", ", AND)


def count_of(num: int, goods: str):
    """A number of goods cards: "6 Corn cards"."""
    return Tn("%(num)d %(goods)s card", "%(num)d %(goods)s cards", num, goods=goods)


def coins(num: int):
    """Coins paid: "2 coins", "nothing"."""
    return Tn("%(num)d coin", "%(num)d coins", num) if num else T("nothing")


__all__ = ["AND", "T", "Tn", "coins", "count_of", "joined", "listing"]
