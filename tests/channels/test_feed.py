"""An Atom feed per public game: its turns and its result; valid Atom with stable ids
and times; none for a private game."""

from __future__ import annotations

from datetime import datetime

import feedparser
from lxml import etree

from pbem.games.service import SeatSpec
from tests.mail.conftest import new_game, take_turn

ATOM = "{http://www.w3.org/2005/Atom}"


def check_atom(data: bytes) -> etree._Element:
    """The feed parsed with lxml, checked for what RFC 4287 requires of a feed and of
    each entry: one id, title and updated (RFC 3339), and unique entry ids."""
    root = etree.fromstring(data)
    assert root.tag == f"{ATOM}feed"
    for element in [root, *root.findall(f"{ATOM}entry")]:
        for name in ("id", "title", "updated"):
            assert len(element.findall(f"{ATOM}{name}")) == 1, f"{name} in {element.tag}"
        datetime.fromisoformat(element.findtext(f"{ATOM}updated"))
        assert element.findtext(f"{ATOM}id").startswith("tag:")
    ids = [entry.findtext(f"{ATOM}id") for entry in root.findall(f"{ATOM}entry")]
    assert len(ids) == len(set(ids))
    assert root.find(f"{ATOM}author/{ATOM}name") is not None
    return root


def test_a_public_games_feed_is_valid_atom_with_its_turns(client, runtime, clock):
    created = new_game(runtime, seats=2)
    game = created.game_id
    page = client.get(f"/games/{game}")
    assert f'href="/games/{game}/feed.atom"' in page.text
    take_turn(runtime, game, rolls=2)
    clock.advance(hours=1)
    take_turn(runtime, game)
    answer = client.get(f"/games/{game}/feed.atom")
    assert answer.status_code == 200 and answer.mimetype == "application/atom+xml"
    parsed = feedparser.parse(answer.data)
    assert not parsed.bozo, parsed.get("bozo_exception")
    assert parsed.version == "atom10"
    assert parsed.feed.link == f"http://pbem.test/games/{game}"
    root = check_atom(answer.data)
    entries = parsed.entries
    assert len(entries) == runtime.service.game(game).head_seq
    # Newest first; the feed's updated is its newest entry's.
    assert entries[0].updated_parsed >= entries[-1].updated_parsed
    assert root.findtext(f"{ATOM}updated") == root.find(f"{ATOM}entry").findtext(f"{ATOM}updated")
    # Ids stay the same from one fetch to the next, and a new turn adds entries.
    ids = [entry.id for entry in entries]
    take_turn(runtime, game)
    again = feedparser.parse(client.get(f"/games/{game}/feed.atom").data)
    assert [entry.id for entry in again.entries][-len(ids) :] == ids
    assert len(again.entries) > len(ids)
    text = answer.data.decode()
    assert "@example.org" not in text and "/play/" not in text
    assert all(token not in text for token in created.tokens)


def test_a_finished_games_feed_ends_with_its_result(client, runtime):
    created = new_game(runtime, seats=2, target=12)
    game = created.game_id
    while runtime.service.game(game).status == "active":
        take_turn(runtime, game, rolls=3)
    answer = client.get(f"/games/{game}/feed.atom")
    parsed = feedparser.parse(answer.data)
    assert not parsed.bozo
    check_atom(answer.data)
    result = [entry for entry in parsed.entries if entry.id.endswith("/result")]
    # One winner ("Anna wins.") or a shared win ("Anna and Ben share the win."): the rolls are random.
    assert len(result) == 1 and "win" in result[0].title


def test_a_private_game_has_no_feed(client, runtime):
    created = runtime.service.create_game(
        "pig",
        [SeatSpec("Anna", "anna@example.org"), SeatSpec("Ben", "ben@example.org")],
        {"target": 30},
        private=True,
    )
    assert client.get(f"/games/{created.game_id}/feed.atom").status_code == 404
    assert "feed.atom" not in client.get(f"/games/{created.game_id}").text
    assert client.get("/games/nosuchgame/feed.atom").status_code == 404
