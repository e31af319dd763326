"""Mail around a bot at a slow level: it never moves inside the move or the mail's
receipt that made it due, and when it moves later (the server's runner, or the sweep)
the next player gets their "your turn" mail as after any move.

The test fixture's title is given a slow "hard" level whose bot waits for the test's
word, so what happens before it moves is seen, not timed."""

from __future__ import annotations

import threading
import time

import pytest

from pbem import scheduler
from pbem.games.service import SeatSpec
from pbem.mail.dispatch import dispatch
from pbem.mail.inbound.receive import take
from tests.fixture_engine import PIG
from tests.mail.conftest import make_runtime
from tests.mail.inbound_helpers import REPLY, SENDER, reply_to

ANNA, CLEO = "anna@example.org", "cleo@example.org"


@pytest.fixture
def slow_pig(monkeypatch):
    """Pig with a slow "hard" bot that stops once ``release`` is set (and notes where
    it ran)."""
    release = threading.Event()
    threads: list[str] = []

    def bot_move(engine, view, legal, rng, level="normal"):
        if level == "hard":
            threads.append(threading.current_thread().name)
            release.wait(timeout=10)
            return {"type": "stop"}
        return {"type": "stop"} if view["pot"] >= 10 else {"type": "roll"}

    monkeypatch.setattr(type(PIG), "bot_levels", ("easy", "normal", "hard"))
    monkeypatch.setattr(type(PIG), "slow_bot_levels", ("hard",), raising=False)
    monkeypatch.setattr(type(PIG), "bot_move", bot_move)
    yield release, threads
    release.set()


def auto_moves(service, game_id: str) -> list[dict]:
    return [row for row in service.events(game_id) if row["kind"] == "auto_move"]


def wait_for(check, seconds: float = 10.0):
    """Polls ``check`` until it gives something true, or fails after ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.02)
    raise AssertionError(f"not within {seconds} s: {check.__doc__ or check}")


def test_the_next_player_is_mailed_when_the_runner_moves_the_hard_bot(
    db, tmp_path, clock, smtp, slow_pig
):
    release, threads = slow_pig
    mailbox = smtp[0]
    runtime = make_runtime(db, tmp_path, clock, smtp[1], mail={"quiet_minutes": 0})
    specs = [
        SeatSpec("Anna", ANNA),
        SeatSpec("Bot", is_bot=True, bot_level="hard"),
        SeatSpec("Cleo", CLEO),
    ]
    game = runtime.service.create_game("pig", specs, {"target": 30}).game_id
    background = scheduler.start_background(runtime)  # as `pbem serve` runs it
    try:
        outcome = runtime.service.submit_move(game, 0, {"type": "stop"}, 0)
        assert outcome.bot_moves == 0  # the move returned with the bot still to move
        dispatch(runtime)
        assert mailbox.to(CLEO, "your turn") == []
        release.set()
        assert runtime.service.runner.wait_idle(10)
        assert threads == ["pbem-bots"]
        head = runtime.service.head(game)
        assert head.engine.to_move(head.state) == {2}

        def cleo_mailed():
            """Cleo's turn mail"""
            dispatch(runtime)
            return mailbox.to(CLEO, "your turn")

        [mail] = wait_for(cleo_mailed)
        assert "Bot" in mail.get_body(preferencelist=("plain",)).get_content()
    finally:
        scheduler.stop_background(runtime, background)
    assert not runtime.service.runner.running


def test_a_reply_by_mail_leaves_the_hard_bot_to_the_server(db, tmp_path, clock, smtp, slow_pig):
    release, threads = slow_pig
    mailbox = smtp[0]
    mail = {"reply_address": REPLY, "sender": SENDER, "quiet_minutes": 0}
    runtime = make_runtime(db, tmp_path, clock, smtp[1], mail=mail)
    specs = [SeatSpec("Anna", ANNA), SeatSpec("Bot", is_bot=True, bot_level="hard")]
    game = runtime.service.create_game("pig", specs, {"target": 30}).game_id
    dispatch(runtime)
    [turn] = mailbox.to(ANNA)
    taken = take(runtime, reply_to(turn, ['{"type": "stop"}'], ANNA))
    assert taken.outcome == "applied", taken
    assert threads == []  # `pbem receive` has no runner: the bot waits for the server
    head = runtime.service.head(game)
    assert head.engine.to_move(head.state) == {1}
    release.set()
    assert scheduler.sweep(runtime).bot_moves == 1
    dispatch(runtime)
    assert len(mailbox.to(ANNA, "your turn")) == 1  # the second turn: the first was the invitation


def test_a_real_hard_bot_on_the_runner_hands_the_turn_back_by_mail(
    db, tmp_path, clock, smtp, monkeypatch
):
    """Mercatores' own hard bot (on a small budget) against Anna, on a serve-like
    runtime: her move returns before the bot's, and its move mails her the next turn."""
    import random
    from functools import partial

    from engines import bot_move
    from engines.mercatores import bot_hard

    monkeypatch.setattr(
        bot_hard, "choose_move", partial(bot_hard.choose_move, playouts=4, depth=4, count=2)
    )
    mailbox = smtp[0]
    runtime = make_runtime(db, tmp_path, clock, smtp[1], mail={"quiet_minutes": 0})
    specs = [SeatSpec("Anna", ANNA), SeatSpec("Hard", is_bot=True, bot_level="hard")]
    game = runtime.service.create_game("mercatores", specs).game_id
    service, rng = runtime.service, random.Random(3)
    background = scheduler.start_background(runtime)
    try:
        for _ in range(50):  # Anna plays until a move of hers hands the turn to the bot
            dispatch(runtime)
            before = len(mailbox.to(ANNA, "your turn"))
            answered = len(auto_moves(service, game))
            head = service.head(game)
            assert head.engine.to_move(head.state) == {0}
            view, legal = head.engine.view(head.state, 0), head.engine.legal_moves(head.state, 0)
            outcome = service.submit_move(
                game, 0, bot_move(head.engine, view, legal, rng), head.seq
            )
            assert outcome.bot_moves == 0  # never inside her move
            assert service.runner.wait_idle(30)
            if len(auto_moves(service, game)) > answered:
                break
        else:
            raise AssertionError("Anna's moves never handed the turn to the bot")
        head = service.head(game)
        assert head.engine.to_move(head.state) == {0}

        def anna_mailed():
            """Anna's next turn mail"""
            dispatch(runtime)
            return len(mailbox.to(ANNA, "your turn")) > before

        wait_for(anna_mailed)
    finally:
        scheduler.stop_background(runtime, background)
