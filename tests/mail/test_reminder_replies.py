"""A reminder, and the late player's deadline mail when the game waits, list the seat's
moves with their codes when replies by mail are on, and name the event they were
written at: a reply to either with a code plays that move."""

from __future__ import annotations

from pbem import scheduler
from pbem.mail.dispatch import dispatch
from tests.mail.conftest import make_runtime, new_game
from tests.mail.inbound_helpers import REPLY, SENDER, reply_with_move, tag_seq, text_of

ADDRESSES = {0: "anna@example.org", 1: "ben@example.org"}


def test_a_reminder_lists_the_moves_and_a_reply_to_it_plays_one(db, tmp_path, clock, smtp):
    mail = {"reply_address": REPLY, "sender": SENDER, "quiet_minutes": 0}
    runtime = make_runtime(db, tmp_path, clock, smtp[1], mail=mail)
    created = new_game(runtime, seats=2)
    dispatch(runtime)
    head = runtime.service.head(created.game_id)
    [due] = head.engine.to_move(head.state)
    clock.advance(hours=25)  # past the first reminder (24 hours by default)
    scheduler.sweep(runtime)
    dispatch(runtime)
    [reminder] = smtp[0].to(ADDRESSES[due], "reminder")
    assert "Your moves." in text_of(reminder)
    assert "Or make your move here:" in text_of(reminder)
    assert tag_seq(reminder) == head.seq
    applied = reply_with_move(runtime, created.game_id, reminder, "roll", ADDRESSES[due])
    assert (applied["kind"], applied["seat"], applied["payload"]["move"]) == (
        "move",
        due,
        {"type": "roll"},
    )


def test_without_replies_by_mail_a_reminder_lists_no_moves(db, tmp_path, clock, smtp):
    runtime = make_runtime(db, tmp_path, clock, smtp[1], mail={"quiet_minutes": 0})
    created = new_game(runtime, seats=2)
    dispatch(runtime)
    head = runtime.service.head(created.game_id)
    [due] = head.engine.to_move(head.state)
    clock.advance(hours=25)
    scheduler.sweep(runtime)
    dispatch(runtime)
    [reminder] = smtp[0].to(ADDRESSES[due], "reminder")
    assert "Your moves." not in text_of(reminder)
    assert "Make your move here:" in text_of(reminder)


def test_a_deadline_mail_under_wait_lists_the_moves_to_the_late_player_only(
    db, tmp_path, clock, smtp
):
    mail = {"reply_address": REPLY, "sender": SENDER, "quiet_minutes": 0}
    runtime = make_runtime(db, tmp_path, clock, smtp[1], mail=mail)
    policy = {"reminder_after_hours": 0, "deadline_after_days": 1, "at_deadline": "wait"}
    created = new_game(runtime, seats=2, policy=policy)
    dispatch(runtime)
    head = runtime.service.head(created.game_id)
    [due] = head.engine.to_move(head.state)
    clock.advance(days=1, minutes=1)
    scheduler.sweep(runtime)
    dispatch(runtime)
    [late] = smtp[0].to(ADDRESSES[due], "deadline")
    [other] = smtp[0].to(ADDRESSES[1 - due], "deadline")
    assert "Your moves." in text_of(late) and "Your moves." not in text_of(other)
    assert tag_seq(late) == head.seq
    applied = reply_with_move(runtime, created.game_id, late, "stop", ADDRESSES[due])
    assert (applied["seat"], applied["payload"]["move"]) == (due, {"type": "stop"})
