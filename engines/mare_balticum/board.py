"""The Baltic map board: where each area and port is drawn, with its goods, demand
circles and vessels (the engine's ``board_layout``, drawn by ``templates/_board.html``
over ``static/map.svg``). Built on the server's map machinery, :mod:`pbem.web.boards`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from engines.mare_balticum import data
from engines.mare_balticum.words import GOODS_WORDS, PLACE_NAMES, T
from pbem.web import boards
from pbem.web.boards import (
    LABEL_SIZE,
    PIECE_SIZE,
    Frame,
    finish,
    item,
    lay_chip,
    piece,
    swatch,
)

FRAME = Frame(west=9.0, east=31.0, south=53.6, north=66.0, width=760)
TEXT_SIZES = (LABEL_SIZE, PIECE_SIZE)  # (name, piece) text sizes in the map's units

# Goods: colour, letter and shape (shape and letter alone tell them apart).
GOODS_MARKS = {
    "salmon": ("#F4A6A0", "S", "triangle"),
    "flatfish": ("#E6D8AD", "F", "diamond"),
    "herring": ("#A7C7E7", "H", "circle"),
    "cod": ("#8FBC8F", "C", "square"),
    "amber": ("#E69F00", "A", "hexagon"),
}
EMPTY_CIRCLE = ("#FFFFFF", "", "slot")

LABELS = {
    "copenhagen": "København",
    "st_petersburg": "St Petersburg",
    "belt_sea": "Belt Sea",
    "oresund": "Øresund",
    "western_gotland": "Landsort Deep",
    "eastern_gotland": "Gotland Deep",
    "northern_baltic": "Northern Baltic",
    "vainameri": "Väinameri",
    "gulf_finland_west": "Gulf of Finland (west)",
    "gulf_finland_east": "Gulf of Finland (east)",
}


def layout(
    view: Mapping[str, Any], players: Sequence[Mapping[str, Any]], changed: Iterable[str] = ()
) -> dict:
    """The shapes of the Baltic map for this view; ``changed`` names places to highlight."""
    frame = FRAME
    label_size, size = TEXT_SIZES
    changed = set(changed)
    fleets: dict[str, dict[int, int]] = {}
    for index, player in enumerate(view["players"]):
        for location in player["fleet"]:
            counts = fleets.setdefault(location, {})
            counts[index] = counts.get(index, 0) + 1
    nodes = []
    for place in (*data.PORTS, *data.AREAS):
        place_id = place["id"]
        is_port = place_id in data.PORT_IDS
        gx, gy = frame.project(*data.GEO[place_id])
        if is_port:
            goods_row = [
                item(*_goods(kind)[::2], _goods(kind)[1], size=size, dashed=kind is None)
                for kind in view["demand"].get(place_id, [])
            ]
        else:
            goods_row = [
                item(*_goods(kind)[::2], _goods(kind)[1], size=size)
                for kind in view["goods"].get(place_id, [])
            ]
            if not goods_row:
                goods_row = [item("slot", "none", dashed=True)] * data.CAPACITY[place_id]
        fleet_row = [
            piece("boat", players[index], n, size)
            if index < len(players)
            else item("boat", "#9E9E9E", "?", size=size)
            for index, n in sorted(fleets.get(place_id, {}).items())
        ]
        node = {
            "id": place_id,
            "name": PLACE_NAMES[place_id],
            "label_text": LABELS.get(place_id, place["name"].split(" (")[0]),
            "label_size": label_size,
            "bold": is_port,
            "port": is_port,
            "deep": place.get("depth") == "deep",
            "gx": gx,
            "gy": gy,
            "x": gx,
            "y": gy,
            "changed": place_id in changed,
            "seats": sorted(fleets.get(place_id, {})),  # whose vessels lie here
        }
        lay_chip(node, [goods_row, fleet_row])
        nodes.append(node)
    finish(nodes, frame)
    marks = {
        **{
            GOODS_WORDS[kind]: swatch(item(shape, colour, letter, size=size))
            for kind, (colour, letter, shape) in GOODS_MARKS.items()
        },
        T("free demand circle"): swatch(item("slot", "#FFFFFF", dashed=True)),
    }
    return {
        "seat_marks": [swatch(piece("boat", shown, size=size)) for shown in players],
        "nodes": nodes,
        "width": frame.width,
        "height": frame.height,
        "marks": marks,
        "asset": "map.svg",
    }


def _goods(kind: str | None) -> tuple[str, str, str]:
    """(shape, letter, colour) of a goods token, or of a free demand circle."""
    colour, letter, shape = GOODS_MARKS.get(kind or "", EMPTY_CIRCLE)
    return shape, letter, colour


def changed_places(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> set[str]:
    """The places whose contents differ between two views (empty without an earlier one)."""
    return boards.changed_places(old, new, ("goods", "demand"), pieces="fleet")
