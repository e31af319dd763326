"""The audit page verifies once per head and keeps it: later views replay only new
events, and a stored event changed after it was verified is still caught."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from pbem.eventlog.audit import RECHECK, audit_game
from pbem.models import AuditMark
from tests.fixture_engine import PIG
from tests.web.conftest import pig_game


def play(service, game_id: str, moves: int) -> None:
    for _ in range(moves):
        head = service.head(game_id)
        seat = min(head.engine.to_move(head.state))
        move = {"type": "stop"} if head.state["pot"] >= 6 else {"type": "roll"}
        service.submit_move(game_id, seat, move, head.seq)


@pytest.fixture
def applied(monkeypatch):
    """Counts the events the engine applies."""
    calls = []
    original = PIG.apply

    def counting(state, seat, move, chance):
        calls.append(seat)
        return original(state, seat, move, chance)

    monkeypatch.setattr(PIG, "apply", counting)
    return calls


def mark_of(service, game_id: str) -> AuditMark | None:
    with service.session() as session:
        return session.get(AuditMark, game_id)


def test_the_result_is_kept_and_only_new_events_are_replayed(client, runtime, applied):
    service = runtime.service
    game_id = pig_game(runtime, target=10**6).game_id
    play(service, game_id, 12)
    applied.clear()
    first = client.get(f"/games/{game_id}/audit")
    assert first.status_code == 200 and "13 events verified" in first.text
    assert "the whole log, replayed from the start" in first.text
    assert len(applied) == 12
    mark = mark_of(service, game_id)
    assert (mark.seq, mark.hash) == (12, service.game(game_id).head_hash)

    applied.clear()
    again = client.get(f"/games/{game_id}/audit")
    assert "13 events verified" in again.text and "0 new events replayed" in again.text
    assert applied == []

    play(service, game_id, 3)
    applied.clear()
    later = client.get(f"/games/{game_id}/audit")
    assert "16 events verified" in later.text and "3 new events replayed" in later.text
    assert len(applied) == 3
    assert mark_of(service, game_id).seq == 15


def test_draws_and_state_hashes_are_checked_on_new_events(runtime):
    service = runtime.service
    game_id = pig_game(runtime, target=10**6).game_id
    play(service, game_id, 5)
    assert audit_game(service, game_id).report.ok
    play(service, game_id, 2)
    with service.db.begin() as connection:
        connection.execute(
            text("UPDATE events SET state_hash = :bad WHERE game_id = :id AND seq = 7"),
            {"bad": "0" * 64, "id": game_id},
        )
    # The row's own hash no longer matches: caught as a change, before any replay.
    report = audit_game(service, game_id).report
    assert not report.ok and report.first_bad_seq == 7


@pytest.mark.parametrize("column", ["payload", "hash"])
def test_a_changed_event_already_verified_is_still_caught(client, runtime, column):
    service = runtime.service
    game_id = pig_game(runtime, target=10**6).game_id
    play(service, game_id, 8)
    assert audit_game(service, game_id).report.ok
    value = '{"move": {"type": "roll", "dice": 20}}' if column == "payload" else "f" * 64
    with service.db.begin() as connection:
        connection.execute(
            text(f"UPDATE events SET {column} = :value WHERE game_id = :id AND seq = 4"),
            {"value": value, "id": game_id},
        )
    page = client.get(f"/games/{game_id}/audit")
    assert page.status_code == 200
    assert "FAILED at event 4" in page.text or "FAILED at event 5" in page.text
    assert "the whole log, replayed from the start" in page.text


def test_a_log_rewritten_with_fresh_hashes_no_longer_matches_the_mark(runtime):
    """Rewriting the newest verified event and re-hashing it: the mark's hash differs."""
    from pbem.eventlog.log import row_dict, row_hash
    from pbem.models import Event

    service = runtime.service
    game_id = pig_game(runtime, target=10**6).game_id
    play(service, game_id, 6)
    assert audit_game(service, game_id).report.ok
    with service.session() as session:
        event = session.get(Event, (game_id, 6))
        event.actor = "someone else"
        event.hash = row_hash(row_dict(event))
        session.add(event)
        session.commit()
    audit = audit_game(service, game_id)
    assert audit.whole and not audit.report.ok and audit.report.first_bad_seq == 6
    assert "rewritten" in audit.report.message


def test_old_events_are_rehashed_in_a_stretch_on_a_long_log(runtime, applied):
    service = runtime.service
    game_id = pig_game(runtime, target=10**6).game_id
    play(service, game_id, RECHECK + 20)
    applied.clear()
    assert audit_game(service, game_id).whole
    applied.clear()
    audit = audit_game(service, game_id)
    assert not audit.whole and audit.report.ok and applied == []
    first, last = audit.rehashed
    assert last - first + 1 == RECHECK and 0 <= first and last < RECHECK + 20


def test_a_finished_game_is_replayed_whole_once_and_kept(runtime, applied):
    service = runtime.service
    game_id = pig_game(runtime, target=5, bots=(0, 1)).game_id
    head = service.head(game_id)
    seat = min(head.engine.to_move(head.state))
    service.bots_at_once = False  # the game is audited once before the bots play it out
    service.submit_move(game_id, seat, {"type": "roll"}, head.seq)
    audit_game(service, game_id)
    service.play_bots(game_id)
    assert service.game(game_id).status == "finished"
    applied.clear()
    ending = audit_game(service, game_id)
    assert ending.whole and ending.report.ok and ending.report.seed_revealed
    assert mark_of(service, game_id).whole_at_end
    moves = len(applied)
    applied.clear()
    again = audit_game(service, game_id)
    assert not again.whole and again.replayed == 0 and applied == []
    assert again.report.draws_checked == ending.report.draws_checked and moves > 0


