"""Engine versions of the real titles, through the service: a game made on version 1
plays to its end after version 2 ships, ``check-engines`` finds it clean, and
``upgrade-engine`` moves a game only when its log replays identically on version 2."""

from __future__ import annotations

import random

import pytest

from engines import get_engine
from pbem.eventlog.verify import verify_export
from pbem.games.service import GameService, SeatSpec

TITLES = ["mercatores", "mare_balticum"]


def bots(count: int, level: str = "normal") -> list[SeatSpec]:
    return [SeatSpec(f"Bot {i + 1}", is_bot=True, bot_level=level) for i in range(count)]


@pytest.mark.parametrize("slug", TITLES)
def test_a_version_1_game_plays_to_its_end_after_version_2_ships(slug, sqlite_db):
    service = GameService(sqlite_db, snapshot_every=20)
    newest = get_engine(slug)
    assert newest.version == 2 and 1 in newest.versions
    seats = newest.min_seats
    old = service.create_game(slug, bots(seats, "easy"), version=1)
    new = service.create_game(slug, bots(seats))
    assert service.game(old.game_id).engine_version == 1
    assert service.game(new.game_id).engine_version == 2
    assert service.events(old.game_id)[0]["payload"]["engine_version"] == 1
    service.play_bots(old.game_id, max_moves=20)
    # half-way: still version 1, and the replay of its own version is clean
    head = service.head(old.game_id)
    assert head.engine.version == 1 and head.state.rules_version == 1
    assert "rules_version" not in head.engine.dump(head.state)
    report = {entry["game_id"]: entry for entry in service.check_engines()}
    assert report[old.game_id]["ok"] and report[old.game_id]["running"] == 1
    assert report[new.game_id]["ok"] and report[new.game_id]["running"] == 2
    service.play_bots(old.game_id, max_moves=20_000)
    service.play_bots(new.game_id, max_moves=20_000)
    for created in (old, new):
        game = service.game(created.game_id)
        assert game.status == "finished", f"{slug} did not finish"
        assert service.verify_game(created.game_id).ok
        assert verify_export(service.export_game(created.game_id)).ok
    assert service.game(old.game_id).engine_version == 1


def test_mare_balticum_upgrades_a_running_game_whose_log_replays_identically(sqlite_db):
    service = GameService(sqlite_db, snapshot_every=7)
    created = service.create_game("mare_balticum", bots(3), version=1)
    service.play_bots(created.game_id, max_moves=40)
    check = service.upgrade_engine(created.game_id)
    assert check.ok, check.message
    assert service.game(created.game_id).engine_version == 2
    head = service.head(created.game_id)
    assert head.state.rules_version == 2 and head.engine.version == 2
    service.play_bots(created.game_id, max_moves=20_000)
    assert service.game(created.game_id).status == "finished"
    kinds = [row["kind"] for row in service.events(created.game_id)]
    assert kinds.count("engine_upgraded") == 1
    assert service.verify_game(created.game_id).ok
    assert verify_export(service.export_game(created.game_id)).ok
    assert not service.upgrade_engine(created.game_id).ok  # over, and already newest


def mercatores_to_profit(service, game_id, rng):
    """Plays a 2-player Mercatores game with easy bots until a cash-in where version 1
    allows discarding something for nothing while something else pays."""
    engine2 = get_engine("mercatores")
    for _ in range(2000):
        head = service.head(game_id)
        if not head.engine.to_move(head.state):
            break
        seat = min(head.engine.to_move(head.state))
        legal = head.engine.legal_moves(head.state, seat)
        if head.state.step == "cash":
            stricter = engine2.legal_moves(engine2.upgrade_state(head.state), seat)
            extra = [move for move in legal if move not in stricter]
            if extra:
                return head, seat, extra[0]
        move = head.engine.bot_move(head.engine.view(head.state, seat), legal, rng, "easy")
        service.submit_move(game_id, seat, move, head.seq)
    raise AssertionError("no zero-pay cash-in came up")


def test_mercatores_upgrade_refuses_a_log_version_2_would_not_allow(sqlite_db):
    service = GameService(sqlite_db)
    rng = random.Random(3)
    for _attempt in range(20):
        created = service.create_game(
            "mercatores", [SeatSpec("A", "a@x.org"), SeatSpec("B", "b@x.org")], version=1
        )
        # before any cash-in the log replays identically on version 2
        assert service.upgrade_check(created.game_id).ok
        try:
            head, seat, zero = mercatores_to_profit(service, created.game_id, rng)
        except AssertionError:
            continue
        service.submit_move(created.game_id, seat, zero, head.seq)
        events = len(service.events(created.game_id))
        check = service.upgrade_engine(created.game_id)
        assert not check.ok and check.first_bad_seq == head.seq + 1
        assert "only when nothing would pay" in check.message
        assert len(service.events(created.game_id)) == events
        assert service.game(created.game_id).engine_version == 1
        return
    raise AssertionError("no game reached a zero-pay cash-in")


def test_mercatores_upgrade_accepts_a_log_that_replays_identically(sqlite_db):
    service = GameService(sqlite_db, snapshot_every=5)
    created = service.create_game("mercatores", bots(2, "easy"), version=1)
    service.play_bots(created.game_id, max_moves=16)
    check = service.upgrade_engine(created.game_id, to=2)
    assert check.ok, check.message
    head = service.head(created.game_id)
    assert head.state.rules_version == 2 and service.game(created.game_id).engine_version == 2
    service.play_bots(created.game_id, max_moves=20_000)
    assert service.game(created.game_id).status == "finished"
    assert service.verify_game(created.game_id).ok
