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
from pbem.mail.pictures import HOOK, Picture
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
KEPT = 64  # pictures kept, by (game, seq, hash of what is drawn)

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
        drawn = json.dumps([slug, view, shown, sorted(changed)], sort_keys=True, default=str)
        key = (game_id, seq, hashlib.sha256(drawn.encode()).hexdigest())
        with self.lock:
            if key in self.kept:
                self.kept.move_to_end(key)
                return self.kept[key]
        picture = self.draw(slug, view, shown, changed)
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
        self, slug: str, view: dict[str, Any], shown: list[dict[str, Any]], changed: set[str]
    ) -> Picture:
        """The board of this view: its words, and its PNG when resvg draws it."""
        with self._app().test_request_context("/"):
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
        try:
            png, width, height = to_png(svg, slug)
        except Exception as error:  # noqa: BLE001 - no picture is better than no mail
            log.warning("the board of %s could not be drawn: %s", slug, error)
            return Picture(words=words)
        return Picture(png=png, width=width, height=height, words=words)


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
    lines = [str(phase)] if isinstance(phase, str) and phase else []
    return lines + (facts.facts or facts.labels)
