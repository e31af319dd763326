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
from engines.mare_nostrum.words import T, Tn, card_word
from engines.text import joined
from pbem.i18n import localize
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


def civ_labels(view: Mapping[str, Any], players: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Each civilisation as a place's title names it: a player's with its holder's name,
    "Rome (Ann)"; a neutral one "Greece (neutral)"."""
    labels: dict[str, Any] = {}
    for player in view["players"]:
        if player.get("civ"):
            seat = player["seat"]
            holder = f" ({players[seat]['name']})" if seat < len(players) else ""
            labels[player["civ"]] = f"{player['name']}{holder}"
    for civ in view["neutrals"]:
        labels[civ] = T("%(civ)s (neutral)", civ=str(civ).capitalize())
    return labels


def about(node: Mapping[str, Any], shown: Mapping[str, Any], labels: Mapping[str, Any]) -> Markup:
    """A place in words, for its title and label on the map (what the board shows of it:
    control, pieces, sites; and whether it changed since the viewer's last move), in the
    page's language. Built here rather than in the template: a template's text for every
    place of the map cost a fifth of the board's drawing."""

    def who(civ: Any) -> Any:
        return labels.get(civ, str(civ).capitalize())

    groups: list[Any] = []
    if node["sea"]:
        fleets = [(civ, n) for civ, n in (shown.get("triremes") or {}).items() if n]
        groups.append(
            joined(
                [
                    Tn("%(num)d trireme of %(who)s", "%(num)d triremes of %(who)s", n, who=who(civ))
                    for civ, n in fleets
                ],
                ", ",
            )
            if fleets
            else T("no triremes")
        )
        if shown.get("at_war"):
            groups.append(T("at war"))
    else:
        marker = shown.get("marker")
        first = [
            T("%(who)s's control marker", who=who(marker)) if marker else T("no control marker")
        ]
        if shown.get("occupier"):
            first.append(T("occupied by %(who)s", who=who(shown["occupier"])))
        if shown.get("at_war"):
            first.append(T("at war"))
        if shown.get("fortress"):
            first.append(T("%(who)s's fortress", who=who(shown["fortress"])))
        for civ, n in (shown.get("legions") or {}).items():
            if n:
                first.append(
                    Tn("%(num)d legion of %(who)s", "%(num)d legions of %(who)s", n, who=who(civ))
                )
        for civ, n in (shown.get("dock") or {}).items():
            if n:
                first.append(
                    Tn(
                        "%(num)d trireme of %(who)s in dock",
                        "%(num)d triremes of %(who)s in dock",
                        n,
                        who=who(civ),
                    )
                )
        groups.append(joined(first, ", "))
        cities = shown.get("cities")
        if cities:
            sites = [
                T("%(site)s with a temple", site=site) if shown.get("temple") == site else site
                for site in cities
            ]
            groups.append(
                Tn("city %(sites)s", "cities %(sites)s", len(cities), sites=joined(sites, ", "))
            )
        caravans = shown.get("caravans")
        if caravans:
            goods = [
                T("%(goods)s (with a market: 2 cards)", goods=card_word(kind))
                if shown.get("market") == kind
                else card_word(kind)
                for kind in caravans
            ]
            groups.append(
                Tn(
                    "a caravan producing %(goods)s",
                    "caravans producing %(goods)s",
                    len(caravans),
                    goods=joined(goods, ", "),
                )
            )
        if shown.get("held"):
            groups.append(
                T("the occupier holds %(buildings)s", buildings=", ".join(map(str, shown["held"])))
            )
    if node.get("changed"):
        groups.append(T("changed since your last move"))
    details = joined(groups, "; ")
    if node["sea"]:
        text = T("%(place)s (sea): %(details)s", place=node["name"], details=details)
    else:
        text = T("%(place)s: %(details)s", place=node["name"], details=details)
    # Written into double-quoted attributes and text: an apostrophe needs no escaping,
    # and the words read as they always did ("Rome's control marker").
    return Markup(str(escape(localize(text))).replace("&#39;", "'"))


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
