"""Every registered engine, driven through the service the way the server plays it.

Bots play a whole game through ``submit_move`` on SQLite: every event lands, the game
ends with its seed revealed, the stored chain verifies, and its full export verifies
offline.
"""

from __future__ import annotations

import pytest

from engines import REGISTRY
from pbem.eventlog.verify import verify_export
from pbem.games.service import GameService, SeatSpec

PRODUCTS = sorted(slug for slug in REGISTRY if slug != "pig")


@pytest.mark.parametrize("slug", PRODUCTS)
def test_a_whole_bot_game_through_the_service_verifies(slug, sqlite_db):
    engine = REGISTRY[slug]
    service = GameService(sqlite_db, snapshot_every=25)
    seats = [SeatSpec(f"Bot {i + 1}", is_bot=True) for i in range(engine.min_seats)]
    options = {"turn_limit": 12} if any(o.name == "turn_limit" for o in engine.options) else {}
    created = service.create_game(slug, seats, options)
    service.play_bots(created.game_id, max_moves=20_000)
    game = service.game(created.game_id)
    assert game.status == "finished", f"{slug} did not finish"
    assert game.result["winners"]
    report = service.verify_game(created.game_id)
    assert report.ok, report.summary()
    # Every recorded draw was re-derived (a game without battles may have none at all).
    recorded = sum(len(row["chance"]) for row in service.events(created.game_id))
    assert report.seed_revealed
    assert report.draws_checked == recorded
    exported = service.export_game(created.game_id)
    assert verify_export(exported).ok
    _, mid_state, _ = service.state_at(created.game_id, game.head_seq // 2)
    assert mid_state is not None
