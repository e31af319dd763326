"""The score chart's data and markup: end labels that never overlap (ties included) nor
leave the plot, axis ticks, and players named with their colour in HTML text (which keeps
its size on a phone, unlike text inside a scaled SVG)."""

from __future__ import annotations

import re
from pathlib import Path

from jinja2 import Environment, FileSystemLoader

from pbem.web import timeline
from pbem.web.timeline import LABEL_GAP, chart, spread

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
PLAYERS = [
    {"name": "Ann", "colour": "#D55E00", "text": "#fff", "letter": "R"},
    {"name": "Bruno", "colour": "#0072B2", "text": "#fff", "letter": "B"},
    {"name": "Cleo", "colour": "#009E73", "text": "#fff", "letter": "G"},
]


def label_heights(drawn: dict) -> list[float]:
    return [line["label_at"] for line in drawn["lines"]]


def apart(heights: list[float]) -> bool:
    ordered = sorted(heights)
    return all(b - a >= LABEL_GAP - 1e-9 for a, b in zip(ordered, ordered[1:], strict=False))


def test_tied_scores_get_labels_apart():
    drawn = chart([[0, 0, 0], [4, 11, 11]])
    heights = label_heights(drawn)
    assert apart(heights) and all(0 <= at <= 100 for at in heights)
    # The tie stays at the top of the plot (11 is the top), one label under the other.
    assert sorted(heights[1:]) == [0, LABEL_GAP]


def test_labels_at_the_edges_stay_inside_the_plot():
    everyone_top = chart([[0, 0, 0], [9, 9, 9]])
    assert sorted(label_heights(everyone_top)) == [0, LABEL_GAP, 2 * LABEL_GAP]
    everyone_nothing = chart([[0, 0, 0], [0, 0, 0]])
    assert sorted(label_heights(everyone_nothing)) == [100 - 2 * LABEL_GAP, 100 - LABEL_GAP, 100]
    apart_already = chart([[0, 0, 0], [0, 5, 10]])
    assert label_heights(apart_already) == [100, 50, 0]


def test_spread_moves_labels_as_little_as_it_can():
    assert spread([50, 50], 10) == [50, 60]
    assert spread([95, 100, 100], 10) == [80, 90, 100]
    assert spread([-5, 0], 10) == [0, 10]
    # More labels than fit: the height is shared evenly, in the same order.
    assert spread([0] * 5, 30) == [0, 25, 50, 75, 100]


def test_ticks_name_zero_the_top_and_a_round_middle():
    assert timeline.ticks(25) == [
        {"value": 0, "at": 100.0},
        {"value": 12, "at": 52.0},
        {"value": 25, "at": 0.0},
    ]
    assert [tick["value"] for tick in timeline.ticks(1)] == [0, 1]


def test_the_markup_names_players_with_their_colour_in_html_text():
    env = Environment(
        loader=FileSystemLoader(TEMPLATES), autoescape=True, extensions=["jinja2.ext.i18n"]
    )
    env.install_null_translations(newstyle=True)  # type: ignore[attr-defined]
    drawn = chart([[0, 0, 0], [3, 11, 11]])
    html = env.get_template("_chart.html").render(chart=drawn, players=PLAYERS)
    svg = html[html.index("<svg") : html.index("</svg>")]
    assert "<text" not in svg  # no text scaled down with the drawing
    ends = re.findall(r'<li style="top:([\d.]+)%">(.*?)</li>', html, re.S)
    assert len(ends) == 3
    for (at, label), player, line in zip(ends, PLAYERS, drawn["lines"], strict=True):
        assert float(at) == line["label_at"]
        assert player["name"] in label and f"background:{player['colour']}" in label
    assert 'aria-label="Scores over the game, at the end: Bruno 11, Cleo 11, Ann 3."' in html
    assert "End, after 1 move<" in html