def test_migrate_adds_the_marks_to_a_database_without_them(runtime):
    """A database from before the marks (revision 0006) gains their table."""
    from pbem.migrations import migrate

    service = runtime.service
    game_id = pig_game(runtime, target=10**6).game_id
    with service.db.begin() as connection:
        connection.exec_driver_sql("DROP TABLE audit_marks")
        connection.exec_driver_sql(
            "UPDATE alembic_version SET version_num = '0006_game_listing_indexes'"
        )
    assert migrate(service.db)[0] == "0006_game_listing_indexes"
    assert audit_game(service, game_id).report.ok
    assert mark_of(service, game_id).seq == 0


def test_two_views_keeping_a_mark_at_once_both_answer(runtime, monkeypatch):
    """The second view finds no mark when it reads, and the first one's when it writes."""
    from pbem.eventlog import audit

    service = runtime.service
    game_id = pig_game(runtime, target=10**6).game_id
    play(service, game_id, 3)
    assert audit_game(service, game_id).report.ok
    monkeypatch.setattr(audit, "_mark_of", lambda session, game_id: None)
    again = audit_game(service, game_id)
    assert again.whole and again.report.ok
    assert mark_of(service, game_id).seq == 3


def test_a_view_replays_at_most_its_budget_and_goes_on_from_there(
    client, runtime, applied, monkeypatch
):
    """A long log without a mark: each view replays a stretch, keeps the mark where it
    stopped and says how much is left; the view that reaches the head says all is well."""
    from pbem.web import games as pages

    monkeypatch.setattr(pages, "VIEW_BUDGET", 8)
    service = runtime.service
    game_id = pig_game(runtime, target=10**6).game_id
    play(service, game_id, 19)  # events 0 to 19
    applied.clear()
    first = client.get(f"/games/{game_id}/audit")
    assert first.status_code == 200 and "8 events verified" in first.text
    assert "events 0–7, replayed from the start" in first.text
    assert "the hash where it stopped" in first.text and "head hash" not in first.text
    assert "Events 8–19 (12 of 20)" in first.text
    assert len(applied) == 7 and mark_of(service, game_id).seq == 7
    applied.clear()
    second = client.get(f"/games/{game_id}/audit")
    assert "16 events verified" in second.text and "8 new events replayed" in second.text
    assert "Events 16–19 (4 of 20)" in second.text and len(applied) == 8
    third = client.get(f"/games/{game_id}/audit")
    assert "20 events verified" in third.text and "Still to check" not in third.text
    assert mark_of(service, game_id).seq == 19


def test_a_budgeted_view_still_catches_a_change_in_its_stretch(runtime):
    service = runtime.service
    game_id = pig_game(runtime, target=10**6).game_id
    play(service, game_id, 12)
    with service.db.begin() as connection:
        connection.execute(
            text("UPDATE events SET actor = 'x' WHERE game_id = :id AND seq = 3"),
            {"id": game_id},
        )
    audit = audit_game(service, game_id, budget=5)
    assert not audit.report.ok and audit.report.first_bad_seq == 3
    assert mark_of(service, game_id) is None


def test_the_worker_keeps_every_games_mark_current(runtime, applied):
    """catch_up verifies every game with new events, however few, and ended games whole;
    the first view then replays only what came after."""
    from pbem.eventlog.audit import catch_up

    service = runtime.service
    long_id = pig_game(runtime, target=10**6).game_id
    short_id = pig_game(runtime, target=10**6).game_id
    play(service, long_id, 12)
    play(service, short_id, 1)
    assert catch_up(service, seconds=60) == 2
    assert mark_of(service, long_id).seq == 12 and mark_of(service, short_id).seq == 1
    assert catch_up(service, seconds=60) == 0  # nothing behind any more
    play(service, long_id, 2)
    applied.clear()
    view = audit_game(service, long_id, budget=1_000)
    assert not view.whole and view.replayed == 2 and len(applied) == 2

    ended_id = pig_game(runtime, target=5, bots=(0, 1)).game_id
    service.play_bots(ended_id)
    assert service.game(ended_id).status == "finished"
    assert audit_game(service, ended_id, budget=3).partial
    assert not mark_of(service, ended_id).whole_at_end
    # The ended game alone: the view that verified the long game's moves took it off.
    assert catch_up(service, seconds=60) == 1
    assert mark_of(service, ended_id).whole_at_end
    assert catch_up(service, seconds=60) == 0


def test_the_worker_stops_after_its_time_and_goes_on_next_sweep(runtime):
    from pbem.eventlog.audit import catch_up

    service = runtime.service
    ids = [pig_game(runtime, target=10**6).game_id for _ in range(3)]
    for game_id in ids:
        play(service, game_id, 3)
    assert catch_up(service, seconds=0) == 1  # at least one game each sweep
    assert catch_up(service, seconds=60) == 2
    assert all(mark_of(service, game_id).seq == 3 for game_id in ids)
