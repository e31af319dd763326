"""A controllable clock through games' timelines: reminders, each deadline policy,
vacation, bot seats and reclaiming, replacement, digests, and two sweeps at once."""

from __future__ import annotations

import threading

import pytest
from sqlmodel import Session, select

from pbem.errors import BadInput, NotFound, Rejected
from pbem.games.invitations import invite_replacement, take_seat
from pbem.games.rescue import hand_to_bot, reclaim
from pbem.games.vacations import start_vacation
from pbem.mail.models import Mail
from pbem.scheduler import sweep
from tests.mail.conftest import as_sent, new_game, take_turn


def mails(runtime, kind: str | None = None, to: str | None = None) -> list[Mail]:
    with Session(runtime.db) as session:
        query = select(Mail).order_by(Mail.id)
        if kind:
            query = query.where(Mail.kind == kind)
        if to:
            query = query.where(Mail.recipient == to)
        return as_sent(runtime, list(session.exec(query)))


def hours_of(runtime, clock_start, kind: str, to: str) -> list[float]:
    return [
        (mail.created_at - clock_start).total_seconds() / 3600 for mail in mails(runtime, kind, to)
    ]


def run_hours(runtime, clock, hours: int, step_minutes: int = 30) -> None:
    for _ in range(hours * 60 // step_minutes):
        clock.advance(minutes=step_minutes)
        sweep(runtime)


def test_reminders_at_the_right_times_and_no_more(runtime, clock):
    policy = {"reminder_after_hours": 24, "reminder_every_hours": 12, "deadline_after_days": 3}
    new_game(runtime, seats=2, policy=policy)
    start = clock.now
    run_hours(runtime, clock, 100)
    # None in the last 12 hours before the deadline (60 and 72); after it the game waits
    # and the reminders go on.
    assert hours_of(runtime, start, "reminder", "anna@example.org") == [24, 36, 48, 84, 96]
    assert hours_of(runtime, start, "deadline", "anna@example.org") == [72]
    assert hours_of(runtime, start, "deadline", "ben@example.org") == [72]
    assert mails(runtime, "reminder", "ben@example.org") == []


def test_a_move_stops_the_reminders_and_the_next_seat_starts_its_own(runtime, clock):
    new_game(runtime, seats=2, policy={"reminder_after_hours": 10, "reminder_every_hours": 0})
    game = runtime.service.games()[0].id
    start = clock.now
    run_hours(runtime, clock, 5)
    take_turn(runtime, game, rolls=0)
    run_hours(runtime, clock, 30)
    assert hours_of(runtime, start, "reminder", "anna@example.org") == []
    assert hours_of(runtime, start, "reminder", "ben@example.org") == [15]


def test_bot_plays_the_turn_at_the_deadline(runtime, clock):
    game = new_game(runtime, seats=2, policy={"deadline_after_days": 1, "at_deadline": "bot_turn"})
    clock.advance(days=1, minutes=1)
    assert sweep(runtime).deadlines == 1
    events = runtime.service.events(game.game_id)
    assert {e["actor"] for e in events if e["kind"] == "auto_move"} == {"deadline"}
    assert all(e["seat"] == 0 for e in events if e["kind"] == "auto_move")
    seats = runtime.service.seats(game.game_id)
    assert not seats[0].is_bot and seats[1].due
    assert len(mails(runtime, "your_turn", "ben@example.org")) == 1
    anna = mails(runtime, "deadline", "anna@example.org")[0].body_text
    ben = mails(runtime, "deadline", "ben@example.org")[0].body_text
    # Who plays, that the seat is still the late player's, and how they come back.
    assert "A bot plays this one turn for you. Your seat is still yours" in anna
    assert "your next turn comes by mail as usual, and you play it from your link" in anna
    assert "A bot plays this one turn for Anna. Anna keeps the seat" in ben
    for text in (anna, ben):
        assert "theirs" not in text
    assert sweep(runtime).deadlines == 0


def test_seat_goes_to_a_bot_and_its_player_reclaims_it(runtime, clock, mailbox):
    game = new_game(runtime, seats=2, policy={"deadline_after_days": 2, "at_deadline": "bot_seat"})
    game_id = game.game_id
    clock.advance(days=2, minutes=1)
    assert sweep(runtime).deadlines == 1
    seats = runtime.service.seats(game_id)
    assert seats[0].is_bot and seats[1].due
    assert [e["kind"] for e in runtime.service.events(game_id)][1] == "seat_to_bot"
    # Ben plays; the bot answers for Anna at once (the sweep catches any bot left due).
    for _ in range(3):
        take_turn(runtime, game_id, rolls=0)
        sweep(runtime)
        if runtime.service.game(game_id).to_move == [1]:
            break
    assert runtime.service.game(game_id).to_move == [1]
    # Anna's old link still opens her seat, so she can reclaim it; she gets a fresh link.
    assert runtime.service.seat_for_token(game.tokens[0]).is_bot
    outcome = reclaim(runtime, game_id, 0, by=0)
    assert outcome.done and outcome.token
    with pytest.raises(NotFound):
        runtime.service.seat_for_token(game.tokens[0])
    assert runtime.service.seat_for_token(outcome.token).seat == 0
    assert not runtime.service.seats(game_id)[0].is_bot
    assert outcome.token in mails(runtime, "seat_link", "anna@example.org")[0].body_text
    kinds = [e["kind"] for e in runtime.service.events(game_id)]
    assert kinds.count("seat_to_bot") == 1 and kinds.count("seat_reclaimed") == 1


def test_seat_opened_to_newcomers_at_the_deadline(runtime, clock):
    game = new_game(runtime, seats=3, policy={"deadline_after_days": 1, "at_deadline": "replace"})
    clock.advance(hours=2)
    take_turn(runtime, game.game_id, rolls=0)  # Anna moves; Ben is due and goes silent
    clock.advance(days=1, hours=1)
    assert sweep(runtime).deadlines == 1
    with pytest.raises(NotFound):
        runtime.service.seat_for_token(game.tokens[1])
    page = f"http://pbem.test/games/{game.game_id}"
    for address in ("anna@example.org", "cleo@example.org"):
        told = mails(runtime, "notice", address)[-1].body_text
        assert "Ben's seat is open for a new player (the deadline passed)" in told
        assert page in told
    ben = mails(runtime, "notice", "ben@example.org")[-1].body_text
    assert "deadline of your turn passed" in ben and page in ben
    assert sweep(runtime).deadlines == 0
    assert [e["kind"] for e in runtime.service.events(game.game_id)].count("seat_offered") == 1


def test_vacation_pauses_reminders_and_moves_the_deadline(runtime, clock):
    policy = {"reminder_after_hours": 12, "reminder_every_hours": 12, "deadline_after_days": 2}
    game = new_game(runtime, seats=2, policy=policy)
    start = clock.now
    clock.advance(hours=1)
    assert start_vacation(runtime, game.game_id, 0, 3).done
    run_hours(runtime, clock, 24 * 5)
    # Vacation until hour 73; deadline 48 + 72 = hour 120; reminders from hour 73 on.
    assert hours_of(runtime, start, "reminder", "anna@example.org")[:3] == [73, 85, 97]
    assert hours_of(runtime, start, "deadline", "anna@example.org") == [120]
    told = mails(runtime, "notice", "ben@example.org")
    assert "Anna is on vacation until 2026-03-05 05:00 EST" in told[0].body_text  # Ben's zone
    with pytest.raises(Rejected, match="11 days left"):
        start_vacation(runtime, game.game_id, 0, 12)
    with pytest.raises(BadInput):
        start_vacation(runtime, game.game_id, 0, "soon")


def test_a_vacation_reads_in_each_readers_own_zone(runtime, clock, app):
    game = new_game(runtime, seats=4)
    clock.advance(hours=1)
    outcome = start_vacation(runtime, game.game_id, 0, 3)
    # Anna (Berlin) reads her own vacation in her zone, each other player in theirs.
    assert "Anna is on vacation until 2026-03-05 11:00 CET" in outcome.message
    told = {
        address: mails(runtime, "notice", address)[0].body_text
        for address in ("ben@example.org", "cleo@example.org", "dan@example.org")
    }
    assert "until 2026-03-05 05:00 EST" in told["ben@example.org"]
    assert "until 2026-03-05 10:00 UTC" in told["cleo@example.org"]
    assert "until 2026-03-05 19:00 JST" in told["dan@example.org"]
    client = app.test_client()
    history = client.get(f"/play/{game.tokens[1]}/history").text
    assert "until 2026-03-05 05:00 EST" in history and "10:00 UTC" not in history
    spectator = client.get(f"/games/{game.game_id}/history").text
    assert "until 2026-03-05 10:00 UTC" in spectator


def test_replacement_by_majority_vote_revokes_the_old_link(runtime, clock):
    game = new_game(runtime, seats=4, policy={"deadline_after_days": 1})
    game_id = game.game_id  # Anna (seat 0) is to move
    with pytest.raises(Rejected):
        invite_replacement(runtime, game_id, 0, "Eve", "eve@example.org", by=0)
    with pytest.raises(Rejected, match="present"):
        invite_replacement(runtime, game_id, 0, "Eve", "eve@example.org", by=1)
    clock.advance(days=1, minutes=1)
    first = invite_replacement(runtime, game_id, 0, "Eve", "eve@example.org", by=1)
    assert not first.done and first.votes == 1 and first.needed == 2
    assert runtime.service.seat_for_token(game.tokens[0]).name == "Anna"
    second = invite_replacement(runtime, game_id, 0, "Eve", "eve@example.org", by=2)
    assert second.done
    with pytest.raises(NotFound):
        runtime.service.seat_for_token(game.tokens[0])
    with pytest.raises(NotFound):  # an invitation opens no seat until it is taken
        runtime.service.seat_for_token(second.token)
    event = runtime.service.events(game_id)[-1]
    assert event["kind"] == "seat_offered" and event["payload"]["voters"] == [1, 2]
    assert second.token in mails(runtime, "notice", "eve@example.org")[0].body_text
    assert take_seat(runtime, second.token).done
    seat = runtime.service.seat_for_token(second.token)
    assert (seat.seat, seat.name, seat.email) == (0, "Eve", "eve@example.org")
    with pytest.raises(BadInput):
        invite_replacement(runtime, game_id, 2, "", "nobody", by=0)
    with pytest.raises(Rejected, match="present"):
        hand_to_bot(runtime, game_id, 2, by=1)


def test_daily_digest_lists_every_waiting_game_once_a_day(runtime, clock):
    games = [new_game(runtime, seats=2).game_id for _ in range(2)]
    with Session(runtime.db) as session:
        from pbem.models import Seat

        for seat in session.exec(select(Seat).where(Seat.seat == 0)):
            seat.notify = "digest"
            session.add(seat)
        session.commit()
    for game_id in games[:1]:
        take_turn(runtime, game_id, rolls=0)
        take_turn(runtime, game_id, rolls=0)  # Anna is due again: no turn mail, a digest
    assert len(mails(runtime, "your_turn", "anna@example.org")) == 0
    run_hours(runtime, clock, 24 * 2, step_minutes=60)
    digests = mails(runtime, "digest", "anna@example.org")
    days = [f"{mail.created_at:%m-%d %H:%M}" for mail in digests]
    # Mon 10:00 to Wed 09:00 UTC: Anna's digest comes at 08:00 in Berlin (07:00 UTC);
    # on Monday that hour had passed when the sweeps began.
    assert days == ["03-03 07:00", "03-04 07:00"]
    assert digests[0].body_text.count("http://pbem.test/play/") == 2
    assert mails(runtime, "reminder", "anna@example.org") == []


def test_two_sweeps_at_once_send_no_mail_twice_and_move_no_seat_twice(runtime, clock):
    policy = {"reminder_after_hours": 1, "deadline_after_days": 1, "at_deadline": "bot_turn"}
    games = [new_game(runtime, seats=2, policy=policy).game_id for _ in range(6)]
    clock.advance(hours=2)
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def run() -> None:
        try:
            barrier.wait(timeout=10)
            sweep(runtime)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    for _ in range(2):
        threads = [threading.Thread(target=run) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert not errors
        clock.advance(days=1)
    # At 1 h; the one due at 25 h falls after the deadline's last 12 hours began.
    assert len(mails(runtime, "reminder", "anna@example.org")) == len(games)
    assert len(mails(runtime, "deadline", "anna@example.org")) == len(games)
    for game_id in games:
        events = runtime.service.events(game_id)
        auto = [e for e in events if e["kind"] == "auto_move"]
        assert auto and {e["seat"] for e in auto} == {0}
        stops = [e for e in auto if e["payload"]["move"]["type"] == "stop"]
        assert len(stops) <= 1
        assert runtime.service.verify_game(game_id).ok
    keys = [mail.key for mail in mails(runtime)]
    assert len(keys) == len(set(keys))


def test_one_broken_game_does_not_hold_up_the_sweep(runtime, clock):
    from pbem.models import Game

    broken, sound = (new_game(runtime, seats=2).game_id for _ in range(2))
    with Session(runtime.db) as session:
        game = session.get(Game, broken)
        game.policy = {**game.policy, "at_deadline": "no such policy"}
        session.add(game)
        session.commit()
    clock.advance(hours=25)
    assert sweep(runtime).reminders == 1
    assert [mail.game_id for mail in mails(runtime, "reminder")] == [sound]
