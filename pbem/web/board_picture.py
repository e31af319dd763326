"""The board as a picture for mails: the same SVG the turn page draws, as a PNG.

Mail sits below the pages (``tests/pbem/test_layers.py``), so it cannot draw a board
itself; :func:`install` puts a :class:`Pictures` in ``runtime.extras`` under
:data:`pbem.mail.pictures.HOOK`, and the dispatcher asks it for a seat's board as it
sends a mail (never in the move's transaction). Every process that sends mail installs
it: the web application (:func:`pbem.web.create_app`) and the commands that run the
dispatcher (``pbem worker``, ``pbem sweep``).

What a picture shows is exactly what that seat's page shows: the title's own
``_board.html`` rendered with the seat's own view (``engine.view(state, seat)``; a
spectator's for ``seat=None``), the places that changed since the seat's last move
marked as on the page. Its words (the alt text and the plain part's summary) are the
facts the board prints beside the map, from the same rendering.

The PNG comes from resvg (the ``resvg-py`` wheel: a Rust renderer with no system
library), with DejaVu Sans (regular, bold, oblique: the face the map's CSS asks for
first) shipped in ``pbem/fonts`` and no other, so the labels read the same on every
server, fonts installed or not. Without resvg, or when a render fails, a picture has
words but no PNG, and the mail goes without the image.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import json
import logging
import re
import threading
from collections import OrderedDict
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flask import Flask, render_template_string
from sqlmodel import col, select

from engines import REGISTRY
from pbem.eventlog.store import game_engine
from pbem.games import names
from pbem.i18n import gettext, localize, spoken
from pbem.mail.pictures import HOOK, PHONE_WIDTH, Picture
from pbem.models import Seat
from pbem.web.present import players
from pbem.web.titles import _folder, board_template, changed_places

if TYPE_CHECKING:
    from pbem.games.context import Runtime

log = logging.getLogger(__name__)

FONTS = Path(__file__).resolve().parent.parent / "fonts"
MAP_CSS = Path(__file__).resolve().parent / "static" / "map.css"
WIDTH = 1080  # PNG pixels: the 360 CSS px the picture takes on a phone, at 3 device px each
COLOURS = 96  # a board's flat colours fit a palette: a third of the bytes of full colour
KEPT = 64  # pictures kept, by (game, seq, hash of what is drawn, language)

_BOARD_SVG = re.compile(r"<svg\b[^>]*\bclass=\"board\b", re.S)
_SVG_TAG = re.compile(r"<(/?)svg\b", re.S)
_IMAGE_HREF = re.compile(r"(<image\b[^>]*?\bhref=\")([^\"]+)(\")", re.S)


def install(runtime: Runtime, app: Flask | None = None) -> None:
    """Lets the dispatcher of this process draw boards (see the module's doc). A drawer
    already installed stays (with what it kept), given ``app`` if it had none: the one a
    worker installs makes its application on first use, through here."""
    drawer = runtime.extras.get(HOOK)
    if isinstance(drawer, Pictures):
        drawer.app = drawer.app or app
        return
    runtime.extras[HOOK] = Pictures(runtime, app)


class Pictures:
    """``pictures(game_id, seat, seq)``: the board a seat's page showed after event
    ``seq``, as a :class:`~pbem.mail.pictures.Picture`; kept (a few dozen) by what is
    drawn, so the mails of one event to seats that see the same board draw it once."""

    def __init__(self, runtime: Runtime, app: Flask | None = None) -> None:
        self.runtime = runtime
        self.app = app
        self.kept: OrderedDict[tuple, Picture] = OrderedDict()
        self.lock = threading.Lock()

    def _app(self) -> Flask:
        if self.app is None:
            from pbem.web import create_app

            self.app = create_app(runtime=self.runtime)  # type: ignore[arg-type]
        return self.app

    def __call__(self, game_id: str, seat: int | None, seq: int) -> Picture:
        slug, view, shown, changed = self.seen(game_id, seat, seq)
        drawn = json.dumps([slug, seat, view, shown, sorted(changed)], sort_keys=True, default=str)
        key = (game_id, seq, hashlib.sha256(drawn.encode()).hexdigest(), spoken())
        with self.lock:
            if key in self.kept:
                self.kept.move_to_end(key)
                return self.kept[key]
        picture = self.draw(slug, view, shown, changed, seat)
        with self.lock:
            self.kept[key] = picture
            while len(self.kept) > KEPT:
                self.kept.popitem(last=False)
        return picture

    def seen(
        self, game_id: str, seat: int | None, seq: int
    ) -> tuple[str, dict[str, Any], list[dict[str, Any]], set[str]]:
        """What the seat's page drew after event ``seq``: the title, the seat's own view
        (its phase line's players named), the players' marks and the changed places."""
        service = self.runtime.service
        with service.reading() as session:
            game = service.store.game(session, game_id)
            if not 0 <= seq <= game.head_seq:
                raise ValueError(f"game {game_id} has no event {seq}")
            engine = game_engine(game)
            if seq == game.head_seq and game.head_state is not None:
                state = engine.load(game.head_state)
            else:
                state = service.store.state_at(session, game, engine, seq)
            seats = list(
                session.exec(select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.seat)))
            )
            own = next((row for row in seats if row.seat == seat), None)
            if seat is not None and own is None:
                raise ValueError(f"game {game_id} has no seat {seat}")
            before = own.last_move_seq if own is not None else None
            old = None
            if before is not None and 0 <= before < seq:
                old = engine.view(service.store.state_at(session, game, engine, before), seat)
        view = engine.view(state, seat)
        holders = [row.name for row in seats]
        phase = view.get("phase")
        if isinstance(phase, str) and names.has_placeholder(phase):
            view = {**view, "phase": names.fill(phase, holders, names.marks_of(view))}
        with self._app().app_context():  # a seat nobody holds asks the app's runtime
            shown = players(view, seats)
        return game.engine, view, shown, changed_places(game.engine, old, view)

    def draw(
        self,
        slug: str,
        view: dict[str, Any],
        shown: list[dict[str, Any]],
        changed: set[str],
        seat: int | None = None,
    ) -> Picture:
        """The board of this view: its words, and its PNG when resvg draws it (the part
        of the board a phone reads, around the seat's pieces or what changed, when the
        whole would not read: see :func:`crop`)."""
        # The board's own words in the mail's language (see :func:`pbem.i18n.speaking`).
        with self._app().test_request_context("/", headers={"Accept-Language": spoken()}):
            page = render_template_string(
                "{% include board %}",
                board=board_template(slug),
                view=view,
                players=shown,
                changed=sorted(changed),
                groups=[],
                pick="",
            )
        words = board_words(page, view) + own_words(slug, view)
        svg = board_svg(page, slug)
        if svg is None:
            return Picture(words=words)
        svg, part = crop(svg, seat)
        try:
            png, width, height = to_png(svg, slug)
        except Exception as error:  # noqa: BLE001 - no picture is better than no mail
            log.warning("the board of %s could not be drawn: %s", slug, error)
            return Picture(words=words)
        return Picture(
            png=png,
            width=width,
            height=height,
            words=words,
            part=part,
            smallest_px=smallest_px(svg),
        )


def board_svg(page: str, slug: str) -> str | None:
    """The board's own ``<svg class="board">`` out of the rendered partial (None when the
    title draws none), with the map it lays over inlined (a mail loads nothing)."""
    found = _BOARD_SVG.search(page)
    if found is None:
        return None
    depth, end = 0, None
    for tag in _SVG_TAG.finditer(page, found.start()):
        depth += -1 if tag[1] else 1
        if depth == 0:
            end = page.index(">", tag.end()) + 1
            break
    if end is None:
        return None
    svg = page[found.start() : end]
    if "xmlns=" not in svg[:300]:
        svg = svg.replace("<svg", '<svg xmlns="http://www.w3.org/2000/svg"', 1)
    return _IMAGE_HREF.sub(lambda match: inline_asset(match, slug), svg)


# ------------------------------------------------------------------ a part for a phone
# A wide map shown a phone's width reads at 5 or 6 px. When the whole board's smallest
# text would read under READABLE_PX, the picture shows the part of it a phone reads:
# around the viewer's own pieces (the places whose ``data-seats`` name the seat), else
# around what changed since their last move (``class="place changed"``), as the map's
# first view on a phone does (static/map.js). Both come from the seat's own view, so
# the part shown depends on nothing the seat may not see. A spectator's picture, a
# board with neither, or a board a part would enlarge too little stays whole.
READABLE_PX = 10  # the smallest text of a part, shown PHONE_WIDTH px wide
TALL = 1.2  # a part's height to its width (a phone's screen is tall)
GAIN = 1.2  # a part is drawn only when its texts read this much larger than the whole
NAMED = 4  # places named in the words saying what part is shown

_ROOT = re.compile(r"<svg\b[^>]*>", re.S)
_VIEW_BOX = re.compile(r'\bviewBox="([-\d.eE]+)[ ,]+([-\d.eE]+)[ ,]+([-\d.eE]+)[ ,]+([-\d.eE]+)"')
_FONT = re.compile(r'<text\b[^>]*?\bfont-size="([\d.]+)"', re.S)
_PLACE = re.compile(r'<(?:a|g) class="place( changed)?"[^>]*>', re.S)
_SEATS = re.compile(r'\bdata-seats="([^"]*)"')
_CHIP = re.compile(
    r'<rect class="chip" x="([-\d.]+)" y="([-\d.]+)" width="([\d.]+)" height="([\d.]+)"'
)
_LABEL = re.compile(r'data-box="([-\d.]+) ([-\d.]+) ([-\d.]+) ([-\d.]+)">([^<]*)</text>')


def view_box(svg: str) -> tuple[float, float, float, float] | None:
    root = _ROOT.search(svg)
    found = _VIEW_BOX.search(root[0]) if root else None
    return tuple(float(found[n]) for n in range(1, 5)) if found else None  # type: ignore[return-value]


def smallest_px(svg: str, shown: int = PHONE_WIDTH) -> float:
    """The smallest text of ``svg`` in CSS px when it is shown ``shown`` px wide."""
    box = view_box(svg)
    sizes = [float(size) for size in _FONT.findall(svg)]
    if box is None or not sizes or box[2] <= 0:
        return 0.0
    return round(min(sizes) * shown / box[2], 2)


def places(svg: str) -> list[dict[str, Any]]:
    """The board's places as drawn: whose pieces lie there, changed or not, the box of
    their chip and name (map units) and their name."""
    found = []
    opened = list(_PLACE.finditer(svg))
    for index, tag in enumerate(opened):
        end = opened[index + 1].start() if index + 1 < len(opened) else len(svg)
        inside = svg[tag.end() : end]
        chip, label = _CHIP.search(inside), _LABEL.search(inside)
        if chip is None:
            continue
        x, y, w, h = (float(chip[n]) for n in range(1, 5))
        x0, y0, x1, y1 = x, y, x + w, y + h
        name = ""
        if label is not None:
            lx0, ly0, lx1, ly1 = (float(label[n]) for n in range(1, 5))
            x0, y0, x1, y1 = min(x0, lx0), min(y0, ly0), max(x1, lx1), max(y1, ly1)
            name = html.unescape(label[5]).strip()
        seats = _SEATS.search(tag[0])
        found.append(
            {
                "seats": set(seats[1].split()) if seats else set(),
                "changed": bool(tag[1]),
                "box": (x0, y0, x1, y1),
                "name": name,
            }
        )
    return found


def window(
    boxes: list[tuple[float, float, float, float]],
    size: tuple[float, float],
    board: tuple[float, float, float, float],
) -> tuple[float, float]:
    """The top left corner of a ``size`` window inside ``board`` that holds the most of
    ``boxes`` whole (of equal counts, the one whose middle is nearest theirs)."""
    width, height = size
    bx, by, bw, bh = board
    margin = 12.0

    def inside(left: float, top: float) -> tuple[float, float]:
        return (
            min(max(left, bx), bx + bw - width),
            min(max(top, by), by + bh - height),
        )

    middle_x = sum((b[0] + b[2]) / 2 for b in boxes) / len(boxes)
    middle_y = sum((b[1] + b[3]) / 2 for b in boxes) / len(boxes)
    lefts = {middle_x - width / 2} | {b[0] - margin for b in boxes}
    lefts |= {b[2] + margin - width for b in boxes}
    tops = {middle_y - height / 2} | {b[1] - margin for b in boxes}
    tops |= {b[3] + margin - height for b in boxes}
    best, corner = None, inside(middle_x - width / 2, middle_y - height / 2)
    for left in sorted(lefts):
        for top in sorted(tops):
            left_at, top_at = inside(left, top)
            held = sum(
                left_at <= b[0]
                and b[2] <= left_at + width
                and top_at <= b[1]
                and b[3] <= top_at + height
                for b in boxes
            )
            off = abs(left_at + width / 2 - middle_x) + abs(top_at + height / 2 - middle_y)
            score = (held, -off)
            if best is None or score > best:
                best, corner = score, (left_at, top_at)
    return corner


def crop(svg: str, seat: int | None) -> tuple[str, str]:
    """``svg`` cut to the part a phone reads (see above) and that part in words, or
    ``svg`` whole and ``""``."""
    board = view_box(svg)
    sizes = [float(size) for size in _FONT.findall(svg)]
    if seat is None or board is None or not sizes:
        return svg, ""
    wide = min(sizes) * PHONE_WIDTH / READABLE_PX  # the part's width, in map units
    if wide * GAIN > board[2]:
        return svg, ""
    drawn = places(svg)
    own = [place for place in drawn if str(seat) in place["seats"]]
    changed = [place for place in drawn if place["changed"]]
    if own:
        focus, about = own, gettext("around your pieces")
    else:
        focus, about = changed, gettext("around what changed")
    if not focus:
        return svg, ""
    size = (wide, min(wide * TALL, board[3]))
    left, top = window([place["box"] for place in focus], size, board)
    held = [
        place["name"]
        for place in focus
        if place["name"]
        and left <= place["box"][0]
        and place["box"][2] <= left + size[0]
        and top <= place["box"][1]
        and place["box"][3] <= top + size[1]
    ]
    if held:
        about += ": " + ", ".join(held[:NAMED]) + (", …" if len(held) > NAMED else "")
    box = f'viewBox="{left:.1f} {top:.1f} {size[0]:.1f} {size[1]:.1f}"'
    root = _ROOT.search(svg)
    assert root is not None  # view_box found it
    tag = _VIEW_BOX.sub(box, root[0], count=1)
    tag = re.sub(r'\swidth="[^"]*"', f' width="{size[0]:.0f}"', tag, count=1)
    tag = re.sub(r'\sheight="[^"]*"', f' height="{size[1]:.0f}"', tag, count=1)
    return svg[: root.start()] + tag + svg[root.end() :], about


def inline_asset(match: re.Match, slug: str) -> str:
    """An ``<image href>`` to one of the title's static files as a data URI."""
    href = html.unescape(match[2]).split("?", 1)[0]
    prefix = f"/titles/{slug}/static/"
    folder = _folder(slug, "static_folder")
    if not href.startswith(prefix) or folder is None:
        return match[0]
    path = (folder / href[len(prefix) :]).resolve()
    if folder.resolve() not in path.parents or not path.is_file():
        return match[0]
    kind = "image/svg+xml" if path.suffix == ".svg" else "image/png"
    data = base64.b64encode(path.read_bytes()).decode()
    return f"{match[1]}data:{kind};base64,{data}{match[3]}"


def style_sheet(slug: str) -> str:
    """The CSS the page gives the map (the shared map.css and the title's board.css)."""
    parts = [MAP_CSS.read_text(encoding="utf-8")] if MAP_CSS.is_file() else []
    folder = _folder(slug, "static_folder")
    if folder is not None and (folder / "board.css").is_file():
        parts.append((folder / "board.css").read_text(encoding="utf-8"))
    # The page's media queries size the map on a screen; a picture has its own size.
    return re.sub(r"@media[^{]*\{(?:[^{}]*\{[^{}]*\})*[^{}]*\}", "", "\n".join(parts))


def to_png(svg: str, slug: str) -> tuple[bytes, int, int]:
    """The PNG of ``svg``, :data:`WIDTH` pixels wide, on white, with the shipped fonts."""
    import resvg_py

    fonts = sorted(str(path) for path in FONTS.glob("*.ttf"))
    png = bytes(
        resvg_py.svg_to_bytes(
            svg_string=svg,
            width=WIDTH,
            background="#ffffff",
            style_sheet=style_sheet(slug),
            font_files=fonts,
            font_family="DejaVu Sans",
            sans_serif_family="DejaVu Sans",
            # Only the shipped faces: the same picture on every server, and no scan of
            # the system's fonts at each drawing (a tenth of its time).
            skip_system_fonts=True,
        )
    )
    width = int.from_bytes(png[16:20], "big")
    height = int.from_bytes(png[20:24], "big")
    return small_png(png), width, height


def small_png(png: bytes) -> bytes:
    """``png`` with a palette of :data:`COLOURS` (Pillow), unchanged without Pillow: a
    mail must stay small, and a map of flat colours loses nothing that shows."""
    try:
        from PIL import Image
    except ImportError:
        return png
    with Image.open(io.BytesIO(png)) as image:
        # Octree: half the time of median cut, and as small (bench/bench_mail_picture.py).
        flat = image.convert("RGB").quantize(
            colors=COLOURS, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE
        )
    out = io.BytesIO()
    flat.save(out, "PNG", compress_level=9)
    return out.getvalue() if out.tell() < len(png) else png


class _Facts(HTMLParser):
    """The sentences a board prints beside its map (``.map-facts``: the players' lines)
    or, for a board without them, the ones its player groups and piles are labelled
    with (``aria-label`` of ``class="player"`` / ``"deck"``)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.facts: list[str] = []
        self.labels: list[str] = []
        self.depth = 0  # <div> depth inside .map-facts (0: outside)
        self.drawing = 0  # <svg> depth (a swatch's letter is no word)
        self.text: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        classes = (found.get("class") or "").split()
        if tag == "svg":
            self.drawing += 1
        if tag == "div" and (self.depth or "map-facts" in classes):
            self.depth += 1
        elif self.depth and tag in ("p", "li"):
            self.text = []
        if tag == "g" and {"player", "deck"} & set(classes) and found.get("aria-label"):
            self.labels.append(str(found["aria-label"]))

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg" and self.drawing:
            self.drawing -= 1
        if tag == "div" and self.depth:
            self.depth -= 1
        elif tag in ("p", "li") and self.text is not None:
            said = " ".join("".join(self.text).split())
            if said:
                self.facts.append(said)
            self.text = None

    def handle_data(self, data: str) -> None:
        if self.text is not None and not self.drawing:
            self.text.append(data)


def own_words(slug: str, view: dict[str, Any]) -> list[str]:
    """What only the view's seat sees, in words, when the title says it (the engine's
    optional ``own_words``): drawn for that seat's mail alone, as its view is."""
    say = getattr(REGISTRY.get(slug), "own_words", None)
    if say is None:
        return []
    return [str(line) for line in say(view) if line]


def board_words(page: str, view: dict[str, Any]) -> list[str]:
    """The position in words: the phase, then the facts the board prints (see
    :class:`_Facts`), each a line."""
    facts = _Facts()
    facts.feed(page)
    facts.close()
    phase = view.get("phase")
    lines = [str(localize(phase))] if isinstance(phase, str) and phase else []
    return lines + (facts.facts or facts.labels)
