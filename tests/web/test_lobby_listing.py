"""The lobby's lists: paged in the database, filtered, counted, and never head_state."""

from __future__ import annotations

import re
from html import unescape

import pytest
from sqlalchemy import event, update
from sqlmodel import Session

from pbem.games.service import SeatSpec
from pbem.models import Game
from pbem.web import lobby

GAME_LINK = re.compile(r'href="/games/([a-z0-9-]+)"')
NEXT = re.compile(r'<a rel="next" href="([^"]+)"')


def bot_game(runtime, title="") -> str:
    seats = [SeatSpec("Bot 1", is_bot=True), SeatSpec("Bot 2", is_bot=True)]
    return runtime.service.create_game("pig", seats, {"target": 50}, title=title).game_id


def ids_on(html: str) -> list[str]:
    return GAME_LINK.findall(html)


@pytest.fixture
def small_pages(monkeypatch):
    monkeypatch.setattr(lobby, "LOBBY_PAGE", 3)


def test_the_lobby_pages_running_games_while_games_are_created(client, runtime, small_pages):
    ids = [bot_game(runtime) for _ in range(8)]
    first = client.get("/")
    assert first.status_code == 200
    assert 'Running <span class="muted count">(8)</span>' in first.text
    assert 'Finished <span class="muted count">(0)</span>' in first.text
    seen = ids_on(first.text)
    assert seen == ids[::-1][:3]
    link = unescape(NEXT.search(first.text).group(1))
    created_between = []
    while True:
        created_between.append(bot_game(runtime))
        page = client.get(link)
        assert page.status_code == 200 and "First page" in page.text
        seen += ids_on(page.text)
        found = NEXT.search(page.text)
        if not found:
            break
        link = unescape(found.group(1))
    assert len(seen) == len(set(seen)) == 8
    assert set(seen) == set(ids)
    assert ids_on(client.get("/").text)[:2] == created_between[::-1][:2]


def test_the_lobby_filters_by_status_and_title(client, runtime, small_pages):
    ids = [bot_game(runtime, title=f"Game {number}") for number in range(5)]
    with Session(runtime.db) as session:
        session.exec(update(Game).where(Game.id.in_(ids[:2])).values(status="finished"))
        session.exec(update(Game).where(Game.id == ids[4]).values(engine="mercatores"))
        session.commit()
    both = client.get("/").text
    assert "(3)" in both and "(2)" in both
    finished = client.get("/?status=finished").text
    assert (
        set(ids_on(finished)) == set(ids[:2])
        and "Running" not in finished.split('<form class="filters"')[1]
    )
    pig_running = client.get("/?status=active&game=pig").text
    assert set(ids_on(pig_running)) == set(ids[2:4])
    other = client.get("/?game=mercatores").text
    assert ids_on(other) == [ids[4]]
    assert "No game has finished yet." in other


@pytest.mark.parametrize(
    "query",
    ["?status=paused", "?game=chess", "?after=garbage", "?status=active&after=" + "A" * 300],
)
def test_a_bad_listing_value_is_named_with_400(client, runtime, query):
    game_id = bot_game(runtime)
    answer = client.get("/" + query)
    assert answer.status_code == 400
    assert 'role="alert"' in answer.text
    assert game_id in ids_on(answer.text)  # the plain lists instead
    assert len(runtime.service.games()) == 1


def test_the_lobby_never_selects_head_state(client, runtime):
    for _ in range(3):
        bot_game(runtime)
    statements = []

    def capture(_conn, _cursor, statement, *_args):
        statements.append(statement)

    def lobby_statements() -> list[str]:
        statements.clear()
        event.listen(runtime.db, "before_cursor_execute", capture)
        try:
            assert client.get("/").status_code == 200
        finally:
            event.remove(runtime.db, "before_cursor_execute", capture)
        return [statement for statement in statements if "games" in statement]

    few = lobby_statements()
    assert few and not any("head_state" in statement for statement in few)
    for _ in range(4):
        bot_game(runtime)
    assert len(lobby_statements()) == len(few)  # the same queries, whatever the count
