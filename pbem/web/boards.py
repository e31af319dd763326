"""The machinery of map boards: where each place, its pieces and its name are drawn.

A title's own ``board_layout`` (``engines/<slug>/board.py``, see :mod:`engines.api`)
turns a view (and the game's data module's ``GEO`` drawing hints) into plain shapes for
its ``_board.html`` with these functions. They decide nothing about the rules; they only
place marks:

* every place is projected from its latitude and longitude with its map's :class:`Frame`
  (the coastline asset in the title's ``static/map.svg`` was drawn with the same
  projection by ``scripts/make_coastlines.py``);
* its pieces sit on a *chip* centred there; chips that would overlap are pushed apart
  (a few deterministic rounds), and a thin line then joins a moved chip to its place;
* its name is placed by a greedy search over candidate positions around the chip, with
  collision boxes estimated from the text's length, so that no two names overlap, none
  covers a chip and none leaves the drawing (a :class:`BoxGrid` finds the boxes a
  candidate may touch, so the search does not check every pair). The same view always
  gives the same map;
* where the chips and names go depends only on the places, the names and the chips'
  sizes, so it is made once and kept (:func:`arrangement`): every seat, zoom and
  ``?pick=`` of a state, and the states whose pieces have the same sizes, share it.

Every piece has a shape as well as a colour and a letter (see the legends), so nothing
depends on telling colours apart.
"""

from __future__ import annotations

import functools
import importlib
import itertools
import math
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from flask_babel import gettext
from markupsafe import Markup, escape

from engines import REGISTRY


@dataclass(frozen=True)
class Frame:
    """A map's window on the globe: an equirectangular projection scaled by the cosine of
    its middle latitude, ``width`` units wide (the coastline asset and the places share it:
    ``scripts/make_coastlines.py`` draws with this same projection)."""

    west: float
    east: float
    south: float
    north: float
    width: int

    @property
    def scale(self) -> float:
        return self.width / ((self.east - self.west) * math.cos(math.radians(self.middle)))

    @property
    def middle(self) -> float:
        return (self.south + self.north) / 2

    @property
    def height(self) -> int:
        return round((self.north - self.south) * self.scale)

    def project(self, lat: float, lon: float) -> tuple[float, float]:
        """SVG units (x to the east, y to the south) of a latitude and longitude."""
        cos = math.cos(math.radians(self.middle))
        return ((lon - self.west) * cos * self.scale, (self.north - lat) * self.scale)


LABEL_SIZE = 13  # SVG units: names on a map
PIECE_SIZE = 12  # letters and numbers on pieces
SMALLEST_READABLE = 12  # CSS px
ROW = 22  # a chip's row of pieces
PAD = 3


ZOOMS = ("1", "2", "3")  # the map's zoom links: fit, 100%, 150%


def zoom_level(value: str | None) -> int:
    """The map's zoom level asked for by ``?zoom=``: one of :data:`ZOOMS`, anything else
    (absent, ``9``, ``x``) the first, "fit". The turn page's cache is keyed by this
    level, never by the value given, so made-up values share the default's page."""
    return int(value) if value in ZOOMS else 1


def readable_width(frame: Frame, text_sizes: Sequence[float]) -> float:
    """The narrowest a map of ``frame`` whose texts are ``text_sizes`` units high may be
    drawn (CSS px) with every text on it at least ``SMALLEST_READABLE`` px: the title's
    ``static/board.css`` gives its map this minimum width on a desk, where it stays at
    "fit" (a phone shows the whole map and zooms instead)."""
    return frame.width * SMALLEST_READABLE / min(text_sizes)


def game_data(slug: str) -> Any:
    """A registered game's ``data`` module (names, cards and layout hints for drawing):
    the ``data`` module of the package its engine's class lives in."""
    if slug not in REGISTRY:
        raise KeyError(slug)
    module = type(REGISTRY[slug]).__module__
    if not hasattr(sys.modules.get(module), "__path__"):  # a module, not a package
        module = module.rpartition(".")[0]
    return importlib.import_module(f"{module}.data")


