"""Bots answer at once on the mail's and the command line's roads: a reply by mail, a
reply of several lines, and ``pbem move`` leave a bot seat due, and it has moved before
the call returns, with no sweep."""

from __future__ import annotations

from pbem.cli import main
from pbem.games.service import SeatSpec
from pbem.mail.dispatch import dispatch
from pbem.mail.inbound.receive import take
from tests.mail.conftest import make_runtime
from tests.mail.inbound_helpers import REPLY, SENDER, reply_to

ANNA = "anna@example.org"


def _game_with_a_bot(db, tmp_path, clock, smtp):
    mail = {"reply_address": REPLY, "sender": SENDER, "quiet_minutes": 0}
    runtime = make_runtime(db, tmp_path, clock, smtp[1], mail=mail)
    specs = [SeatSpec("Anna", ANNA), SeatSpec("Bot", is_bot=True)]
    game = runtime.service.create_game("pig", specs, {"target": 30}).game_id
    dispatch(runtime)
    [turn] = smtp[0].to(ANNA)
    return runtime, game, turn


def _bot_moved(runtime, game: str, after: int) -> None:
    head = runtime.service.head(game)
    assert head.engine.to_move(head.state) == {0}
    rows = runtime.service.events(game, after=after)
    assert rows and all((row["actor"], row["seat"]) == ("bot", 1) for row in rows)


def test_a_reply_by_mail_has_the_bot_answer_before_it_is_taken(db, tmp_path, clock, smtp):
    runtime, game, turn = _game_with_a_bot(db, tmp_path, clock, smtp)
    taken = take(runtime, reply_to(turn, ['{"type": "stop"}'], ANNA))
    assert taken.outcome == "applied", taken
    _bot_moved(runtime, game, 1)


def test_a_reply_of_several_lines_has_the_bot_wait_for_its_last(db, tmp_path, clock, smtp):
    runtime, game, turn = _game_with_a_bot(db, tmp_path, clock, smtp)
    taken = take(runtime, reply_to(turn, ['{"type": "roll"}', '{"type": "stop"}'], ANNA))
    if taken.outcome == "applied":  # the roll kept the turn: both lines are Anna's
        first, second = runtime.service.events(game, after=0)[:2]
        assert (first["seat"], second["seat"]) == (0, 0)
        _bot_moved(runtime, game, 2)
    else:  # a 1 ended the turn: the second line is refused, not played on a later turn
        assert taken.outcome == "partly", taken
        assert runtime.service.events(game, after=0)[0]["seat"] == 0
        assert all(row["seat"] == 1 for row in runtime.service.events(game, after=1))


def test_pbem_move_has_the_bot_answer_before_it_returns(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PBEM_PATHS_VAR", str(tmp_path / "var"))
    database = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    assert (
        main(["--database", database, "new", "pig", "--seat", f"Ann:{ANNA}", "--seat", "bot"]) == 0
    )
    game = capsys.readouterr().out.split("Game ", 1)[1].split(" ", 1)[0]
    assert main(["--database", database, "move", game, "0", '{"type": "stop"}']) == 0
    out = capsys.readouterr().out
    assert "Move accepted as event 1" in out and "Bots made " in out
    assert main(["--database", database, "show", game]) == 0
    from pbem.runtime import build_runtime

    runtime = build_runtime({"database": {"url": database}})
    _bot_moved(runtime, game, 1)
