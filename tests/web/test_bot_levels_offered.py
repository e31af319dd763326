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
        "let_server_draw": "on",
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
        "let_server_draw": "on",
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


# Each title offers its hard bot everywhere a level is chosen --------------------------

TITLES = ["mare_balticum", "mare_nostrum", "mercatores"]


def option_fields(engine) -> dict[str, str]:
    """The lobby form's option fields at their defaults (a box ticked when true)."""
    fields = {}
    for option in engine.options:
        if isinstance(option.default, bool):
            if option.default:
                fields[f"option_{engine.slug}_{option.name}"] = "on"
        else:
            fields[f"option_{engine.slug}_{option.name}"] = str(option.default)
    return fields


@pytest.mark.parametrize("slug", TITLES)
def test_the_lobby_offers_and_seats_each_titles_hard_bot(client, runtime, slug):
    from engines import REGISTRY

    engine = REGISTRY[slug]
    lobby = client.get("/").text
    assert "<code>bot:hard</code> for a stronger one" in lobby
    data = {
        "csrf_token": csrf_of(lobby),
        "game": slug,
        "let_server_draw": "on",
        **option_fields(engine),
    }
    data.update(seat_name_0="Ann", seat_email_0="a@b.org")
    for index in range(1, engine.min_seats):
        data[f"seat_email_{index}"] = "bot:hard"
    answer = client.post("/games", data=data)
    assert answer.status_code in (302, 303), re.findall(
        r"class=\"message bad\"[^>]*>([^<]*)", answer.text
    )
    (game,) = runtime.service.games()
    levels = levels_of(runtime, game.id)
    assert [levels[seat] for seat in range(1, engine.min_seats)] == [(True, "hard")] * (
        engine.min_seats - 1
    )
    # The hard bots never moved inside the lobby's request (no runner runs here).
    assert not [row for row in runtime.service.events(game.id) if row["kind"] == "auto_move"]


@pytest.mark.parametrize("slug", TITLES)
def test_each_titles_seat_page_hands_a_seat_to_its_hard_bot(client, runtime, slug):
    from engines import REGISTRY
    from pbem.games.service import SeatSpec

    engine = REGISTRY[slug]
    created = runtime.service.create_game(
        slug, [SeatSpec(f"P{n}", f"p{n}@example.org") for n in range(engine.min_seats)]
    )
    token = created.tokens[1]
    page = client.get(f"/rescue/{token}").text
    assert '<option value="hard">Hard</option>' in page
    data = {"csrf_token": csrf_of(page), "action": "to_bot", "seat": "1", "level": "hard"}
    asked = client.post(f"/rescue/{token}", data=data)
    done = client.post(
        f"/rescue/{token}", data={**data, "csrf_token": csrf_of(asked.text), "confirm": "yes"}
    )
    assert done.status_code in (302, 303)
    assert levels_of(runtime, created.game_id)[1] == (True, "hard")


@pytest.mark.parametrize("slug", TITLES)
def test_the_command_line_seats_each_titles_hard_bot(tmp_path, monkeypatch, capsys, slug):
    from engines import REGISTRY
    from pbem.cli import main
    from pbem.runtime import build_runtime

    monkeypatch.setenv("PBEM_PATHS_VAR", str(tmp_path / "var"))
    database = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    engine = REGISTRY[slug]
    seats = ["bot:hard", "Ann:ann@example.org"] + ["bot:hard"] * (engine.min_seats - 2)
    assert main(["--database", database, "new", slug, *[f"--seat={s}" for s in seats]]) == 0
    out = capsys.readouterr().out
    game_id = out.split("Game ", 1)[1].split(" ", 1)[0]
    runtime = build_runtime({"database": {"url": database}})
    levels = levels_of(runtime, game_id)
    assert [level for seat, level in sorted(levels.items()) if seat != 1] == [(True, "hard")] * (
        engine.min_seats - 1
    )
    # A command never plays a slow bot: it names the bots left to the server.
    assert not [row for row in runtime.service.events(game_id) if row["kind"] == "auto_move"]
    bot_due = any(seat.is_bot and seat.due for seat in runtime.service.seats(game_id))
    assert ("a bot that thinks long moves when the server" in out) == bot_due
    assert main(["--database", database, "seat", "bot", game_id, "1", "--level", "hard"]) == 0
    assert levels_of(runtime, game_id)[1] == (True, "hard")
    assert not [row for row in runtime.service.events(game_id) if row["kind"] == "auto_move"]
