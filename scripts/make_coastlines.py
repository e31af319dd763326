"""Draw the coastlines behind the map boards, once, from Natural Earth (public domain).

Usage::

    curl -sL https://registry.npmjs.org/world-atlas/-/world-atlas-2.0.2.tgz -o /tmp/world-atlas.tgz
    .venv/bin/python scripts/make_coastlines.py /tmp/world-atlas.tgz

It reads ``package/land-50m.json`` (TopoJSON) from the ``world-atlas`` package, decodes
its arcs, clips the land to each map's frame (the ``FRAME`` of a title's ``board.py``), projects
it with the same projection the boards place their areas and provinces with, simplifies
the outlines (Douglas-Peucker, in SVG units) and writes ``engines/<slug>/static/map.svg``:
a tinted sea with the land on it. The result is committed; nothing is fetched at run time.
"""

from __future__ import annotations

import json
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import importlib  # noqa: E402

from engines import REGISTRY  # noqa: E402
from pbem.web.boards import Frame  # noqa: E402

# Each map title's frame, from its board module (titles drawn as maps have board_layout).
FRAMES = {
    slug: importlib.import_module(f"engines.{slug}.board").FRAME
    for slug, engine in sorted(REGISTRY.items())
    if hasattr(engine, "board_layout")
}
SEA = "#CFE3F0"
LAND = "#EFE8D6"
COAST = "#9C8F73"
TOLERANCE = 0.6  # SVG units a simplified outline may stray from the real one
MIN_AREA = 6.0  # square SVG units: smaller islands are left out
MARGIN = 1.0  # degrees of land kept beyond the frame so its edges never show a seam


def load_topology(source: Path) -> dict:
    if source.suffix in {".tgz", ".gz"}:
        with tarfile.open(source) as archive:
            member = archive.extractfile("package/land-50m.json")
            assert member is not None
            return json.load(member)
    return json.loads(source.read_text())


def decode_arcs(topology: dict) -> list[list[tuple[float, float]]]:
    """The arcs as (lon, lat) points: quantized, delta-encoded positions undone."""
    (sx, sy), (tx, ty) = topology["transform"]["scale"], topology["transform"]["translate"]
    arcs = []
    for arc in topology["arcs"]:
        x = y = 0
        points = []
        for dx, dy in arc:
            x += dx
            y += dy
            points.append((x * sx + tx, y * sy + ty))
        arcs.append(points)
    return arcs


def ring_points(ring: list[int], arcs: list[list[tuple[float, float]]]) -> list[tuple]:
    """A ring's points, unwrapped across the antimeridian (a step of more than 180
    degrees of longitude continues the other way round), so clipping never draws a
    line across the whole globe."""
    points: list[tuple[float, float]] = []
    for index in ring:
        arc = arcs[index] if index >= 0 else list(reversed(arcs[~index]))
        points.extend(arc if not points else arc[1:])
    unwrapped: list[tuple[float, float]] = []
    shift = 0.0
    for lon, lat in points:  # an unwrapped ring may lie a turn off: it is drawn shifted
        if unwrapped:
            step = lon + shift - unwrapped[-1][0]
            if step > 180:
                shift -= 360
            elif step < -180:
                shift += 360
        unwrapped.append((lon + shift, lat))
    return unwrapped


def land_rings(topology: dict) -> list[list[tuple[float, float]]]:
    arcs = decode_arcs(topology)
    rings = []
    for geometry in topology["objects"]["land"]["geometries"]:
        polygons = geometry["arcs"] if geometry["type"] == "MultiPolygon" else [geometry["arcs"]]
        for polygon in polygons:
            rings.extend(ring_points(ring, arcs) for ring in polygon)
    return rings


