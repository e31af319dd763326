"""Optimistic concurrency: many writers for one turn, exactly one event lands."""

from __future__ import annotations

import multiprocessing
import threading
import time

import pytest

from pbem.db import make_engine
from pbem.errors import Conflict
from pbem.games.service import GameService, SeatSpec


def race(service, game_id, count):
    """``count`` threads submit different moves for the same turn at once."""
    barrier = threading.Barrier(count)
    outcomes: list[object] = [None] * count

    def submit(index):
        move = {"type": "roll", "dice": index + 1} if index else {"type": "stop"}
        barrier.wait()
        try:
            outcomes[index] = service.submit_move(game_id, 0, move, 0)
        except Conflict as error:
            outcomes[index] = error

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes


def test_twenty_threads_one_turn_one_event(service):
    created = service.create_game("pig", [SeatSpec("A"), SeatSpec("B")])
    outcomes = race(service, created.game_id, 20)
    landed = [o for o in outcomes if not isinstance(o, Conflict)]
    conflicts = [o for o in outcomes if isinstance(o, Conflict)]
    assert len(landed) == 1 and len(conflicts) == 19
    assert all(conflict.fresh_seq == 1 for conflict in conflicts)
    assert [event["seq"] for event in service.events(created.game_id)] == [0, 1]
    assert service.verify_game(created.game_id).ok


def _process_submit(args):
    from engines import REGISTRY
    from tests.fixture_engine import PIG

    REGISTRY.setdefault(PIG.slug, PIG)
    url, connect_args, game_id, index, start_at = args
    db = make_engine(url, connect_args=connect_args, pool_size=1)
    service = GameService(db)
    service.head(game_id)  # connect and warm up before the start line
    time.sleep(max(0.0, start_at - time.time()))
    try:
        service.submit_move(game_id, 0, {"type": "roll", "dice": index + 2}, 0)
        return "landed"
    except Conflict:
        return "conflict"
    finally:
        db.dispose()


@pytest.mark.postgres
def test_four_processes_one_turn_one_event_on_postgres(postgres_schema):
    from tests.databases import reset_postgres

    url, connect_args, schema = postgres_schema
    db = make_engine(url, connect_args=connect_args)
    reset_postgres(db, schema)
    service = GameService(db)
    created = service.create_game("pig", [SeatSpec("A"), SeatSpec("B")])
    context = multiprocessing.get_context("spawn")
    with context.Pool(4) as pool:
        start_at = time.time() + 3
        jobs = [(url, connect_args, created.game_id, i, start_at) for i in range(4)]
        results = pool.map(_process_submit, jobs, chunksize=1)
    assert sorted(results) == ["conflict"] * 3 + ["landed"]
    assert [event["seq"] for event in service.events(created.game_id)] == [0, 1]
    assert service.verify_game(created.game_id).ok
    db.dispose()
