"""The SQLite writers' queue: one writer at a time per process, in arrival order."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from pbem.db import WriterQueue, for_reads, make_engine, queue_of
from pbem.games.service import GameService, SeatSpec
from tests.databases import sqlite_engine


def _until(condition) -> None:
    deadline = time.monotonic() + 5
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.0005)


def _take_in_order(queue: WriterQueue, count: int, hold: float) -> list[int]:
    """``count`` threads join the line one after another while the first holds the lock
    for a while; the order in which they got it."""
    got: list[int] = []
    queue.acquire()  # the long holder: everyone else joins the line behind it

    def writer(number):
        queue.acquire()
        got.append(number)
        time.sleep(0.001)
        queue.release()

    threads = []
    for number in range(count):
        thread = threading.Thread(target=writer, args=(number,))
        thread.start()
        threads.append(thread)
        _until(lambda number=number: queue.waiting() == number + 1)  # in line before the next
    time.sleep(hold)
    queue.release()
    for thread in threads:
        thread.join(10)
    return got


def test_writers_get_the_lock_in_arrival_order():
    assert _take_in_order(WriterQueue(), 20, hold=0.05) == list(range(20))


def test_a_long_holder_lets_no_later_arrival_overtake():
    queue = WriterQueue()
    got: list[str] = []
    queue.acquire()
    first = threading.Thread(target=lambda: (queue.acquire(), got.append("first"), queue.release()))
    first.start()
    _until(lambda: queue.waiting() == 1)
    # Latecomers keep arriving (and leaving) while the holder works: none goes first.
    stop = time.monotonic() + 0.2
    later = []
    while time.monotonic() < stop:
        thread = threading.Thread(
            target=lambda: (queue.acquire(), got.append("later"), queue.release())
        )
        thread.start()
        later.append(thread)
        time.sleep(0.01)
    assert got == []
    queue.release()
    for thread in [first, *later]:
        thread.join(10)
    assert got[0] == "first" and len(got) == 1 + len(later)


def test_a_writer_that_waits_too_long_leaves_the_line_and_the_next_one_goes():
    queue = WriterQueue(timeout=0.05)
    queue.acquire()
    queue.acquire()  # the holder's thread passes again (a write begun inside another)
    queue.release()
    impatient_error: list[Exception] = []
    results: list[str] = []

    def impatient():
        try:
            queue.acquire()
        except sqlite3.OperationalError as error:
            impatient_error.append(error)

    def patient():
        queue.acquire(timeout=10)
        results.append("patient")
        queue.release()

    first = threading.Thread(target=impatient)
    first.start()
    _until(lambda: queue.waiting() == 1)
    second = threading.Thread(target=patient)
    second.start()
    first.join(5)
    assert [str(error) for error in impatient_error] == ["database is locked"]
    assert queue.waiting() == 1 and results == []  # still held: the patient one waits
    queue.release()
    second.join(5)
    assert results == ["patient"] and queue.waiting() == 0


def test_a_write_transaction_holds_the_files_queue_until_it_ends(tmp_path):
    path = tmp_path / "queue.sqlite3"
    db = make_engine(f"sqlite:///{path}")
    queue = queue_of(str(path))
    entered = threading.Event()

    def other_writer():
        with db.begin() as connection:
            entered.set()
            connection.execute(text("SELECT 1"))

    with db.begin() as connection:
        connection.execute(text("CREATE TABLE t (x INTEGER)"))
        thread = threading.Thread(target=other_writer)
        thread.start()
        _until(lambda: queue.waiting() == 1)
        # A reader does not queue.
        with for_reads(db).connect() as reader:
            assert reader.execute(text("SELECT 1")).scalar() == 1
        assert not entered.wait(0.05)
    assert entered.wait(5)
    thread.join(5)
    # A write that fails rolls back and leaves the line too.
    with pytest.raises(OperationalError, match="no such table"), db.begin() as connection:
        connection.execute(text("INSERT INTO missing VALUES (1)"))
    with db.begin() as connection:
        connection.execute(text("INSERT INTO t VALUES (1)"))
    assert queue.waiting() == 0 and queue._holder is None
    db.dispose()


def test_twenty_threads_moving_in_twenty_games_on_one_file(tmp_path):
    db = sqlite_engine(tmp_path / "crowd.sqlite3")
    service = GameService(db)
    games = [service.create_game("pig", [SeatSpec("A"), SeatSpec("B")]).game_id for _ in range(20)]
    barrier = threading.Barrier(20)
    errors: list[BaseException] = []

    def player(game_id):
        barrier.wait()
        try:
            for seq in range(5):  # "stop" passes the turn: seats 0, 1, 0, 1, 0
                service.submit_move(game_id, seq % 2, {"type": "stop"}, seq)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=player, args=(game_id,)) for game_id in games]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    for game_id in games:
        assert [event["seq"] for event in service.events(game_id)] == list(range(6))
    db.dispose()


def test_the_queue_can_be_turned_off(tmp_path):
    path = tmp_path / "off.sqlite3"
    db = make_engine(f"sqlite:///{path}", writer_queue=False)
    with db.begin() as connection:
        connection.execute(text("CREATE TABLE t (x INTEGER)"))
        assert queue_of(str(path))._holder is None
    on = make_engine(f"sqlite:///{path}")
    with on.begin() as connection:
        connection.execute(text("INSERT INTO t VALUES (1)"))
        assert queue_of(str(path))._holder is not None
    assert queue_of(str(path))._holder is None
    db.dispose()
    on.dispose()
