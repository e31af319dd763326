"""``pbem new`` with open seats: the game is listed for strangers, not made yet."""

from __future__ import annotations

import re

from pbem.cli import main
from pbem.db import make_engine
from pbem.games import open_games
from pbem.runtime import build_runtime


def test_new_with_an_open_seat_lists_the_game_and_prints_the_creator_s_page(
    database, capsys, tmp_path
):
    args = ["--database", database, "new", "pig", "--seat", "Ann:ann@example.org"]
    assert main([*args, "--seat", "open", "--seat", "bot", "--options", '{"target": 20}']) == 0
    out = capsys.readouterr().out
    game_id = re.search(r"/open/([a-z0-9]{10})\n", out).group(1)
    token = re.search(r"/open/manage/([A-Za-z0-9_-]{20,})", out).group(1)
    runtime = build_runtime(
        {"paths": {"var": str(tmp_path / "var")}}, db=make_engine(database), create_schema=False
    )
    (listed,) = open_games.list_open(runtime)
    assert listed.id == game_id and listed.seats_left == 1
    assert [seat.kind for seat in listed.seats] == ["person", "open", "bot"]
    assert open_games.creator_game(runtime, token).game.id == game_id
    # Nothing is played before the seats are taken.
    assert runtime.service.games() == []


def test_a_seat_that_is_neither_an_address_nor_a_word_is_refused(database, capsys):
    status = main(["--database", database, "new", "pig", "--seat", "A:a@x.org", "--seat", "opn"])
    assert status != 0
    assert "open" in capsys.readouterr().err
