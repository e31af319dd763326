"""Replies to mails the quiet window reshaped: a "your turn" mail that now describes a
later turn of the seat, and an invitation rewritten to say the seat is already due.
Each names the turn it describes, so a reply to it is taken, not refused as late. And an
answer that lists the seat's new turn is the only mail of that turn."""

from __future__ import annotations

from pbem.games.service import SeatSpec
from pbem.mail.dispatch import dispatch
from pbem.mail.inbound.receive import take
from tests.mail.conftest import make_runtime, new_game, take_turn
from tests.mail.inbound_helpers import (
    REPLY,
    SENDER,
    listed_moves,
    reply_to,
    reply_with_move,
    tag_seq,
)
from tests.mail.test_quiet import WINDOW, due_seat

ADDRESSES = {0: "anna@example.org", 1: "ben@example.org"}


def quiet_replies(db, tmp_path, clock, port):
    mail = {"reply_address": REPLY, "sender": SENDER, "quiet_minutes": WINDOW}
    return make_runtime(db, tmp_path, clock, port, mail=mail)


def test_a_reply_to_a_turn_mail_that_took_in_later_turns_is_taken(db, tmp_path, clock, smtp):
    runtime = quiet_replies(db, tmp_path, clock, smtp[1])
    created = new_game(runtime, seats=2)
    dispatch(runtime)
    for _ in range(3):  # a seat becomes due twice inside the window
        take_turn(runtime, created.game_id)
        clock.advance(minutes=2)
    due = due_seat(runtime, created.game_id)
    clock.advance(minutes=WINDOW)
    dispatch(runtime)
    [message] = smtp[0].to(ADDRESSES[due], "your turn")
    head = runtime.service.head(created.game_id)
    assert tag_seq(message) == head.seq  # the tag names the latest turn
    assert listed_moves(message), "the turn mail lists the moves"
    applied = reply_with_move(runtime, created.game_id, message, "roll", ADDRESSES[due])
    assert (applied["kind"], applied["seat"], applied["payload"]["move"]) == (
        "move",
        due,
        {"type": "roll"},
    )


def test_a_reply_to_an_invitation_that_found_the_seat_due_is_taken(db, tmp_path, clock, smtp):
    runtime = quiet_replies(db, tmp_path, clock, smtp[1])
    specs = [SeatSpec("Robo", "", is_bot=True), SeatSpec("Anna", ADDRESSES[0])]
    created = runtime.service.create_game("pig", specs, {"target": 30})
    runtime.service.play_bots(created.game_id)
    head = runtime.service.head(created.game_id)
    assert 1 in head.engine.to_move(head.state)
    dispatch(runtime)
    [message] = smtp[0].to(ADDRESSES[0])
    assert "already your turn" in str(message)
    assert tag_seq(message) == head.seq
    applied = reply_with_move(runtime, created.game_id, message, "roll", ADDRESSES[0])
    assert (applied["kind"], applied["seat"], applied["payload"]["move"]) == (
        "move",
        1,
        {"type": "roll"},
    )


def test_an_answer_that_lists_the_new_turn_is_the_only_mail_of_that_turn(db, tmp_path, clock, smtp):
    runtime = make_runtime(db, tmp_path, clock, smtp[1], mail={"reply_address": REPLY})
    specs = [SeatSpec("Anna", ADDRESSES[0]), SeatSpec("Robo", "", is_bot=True)]
    created = runtime.service.create_game("pig", specs, {"target": 100})
    dispatch(runtime)
    [invitation] = smtp[0].to(ADDRESSES[0])
    stop = next(
        number for label, number in listed_moves(invitation).items() if "stop" in label.lower()
    )
    taken = take(runtime, reply_to(invitation, [str(stop)], ADDRESSES[0]))
    assert taken.outcome == "applied", taken
    head = runtime.service.head(created.game_id)
    assert head.engine.to_move(head.state) == frozenset({0})  # Robo played; Anna again
    dispatch(runtime)
    mails = smtp[0].to(ADDRESSES[0])[1:]
    assert len(mails) == 1 and "your turn again" in str(mails[0]).lower()