def clip(ring: list[tuple], west: float, east: float, south: float, north: float) -> list:
    """Sutherland-Hodgman: the ring cut to a longitude/latitude box."""
    edges = (
        (lambda p: p[0] >= west, lambda a, b: _cross_x(a, b, west)),
        (lambda p: p[0] <= east, lambda a, b: _cross_x(a, b, east)),
        (lambda p: p[1] >= south, lambda a, b: _cross_y(a, b, south)),
        (lambda p: p[1] <= north, lambda a, b: _cross_y(a, b, north)),
    )
    points = ring
    for inside, cross in edges:
        if not points:
            break
        kept = []
        previous = points[-1]
        for point in points:
            if inside(point):
                if not inside(previous):
                    kept.append(cross(previous, point))
                kept.append(point)
            elif inside(previous):
                kept.append(cross(previous, point))
            previous = point
        points = kept
    return points


def _cross_x(a: tuple, b: tuple, x: float) -> tuple:
    t = (x - a[0]) / (b[0] - a[0])
    return (x, a[1] + t * (b[1] - a[1]))


def _cross_y(a: tuple, b: tuple, y: float) -> tuple:
    t = (y - a[1]) / (b[1] - a[1])
    return (a[0] + t * (b[0] - a[0]), y)


def simplify(points: list[tuple], tolerance: float) -> list[tuple]:
    """Douglas-Peucker (iterative), keeping both ends."""
    if len(points) < 3:
        return points
    keep = [False] * len(points)
    keep[0] = keep[-1] = True
    stack = [(0, len(points) - 1)]
    while stack:
        first, last = stack.pop()
        (ax, ay), (bx, by) = points[first], points[last]
        dx, dy = bx - ax, by - ay
        length = (dx * dx + dy * dy) ** 0.5
        worst, index = 0.0, -1
        for i in range(first + 1, last):
            px, py = points[i]
            if length == 0:
                distance = ((px - ax) ** 2 + (py - ay) ** 2) ** 0.5
            else:
                distance = abs(dy * px - dx * py + bx * ay - by * ax) / length
            if distance > worst:
                worst, index = distance, i
        if worst > tolerance:
            keep[index] = True
            stack.extend(((first, index), (index, last)))
    return [point for point, kept in zip(points, keep, strict=True) if kept]


def area(points: list[tuple]) -> float:
    return abs(
        sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(points, points[1:] + points[:1], strict=True))
        / 2
    )


def land_path(rings: list[list[tuple]], frame: Frame) -> str:
    parts = []
    shifted = [
        [(lon + offset, lat) for lon, lat in ring] for ring in rings for offset in (-360, 0, 360)
    ]
    for ring in shifted:
        cut = clip(
            ring,
            frame.west - MARGIN,
            frame.east + MARGIN,
            frame.south - MARGIN,
            frame.north + MARGIN,
        )
        if len(cut) < 3:
            continue
        projected = [frame.project(lat, lon) for lon, lat in cut]
        projected = simplify(projected + projected[:1], TOLERANCE)[:-1]
        if len(projected) < 3 or area(projected) < MIN_AREA:
            continue
        head, *rest = projected
        parts.append(
            f"M{head[0]:.1f} {head[1]:.1f}" + "".join(f"L{x:.1f} {y:.1f}" for x, y in rest) + "Z"
        )
    return "".join(parts)


def write_svg(slug: str, frame: Frame, rings: list[list[tuple]]) -> Path:
    path = land_path(rings, frame)
    svg = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {frame.width} {frame.height}" '
        f'width="{frame.width}" height="{frame.height}">'
        "<!-- Coastlines: Natural Earth 1:50m land (public domain), via the world-atlas "
        "package 2.0.2; drawn by scripts/make_coastlines.py -->"
        f'<rect width="100%" height="100%" fill="{SEA}"/>'
        f'<path d="{path}" fill="{LAND}" stroke="{COAST}" stroke-width="1" '
        'stroke-linejoin="round" fill-rule="evenodd"/></svg>\n'
    )
    target = Path(REGISTRY[slug].static_folder) / "map.svg"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(svg)
    return target


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    rings = land_rings(load_topology(Path(argv[0])))
    for slug, frame in FRAMES.items():
        target = write_svg(slug, frame, rings)
        print(f"{target.relative_to(ROOT)}: {target.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
