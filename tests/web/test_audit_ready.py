"""Audits that are ready: the worker verifies every game's new events from the audit
queue (kept by triggers on ``games``), so a game's first audit view is complete, and
finding the work reads the queue alone."""

from __future__ import annotations

import logging

from sqlalchemy import text

from pbem.eventlog import audit
from pbem.eventlog.audit import audit_game, catch_up, listed_query
from pbem.games.service import GameService, SeatSpec
from tests.databases import sqlite_engine
from tests.web.conftest import pig_game
from tests.web.test_audit import applied, mark_of, play  # noqa: F401 - the fixture by name


def listed(service) -> set[str]:
    with service.session() as session:
        return set(session.exec(text("SELECT game_id FROM audit_queue")).scalars())


def test_the_worker_catches_up_a_long_game_so_its_first_view_is_complete(
    client, runtime, monkeypatch
):
    """A log longer than a view's budget: the worker's stretches reach its head (however
    long ago the game last moved), and the first view replays nothing."""
    from pbem.web import games as pages

    monkeypatch.setattr(pages, "VIEW_BUDGET", 8)
    service = runtime.service
    game_id = pig_game(runtime, target=10**6).game_id
    play(service, game_id, 40)  # events 0 to 40
    assert listed(service) == {game_id}
    assert catch_up(service, stretch=8) == 1
    assert mark_of(service, game_id).seq == 40 and listed(service) == set()
    page = client.get(f"/games/{game_id}/audit")
    assert page.status_code == 200 and "41 events verified" in page.text
    assert "0 new events replayed" in page.text and "Still to check" not in page.text


def test_the_worker_goes_on_where_it_stopped(runtime):
    """Out of time in the middle of a long log, the next pass begins with that game."""
    service = runtime.service
    first, second = sorted(pig_game(runtime, target=10**6).game_id for _ in range(2))
    play(service, first, 30)
    play(service, second, 3)
    assert catch_up(service, seconds=0, stretch=8) == 1  # one stretch of the first game
    assert mark_of(service, first).seq == 7 and mark_of(service, second) is None
    assert listed(service) == {first, second}
    assert catch_up(service, seconds=0, stretch=8) == 1
    assert mark_of(service, first).seq == 15
    assert catch_up(service, seconds=60, stretch=8) == 2
    assert mark_of(service, first).seq == 30 and mark_of(service, second).seq == 3
    assert listed(service) == set()


def test_an_imported_long_game_is_caught_up(client, runtime, tmp_path, monkeypatch):
    from pbem.web import games as pages

    monkeypatch.setattr(pages, "VIEW_BUDGET", 8)
    source_db = sqlite_engine(tmp_path / "source.sqlite3")
    source = GameService(source_db)
    created = source.create_game("pig", [SeatSpec("A"), SeatSpec("B")], {"target": 10**6})
    play(source, created.game_id, 30)
    exported = source.export_game(created.game_id, full=True)
    source_db.dispose()
    service = runtime.service
    game_id = service.import_game(exported)
    assert game_id in listed(service) and mark_of(service, game_id) is None
    assert catch_up(service, stretch=8) == 1
    assert mark_of(service, game_id).seq == 30 and listed(service) == set()
    page = client.get(f"/games/{game_id}/audit")
    assert "31 events verified" in page.text and "Still to check" not in page.text


def test_a_finished_game_gets_its_whole_replay(client, runtime, applied):  # noqa: F811
    """A mark kept before the end (a view's, on its budget) is not enough for the worker:
    the ended game is replayed whole once, in one go, and leaves the queue."""
    service = runtime.service
    game_id = pig_game(runtime, target=30, bots=(0, 1)).game_id
    service.play_bots(game_id)
    game = service.game(game_id)
    assert game.status == "finished" and game.head_seq > 8
    assert audit_game(service, game_id, budget=4).partial
    assert game_id in listed(service)
    applied.clear()
    assert catch_up(service, stretch=4) == 1
    mark = mark_of(service, game_id)
    assert mark.whole_at_end and mark.seq == game.head_seq and listed(service) == set()
    moves = len(applied)
    assert moves > 4  # the whole log, not one stretch past the view's mark
    applied.clear()
    page = client.get(f"/games/{game_id}/audit")
    assert "0 new events replayed" in page.text and "Revealed seed" in page.text
    assert applied == []


def test_a_tampered_log_is_caught_and_the_worker_leaves_it_to_the_views(client, runtime, caplog):
    service = runtime.service
    game_id = pig_game(runtime, target=10**6).game_id
    play(service, game_id, 10)
    assert catch_up(service) == 1
    with service.db.begin() as connection:
        connection.execute(
            text("UPDATE events SET actor = 'x' WHERE game_id = :id AND seq = 4"),
            {"id": game_id},
        )
    play(service, game_id, 1)  # listed again
    assert game_id in listed(service)
    with caplog.at_level(logging.WARNING, logger="pbem.eventlog.audit"):
        assert catch_up(service) == 1
    assert f"audit of {game_id} fails" in caplog.text
    # Off the queue until its next event (a failing log is replayed whole by every view,
    # not by every sweep), and the mark stays where the log last verified.
    assert listed(service) == set() and mark_of(service, game_id).seq == 10
    page = client.get(f"/games/{game_id}/audit")
    assert "FAILED at event 4" in page.text


