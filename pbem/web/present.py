"""What the pages share: the runtime, the seat a link opens, seat colours and boards.

Everything a page shows of a game is built from ``engine.view(state, viewer)`` and
``engine.describe(..., viewer)`` for that page's viewer, never from the raw state.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from babel.numbers import format_decimal
from flask import Flask, current_app, request
from flask_babel import gettext, ngettext
from sqlmodel import col, select

from pbem import zones
from pbem.errors import NotFound
from pbem.games import seat_links, seat_rules
from pbem.games.results import standings
from pbem.games.tokens import hash_token
from pbem.models import Game, Seat
from pbem.runtime import Runtime
from pbem.web.boards import (
    game_data,
    svg_place_body,
    svg_place_close,
    svg_place_open,
    svg_shape,
    zoom_level,
)
from pbem.web.i18n import current, for_seat
from pbem.words import join_names

# Seat colours that look like their names (a hue in the named range) and stay told apart
# with colour blindness (mostly Paul Tol's palettes; "green" an emerald that keeps clear
# of both red and blue when either is hard to see); every mark also has a letter.
NAMED_COLOURS = {
    "red": "#CC3311",
    "blue": "#0077BB",
    "green": "#00B268",
    "yellow": "#F0E442",
    "purple": "#AA3377",
    "black": "#333333",
    "white": "#F5F5F5",
    "orange": "#EE7733",
}
# For seats whose names are no colour (a civilisation, a letter), in seat order.
PALETTE = ("#CC3311", "#0077BB", "#00B268", "#F0E442", "#AA3377", "#33BBEE")


def relative_luminance(colour: str) -> float:
    """WCAG's relative luminance of a ``#RRGGBB`` colour."""
    channels = [int(colour[index : index + 2], 16) / 255 for index in (1, 3, 5)]
    r, g, b = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(one: str, other: str) -> float:
    """WCAG's contrast ratio of two ``#RRGGBB`` colours (1 to 21)."""
    light, dark = sorted((relative_luminance(one), relative_luminance(other)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def ink_on(colour: str) -> str:
    """Black or white, whichever reads better on ``colour`` (a chip's letter)."""
    return "#000" if contrast(colour, "#000000") >= contrast(colour, "#FFFFFF") else "#fff"


def runtime() -> Runtime:
    return current_app.extensions["pbem"]


def seat_and_head(token: str) -> tuple[Seat, str, str]:
    """The seat a link opens, its game's head hash and its game's title, in one query."""
    if not isinstance(token, str) or not 20 <= len(token) <= 100:
        raise NotFound(gettext("This link is not valid (it may have been replaced)."))
    with runtime().service.reading() as session:
        found = session.exec(
            select(Seat, Game.head_hash, Game.engine)
            .join(Game, col(Game.id) == col(Seat.game_id))
            .where(Seat.token_hash == hash_token(token))
        ).first()
    if found is None:
        raise NotFound(gettext("This link is not valid (it may have been replaced)."))
    return for_seat(found[0]), found[1], found[2]


def holder(token: str) -> Seat:
    """The seat a link opens for its holder (:func:`seat_links.holder_seat`), its
    language kept for the page."""
    return for_seat(seat_links.holder_seat(runtime(), token))


def players(view: Mapping[str, Any], seats: Sequence[Seat]) -> list[dict[str, Any]]:
    """Each seat's display: who holds it, its colour and letter (from the engine's name)."""
    shown = []
    engine_players = view.get("players") or []
    resigned = resigned_among(seats)
    for seat in seats:
        info = engine_players[seat.seat] if seat.seat < len(engine_players) else {}
        # (an engine's word, "Red": the page prints it in its language; the English
        # names the colour to draw)
        mark = (info.get("name") or info.get("colour") or "") if info else ""
        colour_name = str(mark)
        colour = NAMED_COLOURS.get(colour_name.lower(), PALETTE[seat.seat % len(PALETTE)])
        letter = (colour_name or chr(ord("A") + seat.seat))[0].upper()
        shown.append(
            {
                "seat": seat.seat,
                "name": seat.name,
                "colour_name": mark if isinstance(mark, str) else colour_name,
                "colour": colour,
                "letter": letter,
                "is_bot": seat.is_bot,
                "bot_level": getattr(seat, "bot_level", "normal") if seat.is_bot else "",
                "resigned": seat.seat in resigned,
                "due": seat.seat in (view.get("to_move") or []),
                "text": ink_on(colour),
            }
        )
    return shown


def resigned_among(seats: Sequence[Any]) -> set[int]:
    """The seats whose players resigned: a roster's own mark, else (seat rows) asked of
    the database only when a bot plays a seat nobody holds (left, or resigned)."""
    marked = {seat.seat for seat in seats if getattr(seat, "resigned", False)}
    nobody = [seat for seat in seats if isinstance(seat, Seat) and seat.is_bot and not seat.email]
    if not nobody:
        return marked
    with runtime().service.reading() as session:
        return marked | seat_rules.resigned_seats(session, nobody[0].game_id)


def standings_of(
    result: Mapping[str, Any] | None,
    shown: Sequence[Mapping[str, Any]],
    title: str | None = None,
):
    """:func:`pbem.games.results.standings` with the names of :func:`players`, its
    headline (and the plain score column of a result without a table), and the reason
    and columns of the ``title``'s engine, in the page's language."""
    standing = standings(result, [player["name"] for player in shown], title)
    if standing is None or result is None:
        return standing
    winners = [
        shown[seat]["name"] for seat in result.get("winners") or [] if 0 <= seat < len(shown)
    ]
    if winners:
        standing["headline"] = ngettext(
            "%(names)s wins.",
            "%(names)s share the win.",
            len(winners),
            names=join_names(winners, current()),
        )
    if not result.get("table"):
        standing["columns"] = [gettext("Score")]
    return standing


def decimal(value: float) -> str:
    """A number with one decimal, as the page's language writes it ("4.5", "4,5")."""
    return format_decimal(value, format="0.0", locale=current())


def iso_utc(moment: datetime) -> str:
    """A moment as a ``<time datetime>`` wants it: ISO 8601 in UTC (naive means UTC)."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def init_app(app: Flask) -> None:
    app.jinja_env.globals["game_data"] = game_data
    app.jinja_env.globals["standings_of"] = standings_of
    app.jinja_env.globals["zoom_level"] = lambda: zoom_level(request.args.get("zoom"))
    app.jinja_env.globals["svg_shape"] = svg_shape
    app.jinja_env.globals["svg_place_open"] = svg_place_open
    app.jinja_env.globals["svg_place_body"] = svg_place_body
    app.jinja_env.globals["svg_place_close"] = svg_place_close
    app.jinja_env.filters["stamp"] = zones.stamp
    app.jinja_env.filters["iso_utc"] = iso_utc
    app.jinja_env.filters["decimal"] = decimal
    app.jinja_env.filters["compact_json"] = lambda data: json.dumps(
        data, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
