"""``pbem games``: one page at a time, with counts, filters and the next page's command."""

from __future__ import annotations

import json

import pytest

from tests.pbem.test_cli import pbem


def new_game(database, capsys, target=50, player=None) -> str:
    """A game with ``player`` at seat 0 (it waits for them), or two bots who play it out."""
    options = json.dumps({"target": target})
    first = f"P:{player}@example.org" if player else "bot"
    assert pbem(database, "new", "pig", "--seat", first, "--seat", "bot", "--options", options) == 0
    return capsys.readouterr().out.split("Game ", 1)[1].split(" ", 1)[0]


def listed(output: str) -> list[str]:
    return [line.split()[0] for line in output.splitlines() if " seq " in line]


def test_pbem_games_pages_with_the_next_command(database, capsys):
    ids = [new_game(database, capsys, player=f"p{number}") for number in range(5)]
    assert pbem(database, "games", "--limit", "2") == 0
    out = capsys.readouterr().out
    assert "Games: 5 active, 0 finished." in out
    seen = listed(out)
    assert len(seen) == 2
    while "More: " in out:
        command = out.split("More: pbem ", 1)[1].split()
        assert command[:3] == ["games", "--limit", "2"] and command[3] == "--after"
        new_game(
            database, capsys, player="late"
        )  # a game created between two pages changes nothing
        assert pbem(database, *command) == 0
        out = capsys.readouterr().out
        seen += listed(out)
    assert len(seen) == len(set(seen)) == 5 and set(seen) == set(ids)


def test_pbem_games_filters(database, capsys):
    running = new_game(database, capsys, player="ann")
    finished = new_game(database, capsys)  # the bots play it to its end
    assert pbem(database, "games", "--status", "finished") == 0
    out = capsys.readouterr().out
    assert listed(out) == [finished] and "1 active, 1 finished" in out
    assert pbem(database, "games", "--status", "active", "--game", "pig") == 0
    assert listed(capsys.readouterr().out) == [running]
    assert pbem(database, "games", "--game", "mercatores") == 0
    out = capsys.readouterr().out
    assert listed(out) == [] and "No games yet." in out and "0 active, 0 finished" in out


@pytest.mark.parametrize(
    "args", [("--limit", "0"), ("--limit", "100000"), ("--after", "nonsense"), ("--after", "")]
)
def test_pbem_games_refuses_bad_paging_by_name(database, capsys, args):
    new_game(database, capsys)
    code = pbem(database, "games", *args)
    err = capsys.readouterr().err
    if args == ("--after", ""):  # empty: the first page
        assert code == 0
        return
    assert code == 1 and ("page" in err) and "Traceback" not in err
