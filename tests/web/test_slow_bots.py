"""Bots at a slow level never move inside the request that made them due: the request
returns, then the process's background runner plays them (or, without one, the sweep).
Two runners playing one game never both land a move. The hard bot of each title moves
this way, on a small budget here so the suite stays quick.

The test fixture's title is given a slow "hard" level whose bot waits for the test's
word before it answers, so "the request returned before the bot moved" is seen, not
timed."""

from __future__ import annotations

import json
import threading
import time

import pytest

from engines import REGISTRY
from pbem import scheduler
from pbem.games.bot_runner import BotRunner
from pbem.games.service import SeatSpec
from tests.conftest import SMALL_HARD_BUDGETS
from tests.fixture_engine import PIG
from tests.web.conftest import csrf_of


class SlowPig:
    """The fixture's "hard" bot: it notes the thread it runs on, then waits for
    ``release`` (or, when a barrier is set, for the other runner) and stops."""

    def __init__(self):
        self.release = threading.Event()
        self.threads: list[threading.Thread] = []
        self.barrier: threading.Barrier | None = None

    def __call__(self, engine, view, legal, rng, level="normal"):
        if level == "hard":
            self.threads.append(threading.current_thread())
            if self.barrier is not None:
                self.barrier.wait(timeout=10)
            else:
                self.release.wait(timeout=10)
            return {"type": "stop"}
        return {"type": "stop"} if view["pot"] >= 10 else {"type": "roll"}


@pytest.fixture
def slow_pig(monkeypatch):
    bot = SlowPig()
    monkeypatch.setattr(type(PIG), "bot_levels", ("easy", "normal", "hard"))
    monkeypatch.setattr(type(PIG), "slow_bot_levels", ("hard",), raising=False)
    monkeypatch.setattr(type(PIG), "bot_move", unbound(bot))
    yield bot
    bot.release.set()


def unbound(bot):
    """The fixture's bot as a method of the engine (self is the engine)."""
    return lambda engine, view, legal, rng, level="normal": bot(engine, view, legal, rng, level)


@pytest.fixture
def runner(runtime):
    runner = scheduler.start_runner(runtime)
    yield runner
    runner.stop()
    runtime.service.runner = None


def hard_pig(runtime, seats=("P0", "hard")):
    specs = [
        SeatSpec("Bot", is_bot=True, bot_level="hard")
        if name == "hard"
        else SeatSpec(name, f"{name.lower()}@example.org")
        for name in seats
    ]
    return runtime.service.create_game("pig", specs, {"target": 50})


def auto_moves(runtime, game_id):
    return [row for row in runtime.service.events(game_id) if row["kind"] == "auto_move"]


def bot_due(runtime, game_id, seat=1):
    head = runtime.service.head(game_id)
    return seat in head.engine.to_move(head.state)


def test_a_hard_bot_moves_after_the_request_not_inside_it(client, runtime, runner, slow_pig):
    bot = slow_pig
    created = hard_pig(runtime)
    token = created.tokens[0]
    page = client.get(f"/play/{token}").text
    data = {"csrf_token": csrf_of(page), "seq": "0", "move": json.dumps({"type": "stop"})}
    answer = client.post(f"/play/{token}/move", data={**data, "confirmed": "1"})
    try:
        assert answer.status_code in (302, 303)
        # The request is over and the bot has not moved: it thinks on the runner's thread.
        assert bot_due(runtime, created.game_id) and auto_moves(runtime, created.game_id) == []
        waiting = client.get(f"/play/{token}").text
        assert "Waiting for Bot (a hard bot)." in waiting
        assert "Bot is thinking" in waiting
        assert client.get(f"/play/{token}/head").get_json()["due"] is False
    finally:
        bot.release.set()
    assert runner.wait_idle(10)
    assert bot.threads and all(thread is not threading.current_thread() for thread in bot.threads)
    assert bot.threads[0].name == "pbem-bots"
    assert [row["seat"] for row in auto_moves(runtime, created.game_id)] == [1]
    assert client.get(f"/play/{token}/head").get_json()["due"] is True  # what the page polls
    later = client.get(f"/play/{token}").text
    assert "It is your turn." in later and "is thinking" not in later


def test_a_quick_bot_still_moves_inside_the_request(client, runtime, runner, slow_pig):
    created = runtime.service.create_game(
        "pig", [SeatSpec("P0", "p0@example.org"), SeatSpec("Bot", is_bot=True)], {"target": 50}
    )
    outcome = runtime.service.submit_move(created.game_id, 0, {"type": "stop"}, 0)
    assert outcome.bot_moves > 0 and not bot_due(runtime, created.game_id)
    assert slow_pig.threads == []


def test_without_a_runner_the_sweep_plays_a_slow_bot(runtime, slow_pig):
    slow_pig.release.set()
    created = hard_pig(runtime)
    outcome = runtime.service.submit_move(created.game_id, 0, {"type": "stop"}, 0)
    assert outcome.bot_moves == 0 and bot_due(runtime, created.game_id)
    assert slow_pig.threads == []  # not even started: nobody plays it inside the move
    assert scheduler.sweep(runtime).bot_moves == 1
    assert not bot_due(runtime, created.game_id) and len(auto_moves(runtime, created.game_id)) == 1


