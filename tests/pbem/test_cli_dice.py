"""`pbem new` in two steps: the seed's commitment is shown before the creator's
contribution to the dice is read; `pbem verify` says whose contributions covered which
events, and names a changed one."""

from __future__ import annotations

import io
import json
import re

from sqlmodel import select

from pbem.cli import main
from pbem.games.service import GameService
from pbem.models import PendingGame


def pbem(database, *args):
    return main(["--database", database, *args])


def service_of(database) -> GameService:
    """The service as the command builds it (with the server's key, so it opens seeds)."""
    from pbem.runtime import build_runtime

    return build_runtime({"database": {"url": database}}).service


class Stdin(io.StringIO):
    """A stdin whose line is read only after what was printed so far is kept."""

    def __init__(self, text: str, capsys):
        super().__init__(text)
        self.capsys = capsys
        self.shown_before = None

    def readline(self, *args):
        self.shown_before = self.capsys.readouterr().out
        return super().readline(*args)

    def isatty(self):
        return False


def test_the_commitment_is_shown_before_the_contribution_is_read(database, capsys, monkeypatch):
    stdin = Stdin("my own lucky words\n", capsys)
    monkeypatch.setattr("sys.stdin", stdin)
    args = ["new", "pig", "--seat", "Ann:ann@example.org", "--seat", "bot"]
    assert pbem(database, *args, "--contribution", "-") == 0
    shown = re.search(r"commitment \(sha256\) is ([0-9a-f]{64})", stdin.shown_before)[1]
    (game,) = service_of(database).games()
    assert game.commitment == shown
    (given,) = service_of(database).events(game.id)[0]["payload"]["contributions"]
    assert given["by"] == "command line" and given["contribution"] == "my own lucky words"


def test_the_server_draws_when_asked_or_when_stdin_is_no_terminal(database, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", Stdin("", capsys))
    args = ["new", "pig", "--seat", "Ann:ann@example.org", "--seat", "bot"]
    assert pbem(database, *args, "--let-server-draw") == 0
    assert pbem(database, *args) == 0
    assert "the server draws it" in capsys.readouterr().out
    service = service_of(database)
    for game in service.games():
        (given,) = service.events(game.id)[0]["payload"]["contributions"]
        assert given["by"] == "server" and given["role"] == "creator"


def test_a_contribution_typed_on_the_command_line_is_refused(database, capsys, monkeypatch):
    """Typed as an argument, it was chosen before the commitment was shown."""
    monkeypatch.setattr("sys.stdin", Stdin("", capsys))
    args = ["new", "pig", "--seat", "Ann:ann@example.org", "--contribution", "chosen"]
    assert pbem(database, *args) == 1
    assert "read after the commitment is shown" in capsys.readouterr().err
    service = service_of(database)
    assert service.games() == []
    with service.reading() as session:
        assert session.exec(select(PendingGame)).all() == []  # the first step is dropped too


def test_verify_says_whose_contributions_covered_which_events_and_names_a_changed_one(
    database, capsys, monkeypatch, tmp_path
):
    monkeypatch.setattr("sys.stdin", Stdin("Ann at the keyboard\n", capsys))
    args = ["new", "pig", "--seat", "Ann:ann@example.org", "--seat", "Ben:ben@example.org"]
    assert pbem(database, *args, "--options", '{"target": 8}', "--contribution", "-") == 0
    service = service_of(database)
    (game,) = service.games()
    service.contribute(game.id, 1, "Ben by mail", "server")
    for _ in range(400):
        game = service.game(game.id)
        if game.status != "active":
            break
        view = service.view(game.id, None)
        move = {"type": "stop"} if view["pot"] >= 6 else {"type": "roll"}
        service.submit_move(game.id, view["to_move"][0], move, game.head_seq)
    path = tmp_path / "game.json"
    assert pbem(database, "export", game.id, "-o", str(path)) == 0
    capsys.readouterr()
    assert pbem(database, "verify", str(path)) == 0
    out = capsys.readouterr().out
    assert "draws of events 0-1: creator Ann, seat 1 (command line)" in out
    assert "Ben, seat 2 (server-drawn for a mail-only player)" in out
    data = json.loads(path.read_text())
    (at,) = [row["seq"] for row in data["events"] if row["kind"] == "contribution"]
    data["events"][at]["payload"]["contribution"] = "Ben, edited"
    path.write_text(json.dumps(data))
    assert pbem(database, "verify", str(path)) == 1
    out = capsys.readouterr()
    said = out.out + out.err
    assert f"FAILED at event {at}" in said and "contribution of Ben, seat 2" in said
