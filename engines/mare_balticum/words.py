"""The words of Mare Balticum a player reads, marked for the title's own catalogue
(``engines/mare_balticum/translations``; see :mod:`engines.text`).

Each is a :class:`engines.text.Text`: the English words themselves (so the log, the
notation, the hashes and every English page are unchanged), which the server shows in
the reader's language. The places keep their names in every language; the goods, the
colours, the holds and warehouses are words.
"""

from __future__ import annotations

from collections.abc import Mapping

from engines.text import Text, joined, markers

T, Tn = markers("mare_balticum")

# A kind of goods as a word ("cod"), and capitalised, as a heading ("Cod").
GOODS_WORDS: dict[str, Text] = {
    "salmon": T("salmon"),
    "flatfish": T("flatfish"),
    "herring": T("herring"),
    "cod": T("cod"),
    "amber": T("amber"),
}
GOODS_HEADINGS: dict[str, Text] = {
    "salmon": T("Salmon"),
    "flatfish": T("Flatfish"),
    "herring": T("Herring"),
    "cod": T("Cod"),
    "amber": T("Amber"),
}
COLOUR_WORDS: dict[str, Text] = {
    "Red": T("Red"),
    "Blue": T("Blue"),
    "Green": T("Green"),
    "Yellow": T("Yellow"),
    "Black": T("Black"),
}

# The ports and sea areas by name: a place keeps its own name ("København", "Gdańsk")
# and reads in the language its sea is called in ("Gulf of Riga", "Rigaer Bucht").
PLACE_NAMES: dict[str, Text] = {
    "copenhagen": T("København (Copenhagen)"),
    "stockholm": T("Stockholm"),
    "gdansk": T("Gdańsk"),
    "riga": T("Riga"),
    "st_petersburg": T("Sankt Peterburg (St Petersburg)"),
    "oresund": T("Øresund (The Sound)"),
    "belt_sea": T("Belt Sea / Bay of Kiel"),
    "arkona": T("Arkona Basin"),
    "pomeranian_bay": T("Pomeranian Bay"),
    "hano_bay": T("Hanö Bay"),
    "bornholm": T("Bornholm Basin"),
    "gulf_gdansk": T("Gulf of Gdańsk"),
    "gdansk_deep": T("Gdańsk Deep"),
    "kalmar_sound": T("Kalmar Sound"),
    "curonian_coast": T("Curonian Coast"),
    "western_gotland": T("Landsort Deep (Western Gotland Basin)"),
    "eastern_gotland": T("Gotland Deep (Eastern Gotland Basin)"),
    "irbe_strait": T("Irbe Strait"),
    "gulf_riga": T("Gulf of Riga"),
    "vainameri": T("Väinameri (Moonsund)"),
    "stockholm_archipelago": T("Stockholm Archipelago"),
    "northern_baltic": T("Northern Baltic Proper (Fårö Deep)"),
    "aland_sea": T("Åland Sea"),
    "archipelago_sea": T("Archipelago Sea"),
    "gulf_finland_west": T("Gulf of Finland (west)"),
    "gulf_finland_east": T("Gulf of Finland (east) / Neva Bay"),
    "bothnian_sea": T("Bothnian Sea"),
    "bothnian_bay": T("Bothnian Bay"),
}

AND = T(" and ")


def good(kind: str) -> Text | str:
    """A kind of goods as a word ("cod"); an unknown kind as it is."""
    return GOODS_WORDS.get(kind, kind)


def count_of(kind: str, count: int) -> Text | str:
    """``count`` goods of ``kind`` ("2 cod"), in each language's plural forms."""
    if kind == "salmon":
        return Tn("%(num)d salmon", "%(num)d salmon", count)
    if kind == "flatfish":
        return Tn("%(num)d flatfish", "%(num)d flatfish", count)
    if kind == "herring":
        return Tn("%(num)d herring", "%(num)d herring", count)
    if kind == "cod":
        return Tn("%(num)d cod", "%(num)d cod", count)
    if kind == "amber":
        return Tn("%(num)d amber", "%(num)d amber", count)
    return f"{count} {kind}"


def fish_list(counts: Mapping[str, int]):
    """Counts of goods, listed: "2 cod, 1 herring and 1 salmon"."""
    return joined([count_of(kind, count) for kind, count in counts.items()], ", ", AND)


def listing(items: list):
    """Items listed: "a, b and c"."""
    return joined(items, ", ", AND)
