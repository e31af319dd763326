"""The first run: a demo game of each title, bots in every seat but the first."""

from __future__ import annotations

from engines import REGISTRY
from pbem.demo import ensure_demo
from pbem.web import create_app


def test_demo_games_are_set_up_once_and_their_links_open_a_waiting_turn(sqlite_runtime):
    runtime = sqlite_runtime
    links = ensure_demo(runtime)
    # Every title its engine does not hide (test engines registered by other tests, the
    # Pig fixture among them, say ``listed = False`` or are listed like any title).
    titles = sorted(engine.title for engine in REGISTRY.values() if getattr(engine, "listed", True))
    assert sorted(title for title, _ in links) == titles
    games = runtime.service.games()
    assert len(games) == len(titles)
    for game in games:
        seats = runtime.service.seats(game.id)
        assert [seat.is_bot for seat in seats] == [False] + [True] * (len(seats) - 1)
        assert game.to_move == [0] or game.status == "finished" or 0 in game.to_move
    again = ensure_demo(runtime)
    assert len(runtime.service.games()) == len(titles)
    client = create_app(runtime=runtime).test_client()
    for _, link in again:
        page = client.get(link.replace("http://localhost", ""))
        assert page.status_code == 200 and "It is your turn" in page.text