@functools.lru_cache(maxsize=64)
def board_names(slug: str) -> Mapping[str, str]:
    """The readable names of the places and cards a game's board draws, by id (from its
    data module's ``NAMES``, ``PROVINCE``, ``SEA`` and ``CARDS``); empty for a game
    without a data module."""
    try:
        data = game_data(slug)
    except (KeyError, ImportError):
        return {}
    names = dict(getattr(data, "NAMES", {}) or {})
    for key in ("PROVINCE", "SEA", "CARDS"):
        for ident, info in (getattr(data, key, {}) or {}).items():
            if isinstance(info, Mapping) and "name" in info:
                names.setdefault(ident, info["name"])
    return MappingProxyType(names)


def place_name(slug: str, place: str) -> str:
    """The readable name of a place (or a card) on a game's board, for a sentence ("that
    place" for anything the board does not know)."""
    known = board_names(slug)
    return known[place] if place in known else gettext("that place")


UNKNOWN_PICK = "?"  # every ?pick= the board does not know


def pick_choice(slug: str, value: str | None) -> str:
    """What the turn page's ``?pick=`` chooses: "" for nothing, a place or card the
    game's board knows (:func:`board_names`), or :data:`UNKNOWN_PICK` for any other
    value. The page cache is keyed by this, never by the value given, so made-up values
    share one page (every move, and a sentence that none names "that place")."""
    if not value:
        return ""
    return value if value in board_names(slug) else UNKNOWN_PICK


# --- text, shapes and boxes -------------------------------------------------------------

NARROW = set("fijlrtI.,;:'!|() ")
WIDE = set("mwMWØ")


def text_width(text: str, size: float, *, bold: bool = False) -> float:
    """A generous estimate of a text's width in a sans-serif face (DejaVu Sans is the
    widest the browsers here use): no estimate may fall short, or names would touch."""
    width = 0.0
    for char in text:
        if char in NARROW:
            width += 0.36
        elif char in WIDE:
            width += 0.92
        elif char.isupper() or char.isdigit():
            width += 0.72
        else:
            width += 0.62
    return width * size * (1.14 if bold else 1.0) + 2


def shape_path(shape: str, x: float, y: float, w: float, h: float) -> str:
    """An SVG path of ``shape`` filling the box (x, y, w, h)."""
    r, b, cx, cy = x + w, y + h, x + w / 2, y + h / 2
    if shape == "triangle":
        return f"M{cx:.1f} {y:.1f}L{r:.1f} {b:.1f}L{x:.1f} {b:.1f}Z"
    if shape in {"diamond", "diamond-small"}:
        return f"M{cx:.1f} {y:.1f}L{r:.1f} {cy:.1f}L{cx:.1f} {b:.1f}L{x:.1f} {cy:.1f}Z"
    if shape == "square":
        return f"M{x:.1f} {y:.1f}H{r:.1f}V{b:.1f}H{x:.1f}Z"
    if shape == "hexagon":
        q = min(w / 4, 5)
        return (
            f"M{x + q:.1f} {y:.1f}H{r - q:.1f}L{r:.1f} {cy:.1f}L{r - q:.1f} {b:.1f}"
            f"H{x + q:.1f}L{x:.1f} {cy:.1f}Z"
        )
    if shape == "boat":  # a hull: wide deck, narrow keel
        q = min(w / 4, 5)
        return f"M{x:.1f} {y:.1f}H{r:.1f}L{r - q:.1f} {b:.1f}H{x + q:.1f}Z"
    if shape == "flag":
        return f"M{x:.1f} {y:.1f}H{r:.1f}L{r - 4:.1f} {cy:.1f}L{r:.1f} {b:.1f}H{x:.1f}Z"
    if shape == "house":  # a city
        return f"M{x:.1f} {b:.1f}V{y + h * 0.45:.1f}L{cx:.1f} {y:.1f}L{r:.1f} {y + h * 0.45:.1f}V{b:.1f}Z"
    if shape == "star":
        points = []
        for i in range(10):
            angle = math.pi / 2 + i * math.pi / 5
            radius = (w / 2) if i % 2 == 0 else (w / 4.4)
            points.append((cx + radius * math.cos(angle), cy - radius * math.sin(angle)))
        return "M" + "L".join(f"{px:.1f} {py:.1f}" for px, py in points) + "Z"
    # circle, slot and pill: a rounded box
    rad = min(w, h) / 2
    return (
        f"M{x + rad:.1f} {y:.1f}H{r - rad:.1f}A{rad:.1f} {rad:.1f} 0 0 1 {r - rad:.1f} {b:.1f}"
        f"H{x + rad:.1f}A{rad:.1f} {rad:.1f} 0 0 1 {x + rad:.1f} {y:.1f}Z"
    )