def test_with_a_runner_the_sweep_hands_a_slow_bot_over(runtime, runner, slow_pig):
    runtime.service.runner = None  # the move made it due where no runner ran
    created = hard_pig(runtime)
    runtime.service.submit_move(created.game_id, 0, {"type": "stop"}, 0)
    assert bot_due(runtime, created.game_id)
    runtime.service.runner = runner
    assert scheduler.sweep(runtime).bot_moves == 0  # not in the sweep's own thread
    slow_pig.release.set()
    assert runner.wait_idle(10)
    assert [thread.name for thread in slow_pig.threads] == ["pbem-bots"]
    assert len(auto_moves(runtime, created.game_id)) == 1


def test_two_runners_never_both_land_a_move(runtime, slow_pig):
    created = hard_pig(runtime)
    runtime.service.submit_move(created.game_id, 0, {"type": "stop"}, 0)
    # Both runners read the same head and compute the bot's move before either writes.
    slow_pig.barrier = threading.Barrier(2)
    first = BotRunner(runtime.service, name="first").start()
    second = BotRunner(runtime.service, name="second").start()
    try:
        assert first.submit(created.game_id) and second.submit(created.game_id)
        assert first.wait_idle(10) and second.wait_idle(10)
    finally:
        first.stop()
        second.stop()
    assert sorted(thread.name for thread in slow_pig.threads) == ["first", "second"]
    assert [row["seat"] for row in auto_moves(runtime, created.game_id)] == [1]
    assert not bot_due(runtime, created.game_id)
    assert runtime.service.verify_game(created.game_id).ok


def test_a_game_waiting_already_is_not_queued_twice(runtime, slow_pig):
    runner = BotRunner(runtime.service).start()
    try:
        created = hard_pig(runtime)
        runtime.service.submit_move(created.game_id, 0, {"type": "stop"}, 0)
        assert runner.submit(created.game_id)
        deadline = time.monotonic() + 5
        while not slow_pig.threads and time.monotonic() < deadline:
            time.sleep(0.01)
        # It is being played: one more turn may queue behind it, but only one.
        assert runner.has(created.game_id)
        assert runner.submit(created.game_id) and not runner.submit(created.game_id)
        slow_pig.release.set()
        assert runner.wait_idle(10)
    finally:
        runner.stop()
    assert len(auto_moves(runtime, created.game_id)) == 1
    assert not runner.running and not runner.submit(created.game_id)


def test_a_failing_slow_bot_is_logged_and_taken_again_only_later(
    runtime, runner, slow_pig, monkeypatch, caplog
):
    from pbem.games import bot_runner

    def broken(engine, view, legal, rng, level="normal"):
        raise RuntimeError("the search broke")

    monkeypatch.setattr(bot_runner, "RETRY_AFTER", 0.5)
    monkeypatch.setattr(type(PIG), "bot_move", broken)
    created = hard_pig(runtime)
    runtime.service.submit_move(created.game_id, 0, {"type": "stop"}, 0)
    assert runner.wait_idle(10)
    assert "the search broke" in caplog.text and bot_due(runtime, created.game_id)
    assert runner.running and not runner.submit(created.game_id)  # not at once
    assert scheduler.sweep(runtime).bot_moves == 0  # nor by the sweep's hand
    slow_pig.release.set()
    monkeypatch.setattr(type(PIG), "bot_move", unbound(slow_pig))
    deadline = time.monotonic() + 5
    while not runner.submit(created.game_id):
        assert time.monotonic() < deadline, "the game was never taken again"
        time.sleep(0.05)
    assert runner.wait_idle(10) and not bot_due(runtime, created.game_id)


@pytest.mark.parametrize("slug", sorted(SMALL_HARD_BUDGETS))
def test_each_titles_hard_bot_moves_on_the_runner(runtime, runner, small_hard_bots, slug):
    engine = REGISTRY[slug]
    seats = [SeatSpec("Ann", "ann@example.org")] + [
        SeatSpec(f"Hard {number}", is_bot=True, bot_level="hard")
        for number in range(1, engine.min_seats if engine.min_seats > 2 else 2)
    ]
    created = runtime.service.create_game(slug, seats)
    service = runtime.service
    service.bots_now(created.game_id)  # as the lobby does: the runner plays the first
    assert runner.wait_idle(60)
    for _ in range(3):  # Ann moves; each time the hard bots answer on the runner
        head = service.head(created.game_id)
        if 0 not in head.engine.to_move(head.state):
            break
        move = head.engine.legal_moves(head.state, 0)[0]
        outcome = service.submit_move(created.game_id, 0, move, head.seq)
        assert outcome.bot_moves == 0  # never inside the move
        assert runner.wait_idle(60)
    moved = [row for row in service.events(created.game_id) if row["kind"] == "auto_move"]
    assert moved and {row["seat"] for row in moved} <= set(range(1, len(seats)))
    head = service.head(created.game_id)
    due = head.engine.to_move(head.state)
    assert head.game.status != "active" or 0 in due  # no hard bot left waiting
