"""The quiet window (``mail.quiet_minutes``): a "your turn" mail waits before it goes,
is dropped when the player moved meanwhile, and turns that begin within one window make
one mail. An invitation that finds its seat already due (bots moved first) says so and
is the only mail."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import Session, col, select

from pbem.games.service import SeatSpec
from pbem.mail import deferred
from pbem.mail.dispatch import dispatch
from pbem.mail.models import Mail
from pbem.models import Seat
from pbem.zones import utc
from tests.mail.conftest import make_runtime, new_game, part, take_turn

WINDOW = 10


@pytest.fixture
def quiet(db, tmp_path, clock, smtp):
    return make_runtime(db, tmp_path, clock, smtp[1], mail={"quiet_minutes": WINDOW})


def rows(runtime, kind: str = "your_turn") -> list[Mail]:
    with Session(runtime.db) as session:
        query = select(Mail).where(Mail.kind == kind).order_by(col(Mail.id))
        return list(session.exec(query))


def due_seat(runtime, game_id: str) -> int:
    head = runtime.service.head(game_id)
    return min(head.engine.to_move(head.state))


def address(seat: int) -> str:
    return ["anna", "ben", "cleo"][seat] + "@example.org"


def test_the_mail_waits_for_the_window_then_goes(quiet, clock, mailbox):
    created = new_game(quiet, seats=2)
    dispatch(quiet)  # the invitations
    take_turn(quiet, created.game_id)
    due = due_seat(quiet, created.game_id)
    [row] = rows(quiet)
    assert utc(row.next_attempt_at) == clock.now + timedelta(minutes=WINDOW)
    clock.advance(minutes=WINDOW - 1)
    assert dispatch(quiet).claimed == 0
    assert mailbox.to(address(due), "your turn") == []
    clock.advance(minutes=1)
    assert dispatch(quiet).sent == 1
    [message] = mailbox.to(address(due), "your turn")
    assert "It is your turn" in part(message, "plain")


def test_a_player_who_moved_in_the_window_gets_no_mail(quiet, clock, mailbox):
    created = new_game(quiet, seats=2)
    dispatch(quiet)
    take_turn(quiet, created.game_id)
    due = due_seat(quiet, created.game_id)
    clock.advance(minutes=3)
    head = quiet.service.head(created.game_id)
    quiet.service.submit_move(created.game_id, due, {"type": "roll"}, head.seq)
    clock.advance(minutes=WINDOW)
    report = dispatch(quiet)
    # (The roll may end the turn by chance: the other seat's mail may then go.)
    assert report.dropped >= 1
    assert mailbox.to(address(due), "your turn") == []
    dropped = [row for row in rows(quiet) if row.seat == due]
    assert [row.status for row in dropped] == ["dropped"]
    assert dropped[0].last_error == "dropped: the player moved since"


def test_turns_beginning_within_a_window_make_one_mail(quiet, clock, mailbox):
    created = new_game(quiet, seats=2)
    dispatch(quiet)
    first = take_turn(quiet, created.game_id)
    other = due_seat(quiet, created.game_id)
    for _ in range(3):  # both play a turn every two minutes: each becomes due again
        clock.advance(minutes=2)
        take_turn(quiet, created.game_id)
        clock.advance(minutes=2)
        take_turn(quiet, created.game_id)
    # Each of the seat's turns recorded its mail; the latest waits a whole window.
    waiting = rows(quiet)
    assert {row.seat for row in waiting} == {first, other} and len(waiting) > 2
    now_due = due_seat(quiet, created.game_id)
    clock.advance(minutes=WINDOW - 1)  # every window but the latest mail's is over
    report = dispatch(quiet)
    assert report.sent == 0 and report.dropped == len(waiting) - 1
    # (Each earlier mail's player moved since; a later mail alone would drop it too.)
    assert {row.last_error for row in rows(quiet) if row.status == "dropped"} == {
        "dropped: the player moved since"
    }
    clock.advance(minutes=1)
    report = dispatch(quiet)
    assert report.sent == 1 and report.dropped == 0
    [message] = mailbox.to(address(now_due), "your turn")
    head = quiet.service.head(created.game_id)
    assert head.game.head_hash in part(message, "plain")  # the latest turn's receipt
    assert mailbox.to(address(1 - now_due), "your turn") == []


def test_a_seat_handed_to_a_bot_in_the_window_gets_no_mail(quiet, clock, mailbox):
    from pbem.games.rescue import hand_to_bot

    created = new_game(quiet, seats=2)
    dispatch(quiet)
    take_turn(quiet, created.game_id)
    due = due_seat(quiet, created.game_id)
    hand_to_bot(quiet, created.game_id, due, by=due)
    clock.advance(minutes=WINDOW)
    dispatch(quiet)
    assert mailbox.to(address(due), "your turn") == []
    [dropped] = [row for row in rows(quiet) if row.seat == due]
    assert dropped.status == "dropped"
    assert dropped.last_error == "dropped: a bot plays the seat now"


def test_a_later_turn_mail_replaces_a_waiting_one_of_a_seat_that_did_not_move(
    quiet, clock, mailbox
):
    """A seat due again without having moved (its turn was handed back to it, as a
    take-back does) gets one mail: the latest, naming the latest turn."""
    created = new_game(quiet, seats=2)
    dispatch(quiet)
    take_turn(quiet, created.game_id)
    due = due_seat(quiet, created.game_id)
    game = quiet.service.game(created.game_id)
    with Session(quiet.db) as session:  # a second turn mail of the same seat, 2 min later
        clock.advance(minutes=2)
        seat = session.get(Seat, (created.game_id, due))
        deferred.defer_seat_mail(
            session,
            quiet,
            game,
            seat,
            "your_turn",
            f"your_turn:{game.id}:{due}:{game.head_seq}x",
            start=0,
            others=[],
            deadline=None,
            quiet=timedelta(minutes=WINDOW),
        )
        session.commit()
    clock.advance(minutes=WINDOW - 1)
    report = dispatch(quiet)
    assert report.sent == 0 and report.dropped == 1
    assert [row.last_error for row in rows(quiet) if row.status == "dropped"] == [
        "dropped: a later turn's mail replaces it"
    ]
    clock.advance(minutes=1)
    assert dispatch(quiet).sent == 1
    assert len(mailbox.to(address(due), "your turn")) == 1


def test_a_mail_already_claimed_is_not_superseded(quiet, clock, mailbox):
    created = new_game(quiet, seats=2)
    dispatch(quiet)
    take_turn(quiet, created.game_id)
    due = due_seat(quiet, created.game_id)
    clock.advance(minutes=WINDOW)
    assert dispatch(quiet).sent == 1
    take_turn(quiet, created.game_id)  # the seat due plays; the other's turn
    take_turn(quiet, created.game_id)  # and back: a new mail, not the sent one
    assert [row.status for row in rows(quiet) if row.seat == due] == ["sent", "pending"]


def test_without_a_window_each_turn_is_mailed_at_once(runtime, mailbox):
    created = new_game(runtime, seats=2)
    take_turn(runtime, created.game_id)
    take_turn(runtime, created.game_id)
    take_turn(runtime, created.game_id)
    report = dispatch(runtime)
    assert report.sent == 2 + 3 and report.dropped == 0  # invitations and three turns


def bot_first(runtime):
    specs = [SeatSpec("Robo", "", is_bot=True), SeatSpec("Anna", "anna@example.org")]
    created = runtime.service.create_game("pig", specs, {"target": 30})
    runtime.service.play_bots(created.game_id)
    return created


@pytest.mark.parametrize("minutes", [0, WINDOW])
def test_an_invitation_that_finds_the_seat_due_is_the_only_mail(db, tmp_path, clock, smtp, minutes):
    runtime = make_runtime(db, tmp_path, clock, smtp[1], mail={"quiet_minutes": minutes})
    created = bot_first(runtime)
    assert due_seat(runtime, created.game_id) == 1
    assert rows(runtime) == []
    clock.advance(minutes=WINDOW)
    dispatch(runtime)
    [message] = smtp[0].to("anna@example.org")
    text = part(message, "plain")
    assert "You are invited" in text and "Robo has moved first: it is already your turn." in text
    assert "Deadline:" not in text or "UTC" in text
    assert "is already your turn" in part(message, "html")
    assert f"/play/{created.tokens[1]}" in text


def test_an_invitation_sent_before_the_bots_moved_is_followed_by_a_turn_mail(runtime, mailbox):
    specs = [SeatSpec("Robo", "", is_bot=True), SeatSpec("Anna", "anna@example.org")]
    created = runtime.service.create_game("pig", specs, {"target": 30})
    dispatch(runtime)
    runtime.service.play_bots(created.game_id)
    dispatch(runtime)
    assert "You move first" not in part(mailbox.to("anna@example.org", "invited")[0], "plain")
    assert len(mailbox.to("anna@example.org", "your turn")) == 1