def item(
    shape: str,
    fill: str,
    text: str = "",
    ink: str = "#000",
    size: float = PIECE_SIZE,
    **extra: Any,
) -> dict:
    """One mark on a chip: a shape (with its letter, if any, ``size`` units high) sized to
    its text."""
    if shape in {"house", "star", "diamond-small"}:
        w = h = 11.0
    elif text:
        w = max(ROW - 2, text_width(text, size, bold=True) + 6)
        if shape in {"triangle", "diamond"}:
            w += 6
        h = ROW - 2
    else:
        w = h = ROW - 4
    return {
        "shape": shape,
        "fill": fill,
        "text": text,
        "ink": ink,
        "size": size,
        "w": w,
        "h": h,
        **extra,
    }


def overlap(a: Sequence[float], b: Sequence[float]) -> float:
    """The area two boxes (x0, y0, x1, y1) share."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    height = min(a[3], b[3]) - max(a[1], b[1])
    return width * height if width > 0 and height > 0 else 0.0


def outside(box: Sequence[float], width: float, height: float, margin: float = 2) -> float:
    """How far a box reaches beyond the drawing (0 when it lies inside)."""
    return (
        max(0, margin - box[0])
        + max(0, margin - box[1])
        + max(0, box[2] - width + margin)
        + max(0, box[3] - height + margin)
    )


def chip_box(node: Mapping[str, Any], gap: float = 0) -> tuple[float, float, float, float]:
    return (
        node["x"] - node["w"] / 2 - gap,
        node["y"] - node["h"] / 2 - gap,
        node["x"] + node["w"] / 2 + gap,
        node["y"] + node["h"] / 2 + gap,
    )


def lay_chip(node: dict, rows: Iterable[list[dict]]) -> None:
    """Sizes a chip from its rows of marks and gives each mark its place."""
    rows = [row for row in rows if row]
    widths = [sum(mark["w"] for mark in row) + 2 * max(0, len(row) - 1) for row in rows]
    node["w"] = max(widths) + 2 * PAD if rows else 12
    node["h"] = ROW * len(rows) + PAD if rows else 12
    node["rows"] = rows
    node["row_widths"] = widths


def place_marks(node: dict) -> None:
    """Absolute positions and paths of a chip's marks, once the chip has its place."""
    marks = []
    top = node["y"] - node["h"] / 2 + PAD / 2
    for row, width in zip(node["rows"], node["row_widths"], strict=True):
        x = node["x"] - width / 2
        for mark in row:
            y = top + (ROW - mark["h"]) / 2
            marks.append(
                {
                    **mark,
                    "d": shape_path(mark["shape"], x, y, mark["w"], mark["h"]),
                    "tx": round(x + mark["w"] / 2, 1),
                    "ty": round(y + mark["h"] / 2 + mark["size"] * 0.36, 1),
                }
            )
            x += mark["w"] + 2
        top += ROW
    node["marks"] = marks


def spread(nodes: list[dict], width: float, height: float, rounds: int = 80) -> None:
    """Pushes overlapping chips apart (each pair along its shallower axis), and back
    inside the drawing; deterministic for a given list."""
    gap = 3
    for _ in range(rounds):
        moved = False
        boxes = [chip_box(node, gap) for node in nodes]  # kept up to date as chips move
        count = len(nodes)
        for i, a in enumerate(nodes):
            for j in range(i + 1, count):
                # min and max written out (they pick the same operand; this loop runs some
                # ten thousand times per board and the calls were most of its cost)
                (a0, a1, a2, a3), (b0, b1, b2, b3) = boxes[i], boxes[j]
                dx = (b2 if b2 < a2 else a2) - (b0 if b0 > a0 else a0)
                if dx <= 0:
                    continue
                dy = (b3 if b3 < a3 else a3) - (b1 if b1 > a1 else a1)
                if dy <= 0:
                    continue
                moved = True
                b = nodes[j]
                if dx < dy:
                    step = dx / 2 + 0.5
                    sign = 1 if (a["x"], a["id"]) <= (b["x"], b["id"]) else -1
                    a["x"] -= sign * step
                    b["x"] += sign * step
                else:
                    step = dy / 2 + 0.5
                    sign = 1 if (a["y"], a["id"]) <= (b["y"], b["id"]) else -1
                    a["y"] -= sign * step
                    b["y"] += sign * step
                boxes[i], boxes[j] = chip_box(a, gap), chip_box(b, gap)
        for node in nodes:
            node["x"] = min(max(node["x"], node["w"] / 2 + 3), width - node["w"] / 2 - 3)
            node["y"] = min(max(node["y"], node["h"] / 2 + 3), height - node["h"] / 2 - 3)
        if not moved:
            break


