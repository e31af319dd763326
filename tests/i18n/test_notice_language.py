"""A notice mail (a seat handed to a bot, a player who left) tells what happened in the
reader's language: its lines are put into that language before the mail is queued
(a queued mail keeps its words as JSON, which holds only the English)."""

from __future__ import annotations

from sqlmodel import Session, select

from pbem.games.rescue import hand_to_bot, leave_game
from pbem.games.service import SeatSpec
from pbem.mail.models import Mail
from tests.i18n.english import english_left
from tests.mail.conftest import Clock, as_sent, make_runtime

NAMES = {"Anna", "Ben", "Cleo"}


def test_a_german_seat_hears_of_a_bot_and_of_a_player_leaving_in_german(sqlite_db, tmp_path):
    runtime = make_runtime(sqlite_db, tmp_path, Clock())
    specs = [
        SeatSpec("Anna", "anna@example.org", language="de"),
        SeatSpec("Ben", "ben@example.org", language="fr"),
        SeatSpec("Cleo", "cleo@example.org"),
    ]
    game = runtime.service.create_game("pig", specs, {"target": 30}).game_id
    hand_to_bot(runtime, game, 2, by=2)  # Cleo hands her own seat to a bot
    leave_game(runtime, game, 1, by=1)
    with Session(runtime.db) as session:
        rows = session.exec(select(Mail).where(Mail.kind == "notice")).all()
        sent = as_sent(runtime, list(rows))
    by_reader = {}
    for mail in sent:
        by_reader.setdefault(mail.recipient, []).append(mail)
    anna = by_reader["anna@example.org"]
    assert anna, "Anna is told"
    for mail in anna:
        assert english_left(mail.body_text, html=False, allowed=NAMES) == [], mail.body_text
        assert english_left(mail.body_html, allowed=NAMES) == []
    assert any("Bot" in mail.body_text for mail in anna)
    ben = by_reader["ben@example.org"]  # told at his address that he left, in French
    assert ben and all(english_left(m.body_text, html=False, allowed=NAMES) == [] for m in ben)
