"""Seat colours look like their names, stay told apart with colour blindness, and carry
their letter at AA contrast.

The names come from each title's own view (a seat named "Red" is drawn in a red, not an
orange); the colours from :mod:`pbem.web.present`, which the pages, the score chart, the
boards and the mail's board picture all draw with.
"""

from __future__ import annotations

import colorsys
import itertools
import math
import re
from types import SimpleNamespace

import pytest

from engines import REGISTRY, scan_titles
from engines.api import SeededChance, resolve_options
from pbem.web import create_app, present
from pbem.web.present import NAMED_COLOURS, PALETTE, contrast, ink_on

TITLES = sorted(scan_titles())

# The hues (HSV degrees) a colour of each name may have; black and white by lightness.
HUES = {
    "red": [(345, 360), (0, 15)],
    "orange": [(15, 45)],
    "yellow": [(45, 70)],
    "green": [(75, 165)],
    "blue": [(195, 250)],
    "purple": [(260, 335)],
}


def looks_like(name: str, colour: str) -> bool:
    r, g, b = (int(colour[index : index + 2], 16) / 255 for index in (1, 3, 5))
    hue, saturation, value = colorsys.rgb_to_hsv(r, g, b)
    if name == "black":
        return value <= 0.3 and saturation <= 0.15
    if name == "white":
        return value >= 0.9 and saturation <= 0.1
    degrees = hue * 360
    return saturation >= 0.4 and any(low <= degrees <= high for low, high in HUES[name])


# Machado, Oliveira and Fernandes (2009), full severity, on linear RGB.
SIMULATED = {
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
}


def lab(colour: str, matrix=None) -> tuple[float, float, float]:
    """CIELAB (D65) of ``colour``, as seen through ``matrix`` when given."""
    linear = [int(colour[index : index + 2], 16) / 255 for index in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in linear]
    if matrix:
        linear = [
            min(1.0, max(0.0, sum(m * c for m, c in zip(row, linear, strict=True))))
            for row in matrix
        ]
    r, g, b = linear
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def seat_marks(slug: str, seats: int) -> list[dict]:
    """What the pages draw for each seat of a new game of ``slug`` with ``seats`` seats."""
    engine = REGISTRY[slug]
    state = engine.setup(seats, resolve_options(engine, {}), SeededChance(1))
    view = engine.view(state, None)
    held = [
        SimpleNamespace(seat=n, name=f"P{n}", is_bot=False, resigned=False, email="p@example.org")
        for n in range(seats)
    ]
    return present.players(view, held)


def test_every_named_colour_looks_like_its_name():
    assert {
        name: colour for name, colour in NAMED_COLOURS.items() if not looks_like(name, colour)
    } == {}


def test_red_is_no_longer_drawn_orange():
    assert looks_like("red", NAMED_COLOURS["red"])
    assert not looks_like("red", "#D55E00")  # the vermilion it was: an orange


@pytest.mark.parametrize("colour", sorted({*NAMED_COLOURS.values(), *PALETTE}))
def test_a_chips_letter_reads_at_aa_contrast(colour):
    ink = "#000000" if ink_on(colour) == "#000" else "#FFFFFF"
    assert contrast(colour, ink) >= 4.5


@pytest.mark.parametrize("slug", TITLES)
def test_each_titles_seats_are_drawn_in_the_colour_they_are_named(slug):
    engine = REGISTRY[slug]
    marks = seat_marks(slug, engine.max_seats)
    for mark in marks:
        name = mark["colour_name"].lower()
        if name in NAMED_COLOURS:
            assert looks_like(name, mark["colour"]), mark
    colours = [mark["colour"] for mark in marks]
    assert len(set(colours)) == len(colours)


@pytest.mark.parametrize("slug", TITLES)
def test_each_titles_seat_colours_stay_apart_with_colour_blindness(slug):
    colours = [mark["colour"] for mark in seat_marks(slug, REGISTRY[slug].max_seats)]
    for matrix in (None, *SIMULATED.values()):
        for one, other in itertools.combinations(colours, 2):
            assert math.dist(lab(one, matrix), lab(other, matrix)) >= 20, (one, other)


CHIP = re.compile(
    r'<span class="chip" style="background:(#[0-9A-Fa-f]{6});color:(#[0-9a-f]{3})">\w</span>'
    r'[^<]*<span class="muted">\((\w+)\)</span>'
)


@pytest.mark.parametrize("slug", TITLES)
def test_the_turn_page_draws_each_named_seat_in_its_colour(sqlite_runtime, slug):
    from pbem.games.service import SeatSpec

    engine = REGISTRY[slug]
    specs = [SeatSpec(f"P{n}", f"p{n}@example.org") for n in range(engine.max_seats)]
    created = sqlite_runtime.service.create_game(slug, specs, {}, seed=b"c" * 32)
    app = create_app(runtime=sqlite_runtime)
    html = app.test_client().get(f"/play/{created.tokens[0]}").text
    chips = CHIP.findall(html)
    assert len(chips) == engine.max_seats
    for background, ink, name in chips:
        if name.lower() in NAMED_COLOURS:
            assert looks_like(name.lower(), background), (name, background)
        assert ink == ink_on(background)


@pytest.mark.parametrize("slug", TITLES)
def test_the_mails_board_picture_draws_each_seat_in_its_colour(sqlite_runtime, slug):
    """The picture is drawn from the page's own board: a little into a game, each seat's
    colour is in the whole board's picture (a spectator's: a seat's own mail may show only
    the part around its pieces)."""
    import io
    import random

    from PIL import Image

    from pbem.games.service import SeatSpec
    from pbem.web import board_picture
    from tests.web.test_browser_pages import play_until_due

    engine = REGISTRY[slug]
    specs = [SeatSpec(f"P{n}", f"p{n}@example.org") for n in range(engine.max_seats)]
    created = sqlite_runtime.service.create_game(slug, specs, {}, seed=b"m" * 32)
    seats = set(range(len(specs)))
    play_until_due(sqlite_runtime.service, created.game_id, seats, random.Random(1), 30)
    picture = board_picture.Pictures(sqlite_runtime, create_app(runtime=sqlite_runtime))(
        created.game_id, None, sqlite_runtime.service.head(created.game_id).seq
    )
    if not picture.png:
        pytest.skip("this title's board draws no picture")
    pixels = Image.open(io.BytesIO(picture.png)).convert("RGB").getcolors(1 << 22)
    for mark in seat_marks(slug, engine.max_seats):
        want = [int(mark["colour"][index : index + 2], 16) for index in (1, 3, 5)]
        drawn = sum(
            n for n, rgb in pixels if max(abs(a - b) for a, b in zip(rgb, want, strict=True)) <= 10
        )
        assert drawn >= 50, (mark["colour_name"], mark["colour"])