def candidates(box: Sequence[float], w: float, h: float) -> Iterable[tuple[float, float]]:
    """Top-left corners for a w x h label around a chip, nearest first."""
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    for gap in (2, 7, 14, 24, 36, 50, 66, 84):
        yield x1 + gap, cy - h / 2
        yield x0 - gap - w, cy - h / 2
        yield cx - w / 2, y0 - gap - h
        yield cx - w / 2, y1 + gap
        yield x1 + gap, y0 - gap - h + 4
        yield x0 - gap - w, y0 - gap - h + 4
        yield x1 + gap, y1 + gap - 4
        yield x0 - gap - w, y1 + gap - 4
        yield x0, y0 - gap - h
        yield x1 - w, y0 - gap - h
        yield x0, y1 + gap
        yield x1 - w, y1 + gap


def farther(box: Sequence[float], w: float, h: float, reach: int = 160) -> Iterable[tuple]:
    """More top-left corners for a crowded place's name: a grid around the chip, nearest
    first (tried only when no position of :func:`candidates` is free)."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    corners = [
        (cx + dx - w / 2, cy + dy - h / 2)
        for dx in range(-reach, reach + 1, 8)
        for dy in range(-reach, reach + 1, 6)
    ]
    yield from sorted(
        corners,
        key=lambda corner: (math.hypot(corner[0] + w / 2 - cx, corner[1] + h / 2 - cy), corner),
    )


class BoxGrid:
    """Boxes (x0, y0, x1, y1) filed by the square cells of ``cell`` units they cover, so
    that the boxes a box may overlap are found among its neighbours, not all of them."""

    def __init__(self, boxes: Iterable[Sequence[float]] = (), cell: float = 48) -> None:
        self.cell = cell
        self.boxes: list[Sequence[float]] = []
        self.cells: dict[tuple[int, int], list[int]] = {}
        for box in boxes:
            self.add(box)

    def _keys(self, box: Sequence[float]) -> Iterable[tuple[int, int]]:
        cell = self.cell
        columns = range(math.floor(box[0] / cell), math.floor(box[2] / cell) + 1)
        rows = range(math.floor(box[1] / cell), math.floor(box[3] / cell) + 1)
        return itertools.product(columns, rows)

    def add(self, box: Sequence[float]) -> None:
        index = len(self.boxes)
        self.boxes.append(box)
        for key in self._keys(box):
            self.cells.setdefault(key, []).append(index)

    def near(self, box: Sequence[float]) -> list[Sequence[float]]:
        """The boxes sharing a cell with ``box``, in the order they were added (every box
        that overlaps it is among them)."""
        found: set[int] = set()
        for key in self._keys(box):
            found.update(self.cells.get(key, ()))
        return [self.boxes[index] for index in sorted(found)]

    def overlap_total(self, box: Sequence[float], skip: Sequence[float] | None = None) -> float:
        """``sum(overlap(box, other) for other in self.near(box) if other != skip)``: the
        same terms added in the same order, without building the list of boxes (label
        placement asks this some thousand times per board)."""
        cell, cells, boxes = self.cell, self.cells, self.boxes
        x0, y0, x1, y1 = box
        first, last = math.floor(x0 / cell), math.floor(x1 / cell)
        top, bottom = math.floor(y0 / cell), math.floor(y1 / cell)
        if first == last and top == bottom:
            indices: Iterable[int] = cells.get((first, top), ())  # added in order, once each
        else:
            found: set[int] = set()
            for column in range(first, last + 1):
                for row in range(top, bottom + 1):
                    found.update(cells.get((column, row), ()))
            indices = sorted(found)
        total = 0.0
        for index in indices:
            other = boxes[index]
            o0, o1, o2, o3 = other
            width = (o2 if o2 < x1 else x1) - (o0 if o0 > x0 else x0)  # min - max, written out
            if width <= 0:
                continue
            height = (o3 if o3 < y1 else y1) - (o1 if o1 > y0 else y0)
            if height > 0 and (skip is None or other != skip):
                total += width * height
        return total


def place_labels(nodes: list[dict], width: float, height: float) -> None:
    """Gives every node a ``label`` box: the first candidate that touches no chip, no
    name placed before it and no edge; the most crowded places choose first. A
    candidate's cost adds the overlaps it has, in the order the boxes were placed, with
    the boxes a :class:`BoxGrid` finds near it (the others overlap it by 0)."""
    chips = [chip_box(node, 1) for node in nodes]
    chip_grid = BoxGrid(chips)

    places = [(node["x"], node["y"]) for node in nodes]

    def crowd(node: dict) -> tuple:
        x, y = node["x"], node["y"]
        near = sum(1 for px, py in places if abs(px - x) + abs(py - y) < 120) - 1  # not itself
        return (-near, node["id"])

    placed = BoxGrid()
    for node in sorted(nodes, key=crowd):
        size = node.get("label_size", LABEL_SIZE)
        w = text_width(node["label_text"], size, bold=node.get("bold", False))
        h = size * 1.3
        own = chip_box(node, 1)
        best, best_cost = None, math.inf
        for x, y in itertools.chain(candidates(own, w, h), farther(own, w, h)):
            box = (x, y, x + w, y + h)
            # Each part adds a cost of 0 or more: once the sum so far reaches the best
            # cost, the candidate cannot win (nor cost 0), and the rest is not counted.
            cost = outside(box, width, height) * 1000
            if cost >= best_cost:
                continue
            cost += placed.overlap_total(box) * 10
            if cost >= best_cost:
                continue
            cost += chip_grid.overlap_total(box, skip=own)
            if cost < best_cost:
                best, best_cost = box, cost
            if cost == 0:
                break
        assert best is not None
        placed.add(best)
        node["label"] = {
            "x": round(best[0] + 1, 1),
            "y": round(best[1] + size * 1.02, 1),
            "box": tuple(round(v, 1) for v in best),
            "size": size,
            "text": node["label_text"],
        }
        node["leader"] = leader(own, best)


def leader(chip: Sequence[float], label: Sequence[float]) -> tuple | None:
    """A line from a chip to a name set apart from it, or None when they touch."""
    cx = min(max((label[0] + label[2]) / 2, chip[0]), chip[2])
    cy = min(max((label[1] + label[3]) / 2, chip[1]), chip[3])
    lx = min(max(cx, label[0]), label[2])
    ly = min(max(cy, label[1]), label[3])
    if math.hypot(lx - cx, ly - cy) < 10:
        return None
    return (round(cx, 1), round(cy, 1), round(lx, 1), round(ly, 1))


# What a node's chip and name are placed from (its marks and colours are not).
ARRANGED_FROM = ("id", "x", "y", "w", "h", "label_text", "label_size", "bold")


@functools.lru_cache(maxsize=256)
def arrangement(width: int, height: int, described: tuple[tuple, ...]) -> tuple[tuple, ...]:
    """Where the chips and names go for nodes ``described`` as :data:`ARRANGED_FROM`
    tuples on a ``width`` x ``height`` map: each node's (x, y, label, leader), the label as
    a tuple of items. Kept: a map's places and names are fixed and its chips' sizes
    change only with the pieces, so every seat, zoom and choice of one state (and most
    states) share one arrangement."""
    nodes = [dict(zip(ARRANGED_FROM, values, strict=True)) for values in described]
    for node in nodes:
        if node["bold"] is None:
            del node["bold"]
        if node["label_size"] is None:
            del node["label_size"]
    spread(nodes, width, height)
    place_labels(nodes, width, height)
    return tuple(
        (node["x"], node["y"], tuple(node["label"].items()), node["leader"]) for node in nodes
    )


def clear_arrangements() -> None:
    """Forgets every kept arrangement (for a measure of the first drawing)."""
    arrangement.cache_clear()


def finish(nodes: list[dict], frame: Frame) -> None:
    """Spreads the chips, places the marks and the names, and joins each moved chip to
    its place on the map (the chips' and names' places from :func:`arrangement`)."""
    described = tuple(tuple(node.get(key) for key in ARRANGED_FROM) for node in nodes)
    arranged = arrangement(frame.width, frame.height, described)
    for node, (x, y, label, line) in zip(nodes, arranged, strict=True):
        node["x"], node["y"] = x, y
        place_marks(node)
        moved = math.hypot(node["x"] - node["gx"], node["y"] - node["gy"])
        node["pin"] = moved > max(node["w"], node["h"]) / 2
        node["label"] = dict(label)
        node["leader"] = line


def seat_mark(player: Mapping[str, Any], count: int = 1) -> dict:
    """A seat's mark (colour, letter, ink) for :func:`piece`."""
    return {
        "colour": player["colour"],
        "letter": player["letter"],
        "text": player["text"],
        "count": count,
    }


