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


def test_the_ratio_line_never_shows_a_miss_as_the_target():
    from pbem.bench import ratio_line

    line = ratio_line("PostgreSQL", [0.2996, 0.29, 0.33], 0.3)
    assert "29.96% (misses the target of 30%)" in line and "29.0% to 33.0%" in line
    assert "30.0% (meets" in ratio_line("PostgreSQL", [0.3, 0.31, 0.29], 0.3)
    assert ": 25.3% (meets the target of 20%)" in ratio_line("SQLite", [0.253], 0.2)
