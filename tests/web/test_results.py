"""The end of a game reads right on every page: names, who won and why, a real table."""

from __future__ import annotations

import re

import pytest

from pbem.games.results import standings, standings_text
from pbem.games.service import SeatSpec

TITLES = [
    ("mercatores", 2, {}),
    ("mare_balticum", 3, {}),
    ("mare_nostrum", 3, {"turn_limit": 2}),
]


@pytest.mark.parametrize(("slug", "seats", "options"), TITLES)
def test_a_finished_game_shows_names_the_reason_and_a_table(client, runtime, slug, seats, options):
    names = ["Ann", "Bo", "Cy"][:seats]
    specs = [SeatSpec(name, is_bot=True) for name in names]
    created = runtime.service.create_game(slug, specs, options)
    runtime.service.play_bots(created.game_id, max_moves=5000)
    game = runtime.service.game(created.game_id)
    assert game.status == "finished"
    standing = standings(game.result, names)
    winners = [row["name"] for row in standing["rows"] if row["winner"]]
    assert winners and standing["headline"].startswith(winners[0])
    assert standing["rows"][0]["winner"] and standing["rows"][0]["rank"] == 1
    assert all(len(row["values"]) == len(standing["columns"]) for row in standing["rows"])
    page = client.get(f"/games/{created.game_id}").text
    result = page[page.index("<h2>Result</h2>") : page.index("<h2>Latest events</h2>")]
    assert standing["headline"] in result and standing["reason"] in result
    for label in standing["columns"]:
        assert f">{label}</th>" in result
    for name in names:
        assert name in result
    assert "{'" not in result and "seat " not in result.lower()
    assert not re.search(r"<th[^>]*>\s*[0-9]\s*</th>", result)
    assert ".." not in "".join(standing_text_lines := standings_text(standing))
    assert standing_text_lines[0] == standing["headline"]


def test_winners_rank_first_whatever_their_score_and_ties_share_a_rank():
    result = {
        "scores": [3, 1, 3, 2],
        "winners": [1],
        "reason": "builds the Pyramids",
        "table": {
            "columns": ["Civ", "Cards"],
            "rows": [["A", 3], ["B", 1], ["C", 3], ["D", 2]],
            "deciding": 1,
        },
    }
    standing = standings(result, ["Ann", "Bo", "Cy", "Dee"])
    assert standing["headline"] == "Bo wins."
    assert standing["reason"] == "Builds the Pyramids."
    assert [(row["name"], row["rank"]) for row in standing["rows"]] == [
        ("Bo", 1),
        ("Ann", 2),
        ("Cy", 2),
        ("Dee", 4),
    ]


def test_a_shared_win_names_every_winner_and_an_old_result_without_a_table_still_reads():
    result = {"scores": [6.0, 6, 2], "winners": [0, 1], "reason": "Red and Blue share the win."}
    standing = standings(result, ["Ann", "Bo", "Cy"])
    assert standing["headline"] == "Ann and Bo share the win."
    assert standing["reason"] == "Red and Blue share the win."
    assert standing["columns"] == ["Score"] and standing["rows"][0]["values"] == ["6"]
    assert standings(None, ["Ann"]) is None


@pytest.mark.parametrize(("slug", "seats", "options"), TITLES)
def test_a_finished_turn_page_says_the_game_is_over_once(client, runtime, slug, seats, options):
    import random

    specs = [SeatSpec("Ann", "ann@example.org")]
    specs += [SeatSpec(name, is_bot=True) for name in ["Bo", "Cy"][: seats - 1]]
    created = runtime.service.create_game(slug, specs, options)
    rng = random.Random(3)
    for _ in range(5000):
        runtime.service.play_bots(created.game_id)
        head = runtime.service.head(created.game_id)
        if not head.engine.to_move(head.state):
            break
        move = rng.choice(head.engine.legal_moves(head.state, 0))
        runtime.service.submit_move(created.game_id, 0, move, head.seq)
    assert runtime.service.game(created.game_id).status == "finished"
    page = client.get(f"/play/{created.tokens[0]}").text
    start = page.index('id="turn-heading"')
    panel = page[start : page.index("</section>", start)]
    assert "The game is over." in panel
    assert len(re.findall(r"game (is )?over", panel, re.I)) == 1, panel[:400]