def piece(
    shape: str, mark: Mapping[str, Any], count: int = 1, size: float = PIECE_SIZE, **extra: Any
) -> dict:
    """A piece of ``mark``'s seat: its letter, and the count when more than one."""
    text = f"{mark['letter']}{count if count > 1 else ''}"
    return item(shape, mark["colour"], text, mark["text"], size, **extra)


def swatch(mark: dict) -> dict:
    """A mark drawn alone (for a legend): its shape at the top left of a small box."""
    mark = dict(mark)
    mark["d"] = shape_path(mark["shape"], 1, 1, mark["w"], mark["h"])
    mark["tx"] = 1 + mark["w"] / 2
    mark["ty"] = round(1 + mark["h"] / 2 + mark["size"] * 0.36, 1)
    return mark


def changed_places(
    old: Mapping[str, Any] | None,
    new: Mapping[str, Any],
    fields: Iterable[str],
    pieces: str | None = None,
) -> set[str]:
    """The places whose contents differ between two views of a map game (what changed
    since the viewer's last move), for a title's ``changed_places``: the keys that differ
    in each of the view's place-keyed ``fields``, and with ``pieces`` (the name of a list
    of places in each view player) the places where a player's count of pieces differs.
    Empty when there is no earlier view."""
    if not old:
        return set()
    found: set[str] = set()
    for key in fields:
        before, after = old.get(key) or {}, new.get(key) or {}
        if isinstance(after, Mapping):
            found |= {
                place for place in set(before) | set(after) if before.get(place) != after.get(place)
            }
    if pieces is None:
        return found
    for before, after in zip(old.get("players") or [], new.get("players") or [], strict=False):
        placed_before, placed_after = before.get(pieces), after.get(pieces)
        if isinstance(placed_after, list) and isinstance(placed_before, list):
            for place in set(placed_before) | set(placed_after):
                if placed_before.count(place) != placed_after.count(place):
                    found.add(place)
    return found


