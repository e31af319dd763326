"""The scale bench's fill: copies of a running game, with their mail and talk, that list,
count, move and serve as real ones; and the commands it times run."""

from __future__ import annotations

from pbem import bench_scale


def _url(db) -> str:
    return db.url.render_as_string(hide_password=False)


def test_the_fill_makes_running_games_with_mail_and_talk_and_every_action_runs(db, tmp_path):
    from sqlmodel import Session, select

    from pbem.mail.models import Mail

    site = bench_scale.setup(db, _url(db), tmp_path, running=12, fresh=2)
    page = site.runtime.service.list_games(limit=200)
    assert page.counts["active"] == 12 and not page.counts.get("finished")
    copies = [row.id for row in page.games if row.id.startswith("scale-")]
    assert len(copies) == 12 - 1 - 4
    copy = copies[0]
    events = site.runtime.service.events(copy)
    assert sum(row["kind"] == "talk" for row in events) >= 3 and len(events) > 10
    with Session(db) as session:
        mails = session.exec(select(Mail.status).where(Mail.game_id == copy)).all()
        assert sorted(set(mails)) == ["failed", "pending", "sent"]
        assert len(mails) == bench_scale.MAILS_PER_GAME
    # A copy is a game like any other: its seed opens under its own id, and it moves.
    seat, move, seq = bench_scale._due_move(site.runtime, copy)
    site.runtime.service.submit_move(copy, seat, move, seq)
    for action, child in bench_scale.actions(site).values():
        if not child:
            action()  # each answers 200 or completes (a refusal raises)
    assert site.runtime.service.head(site.for_moves[1][0]).seq == 1  # the move was made


def test_the_commands_start_and_a_reply_plays_its_move(sqlite_db, tmp_path):
    site = bench_scale.setup(sqlite_db, _url(sqlite_db), tmp_path, running=6, fresh=1)
    timed = bench_scale.actions(site)
    timed["command start"][0]()
    timed["pbem receive"][0]()  # raises unless the reply moved its game
    assert site.runtime.service.head(site.for_replies[0]).seq == 1


def test_the_ratio_line_never_shows_a_miss_as_the_target():
    from pbem.bench import ratio_line

    line = ratio_line("PostgreSQL", [0.2996, 0.29, 0.33], 0.3)
    assert "29.96% (misses the target of 30%)" in line and "29.0% to 33.0%" in line
    assert "30.0% (meets" in ratio_line("PostgreSQL", [0.3, 0.31, 0.29], 0.3)
    assert ": 25.3% (meets the target of 20%)" in ratio_line("SQLite", [0.253], 0.2)
