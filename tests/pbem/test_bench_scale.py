"""The scale bench's fill: copies of a finished game that list, count and serve as real ones."""

from __future__ import annotations

from pbem import bench_scale


def test_the_fill_makes_listed_games_and_every_action_runs(db, tmp_path, monkeypatch):
    monkeypatch.setattr(bench_scale, "ACTIVE", 3)
    monkeypatch.setattr(bench_scale, "CHUNK", 2)  # several insert transactions
    site = bench_scale.setup(db, tmp_path, finished=6)
    page = site.runtime.service.list_games(limit=200)
    assert page.counts == {"active": 3, "finished": 6}
    assert len({row.id for row in page.games}) == 9
    assert [row.status for row in page.games[:3]] == ["active"] * 3  # the newest
    copy = next(row.id for row in page.games if row.id.startswith("scale-"))
    assert site.runtime.service.game(copy).status == "finished"
    assert len(site.runtime.service.events(copy)) > 5
    for action in bench_scale.actions(site).values():
        action()  # each answers 200 or completes (a refusal raises)
    assert site.runtime.service.head(site.games[1][0]).seq == 1  # the move was made
