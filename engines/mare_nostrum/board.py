"""The Mediterranean map board: where each province and sea is drawn, with its control,
cities, caravans, legions and triremes (the engine's ``board_layout``, drawn by
``templates/_board.html`` over ``static/map.svg``). Built on the server's map machinery,
:mod:`pbem.web.boards`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from markupsafe import Markup, escape

from engines.mare_nostrum import data
from pbem.web import boards
from pbem.web.boards import Frame, finish, item, lay_chip, piece, seat_mark, swatch

FRAME = Frame(west=-10.0, east=49.5, south=25.0, north=47.0, width=1000)
# (name, piece) text sizes in the map's units. Beside the move panel at 1280 px the
# Mediterranean (1000 units wide) is drawn about 880 px wide: at 14 units its texts are
# still 12.3 CSS px there.
TEXT_SIZES = (14, 14)
NEUTRAL = {"colour": "#9E9E9E", "letter": "N", "text": "#000"}


def layout(
    view: Mapping[str, Any], players: Sequence[Mapping[str, Any]], changed: Iterable[str] = ()
) -> dict:
    """The shapes of the Mediterranean for this view; ``changed`` names places to highlight."""
    frame = FRAME
    label_size, size = TEXT_SIZES
    changed = set(changed)
    by_civ = {
        player["civ"]: players[index]
        for index, player in enumerate(view["players"])
        if index < len(players) and player.get("civ")
    }

    def civ_mark(civ: str | None) -> dict | None:
        if not civ:
            return None
        if civ in by_civ:
            return seat_mark(by_civ[civ])
        return {**NEUTRAL, "letter": civ[0].upper()}

    def seats_of(civs: Iterable[str | None]) -> list[int]:
        """The seats with a piece among ``civs`` (the map centres a seat's first view
        on its own)."""
        return sorted({by_civ[civ]["seat"] for civ in civs if civ in by_civ})

    nodes = []
    for province in data.PROVINCES:
        shown = view["provinces"].get(province["id"], {})
        top: list[dict] = []
        if shown.get("marker"):
            top.append(piece("hexagon", civ_mark(shown["marker"]), size=size, role="control"))
        if shown.get("occupier"):
            top.append(piece("flag", civ_mark(shown["occupier"]), size=size, role="occupier"))
        if shown.get("fortress"):
            top.append(piece("square", civ_mark(shown["fortress"]), size=size, role="fortress"))
        for site in shown.get("cities", []):
            top.append(item("house", "#FFFFFF" if shown.get("temple") != site else "#5A4A2F"))
        for goods in shown.get("caravans", []):
            top.append(item("star" if shown.get("market") == goods else "diamond-small", "#E69F00"))
        units = [
            piece("circle", civ_mark(civ), n, size)
            for civ, n in (shown.get("legions") or {}).items()
            if n
        ] + [
            piece("boat", civ_mark(civ), n, size)
            for civ, n in (shown.get("dock") or {}).items()
            if n
        ]
        control = civ_mark(shown.get("marker"))
        holders = [shown.get(role) for role in ("marker", "occupier", "fortress")]
        holders += [civ for civ, n in (shown.get("legions") or {}).items() if n]
        holders += [civ for civ, n in (shown.get("dock") or {}).items() if n]
        gx, gy = frame.project(*data.GEO[province["id"]])
        node = {
            "id": province["id"],
            "name": province["name"],
            "label_text": province["name"],
            "label_size": label_size,
            "bold": True,
            "sea": False,
            "gx": gx,
            "gy": gy,
            "x": gx,
            "y": gy,
            "border": control["colour"] if control else "#8C7B57",
            "at_war": bool(shown.get("at_war")),
            "changed": province["id"] in changed,
            "seats": seats_of(holders),
        }
        lay_chip(node, [top, units])
        nodes.append(node)
    for sea in data.SEAS:
        shown = view["seas"].get(sea["id"], {})
        units = [
            piece("boat", civ_mark(civ), n, size)
            for civ, n in (shown.get("triremes") or {}).items()
            if n
        ]
        gx, gy = frame.project(*data.GEO[sea["id"]])
        node = {
            "id": sea["id"],
            "name": sea["name"],
            "label_text": sea["name"],
            "label_size": label_size,
            "sea": True,
            "gx": gx,
            "gy": gy,
            "x": gx,
            "y": gy,
            "at_war": bool(shown.get("at_war")),
            "changed": sea["id"] in changed,
            "seats": seats_of(civ for civ, n in (shown.get("triremes") or {}).items() if n),
        }
        lay_chip(node, [units])
        nodes.append(node)
    finish(nodes, frame)
    title_names = getattr(data, "TITLE_WORDS", {})
    holders = [
        {"title": title_names.get(title, title), "mark": seat_mark(players[seat]), "seat": seat}
        for title, seat in (view.get("titles") or {}).items()
        if seat is not None and seat < len(players)
    ]
    nodes.sort(key=lambda node: not node["sea"])  # seas underneath the provinces
    labels = civ_labels(view, players)
    for node in nodes:
        places = view["seas"] if node["sea"] else view["provinces"]
        node["about"] = about(node, places.get(node["id"], {}), labels)
    return {
        "seat_marks": [swatch(piece("circle", shown, size=size)) for shown in players],
        "nodes": nodes,
        "width": frame.width,
        "height": frame.height,
        "titles": holders,
        "asset": "map.svg",
        "legend": legend_marks(size),
    }


def civ_labels(view: Mapping[str, Any], players: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Each civilisation as a place's title names it: a player's with its holder's name,
    "Rome (Ann)"; a neutral one "Greece (neutral)"."""
    labels = {}
    for player in view["players"]:
        if player.get("civ"):
            seat = player["seat"]
            holder = f" ({players[seat]['name']})" if seat < len(players) else ""
            labels[player["civ"]] = f"{player['name']}{holder}"
    for civ in view["neutrals"]:
        labels[civ] = f"{str(civ).capitalize()} (neutral)"
    return labels


