"""A whole game's mail through the service and a real SMTP server (aiosmtpd): three
people, a custom title and policy, a reminder, a seat handed to a bot, the end. Every
mail that crossed the wire reads right: no "None", no template syntax, no doubled
stops, no seat numbers where a name belongs, the game and the deadline in words."""

from __future__ import annotations

import random
import re

from engines import bot_move
from pbem.games.rescue import hand_to_bot
from pbem.games.service import SeatSpec
from pbem.scheduler import dispatch, sweep
from tests.mail.conftest import part

POLICY = {
    "reminder_after_hours": 6,
    "reminder_every_hours": 0,
    "deadline_after_days": 3,
    "at_deadline": "bot_turn",
}
BAD = [
    ("None", re.compile(r"\bNone\b")),
    ("template syntax", re.compile(r"\{\{|\}\}|\{%|%\}")),
    ("a doubled stop", re.compile(r"(?<!\.)\.\.(?!\.)|\.\)\.|\s\.(?=\s|$)")),
    ("a seat number", re.compile(r"\b[Ss]eat [0-9]+\b|\bPlayer [0-9]+\b")),
    ("you's", re.compile(r"\byou's\b|\byou reclaims\b", re.IGNORECASE)),
]


def play_one(runtime, game_id: str, seat: int, rng: random.Random) -> None:
    head = runtime.service.head(game_id)
    legal = head.engine.legal_moves(head.state, seat)
    move = bot_move(head.engine, head.engine.view(head.state, seat), legal, rng)
    runtime.service.submit_move(game_id, seat, move, head.seq)


def test_a_whole_game_mails_every_kind_and_each_reads_right(runtime, mailbox, clock):
    created = runtime.service.create_game(
        "mercatores",
        [
            SeatSpec("Anna", "anna@example.org", timezone="Europe/Berlin"),
            SeatSpec("Ben", "ben@example.org", timezone="America/New_York"),
            SeatSpec("Cleo", "cleo@example.org", timezone="Asia/Tokyo"),
        ],
        title="Thursday traders",
        policy=POLICY,
    )
    game = created.game_id
    rng = random.Random(7)
    dispatch(runtime)
    clock.advance(hours=7)
    assert sweep(runtime).reminders == 1
    dispatch(runtime)
    # Cleo hands her seat to a bot; the rest is played out, a few minutes a move.
    hand_to_bot(runtime, game, 2, by=2)
    for _ in range(3000):
        head = runtime.service.head(game)
        if head.game.status != "active":
            break
        due = sorted(head.engine.to_move(head.state))
        clock.advance(minutes=3)
        if due[0] == 2:
            assert runtime.service.play_bots(game) > 0  # what the sweep does for bot seats
        else:
            play_one(runtime, game, due[0], rng)
        if len(mailbox.messages) < 400:
            dispatch(runtime)
    assert runtime.service.game(game).status == "finished"
    while dispatch(runtime).claimed:
        pass

    subjects = {message["Subject"].split(": ", 1)[1].split(",")[0] for message in mailbox.messages}
    for wanted in (
        "you are invited to play",
        "your turn",
        "reminder",
        "A bot takes over a seat",
        "the game is over",
    ):
        assert wanted in subjects, (wanted, subjects)

    for message in mailbox.messages:
        text, html = part(message, "plain"), part(message, "html")
        for what, pattern in BAD:
            for body in (text, html):
                found = pattern.search(body)
                assert found is None, (what, message["Subject"], message["To"], body)
        assert message["Auto-Submitted"] == "auto-generated"
        assert message["List-Id"] == f'"Thursday traders" <{game}.games.localhost>'

    invitation = next(m for m in mailbox.to("ben@example.org", "invited"))
    text = part(invitation, "plain")
    assert "Thursday traders, a game of Mercatores" in text
    assert "Playing with you: Anna and Cleo." in text
    assert "A reminder comes 6 hours into a turn." in text
    assert "At the deadline a bot plays that one turn for the late player, who keeps" in text
    assert created.commitment in text

    first = next(m for m in mailbox.to("anna@example.org", "invited"))
    assert "Deadline: Thu 5 Mar 2026, 10:00 CET (09:00 UTC), in 3 days" in part(first, "plain")
    reminder = mailbox.to("anna@example.org", "reminder")[0]
    assert "(09:00 UTC), in 2 days 17 hours" in part(reminder, "plain")

    over = [m for m in mailbox.messages if "the game is over" in m["Subject"]]
    assert {m["To"] for m in over} >= {"anna@example.org", "ben@example.org"}
    seed = runtime.service.events(game)[-1]["payload"]["seed"]
    for message in over:
        assert seed in part(message, "plain")
