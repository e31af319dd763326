"""Profiles and leaderboards on the web: a handle claimed from "my games" (CSRF, a forged
link, a bad or taken handle), hidden and deleted profiles (the same 404 as an unknown
one), and no page showing an address or a seat's link."""

from __future__ import annotations

import re

from pbem.scheduler import dispatch
from tests.games.test_my_games import csrf, footer_link
from tests.games.test_ratings import finish
from tests.mail.conftest import new_game

ADDRESSES = ("anna@example.org", "ben@example.org", "cleo@example.org")


def claim(client, path: str, handle: str, do: str = "claim"):
    token = csrf(client.get(path).data)
    return client.post(f"{path}/profile", data={"csrf_token": token, "handle": handle, "do": do})


def test_claiming_hiding_and_deleting_a_profile_from_my_games(runtime, app, mailbox):
    game = new_game(runtime, seats=3, target=15)
    dispatch(runtime)
    finish(runtime, game.game_id)
    anna = footer_link(mailbox, "anna@example.org", "invited")
    ben = footer_link(mailbox, "ben@example.org", "invited")
    client = app.test_client()
    page = client.get(anna).get_data(as_text=True)
    assert "Nothing about you is public" in page and "Claim this handle" in page
    # Without the form's token, or from a forged link, nothing is claimed.
    assert client.post(f"{anna}/profile", data={"handle": "anna"}).status_code in (400, 403)
    forged = anna[:-4] + ("AAAA" if not anna.endswith("AAAA") else "BBBB")
    assert client.post(f"{forged}/profile", data={"handle": "anna"}).status_code in (400, 403, 404)
    assert client.get("/players/anna").status_code == 404

    done = claim(client, anna, "Anna")
    assert done.status_code == 303 and done.headers["Location"].endswith(f"{anna}#profile")
    page = client.get(anna).get_data(as_text=True)
    assert "/players/Anna" in page and "Hide my profile" in page
    # Someone else cannot take it, whatever its case; a reserved one is refused.
    claim(client, ben, "ANNA")
    assert "That handle is taken" in client.get(ben).get_data(as_text=True)
    claim(client, ben, "Admin")
    assert "kept for the server" in client.get(ben).get_data(as_text=True)
    claim(client, ben, "Ben")

    profile = client.get("/players/anna")
    text = profile.get_data(as_text=True)
    assert profile.status_code == 200 and "Anna" in text and "Finished games" in text
    assert "<svg" in text and "<polyline" in text and "Cleo" in text  # names as they were
    board = client.get("/ratings/pig").get_data(as_text=True)
    assert 'href="/players/Anna"' in board and 'href="/players/Ben"' in board
    assert "Cleo" not in board  # no handle: not listed
    for shown in (text, board, client.get("/players/Ben").get_data(as_text=True)):
        assert not any(address in shown for address in ADDRESSES)
        assert "/play/" not in shown and "/my-games/" not in shown
        for token in game.tokens:
            assert not token or token not in shown

    # Hidden: the same 404 as a handle nobody has; shown again, back.
    claim(client, anna, "", do="hide")
    unknown = client.get("/players/nobody_here")
    assert client.get("/players/Anna").status_code == unknown.status_code == 404
    assert "/players/Anna" not in client.get("/ratings/pig").get_data(as_text=True)
    claim(client, anna, "", do="show")
    assert client.get("/players/Anna").status_code == 200
    # Deleted: gone, and the handle is not free for others yet.
    claim(client, anna, "", do="delete")
    assert client.get("/players/Anna").status_code == 404
    claim(client, ben, "anna")
    assert client.get("/players/Ben").status_code == 200
    assert "Claim this handle" in client.get(anna).get_data(as_text=True)


def test_leaderboard_pages_and_bad_requests(runtime, app):
    client = app.test_client()
    empty = client.get("/ratings/pig")
    assert empty.status_code == 200 and "Nobody is rated here" in empty.get_data(as_text=True)
    for bad in (
        "/ratings/nosuchgame",
        "/ratings/pig?page=0",
        "/ratings/pig?page=x",
        "/ratings/pig?page=99999999",
        "/players/a",
        "/players/" + "x" * 40,
        "/players/%3Cscript%3E",
    ):
        assert client.get(bad).status_code == 404, bad
    rules = client.get("/rules/mercatores").get_data(as_text=True)
    assert re.search(r'href="/ratings/mercatores"', rules)
