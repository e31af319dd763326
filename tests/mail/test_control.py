"""Game-level control: the creator (or the operator) changes the deadline policy, pauses
and resumes the game; each is an event, everyone is told, refusals change nothing."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import Session

from pbem.errors import BadInput, NotAllowed, Rejected
from pbem.games import control
from pbem.games.service import SeatSpec
from pbem.games.tables import SeatClock
from pbem.scheduler import dispatch, sweep
from tests.mail.conftest import START, new_game, part


def clock_of(runtime, game_id: str, seat: int) -> SeatClock:
    with Session(runtime.db) as session:
        return session.get(SeatClock, (game_id, seat))


def aware(moment):
    return moment if moment is None or moment.tzinfo else moment.replace(tzinfo=UTC)


def csrf_of(client, path: str) -> str:
    page = client.get(path)
    assert page.status_code == 200
    return re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)


def test_pause_stops_moves_clocks_and_bots_and_resume_shifts_the_clocks(runtime, mailbox, clock):
    policy = {"reminder_after_hours": 24, "reminder_every_hours": 24, "deadline_after_days": 2}
    created = new_game(runtime, seats=3, policy=policy)
    game = created.game_id
    clock.advance(hours=1)
    outcome = control.pause_game(runtime, game, by=0)  # Anna created the game
    event = runtime.service.events(game)[-1]
    assert event["kind"] == "game_paused" and event["seat"] is None
    assert event["payload"] == {"by": "creator"} and outcome.seq == event["seq"]
    assert aware(runtime.service.game(game).paused_at) == clock.now
    head = runtime.service.head(game)
    with pytest.raises(Rejected, match="paused"):
        runtime.service.submit_move(game, 0, {"type": "roll"}, head.seq)
    assert runtime.service.head(game).seq == head.seq
    with pytest.raises(Rejected, match="paused already"):
        control.pause_game(runtime, game, by=None)
    clock.advance(days=3)  # past the first reminder and the deadline
    report = sweep(runtime)
    assert (report.reminders, report.deadlines) == (0, 0)
    dispatch(runtime)
    for address in ("anna@example.org", "ben@example.org", "cleo@example.org"):
        notice = mailbox.to(address, "is paused")
        assert len(notice) == 1
        assert "The game was paused by the game's creator" in part(notice[0], "plain")
    assert not mailbox.to("anna@example.org", "reminder")
    control.resume_game(runtime, game, by=None)
    event = runtime.service.events(game)[-1]
    assert event["kind"] == "game_resumed" and event["payload"] == {"by": "operator"}
    assert runtime.service.game(game).paused_at is None
    # The pause lasted 3 days: Anna's clock moves on by as much.
    anna = clock_of(runtime, game, 0)
    assert aware(anna.deadline_at) == START + timedelta(days=5)
    assert aware(anna.remind_at) == START + timedelta(days=4)
    assert sweep(runtime).reminders == 0
    clock.advance(days=1)
    assert sweep(runtime).reminders == 1
    dispatch(runtime)
    assert "the server's operator" in part(mailbox.to("ben@example.org", "goes on")[0], "plain")
    with pytest.raises(Rejected, match="not paused"):
        control.resume_game(runtime, game, by=0)
    lines = [control.describe(row) for row in runtime.service.events(game)]
    assert any(line.startswith("The game goes on again by the server's operator") for line in lines)


def test_bots_do_not_move_while_the_game_is_paused(runtime, clock):
    specs = [SeatSpec("Anna", "anna@example.org"), SeatSpec("Bot", is_bot=True)]
    game = runtime.service.create_game("pig", specs, {"target": 30}).game_id
    control.pause_game(runtime, game)
    head = runtime.service.head(game)
    # Anna's move was in before the pause; now only the bot would be due.
    assert runtime.service.play_bots(game) == 0
    assert sweep(runtime).bot_moves == 0
    assert runtime.service.head(game).seq == head.seq
    control.resume_game(runtime, game)
    moved = runtime.service.submit_move(game, 0, {"type": "stop"}, runtime.service.head(game).seq)
    # The bot answered Anna's move at once, before the call returned.
    assert moved.bot_moves >= 1
    assert runtime.service.head(game).seq > moved.seq


def test_a_policy_change_retimes_the_due_seats_from_their_turn(runtime, mailbox, clock):
    created = new_game(runtime, seats=2, policy={"deadline_after_days": 7})
    game = created.game_id
    clock.advance(hours=30)
    control.change_policy(
        runtime,
        game,
        {"deadline_after_days": "2", "reminder_after_hours": 12, "at_deadline": "bot_turn"},
        by=0,
    )
    event = runtime.service.events(game)[-1]
    assert event["kind"] == "policy_changed" and event["payload"]["by"] == "creator"
    assert event["payload"]["policy"] == {
        "reminder_after_hours": 12,
        "reminder_every_hours": 24,
        "deadline_after_days": 2,
        "at_deadline": "bot_turn",
    }
    assert runtime.service.game(game).policy == event["payload"]["policy"]
    anna = clock_of(runtime, game, 0)
    # A shorter policy never makes the running turn due sooner: it keeps its deadline
    # and its next reminder, and the new times apply from the next turn.
    assert aware(anna.deadline_at) == START + timedelta(days=7)
    assert aware(anna.remind_at) == START + timedelta(hours=24)  # overdue: the next sweep
    assert clock_of(runtime, game, 1).deadline_at is None  # Ben is not to move
    assert sweep(runtime).reminders == 1
    clock.now = START + timedelta(days=2)
    assert sweep(runtime).deadlines == 0
    clock.now = START + timedelta(days=7)
    assert sweep(runtime).deadlines == 1
    assert runtime.service.events(game)[-1]["actor"] == "deadline"  # a bot played Anna's turn
    dispatch(runtime)
    notice = mailbox.to("ben@example.org", "policy changes")
    assert len(notice) == 1
    assert (
        "The deadline policy was changed by the game's creator: the first reminder 12 hours "
        "after a turn begins, then every 24 hours; after 2 days a bot plays that turn."
    ) in part(notice[0], "plain")


def test_a_policy_change_keeps_what_a_vacation_added(runtime, clock):
    from pbem.games.vacations import start_vacation

    created = new_game(runtime, seats=2, policy={"deadline_after_days": 3})
    game = created.game_id
    assert start_vacation(runtime, game, 0, 2).done
    control.change_policy(runtime, game, {"deadline_after_days": 4})
    assert aware(clock_of(runtime, game, 0).deadline_at) == START + timedelta(days=6)


def test_refusals_change_nothing(runtime, mailbox, clock):
    created = new_game(runtime, seats=3)
    game = created.game_id
    head = runtime.service.head(game).seq
    policy = runtime.service.game(game).policy
    cases = [
        (lambda: control.pause_game(runtime, game, by=1), NotAllowed),
        (
            lambda: control.change_policy(runtime, game, {"deadline_after_days": 1}, by=2),
            NotAllowed,
        ),
        (lambda: control.change_policy(runtime, game, {"deadline_after_days": -1}), BadInput),
        (lambda: control.change_policy(runtime, game, {"deadline_after_days": "x"}), BadInput),
        (lambda: control.change_policy(runtime, game, {"at_deadline": "explode"}), BadInput),
        (lambda: control.change_policy(runtime, game, {"colour": "red"}), BadInput),
        (lambda: control.change_policy(runtime, game, "fast"), BadInput),
        (lambda: control.change_policy(runtime, game, dict(policy)), Rejected),
        (lambda: control.resume_game(runtime, game), Rejected),
        (lambda: control.pause_game(runtime, "nosuchgame"), Exception),
        (lambda: control.pause_game(runtime, game, by=True), NotAllowed),
    ]
    for action, error in cases:
        with pytest.raises(error):
            action()
    assert runtime.service.head(game).seq == head
    assert runtime.service.game(game).policy == policy
    assert runtime.service.game(game).paused_at is None
    dispatch(runtime)
    assert not mailbox.to("ben@example.org", "paused")


def test_the_creators_game_settings_on_the_seats_page(runtime, app, clock):
    created = new_game(runtime, seats=2)
    game, tokens = created.game_id, created.tokens
    client = app.test_client()
    page = client.get(f"/rescue/{tokens[0]}").text
    assert "Game settings" in page and "Pause the game" in page
    assert "Game settings" not in client.get(f"/rescue/{tokens[1]}").text
    token = csrf_of(client, f"/rescue/{tokens[0]}")
    form = {
        "csrf_token": token,
        "action": "policy",
        "reminder_after_hours": "6",
        "reminder_every_hours": "12",
        "deadline_after_days": "3",
        "at_deadline": "bot_seat",
    }
    assert client.post(f"/rescue/{tokens[0]}", data=form).status_code == 302
    assert runtime.service.game(game).policy["at_deadline"] == "bot_seat"
    head = runtime.service.head(game).seq
    refused = client.post(f"/rescue/{tokens[1]}", data={**form, "at_deadline": "wait"})
    assert refused.status_code == 403 and "creator" in refused.text
    bad = client.post(f"/rescue/{tokens[0]}", data={**form, "deadline_after_days": "-2"})
    assert bad.status_code == 400
    no_token = client.post(f"/rescue/{tokens[0]}", data={"action": "pause"})
    assert no_token.status_code == 400
    assert runtime.service.head(game).seq == head
    pause = {"csrf_token": token, "action": "pause"}
    assert client.post(f"/rescue/{tokens[0]}", data=pause).status_code == 302
    page = client.get(f"/rescue/{tokens[0]}").text
    assert "Resume the game" in page and "The game is paused" in page
    turn = client.get(f"/play/{tokens[0]}").text
    assert "The game is paused; no moves until it goes on." in turn
    csrf = csrf_of(client, f"/play/{tokens[0]}")
    move = client.post(
        f"/play/{tokens[0]}/move",
        data={
            "csrf_token": csrf,
            "seq": str(runtime.service.head(game).seq),
            "move": '{"type": "roll"}',
        },
    )
    assert move.status_code == 422 and "paused" in move.text
    resume = {"csrf_token": token, "action": "resume"}
    assert client.post(f"/rescue/{tokens[0]}", data=resume).status_code == 302
    assert runtime.service.game(game).paused_at is None
    kinds = [row["kind"] for row in runtime.service.events(game)][-3:]
    assert kinds == ["policy_changed", "game_paused", "game_resumed"]
    paused_at = runtime.service.events(game)[-2]["seq"]
    history = client.get(f"/play/{tokens[1]}/history?at={paused_at}").text
    assert "The game was paused by the game&#39;s creator; no moves" in history


def test_the_roster_follows_the_control_events(runtime, clock):
    from pbem.eventlog import roster

    created = new_game(runtime, seats=2)
    game = created.game_id
    start = roster.from_seats(runtime.service.seats(game), 0, runtime.service.game(game).policy)
    control.change_policy(runtime, game, {"deadline_after_days": 1})
    control.pause_game(runtime, game)
    rows = [row for row in runtime.service.events(game) if row["kind"] != "created"]
    folded = roster.fold(rows, start)
    assert folded.paused and folded.policy == runtime.service.game(game).policy
    assert folded.policy["deadline_after_days"] == 1
    control.resume_game(runtime, game)
    assert not roster.fold(runtime.service.events(game)[-1:], folded).paused


def test_the_deadline_passed_while_waiting_acts_when_the_policy_says_so(runtime, clock):
    created = new_game(runtime, seats=2, policy={"deadline_after_days": 1})
    game = created.game_id
    clock.advance(days=1, minutes=1)
    assert sweep(runtime).deadlines == 1  # the game waits
    assert clock_of(runtime, game, 0).deadline_at is None
    control.change_policy(runtime, game, {"reminder_after_hours": 5})
    assert clock_of(runtime, game, 0).deadline_at is None  # still passed, nothing new
    control.change_policy(runtime, game, {"at_deadline": "bot_turn"})
    assert aware(clock_of(runtime, game, 0).deadline_at) == clock.now
    assert sweep(runtime).deadlines == 1
    assert runtime.service.events(game)[-1]["actor"] == "deadline"
    assert datetime(2026, 3, 3, 9, 1, tzinfo=UTC) == clock.now


def test_a_newcomer_at_the_creators_seat_does_not_inherit_the_games_settings(runtime, clock):
    from pbem.games import invitations

    game = new_game(runtime, seats=3).game_id
    invited = invitations.invite_replacement(runtime, game, 0, "Dee", "dee@example.net")
    invitations.take_seat(runtime, invited.token)
    assert runtime.service.game(game).creator_seat is None
    head = runtime.service.head(game).seq
    with pytest.raises(NotAllowed):
        control.pause_game(runtime, game, by=0)
    assert runtime.service.head(game).seq == head
    control.pause_game(runtime, game)  # the operator still can
    assert runtime.service.game(game).paused_at is not None
