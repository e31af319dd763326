"""Layouts for the map boards: where each area, port, province and sea is drawn.

These functions turn a view (and the game's data module's layout hints) into plain
shapes for the ``_board_<slug>.html`` partials: positions, labels and the pieces on each
place, coloured by seat. They decide nothing about the rules; they only place marks.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any

from engines import REGISTRY

GOODS_MARKS = {
    "salmon": ("#F4A6A0", "S"),
    "flatfish": ("#E6D8AD", "F"),
    "herring": ("#A7C7E7", "H"),
    "cod": ("#8FBC8F", "C"),
    "amber": ("#E69F00", "A"),
}
EMPTY_CIRCLE = ("#FFFFFF", "·")
NEUTRAL = {"colour": "#9E9E9E", "letter": "N", "text": "#000"}


def game_data(slug: str) -> Any:
    """A registered game's ``data`` module (names, cards and layout hints for drawing)."""
    if slug not in REGISTRY:
        raise KeyError(slug)
    return importlib.import_module(f"engines.{slug}.data")


def _mark(player: Mapping[str, Any], count: int = 1) -> dict:
    return {
        "colour": player["colour"],
        "letter": player["letter"],
        "text": player["text"],
        "count": count,
    }


def mare_balticum(view: Mapping[str, Any], players: Sequence[Mapping[str, Any]]) -> dict:
    data = game_data("mare_balticum")
    places = {item["id"]: item for item in (*data.PORTS, *data.AREAS)}
    fleets: dict[str, list[dict]] = {}
    for player, shown in zip(view["players"], players, strict=False):
        for location in player["fleet"]:
            fleets.setdefault(location, []).append(_mark(shown))
    nodes = []
    for place_id, place in places.items():
        is_port = place_id in data.PORT_IDS
        nodes.append(
            {
                "id": place_id,
                "x": 40 + place["x"] * 9.2,
                "y": 60 + place["y"] * 8.4,
                "port": is_port,
                "r": 30 if is_port else (34 if place.get("depth") == "deep" else 27),
                "name": place["name"].split(" (")[0],
                "goods": [
                    GOODS_MARKS.get(kind, EMPTY_CIRCLE) for kind in view["goods"].get(place_id, [])
                ],
                "demand": [
                    GOODS_MARKS.get(kind, EMPTY_CIRCLE) for kind in view["demand"].get(place_id, [])
                ],
                "fleet": fleets.get(place_id, []),
            }
        )
    position = {node["id"]: node for node in nodes}
    edges = [
        (position[a]["x"], position[a]["y"], position[b]["x"], position[b]["y"])
        for a, b in data.EDGES
    ]
    marks = {**GOODS_MARKS, "free demand circle": EMPTY_CIRCLE}
    return {"nodes": nodes, "edges": edges, "width": 1000, "height": 960, "marks": marks}


def mare_nostrum(view: Mapping[str, Any], players: Sequence[Mapping[str, Any]]) -> dict:
    data = game_data("mare_nostrum")
    by_civ = {
        player["civ"]: players[index]
        for index, player in enumerate(view["players"])
        if index < len(players) and player.get("civ")
    }

    def civ_mark(civ: str | None, count: int = 1) -> dict | None:
        if not civ:
            return None
        if civ in by_civ:
            return _mark(by_civ[civ], count)
        return {**NEUTRAL, "letter": civ[0].upper(), "count": count}

    nodes = []
    for province in data.PROVINCES:
        shown = view["provinces"].get(province["id"], {})
        buildings = (
            ["City"] * len(shown.get("cities", []))
            + (["Temple"] if shown.get("temple") else [])
            + ["Caravan"] * len(shown.get("caravans", []))
            + (["Market"] if shown.get("market") else [])
        )
        nodes.append(
            {
                "id": province["id"],
                "x": 40 + (province["x"] - 80) * 0.96,
                "y": 50 + (province["y"] - 110) * 1.7,
                "sea": False,
                "name": province["name"],
                "control": civ_mark(shown.get("marker")),
                "occupier": civ_mark(shown.get("occupier")),
                "fortress": civ_mark(shown.get("fortress")),
                "buildings": buildings,
                "units": [civ_mark(civ, n) for civ, n in (shown.get("legions") or {}).items()],
                "docked": [civ_mark(civ, n) for civ, n in (shown.get("dock") or {}).items()],
            }
        )
    for sea in data.SEAS:
        shown = view["seas"].get(sea["id"], {})
        nodes.append(
            {
                "id": sea["id"],
                "x": 40 + (sea["x"] - 80) * 0.96,
                "y": 50 + (sea["y"] - 110) * 1.7,
                "sea": True,
                "name": sea["name"],
                "units": [civ_mark(civ, n) for civ, n in (shown.get("triremes") or {}).items()],
            }
        )
    position = {node["id"]: node for node in nodes}
    edges = [
        (position[a]["x"], position[a]["y"], position[b]["x"], position[b]["y"], kind)
        for kind, pairs in (("land", data.LAND_EDGES), ("sea", data.SEA_EDGES))
        for a, b in pairs
    ]
    title_names = getattr(data, "TITLE_NAMES", {})
    holders = [
        {"title": title_names.get(title, title), "mark": _mark(players[seat])}
        for title, seat in (view.get("titles") or {}).items()
        if seat is not None and seat < len(players)
    ]
    nodes.sort(key=lambda node: not node["sea"])  # seas underneath the provinces
    return {"nodes": nodes, "edges": edges, "width": 1020, "height": 740, "titles": holders}


LAYOUTS = {"mare_balticum": mare_balticum, "mare_nostrum": mare_nostrum}


def layout(slug: str, view: Mapping[str, Any], players: Sequence[Mapping[str, Any]]) -> dict:
    """The shapes of ``slug``'s map for this view (empty for games without a map)."""
    if slug not in LAYOUTS:
        return {}
    return LAYOUTS[slug](view, players)