def test_a_move_during_the_check_keeps_the_game_listed(runtime, monkeypatch):
    """The game leaves the queue only if its head is still the event the check reached."""
    service = runtime.service
    game_id = pig_game(runtime, target=10**6).game_id
    play(service, game_id, 3)
    keep = audit._keep

    def move_first(*args, **kwargs):
        monkeypatch.setattr(audit, "_keep", keep)
        play(service, game_id, 1)
        return keep(*args, **kwargs)

    monkeypatch.setattr(audit, "_keep", move_first)
    assert catch_up(service) == 1
    assert mark_of(service, game_id).seq == 3 and listed(service) == {game_id}
    assert catch_up(service) == 1
    assert mark_of(service, game_id).seq == 4 and listed(service) == set()


def test_the_triggers_list_a_game_at_every_new_event_only(runtime):
    service = runtime.service
    game_id = pig_game(runtime, target=10**6).game_id
    assert listed(service) == {game_id}  # a new game: its first event
    catch_up(service)
    assert listed(service) == set()
    with service.db.begin() as connection:
        connection.execute(text("UPDATE games SET title = 'x' WHERE id = :id"), {"id": game_id})
    assert listed(service) == set()  # no new event, nothing to verify
    play(service, game_id, 2)
    assert listed(service) == {game_id}


def test_the_catch_up_query_reads_the_queue_s_key_alone(runtime):
    """Whatever the number of games, the worker's query reads the queue's primary key
    (the listed games), never the games: the plan on both databases."""
    service = runtime.service
    pig_game(runtime, target=10**6)
    db = service.db
    with db.begin() as connection:
        connection.execute(
            text("INSERT INTO audit_queue (game_id) VALUES (:id)"),
            [{"id": f"g{number:05d}"} for number in range(2_000)],
        )
        connection.execute(
            text("ANALYZE audit_queue" if db.dialect.name != "sqlite" else "ANALYZE")
        )
    for query in (
        listed_query(),
        listed_query("g01000", None),
        listed_query(None, "g00500", "g00100"),
    ):
        sql = str(query.compile(db, compile_kwargs={"literal_binds": True}))
        with db.connect() as connection:
            if db.dialect.name == "sqlite":
                plan = " ".join(
                    row[-1] for row in connection.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}")
                )
                assert "audit_queue USING COVERING INDEX sqlite_autoindex_audit_queue_1" in plan
                assert "TEMP B-TREE" not in plan  # read in the key's order, no sort
            else:
                plan = "\n".join(row[0] for row in connection.exec_driver_sql(f"EXPLAIN {sql}"))
                assert "Index Only Scan using audit_queue_pkey on audit_queue" in plan
                assert "Sort" not in plan
        assert "games" not in plan.replace("audit_queue", ""), plan


def test_a_view_resumes_from_the_roster_kept_with_the_mark(runtime, monkeypatch):
    """The mark keeps the roster at its event, so a view reads none of the roster's events
    from the log; a mark kept without one (before it was kept) still resumes."""
    from pbem.eventlog.roster_log import rosters

    service = runtime.service
    game_id = pig_game(runtime, target=10**6).game_id
    play(service, game_id, 5)
    catch_up(service)
    with service.session() as session:
        head = rosters(session, service.store.game(session, game_id)).head
    assert mark_of(service, game_id).roster == head.to_json()
    play(service, game_id, 2)

    def unread(*args, **kwargs):
        raise AssertionError("the roster's events were read")

    with monkeypatch.context() as patched:
        patched.setattr(audit, "rosters", unread)
        view = audit_game(service, game_id, budget=1_000)
    assert view.report.ok and view.replayed == 2 and view.report.roster_in_chain
    with service.db.begin() as connection:
        connection.execute(
            text("UPDATE audit_marks SET roster = NULL WHERE game_id = :id"), {"id": game_id}
        )
    play(service, game_id, 1)
    view = audit_game(service, game_id, budget=1_000)
    assert view.report.ok and view.replayed == 1 and view.report.roster_in_chain
    assert mark_of(service, game_id).roster == head.to_json()


def test_the_revision_lists_the_games_whose_audit_is_not_done(runtime):
    """A database from before the queue: the games without a mark, behind it, or ended
    without their whole replay are listed; the ones whose mark is done are not."""
    from alembic import command

    from pbem.migrations import alembic_config, migrate

    service = runtime.service
    unmarked, behind, done = (pig_game(runtime, target=10**6).game_id for _ in range(3))
    ended, ended_whole = (pig_game(runtime, target=5, bots=(0, 1)).game_id for _ in range(2))
    for game_id in (ended, ended_whole):
        service.play_bots(game_id)
    for game_id in (behind, done):
        play(service, game_id, 2)
    catch_up(service)
    play(service, behind, 1)
    with service.db.begin() as connection:
        connection.execute(text("DELETE FROM audit_marks WHERE game_id = :id"), {"id": unmarked})
        connection.execute(
            text("UPDATE audit_marks SET whole_at_end = :no WHERE game_id = :id"),
            {"no": False, "id": ended},
        )
        command.downgrade(alembic_config(connection), "0018_flat_counts")
    migrate(service.db)
    assert listed(service) == {unmarked, behind, ended}
    assert catch_up(service) == 3 and listed(service) == set()


def test_the_worker_writes_the_marks_of_many_games_together(runtime, monkeypatch):
    service = runtime.service
    ids = [
        pig_game(runtime, target=10**6, bots=(0, 1)).game_id  # bots: no invitations to mail
        for _ in range(audit.KEEP_TOGETHER + 5)
    ]
    writes = []
    keep = audit._keep

    def counted(service, keepings):
        writes.append(len(keepings))
        return keep(service, keepings)

    monkeypatch.setattr(audit, "_keep", counted)
    assert catch_up(service) == len(ids)
    assert writes == [audit.KEEP_TOGETHER, 5]
    assert all(mark_of(service, game_id).seq == service.game(game_id).head_seq for game_id in ids)
    assert listed(service) == set()