# ------------------------------------------------------------------ the marks in SVG
# The two shared macros of ``_map.html`` a board calls once per place and per piece (some
# hundred times a page) write through these: the same text the macros wrote, without
# the template's cost per attribute (lookups, escaping, macro calls), which made up most
# of the largest board's drawing.


def _out(mapping: Mapping[str, Any], key: str) -> str:
    """``{{ mapping.key }}`` as the template writes it: escaped, empty when absent."""
    return escape(mapping[key]) if key in mapping else ""


def svg_shape(m: Mapping[str, Any]) -> Markup:
    """A piece (:func:`item`, placed by :func:`place_marks`): its shape and its text."""
    dashed = ' stroke-dasharray="3 2"' if m.get("dashed") else ""
    out = (
        f'<path d="{_out(m, "d")}" fill="{_out(m, "fill")}" stroke="#222"'
        f' stroke-width="1.2"{dashed}/>'
    )
    if m.get("text"):
        out += (
            f'<text class="piece-text" x="{_out(m, "tx")}" y="{_out(m, "ty")}"'
            f' text-anchor="middle" font-size="{_out(m, "size")}" font-weight="700"'
            f' fill="{_out(m, "ink")}">{_out(m, "text")}</text>'
        )
    return Markup(out)


def svg_place_open(node: Mapping[str, Any], about: Any, groups: Any) -> Markup:
    """A place's group, titled ``about`` (the place in words): a link to the moves that
    name it when the viewer has moves (``groups``), else a group with a role."""
    changed = " changed" if node.get("changed") else ""
    place, about = _out(node, "id"), escape(about)
    seats = node.get("seats")
    # whose pieces lie here: the map's script centres a viewer's first view on their own
    held = f' data-seats="{escape(" ".join(str(seat) for seat in seats))}"' if seats else ""
    if groups:
        return Markup(
            f'<a class="place{changed}" href="?pick={place}#moves" data-place="{place}"{held}'
            f' aria-label="{about}"><title>{about}</title>'
        )
    return Markup(
        f'<g class="place{changed}" data-place="{place}"{held} role="img" aria-label="{about}">'
        f"<title>{about}</title>"
    )


