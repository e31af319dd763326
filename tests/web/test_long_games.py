"""A long game costs what a short one does: the score chart of the history page folds
only new events, and exports extend what they built for an earlier head."""

from __future__ import annotations

import json

from pbem.games import portable
from pbem.web import history, timeline
from tests.web.conftest import pig_game
from tests.web.test_audit import applied, play  # noqa: F401 - the fixture is used by name


def test_the_score_chart_folds_only_the_events_after_the_last_view(client, runtime, applied):  # noqa: F811
    service = runtime.service
    service.store.snapshot_every = 5
    game_id = pig_game(runtime, target=10**6).game_id
    play(service, game_id, 30)
    timeline._SERIES_CACHE.clear()
    history.clear_folds()
    applied.clear()
    assert client.get(f"/games/{game_id}/history").status_code == 200
    assert len(applied) >= 30
    play(service, game_id, 2)
    applied.clear()
    page = client.get(f"/games/{game_id}/history")
    assert page.status_code == 200 and "Scores over the game" in page.text
    # Two new events for the chart; the step itself folds from the nearest snapshot.
    assert len(applied) <= 2 + service.store.snapshot_every + 1
    # The history's chart comes from its kept lines; the same as the chart folded afresh.
    game = service.game(game_id)
    with client.application.test_request_context():
        kept = history.score_steps(history.history_entries(game, None, None))
    timeline._SERIES_CACHE.clear()
    engine = service.head(game_id).engine
    with client.application.app_context():
        assert timeline.score_series(game, engine, None) == kept
    assert len(kept) == 33


def test_a_chart_of_a_long_game_is_sampled_to_its_width():
    series = [[float(step), float(step // 2)] for step in range(10_001)]
    drawn = timeline.chart(series)
    points = drawn["lines"][0]["points"].split()
    assert len(points) <= timeline.CHART_POINTS + 1
    assert points[0] == "0.0,160.0" and points[-1] == "600.0,0.0"
    assert drawn["steps"] == 10_000 and drawn["lines"][1]["last"] == 5_000.0


def test_exports_after_a_move_equal_exports_built_from_scratch(
    client,
    runtime,
    applied,  # noqa: F811
    monkeypatch,
):
    monkeypatch.setattr(portable, "CHUNK", 4)
    service = runtime.service
    created = pig_game(runtime, target=10**6)
    game_id, token = created.game_id, created.tokens[1]
    play(service, game_id, 12)
    assert client.get(f"/play/{token}/export.json").status_code == 200
    service.export_text(game_id, full=True)
    play(service, game_id, 3)
    applied.clear()
    seat = client.get(f"/play/{token}/export.json")
    assert len(applied) == 3
    full = json.loads(service.export_text(game_id, full=True))
    portable._KEPT.clear()
    assert seat.status_code == 200 and seat.json == service.export_game(game_id, seat=1)
    assert len(seat.json["events"]) == 17 and "final_view" in seat.json["events"][-1]
    assert seat.json["events"][3]["hash"] == full["events"][3]["hash"]
    assert full == service.export_game(game_id, full=True) and full["game"]["head_seq"] == 15
    assert "seed" in full and full["events"][15]["hash"] == full["game"]["head_hash"]


def test_kept_exports_stay_within_their_bound(runtime, monkeypatch):
    monkeypatch.setattr(portable, "KEPT_CHARS", 4_000)
    portable._KEPT.clear()
    service = runtime.service
    games = [pig_game(runtime, target=10**6).game_id for _ in range(3)]
    for game_id in games:
        play(service, game_id, 6)
        service.export_text(game_id, full=True)
    assert len(portable._KEPT) < 3
    assert sum(kept.size for kept in portable._KEPT.values()) <= 4_000
    assert any(key[:3] == (games[-1], None, 1) for key in portable._KEPT)
