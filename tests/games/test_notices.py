"""Notices: the game states what happened to whom, in the change's transaction; mail is
one listener among any others."""

from __future__ import annotations

import dataclasses

import pytest
from sqlmodel import Session, select

from pbem.games import control, talk
from pbem.games.notices import Notice
from pbem.mail.models import Mail
from pbem.models import Event
from tests.mail.conftest import new_game


@pytest.fixture
def game(runtime):
    return new_game(runtime)  # Anna, Ben, Cleo


def test_a_notice_is_frozen_keyword_only_and_of_a_known_kind():
    notice = Notice(kind="talk", key="k", game_id="g", seat=1, facts={"said": "hi"})
    with pytest.raises(dataclasses.FrozenInstanceError):
        notice.seat = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        Notice("talk", "k", "g")  # type: ignore[misc]
    with pytest.raises(ValueError, match="kind of notice"):
        Notice(kind="shouted", key="k", game_id="g", seat=1)
    with pytest.raises(ValueError, match="seat or to an address"):
        Notice(kind="seat_left", key="k", game_id="g")


def test_every_listener_hears_each_notice_with_the_changes_session(runtime, game):
    heard = []

    def listener(session: Session, notice: Notice) -> None:
        # Inside the transaction: the talk event is already there to read.
        kinds = session.exec(select(Event.kind).where(Event.game_id == notice.game_id)).all()
        heard.append((notice.kind, notice.seat, dict(notice.facts), kinds[-1]))

    runtime.service.notice_listeners.append(listener)
    talk.post(runtime, game.game_id, 0, None, "Anyone for a deal?")
    assert [(kind, seat, last) for kind, seat, _, last in heard] == [
        ("talk", 1, "talk"),
        ("talk", 2, "talk"),
    ]
    assert heard[0][2] == {
        "sender": 0,
        "sender_name": "Anna",
        "private": False,
        "said": "Anyone for a deal?",
    }
    # Mail, the other listener, wrote its mails from the same notices.
    with Session(runtime.db) as session:
        seats = session.exec(select(Mail.seat).where(Mail.kind == "talk").order_by(Mail.id))
        assert list(seats) == [1, 2]


def test_a_listener_that_fails_undoes_the_change_and_every_mail(runtime, game):
    def failing(session: Session, notice: Notice) -> None:
        raise RuntimeError("the listener failed")

    before = runtime.service.head(game.game_id).seq
    runtime.service.notice_listeners.append(failing)
    with pytest.raises(RuntimeError):
        control.pause_game(runtime, game.game_id)
    assert runtime.service.head(game.game_id).seq == before
    with Session(runtime.db) as session:
        assert session.exec(select(Mail).where(Mail.kind == "notice")).all() == []


def test_a_seat_event_tells_every_seat_what_happened(runtime, game):
    heard = []
    runtime.service.notice_listeners.append(lambda session, notice: heard.append(notice))
    control.pause_game(runtime, game.game_id)
    assert [(notice.kind, notice.seat) for notice in heard] == [
        ("seat_event", 0),
        ("seat_event", 1),
        ("seat_event", 2),
    ]
    facts = heard[0].facts
    assert facts["event"] == "game_paused" and facts["headline"] and facts["lines"]
    assert len({notice.key for notice in heard}) == 3
