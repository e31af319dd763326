"""Pages speak a player's words: a title's display name, the options' labels, and
names of people (never a code's identifier, never "You" for someone else)."""

from __future__ import annotations

import re
from html import unescape

import pytest

from engines import REGISTRY, at_version, listed_engines, versions_of
from pbem.demo import ensure_demo
from pbem.games.service import SeatSpec
from pbem.web import create_app

OPTION_TEXT = re.compile(r"<option[^>]*>([^<]*)</option>")


def every_option():
    for engine in listed_engines():
        for version in versions_of(engine):
            for option in at_version(engine, version).options:
                yield engine, version, option


def is_word(value) -> bool:
    return isinstance(value, str) and not value.isdigit()


@pytest.mark.parametrize(
    "engine, version, option",
    [
        pytest.param(*case, id=f"{case[0].slug}-{case[1]}-{case[2].name}")
        for case in every_option()
        if case[2].choices and any(is_word(choice) for choice in case[2].choices)
    ],
)
def test_every_worded_choice_of_an_option_has_a_label_from_its_engine(engine, version, option):
    assert option.choice_labels is not None
    assert len(option.choice_labels) == len(option.choices)
    for choice, label in zip(option.choices, option.choice_labels, strict=True):
        assert option.choice_label(choice) == label
        assert label and "_" not in label and label != choice


def test_the_create_form_shows_option_labels_and_sends_their_values(client):
    html = client.get("/").text
    shown = {unescape(text).strip() for text in OPTION_TEXT.findall(html)}
    for _engine, _version, option in every_option():
        if not option.choices or option not in _engine.options:
            continue
        for choice in option.choices:
            assert f'<option value="{choice}"' in html
            assert option.choice_label(choice) in shown
            if is_word(choice):
                assert choice not in shown


def test_the_rules_reference_names_an_options_default_in_words(client):
    for engine in listed_engines():
        html = unescape(client.get(f"/rules/{engine.slug}").text)
        for option in engine.options:
            if option.choices and is_word(option.default):
                words = option.choice_label(option.default)
                assert f"(default: {words[:1].lower()}{words[1:]})" in html
                assert f"(default: {option.default})" not in html


def test_the_lobby_names_a_games_title_not_its_slug(client, runtime):
    seats = [SeatSpec("Bot 1", is_bot=True), SeatSpec("Bot 2", is_bot=True)]
    runtime.service.create_game("pig", seats, {"target": 50}, title="Evening game")
    html = unescape(client.get("/").text)
    title = REGISTRY["pig"].title
    assert f"{title} · " in html
    assert "pig · " not in html


def test_the_lobby_says_when_a_game_last_moved_not_its_event_count(client, runtime):
    seats = [SeatSpec("Bot 1", is_bot=True), SeatSpec("Bot 2", is_bot=True)]
    created = runtime.service.create_game("pig", seats, {"target": 50}, title="Evening game")
    game = runtime.service.game(created.game_id)
    html = unescape(client.get("/").text)
    line = html[html.index("Evening game") :].split("</li>")[0]
    assert re.search(
        r"last move <time datetime=\"[0-9T:+-]+\" data-local>[0-9-]+ [0-9:]+ UTC</time>", line
    ), line
    assert "event " not in line and str(game.head_seq) + " events" not in line


def test_the_demo_seat_has_a_persons_name_so_public_pages_never_say_you(sqlite_runtime):
    ensure_demo(sqlite_runtime)
    for game in sqlite_runtime.service.games():
        names = [seat.name for seat in sqlite_runtime.service.seats(game.id)]
        assert "You" not in names
    client = create_app(runtime=sqlite_runtime).test_client()
    lobby = unescape(client.get("/").text)
    assert not re.search(r"\bYou\b \(", lobby)
    for game in sqlite_runtime.service.games():
        spectator = unescape(client.get(f"/games/{game.id}").text)
        assert not re.search(r"\bYou \(", spectator)