def svg_place_close(groups: Any, node: Mapping[str, Any] | None = None) -> Markup:
    """The end of :func:`svg_place_open`'s group, then the pieces on ``node``'s chip.

    The pieces are drawn after the link, not inside it: a link's visible text must be
    part of its name (axe-core's ``label-content-name-mismatch``), and the pieces'
    letters ("R2") are not, while its name says the same in words. They let the pointer
    through to the chip under them (map.css), so a tap on a piece still follows the link."""
    close = "</a>" if groups else "</g>"
    marks = (node or {}).get("marks")
    if not marks:
        return Markup(close)
    return Markup(
        f'{close}<g class="marks" aria-hidden="true">{"".join(svg_shape(m) for m in marks)}</g>'
    )


def svg_place_body(
    node: Mapping[str, Any], fill: Any, stroke: Any, width: Any = 1.2, label_class: Any = "label"
) -> Markup:
    """A place's chip and its name, with the pin to where it lies on the map and the ring
    of a place changed since the viewer's last move (its pieces follow the group: see
    :func:`svg_place_close`)."""
    x, y, w, h = node["x"], node["y"], node["w"], node["h"]
    parts = []
    if node.get("pin"):
        gx, gy = round(node["gx"], 1), round(node["gy"], 1)
        parts.append(
            f'<line x1="{gx}" y1="{gy}" x2="{round(x, 1)}" y2="{round(y, 1)}" stroke="#333"'
            f' stroke-width="1"/><circle cx="{gx}" cy="{gy}" r="2.5" fill="#333"/>'
        )
    parts.append("\n")
    leader = node.get("leader")
    if leader:
        parts.append(
            f'<line x1="{escape(leader[0])}" y1="{escape(leader[1])}" x2="{escape(leader[2])}"'
            f' y2="{escape(leader[3])}" stroke="#555" stroke-width="0.8"/>'
        )
    parts.append("\n")
    if node.get("changed"):
        parts.append(
            f'<rect class="changed-ring" x="{round(x - w / 2 - 4, 1)}"'
            f' y="{round(y - h / 2 - 4, 1)}" width="{round(w + 8, 1)}"'
            f' height="{round(h + 8, 1)}" rx="8" fill="#FFE27A" stroke="#B8860B"'
            f' stroke-width="2"/>'
        )
    dashed = ' stroke-dasharray="6 3"' if node.get("at_war") else ""
    parts.append(
        f'\n<rect class="chip" x="{round(x - w / 2, 1)}" y="{round(y - h / 2, 1)}"'
        f' width="{round(w, 1)}" height="{round(h, 1)}" rx="5" fill="{escape(fill)}"'
        f' stroke="{escape(stroke)}" stroke-width="{escape(width)}"{dashed}/>\n'
    )
    label = node["label"]
    box = label["box"]
    parts.append(
        f'\n<rect class="hit" x="{escape(box[0])}" y="{escape(box[1])}"'
        f' width="{round(box[2] - box[0], 1)}" height="{round(box[3] - box[1], 1)}"'
        f' fill="#fff" fill-opacity="0"/>\n<text class="{escape(label_class)}"'
        f' x="{_out(label, "x")}" y="{_out(label, "y")}" font-size="{_out(label, "size")}"'
        f' data-box="{escape(" ".join(str(side) for side in box))}">{_out(label, "text")}</text>'
    )
    return Markup("".join(parts))
