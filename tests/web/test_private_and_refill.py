"""Private games (never listed; their pages open by link) and the lobby keeping what was
typed when it refuses a form."""

from __future__ import annotations

import html
import re

from sqlmodel import Session, select

from pbem.games.service import SeatSpec
from pbem.mail.deferred import opened
from pbem.mail.models import Mail
from tests.web.conftest import csrf_of

PERSON = {"seat_name_0": "Ann", "seat_email_0": "ann@example.org"}


def create(client, **fields):
    lobby = client.get("/").text
    return client.post(
        "/games",
        data={
            "csrf_token": csrf_of(lobby),
            "game": "pig",
            "let_server_draw": "on",
            "option_pig_target": "30",
            **fields,
        },
    )


def test_a_private_game_is_not_listed_anywhere_but_opens_by_its_link(client, runtime):
    public = create(client, title="Open table", **PERSON, seat_email_1="bot")
    assert public.status_code == 303
    hidden = create(
        client,
        title="Quiet table",
        private="on",
        **PERSON,
        seat_name_1="Ben",
        seat_email_1="ben@example.org",
    )
    assert hidden.status_code == 303
    games = {game.title: game for game in runtime.service.games()}
    quiet, open_ = games["Quiet table"], games["Open table"]
    assert quiet.private and not open_.private
    lobby = client.get("/").text
    assert "Open table" in lobby and "Quiet table" not in lobby
    assert 'Running <span class="muted count">(1)' in lobby
    for status in ("active", "finished", None):
        page = runtime.service.list_games(status)
        assert quiet.id not in {row.id for row in page.games}
    assert quiet.id not in client.get("/?status=active&game=pig").text
    # Its spectator page works by its link; so does the API's view of it.
    assert client.get(f"/games/{quiet.id}").status_code == 200
    assert client.get(f"/api/games/{quiet.id}").status_code == 200
    # The creator is told it is private and how to share it; the invitee is not told so.
    with Session(runtime.db) as session:
        mails = session.exec(select(Mail).where(Mail.game_id == quiet.id)).all()
        texts = {mail.recipient: opened(runtime, mail)[0] for mail in mails}
    assert "This game is private" in texts["ann@example.org"]
    assert f"http://localhost/games/{quiet.id}" in texts["ann@example.org"]
    assert "private" not in texts["ben@example.org"]


def test_listings_leave_it_out_and_an_export_round_trip_keeps_it_private(runtime, tmp_path):
    from pbem.runtime import build_runtime
    from tests.databases import sqlite_engine
    from tests.web.conftest import overrides

    created = runtime.service.create_game(
        "pig",
        [SeatSpec("Ann", "ann@example.org"), SeatSpec("Bot", is_bot=True)],
        {},
        private=True,
    )
    exported = runtime.service.export_game(created.game_id, full=True)
    assert exported["game"]["private"] is True
    public = runtime.service.create_game(
        "pig", [SeatSpec("Cy", "cy@example.org"), SeatSpec("Cy 2", "cy@example.org")], {}
    )
    assert "private" not in runtime.service.export_game(public.game_id, full=True)["game"]
    page = runtime.service.list_games()
    assert [row.id for row in page.games] == [public.game_id] and page.total == 1
    other = sqlite_engine(tmp_path / "other.sqlite3")
    elsewhere = build_runtime(overrides(tmp_path / "other"), db=other)
    assert elsewhere.service.import_game(exported) == created.game_id
    assert elsewhere.service.game(created.game_id).private
    assert elsewhere.service.list_games().total == 0
    other.dispose()


def test_the_lobby_keeps_every_field_when_it_refuses_a_form(client, runtime):
    typed = {
        "title": "Friday <table>",
        "private": "on",
        "timezone": "Europe/Berlin",
        "seat_name_0": "Ann",
        "seat_email_0": "ann@example.org",
        "seat_name_1": "Ben",
        "seat_email_1": "not an address",
        "seat_timezone_1": "Asia/Tokyo",
        "seat_name_2": "Robo",
        "seat_email_2": "bot:easy",
        "game": "mercatores",
        "option_mercatores_end_cards": "12",
        "option_mercatores_first_player": "random",
        "option_mare_balticum_trade_contracts": "on",
        "reminder_after_hours": "7",
        "reminder_every_hours": "13",
        "deadline_after_days": "4",
        "at_deadline": "bot_seat",
    }
    answer = create(client, **typed)
    assert answer.status_code == 400
    page = answer.text
    assert runtime.service.games() == []
    error = page.index("Seat 2:")
    assert page.index('<h2 id="new">') < error < page.index('<form class="create"')
    for name, value in typed.items():
        if name in ("private", "at_deadline", "game") or name.startswith("option_"):
            continue
        field = re.search(rf'<input name="{name}"[^>]*value="([^"]*)"', page)
        assert field and html.unescape(field.group(1)) == value, name
    assert re.search(r'name="private" checked', page)
    assert re.search(r'<option value="bot_seat" selected>', page)
    assert re.search(r'<input type="radio" name="game" value="mercatores" checked>', page)
    assert re.search(r'<option value="12" selected>12</option>', page)
    assert re.search(r'<option value="random" selected>[^<]+</option>', page)
    assert 'name="option_mare_balticum_trade_contracts" checked' in page
    assert 'name="option_mare_balticum_demand_management" checked' not in page
    # A refused form without the box ticked does not tick it.
    plain = create(client, **{**typed, "private": ""}).text
    assert not re.search(r'name="private" checked', plain)
