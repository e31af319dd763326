"""A whole game of each title played to its end by mail replies alone: a scripted player
answers, through the LMTP listener, the mails an aiosmtpd SMTP server receives from the
dispatcher; bots hold the other seats. The finished log verifies with ``pbem verify``,
and every move of the player's seat came in by mail.

The player picks what the normal bot would (so games end), and writes it by its code
from the mail, by its label, as JSON, or (where the title has one) in its written form.
"""

from __future__ import annotations

import json
import random

import pytest
from sqlmodel import Session, select

from engines import bot_move
from pbem.cli import main
from pbem.games import names
from pbem.games.service import SeatSpec
from pbem.mail.dispatch import dispatch
from pbem.mail.inbound import moves
from pbem.models import Event
from tests.mail.inbound_helpers import (
    listed_moves,
    reply_runtime,
    reply_to,
    send_lmtp,
    start_lmtp,
    tag_seq,
)

GAMES = [
    ("mercatores", 2, {"end_cards": 10}),
    ("mare_balticum", 3, {}),
    ("mare_nostrum", 3, {"turn_limit": 2}),
]
ANNA = "anna@example.org"


def _choose(runtime, game_id, message, rng, round_):
    """The line the player writes: the bot's choice by code, label, JSON or written form."""
    head = runtime.service.head(game_id)
    seat_names = [seat.name for seat in runtime.service.seats(game_id)]
    legal = head.engine.legal_moves(head.state, 0)
    view = head.engine.view(head.state, 0)
    move = bot_move(head.engine, view, legal, rng, "normal")
    label = names.fill(head.engine.move_label(move, view), seat_names, names.marks_of(view))
    listed = listed_moves(message)
    style = round_ % 4
    if style == 0 and label in listed:
        return str(listed[label]), "code"
    if style == 1:
        return json.dumps(move), "json"
    if style == 2 and moves.written_key(head.engine, label) is not None:
        base = names.fill(head.engine.move_label(move), seat_names, names.marks_of(view))
        return base.upper(), "written"
    return label, "label"


@pytest.mark.parametrize("slug,seats,options", GAMES, ids=[game[0] for game in GAMES])
def test_a_whole_game_by_mail_replies(sqlite_db, tmp_path, clock, smtp, slug, seats, options):
    mailbox, smtp_port = smtp
    runtime = reply_runtime(sqlite_db, tmp_path, clock, smtp_port)
    listener, port = start_lmtp(runtime)
    try:
        specs = [SeatSpec("Anna", ANNA)] + [
            SeatSpec(f"Bot {n}", is_bot=True) for n in range(1, seats)
        ]
        game_id = runtime.service.create_game(slug, specs, options).game_id
        runtime.service.play_bots(game_id)
        rng = random.Random(7)
        seen, styles, replies = 0, set(), 0
        for round_ in range(600):
            dispatch(runtime)
            fresh = mailbox.messages[seen:]
            seen = len(mailbox.messages)
            if any("game is over" in str(m["Subject"]) for m in fresh if m["To"] == ANNA):
                break
            mine = [m for m in fresh if m["To"] == ANNA and m["Reply-To"] and listed_moves(m)]
            assert mine, f"round {round_}: no mail lists Anna's moves"
            newest = max(mine, key=tag_seq)
            line, style = _choose(runtime, game_id, newest, rng, round_)
            styles.add(style)
            refused = send_lmtp(
                port, reply_to(newest, [line], ANNA, round_), str(newest["Reply-To"])
            )
            assert refused == {}
            replies += 1
        else:
            pytest.fail("the game did not end")
        assert runtime.service.game(game_id).status == "finished"
        with Session(sqlite_db) as session:
            anna = session.exec(
                select(Event).where(Event.game_id == game_id, Event.seat == 0, Event.kind == "move")
            ).all()
        assert anna and {event.actor for event in anna} == {"mail"}
        assert {"code", "label", "json"} <= styles
        path = tmp_path / "game.json"
        path.write_text(json.dumps(runtime.service.export_game(game_id, full=True)))
        assert main(["verify", str(path)]) == 0
    finally:
        listener.stop()