def about(node: Mapping[str, Any], shown: Mapping[str, Any], labels: Mapping[str, str]) -> Markup:
    """A place in words, for its title and label on the map (what the board shows of it:
    control, pieces, sites; and whether it changed since the viewer's last move). Built
    here rather than in the template: a template's text for every place of the map cost
    a fifth of the board's drawing."""

    def who(civ: Any) -> str:
        return escape(labels.get(civ, str(civ).capitalize()))

    def plural(n: int) -> str:
        return "s" if n != 1 else ""

    parts = [f"{escape(node['name'])}"]
    if node["sea"]:
        fleets = [(civ, n) for civ, n in (shown.get("triremes") or {}).items() if n]
        parts.append(" (sea): ")
        parts.append(
            ", ".join(f"{escape(n)} trireme{plural(n)} of {who(civ)}" for civ, n in fleets)
            or "no triremes"
        )
        if shown.get("at_war"):
            parts.append("; at war")
    else:
        parts.append(": ")
        marker = shown.get("marker")
        parts.append(f"{who(marker)}'s control marker" if marker else "no control marker")
        if shown.get("occupier"):
            parts.append(f", occupied by {who(shown['occupier'])}")
        if shown.get("at_war"):
            parts.append(", at war")
        if shown.get("fortress"):
            parts.append(f", {who(shown['fortress'])}'s fortress")
        for civ, n in (shown.get("legions") or {}).items():
            if n:
                parts.append(f", {escape(n)} legion{plural(n)} of {who(civ)}")
        for civ, n in (shown.get("dock") or {}).items():
            if n:
                parts.append(f", {escape(n)} trireme{plural(n)} of {who(civ)} in dock")
        cities = shown.get("cities")
        if cities:
            sites = [
                f"{escape(site)}{' with a temple' if shown.get('temple') == site else ''}"
                for site in cities
            ]
            parts.append(f"; {'city' if len(cities) == 1 else 'cities'} {', '.join(sites)}")
        caravans = shown.get("caravans")
        if caravans:
            goods = [
                f"{escape(kind)}"
                f"{' (with a market: 2 cards)' if shown.get('market') == kind else ''}"
                for kind in caravans
            ]
            parts.append(
                f"; {'a caravan' if len(caravans) == 1 else 'caravans'} producing"
                f" {', '.join(goods)}"
            )
        if shown.get("held"):
            parts.append(f"; the occupier holds {escape(', '.join(map(str, shown['held'])))}")
    if node.get("changed"):
        parts.append("; changed since your last move")
    return Markup("".join(parts))


def legend_marks(size: float) -> dict[str, dict]:
    """The legend's shapes, drawn as on the map (letters ``size`` units)."""
    sample = {"colour": "#FFFFFF", "letter": "R", "text": "#000"}
    marks = {
        "control": piece("hexagon", sample, size=size),
        "occupier": piece("flag", sample, size=size),
        "fortress": piece("square", sample, size=size),
        "legions": piece("circle", sample, 2, size),
        "triremes": piece("boat", sample, 2, size),
        "city": item("house", "#FFFFFF"),
        "temple": item("house", "#5A4A2F"),
        "caravan": item("diamond-small", "#E69F00"),
        "market": item("star", "#E69F00"),
    }
    return {name: swatch(mark) for name, mark in marks.items()}


def changed_places(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> set[str]:
    """The places whose contents differ between two views (empty without an earlier one)."""
    return boards.changed_places(old, new, ("provinces", "seas"))
