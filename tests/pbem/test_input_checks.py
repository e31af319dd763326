"""Titles, names and addresses from the shell and from imported files: what would break a
mail header is refused with a sentence, and nothing is created."""

from __future__ import annotations

import json

import pytest

from pbem.cli import main
from pbem.errors import BadInput
from pbem.validate import clean_email, clean_name, clean_title


@pytest.fixture
def database(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_PATHS_VAR", str(tmp_path / "var"))
    monkeypatch.setenv("PBEM_SECURITY_SECRET_KEY", "cli-key")
    return f"sqlite:///{tmp_path / 'cli.sqlite3'}"


def pbem(database, *args):
    return main(["--database", database, *args])


@pytest.mark.parametrize(
    ("seat", "sentence"),
    [
        ("Ann:ann@example.org\r\nBcc: all@evil.example", "line breaks"),
        ("Ann:ann@example.org,all@evil.example", "exactly one email address"),
        ("Ann:ann@example.org all@evil.example", "exactly one email address"),
        ("An\nn:ann@example.org", "name may not contain line breaks"),
        ("ann@example.org", "NAME:EMAIL"),
        ("Ann:", "email address may not be empty"),
    ],
)
def test_pbem_new_refuses_a_seat_that_would_break_a_mail(database, capsys, seat, sentence):
    assert pbem(database, "new", "pig", "--seat", seat, "--seat", "bot") == 1
    err = capsys.readouterr().err
    assert sentence in err and "Seat 1" in err
    assert pbem(database, "games") == 0
    assert "No games yet." in capsys.readouterr().out


def test_pbem_new_refuses_a_title_with_a_line_break(database, capsys):
    args = ["new", "pig", "--seat", "Ann:ann@example.org", "--seat", "bot"]
    assert pbem(database, *args, "--title", "Hi\r\nBcc: all@evil.example") == 1
    assert "title may not contain line breaks" in capsys.readouterr().err
    assert pbem(database, *args, "--title", "Tuesday") == 0
    assert "seat 0 Ann: http" in capsys.readouterr().out


def test_pbem_new_keeps_a_name_with_a_colon(database, capsys):
    assert (
        pbem(database, "new", "pig", "--seat", "Ann: the first:ann@example.org", "--seat", "bot")
        == 0
    )
    assert "seat 0 Ann: the first: http" in capsys.readouterr().out


def exported(database, capsys, tmp_path) -> dict:
    assert pbem(database, "new", "pig", "--seat", "Ann:ann@example.org", "--seat", "bot") == 0
    game_id = capsys.readouterr().out.split("Game ", 1)[1].split(" ", 1)[0]
    path = tmp_path / "game.json"
    assert pbem(database, "export", game_id, "--full", "-o", str(path)) == 0
    capsys.readouterr()
    return json.loads(path.read_text())


@pytest.mark.parametrize(
    "names", [["Ann\r\nBcc: all@evil.example", "Bot"], ["A" * 500, "Bot"], "Ann", [["Ann"], "B"]]
)
def test_import_refuses_seat_names_that_would_break_a_mail(database, capsys, tmp_path, names):
    data = exported(database, capsys, tmp_path)
    data["game"]["seat_names"] = names
    path = tmp_path / "poison.json"
    path.write_text(json.dumps(data))
    other = f"sqlite:///{tmp_path / 'other.sqlite3'}"
    assert pbem(other, "import", str(path)) == 1
    assert "name" in capsys.readouterr().err
    assert pbem(other, "games") == 0
    assert "No games yet." in capsys.readouterr().out


def test_the_checks_themselves():
    assert clean_title("  Tuesday   game ") == "Tuesday game"
    assert clean_name("Ann") == "Ann"
    assert clean_email("ann@EXAMPLE.org") == "ann@example.org"
    for bad in ("a\u2028b", "a\x00b", "a\x1bb", "a\u200eb"):
        with pytest.raises(BadInput):
            clean_title(bad)
    for bad in ("a@x.org,b@y.org", "a@x.org;b@y.org", "<a@x.org>", "", None, 5):
        with pytest.raises(BadInput):
            clean_email(bad)
