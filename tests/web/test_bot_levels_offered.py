"""Every bot level a title offers can be chosen wherever a level can: the lobby's form,
``pbem new --seat bot:LEVEL``, the seat's own rescue page and ``pbem seat bot --level``.
A level the title does not offer, or a word that is no level, is refused with a sentence
and changes nothing. The test fixture's title is given a third level for the test."""

from __future__ import annotations

import re

import pytest
from sqlmodel import Session, select

from pbem.cli import seats_from_args
from pbem.errors import BadInput
from pbem.eventlog import roster
from pbem.models import Seat
from tests.fixture_engine import PIG
from tests.web.conftest import csrf_of, pig_game


@pytest.fixture
def three_levels(monkeypatch):
    monkeypatch.setattr(type(PIG), "bot_levels", ("easy", "normal", "hard"))


def levels_of(runtime, game_id):
    with Session(runtime.db) as session:
        rows = session.exec(select(Seat).where(Seat.game_id == game_id)).all()
        return {row.seat: (row.is_bot, row.bot_level) for row in rows}


def test_the_command_line_reads_every_level_and_names_them_when_wrong():
    assert [spec.bot_level for spec in seats_from_args(["bot", "bot:easy", "bot:hard"])] == [
        "normal",
        "easy",
        "hard",
    ]
    with pytest.raises(BadInput, match="bot:easy, bot:normal, bot:hard"):
        seats_from_args(["bot:wild"])


def test_the_lobby_seats_a_hard_bot_where_the_title_offers_one(client, runtime, three_levels):
    csrf = csrf_of(client.get("/").text)
    data = {
        "csrf_token": csrf,
        "game": "pig",
        "option_pig_target": "20",
        "seat_name_0": "Ann",
        "seat_email_0": "a@b.org",
        "seat_email_1": "bot:hard",
    }
    answer = client.post("/games", data=data)
    assert answer.status_code in (302, 303), re.findall(
        r"class=\"message bad\"[^>]*>([^<]*)", answer.text
    )
    (game,) = runtime.service.games()
    assert levels_of(runtime, game.id)[1] == (True, "hard")


def test_the_lobby_refuses_a_level_the_title_does_not_offer(client, runtime):
    csrf = csrf_of(client.get("/").text)
    data = {
        "csrf_token": csrf,
        "game": "pig",
        "option_pig_target": "20",
        "seat_name_0": "Ann",
        "seat_email_0": "a@b.org",
        "seat_email_1": "bot:hard",
    }
    answer = client.post("/games", data=data)
    assert answer.status_code == 400 and "easy, normal" in answer.text
    assert runtime.service.games() == []


def test_a_player_hands_their_own_seat_to_the_level_they_choose(client, runtime, three_levels):
    created = pig_game(runtime)
    token = created.tokens[1]
    page = client.get(f"/rescue/{token}").text
    assert '<select name="level">' in page and '<option value="hard">Hard</option>' in page
    asked = client.post(
        f"/rescue/{token}",
        data={"csrf_token": csrf_of(page), "action": "to_bot", "seat": "1", "level": "hard"},
    )
    assert asked.status_code == 200 and 'name="level" value="hard"' in asked.text
    assert levels_of(runtime, created.game_id)[1] == (False, "normal")  # asked, not done
    done = client.post(
        f"/rescue/{token}",
        data={
            "csrf_token": csrf_of(asked.text),
            "action": "to_bot",
            "seat": "1",
            "level": "hard",
            "confirm": "yes",
        },
    )
    assert done.status_code in (302, 303)
    assert levels_of(runtime, created.game_id)[1] == (True, "hard")
    spectator = client.get(f"/games/{created.game_id}").text
    assert "bot (hard)" in spectator
    history = client.get(f"/play/{created.tokens[0]}/history").text
    assert "A hard bot takes over" in history


@pytest.mark.parametrize("level", ["wild", "hard"])
def test_a_level_not_offered_hands_nothing_over(client, runtime, level):
    created = pig_game(runtime)
    token = created.tokens[1]
    page = client.get(f"/rescue/{token}").text
    assert '<select name="level">' in page  # the fixture offers easy and normal
    answer = client.post(
        f"/rescue/{token}",
        data={
            "csrf_token": csrf_of(page),
            "action": "to_bot",
            "seat": "1",
            "level": level,
            "confirm": "yes",
        },
    )
    assert answer.status_code == 400
    assert levels_of(runtime, created.game_id)[1] == (False, "normal")


def test_the_log_knows_every_level_and_refuses_other_words():
    assert roster.BOT_LEVELS == ("easy", "normal", "hard")
    from engines import REGISTRY, bot_levels_of

    # Other tests may register small engines of their own; every engine, theirs too,
    # must offer only levels the log knows.
    for engine in REGISTRY.values():
        assert set(bot_levels_of(engine)) <= set(roster.BOT_LEVELS), engine.slug
