"""The stored log's lines as texts a reader gets in their language.

The log in the state is English and hashed: it never changes. ``describe`` rewords each
stored line for the reader (:func:`engines.mare_nostrum.views.reword`: seats as
placeholders, grammar mended) and then :func:`as_text` reads the reworded line back into
a :class:`~engines.text.Text`: each form a line ever takes is one sentence below, and
the regular expression that reads it is built from that sentence's own pattern, so the
two cannot drift apart. The parameters are read back into words (cards, pieces, titles,
wonders) or kept as names (players, civilisations, places, heroes). A line is a text
only when the text's English is exactly the line; a line no form reads stays as it is.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

from engines.mare_nostrum.data import CIVS, GOODS_KINDS, HEROES, PROVINCE, SEA, TITLE_NAMES
from engines.mare_nostrum.words import (
    A_CARD,
    A_ITEM,
    AND,
    CARD_WORDS,
    THE_WONDER,
    TITLE_WORDS,
    T,
    Tn,
)
from engines.text import Joined, joined

# --- Reading a parameter back into words -------------------------------------------------


class NotRead(ValueError):
    """The part of a line is not what the parameter holds: try the next form."""


CIV_NAMES = frozenset(civ["name"] for civ in CIVS)
PROVINCE_NAMES = frozenset(province["name"] for province in PROVINCE.values())
SEA_NAMES = frozenset(sea["name"] for sea in SEA.values())
HERO_NAMES = frozenset(hero["name"] for hero in HEROES)
SEAT = re.compile(r"^\{(?:seat|name):\d+\}$")
WONDER_NAMES = {
    "the Colossus": "colossus",
    "the Hanging Gardens": "hanging_gardens",
    "the Temple of Artemis": "temple_of_artemis",
    "the Statue of Zeus": "statue_of_zeus",
    "the Lighthouse": "lighthouse",
    "the Mausoleum": "mausoleum",
    "the Pyramids": "pyramids",
}
ITEMS_READ: dict[str, Any] = {
    **{str(word): word for word in A_ITEM.values()},
    **{phrase: THE_WONDER[wonder] for phrase, wonder in WONDER_NAMES.items()},
    **{name: name for name in HERO_NAMES},
}
A_CARD_READ = {str(word): word for word in A_CARD.values()}
TITLE_READ = {name: TITLE_WORDS[title] for title, name in TITLE_NAMES.items()}
UNITS_READ = {"a legion": A_ITEM["legion"], "a trireme": A_ITEM["trireme"]}


def _one_of(known) -> Callable[[str], Any]:
    def read(part: str) -> Any:
        if part not in known:
            raise NotRead(part)
        return known[part] if isinstance(known, dict) else part

    return read


def _name(part: str) -> str:
    """A player (a seat's placeholder) or a civilisation no seat plays: a name."""
    if SEAT.match(part) or part in CIV_NAMES:
        return part
    raise NotRead(part)


def _number(part: str) -> int:
    if not part.isdigit():
        raise NotRead(part)
    return int(part)


def _site(part: str) -> str:
    if not part or "(" in part or ")" in part or "," in part or part.startswith("on the "):
        raise NotRead(part)
    return part


def _cards(part: str) -> Joined:
    """A payment: "coin, coin, wine"."""
    cards = part.split(", ")
    if not all(card in CARD_WORDS for card in cards):
        raise NotRead(part)
    return joined([CARD_WORDS[card] for card in cards], ", ")


COUNTED = re.compile(r"^(\d+) (?:(coins?)|(\w+) cards?)$")


def counted_cards(counts: list[tuple[str, int]]) -> Any:
    """Cards counted by kind: "3 coins, 1 gems card, 2 wine cards"; "nothing" for none."""
    if not counts:
        return T("nothing")
    return joined(
        [
            Tn("%(num)d coin", "%(num)d coins", n)
            if kind == "coin"
            else Tn("%(num)d %(kind)s card", "%(num)d %(kind)s cards", n, kind=CARD_WORDS[kind])
            for kind, n in counts
        ],
        ", ",
    )


def _counted(part: str) -> Any:
    if part == "nothing":
        return T("nothing")
    counts = []
    for item in part.split(", "):
        found = COUNTED.match(item)
        if not found or (found[3] is not None and found[3] not in GOODS_KINDS):
            raise NotRead(part)
        counts.append(("coin" if found[2] else found[3], int(found[1])))
    return counted_cards(counts)


def _names(part: str) -> Joined:
    """Players in a row: "{seat:0}, {seat:2} and {seat:1}"."""
    head, _, last = part.rpartition(" and ")
    if not head:
        raise NotRead(part)
    who = [*head.split(", "), last]
    return joined([_name(name) for name in who], ", ", AND)


def _dice(part: str) -> Any:
    """A side of a battle: "6 + 5 + 2 = 13", "4", "4 + 6 (fortress) = 10"."""
    dice, _, total = part.partition(" = ")
    words: list[Any] = []
    for die in dice.split(" + "):
        fortress = re.fullmatch(r"(\d+) \(fortress\)", die)
        if fortress:
            words.append(T("%(num)d (fortress)", num=int(fortress[1])))
        elif die.isdigit():
            words.append(die)
        else:
            raise NotRead(part)
    side: Any = joined(words, " + ")
    if total:
        _number(total)
        side = joined([side, total], " = ")
    return side


def _units(part: str) -> Any:
    if part == "none":
        return T("none")
    found = re.fullmatch(r"(\d+) units?", part)
    if not found:
        raise NotRead(part)
    return Tn("%(num)d unit", "%(num)d units", int(found[1]))


HOLD = re.compile(r"^(?:the city of ([^,()]+)|the (\w+) caravan|the temple|the market)$")


def held_word(kind: str, site: str = "") -> Any:
    """A building that occupying legions hold: "the city of Roma", "the wine caravan"."""
    if kind == "city":
        return T("the city of %(site)s", site=site)
    if kind == "caravan":
        return T("the %(goods)s caravan", goods=CARD_WORDS.get(site, site))
    if kind == "temple":
        return T("the temple")
    return T("the market")


def held_list(words: list[Any]) -> Any:
    return words[0] if len(words) == 1 else joined(words, ", ", AND)


def _buildings(part: str) -> Any:
    head, _, last = part.rpartition(" and ")
    parts = [*head.split(", "), last] if head else [part]
    words = []
    for item in parts:
        found = HOLD.match(item)
        if not found or (found[2] is not None and found[2] not in GOODS_KINDS):
            raise NotRead(part)
        if found[1] is not None:
            words.append(held_word("city", found[1]))
        elif found[2] is not None:
            words.append(held_word("caravan", found[2]))
        else:
            words.append(held_word(item.split()[-1]))
    return held_list(words)


SPACE_NAMES = PROVINCE_NAMES | SEA_NAMES
READERS: dict[str, Callable[[str], Any]] = {
    "who": _name,
    "other": _name,
    "target": _name,
    "civ": _one_of(CIV_NAMES),
    "province": _one_of(PROVINCE_NAMES),
    "sea": _one_of(SEA_NAMES),
    "start": _one_of(SPACE_NAMES),
    "end": _one_of(SPACE_NAMES),
    "where": _one_of(SPACE_NAMES),
    "site": _site,
    "goods": _one_of({kind: CARD_WORDS[kind] for kind in GOODS_KINDS}),
    "kind": _one_of(CARD_WORDS),
    "item": _one_of(ITEMS_READ),
    "unit": _one_of(UNITS_READ),
    "cards": _cards,
    "counted": _counted,
    "card": _one_of(A_CARD_READ),
    "give": _one_of(A_CARD_READ),
    "get": _one_of(A_CARD_READ),
    "title": _one_of(TITLE_READ),
    "num": _number,
    "turn": _number,
    "winners": _names,
    "attack": _dice,
    "defence": _dice,
    "lost": _units,
    "fell": _units,
    "buildings": _buildings,
}

# --- Every form a line takes (as ``reword`` leaves it) --------------------------------------

# fmt: off
FORMS: tuple[Callable[..., Any], ...] = (
    lambda who, civ: T("%(who)s plays %(civ)s.", who=who, civ=civ),
    lambda who, item, cards: T("%(who)s builds %(item)s, paying %(cards)s.", who=who, item=item, cards=cards),  # noqa: E501
    lambda who, item, province, cards: T("%(who)s builds %(item)s in %(province)s, paying %(cards)s.", who=who, item=item, province=province, cards=cards),  # noqa: E501
    lambda who, item, province, goods, cards: T("%(who)s builds %(item)s in %(province)s (on the %(goods)s site), paying %(cards)s.", who=who, item=item, province=province, goods=goods, cards=cards),  # noqa: E501
    lambda who, item, province, site, cards: T("%(who)s builds %(item)s in %(province)s (%(site)s), paying %(cards)s.", who=who, item=item, province=province, site=site, cards=cards),  # noqa: E501
    lambda who, item, province: T("%(who)s builds %(item)s in %(province)s, free of charge (Hammurabi).", who=who, item=item, province=province),  # noqa: E501
    lambda who, item: T("%(who)s sets up %(item)s.", who=who, item=item),
    lambda who, item, province: T("%(who)s sets up %(item)s in %(province)s.", who=who, item=item, province=province),  # noqa: E501
    lambda who, item, province, goods: T("%(who)s sets up %(item)s in %(province)s (on the %(goods)s site).", who=who, item=item, province=province, goods=goods),  # noqa: E501
    lambda who, item, province, site: T("%(who)s sets up %(item)s in %(province)s (%(site)s).", who=who, item=item, province=province, site=site),  # noqa: E501
    lambda who: T("%(who)s builds the Pyramids and wins the game.", who=who),
    lambda who: T("%(who)s owns four heroes and wonders and wins the game.", who=who),
    lambda who, give, get: T("%(who)s swaps %(give)s for %(get)s with the bank (Cleopatra).", who=who, give=give, get=get),  # noqa: E501
    lambda who: T("%(who)s ends building.", who=who),
    lambda who, num: Tn("%(who)s keeps %(num)d card (Mausoleum).", "%(who)s keeps %(num)d cards (Mausoleum).", num, who=who),  # noqa: E501
    lambda who, title, other: T("%(who)s takes the title of %(title)s from %(other)s.", who=who, title=title, other=other),  # noqa: E501
    lambda: T("End of building: every player discards down to the cards they may keep."),
    lambda turn, who: T("The turn limit is reached after turn %(turn)d: %(who)s wins.", turn=turn, who=who),  # noqa: E501
    lambda turn, winners: T("The turn limit is reached after turn %(turn)d: %(winners)s share the win.", turn=turn, winners=winners),  # noqa: E501
    lambda who, counted: T("Income: %(who)s receives %(counted)s.", who=who, counted=counted),
    lambda who: T("%(who)s names themselves to build next.", who=who),
    lambda who, other: T("%(who)s names %(other)s to build next.", who=who, other=other),
    lambda who: T("%(who)s names themselves to take the next war turn.", who=who),
    lambda who, other: T("%(who)s names %(other)s to take the next war turn.", who=who, other=other),  # noqa: E501
    lambda who, card: T("%(who)s takes %(card)s from the bank (Temple of Artemis).", who=who, card=card),  # noqa: E501
    lambda who: T("%(who)s calls no trading this turn.", who=who),
    lambda who, num: Tn("%(who)s sets the trade at %(num)d card each.", "%(who)s sets the trade at %(num)d cards each.", num, who=who),  # noqa: E501
    lambda: T("No one else holds enough cards: there is no trading this turn."),
    lambda who: T("%(who)s lays out an offer face down.", who=who),
    lambda who, counted: T("%(who)s offers %(counted)s.", who=who, counted=counted),
    lambda who, card, other: T("%(who)s takes %(card)s from %(other)s.", who=who, card=card, other=other),  # noqa: E501
    lambda: T("Trading ends; untaken cards go back to their owners."),
    lambda who, other: T("%(who)s gives %(other)s one card as compensation.", who=who, other=other),  # noqa: E501
    lambda kind: T("The compensation card is %(kind)s.", kind=kind),
    lambda who, province: T("%(who)s occupies %(province)s.", who=who, province=province),
    lambda who, province, sea: T("%(who)s puts a trireme to sea from %(province)s into %(sea)s.", who=who, province=province, sea=sea),  # noqa: E501
    lambda who, unit, start, end: T("%(who)s moves %(unit)s from %(start)s to %(end)s.", who=who, unit=unit, start=start, end=end),  # noqa: E501
    lambda who, where: T("Helen of Troy: a legion of %(who)s deserts in %(where)s.", who=who, where=where),  # noqa: E501
    lambda who, where, other: T("Helen of Troy: a legion of %(who)s deserts in %(where)s and joins %(other)s.", who=who, where=where, other=other),  # noqa: E501
    lambda who, target, where, attack, defence: T("%(who)s attacks %(target)s in %(where)s: %(attack)s against %(defence)s; no unit is lost.", who=who, target=target, where=where, attack=attack, defence=defence),  # noqa: E501
    lambda who, target, where, attack, defence, lost, fell: T("%(who)s attacks %(target)s in %(where)s: %(attack)s against %(defence)s; %(target)s loses %(lost)s, %(who)s loses %(fell)s.", who=who, target=target, where=where, attack=attack, defence=defence, lost=lost, fell=fell),  # noqa: E501
    lambda who, province, counted, other: T("%(who)s pillages %(province)s, taking %(counted)s; %(other)s loses the province and its buildings.", who=who, province=province, counted=counted, other=other),  # noqa: E501
    lambda who, province, other: T("%(who)s assimilates %(province)s from %(other)s.", who=who, province=province, other=other),  # noqa: E501
    lambda other, province, who: T("%(other)s loses %(province)s; %(who)s has no control marker left to place there.", other=other, province=province, who=who),  # noqa: E501
    lambda who, province, buildings: T("The legions of %(who)s in %(province)s hold %(buildings)s.", who=who, province=province, buildings=buildings),  # noqa: E501
    lambda who: T("%(who)s ends the war turn.", who=who),
    lambda who: T("%(who)s ends the set-up.", who=who),
    lambda who, title: T("%(who)s is the %(title)s.", who=who, title=title),
)
# fmt: on

PLACEHOLDER = re.compile(r"%\((\w+)\)([sd])")


def _pattern(msgid: str) -> re.Pattern:
    """The regular expression that reads a line of the sentence ``msgid``."""
    parts, seen, at = ["^"], set(), 0
    for found in PLACEHOLDER.finditer(msgid):
        parts.append(re.escape(msgid[at : found.start()]))
        name = found[1]
        if name in seen:
            parts.append(f"(?P={name})")
        else:
            seen.add(name)
            parts.append(rf"(?P<{name}>\d+)" if found[2] == "d" else rf"(?P<{name}>.+?)")
        at = found.end()
    parts.append(re.escape(msgid[at:]) + "$")
    return re.compile("".join(parts))


def _readers(form: Callable[..., Any]) -> list[tuple[re.Pattern, Callable[..., Any]]]:
    names = list(inspect.signature(form).parameters)
    sample = form(**{name: 2 if name in ("num", "turn") else "x" for name in names})
    patterns = [sample.msgid] + ([sample.plural] if sample.plural else [])
    return [(_pattern(pattern), form) for pattern in patterns]


READ: tuple[tuple[re.Pattern, Callable[..., Any]], ...] = tuple(
    reader for form in FORMS for reader in _readers(form)
)
# A line's first word narrows the forms to try (most lines start with a player).
FIRST_WORDS = re.compile(r"^(\{|[A-Z]\w*)")


def as_text(line: str) -> Any:
    """The reworded log line as a text whose English is the line (or the line itself)."""
    for pattern, form in READ:
        found = pattern.match(line)
        if not found:
            continue
        try:
            params = {name: READERS[name](part) for name, part in found.groupdict().items()}
        except NotRead:
            continue
        text = form(**params)
        if text == line:
            return text
    return line
