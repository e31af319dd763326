"""Mercatores in German, Polish and French: every word the engine writes for a player
(move labels with their previews, history lines for every viewer, phases, refusals,
option and score labels, the rules reference) comes from its own catalogue, and its
table, move forms and rules page are printed in the reader's language."""

from __future__ import annotations

import random
import re

import pytest

from engines.api import IllegalMove, SeededChance
from engines.mercatores import ENGINE, Mercatores
from engines.text import Joined, Text
from pbem import i18n
from pbem.games.names import fill
from pbem.games.service import SeatSpec
from pbem.runtime import build_runtime
from pbem.web import create_app
from tests.databases import sqlite_engine
from tests.engines.mercatores.test_self_play import mutations
from tests.i18n.english import english_left
from tests.web.conftest import overrides

LANGUAGES = ("de", "pl", "fr")
NAMES = ("Anna", "Ben", "Cleo", "Dora")
ALLOWED = frozenset(NAMES)
# Words of the language that are also English words english_left looks for
OWN_WORDS = {"de": {"links", "was", "phase"}, "pl": set(), "fr": {"phase"}}
# Sentences of the shared pages around the table (translated with the server's pages)
SHARED = re.compile(
    r"^(Zoom the map|To the moves|Options chosen when a game is made|\(default: .*\))$"
)


def left_in(html: str, language: str, *, plain: bool = False) -> list[str]:
    """english_left of our own parts, less the language's own words and shared sentences."""
    allowed = ALLOWED | OWN_WORDS[language]
    found = english_left(html, html=not plain, allowed=allowed)
    return [part for part in found if not SHARED.match(part)]


# (seats, options, version, seed): every player count, both versions, a short game
GAMES = [
    (2, {}, 2, 1),
    (3, {"first_player": "random"}, 2, 2),
    (4, {"end_cards": 10}, 2, 3),
    (2, {"end_cards": 10}, 1, 4),
    (3, {}, 1, 5),
]


def messages(value) -> list[tuple[str, str | None]]:
    """Every (msgid, plural) of a Text tree."""
    if isinstance(value, Joined):
        found = []
        for item in (*value.items, value.separator, value.last):
            found += messages(item)
        return found
    if isinstance(value, Text):
        found = [(value.msgid, value.plural)]
        for item in value.params.values():
            found += messages(item)
        return found
    return []


def translated(language: str, msgid: str, plural: str | None) -> bool:
    catalogue = i18n.title_catalogue(language, "mercatores")
    entries = getattr(catalogue, "_catalog", {})
    if plural is None:
        return bool(entries.get(msgid))
    return bool(entries.get((msgid, 0))) and bool(entries.get((msgid, 1)))


class Words:
    """What a game says to its players, gathered once per test run."""

    def __init__(self) -> None:
        self.texts: list = []
        self.plain: list[str] = []

    def add(self, value) -> None:
        if isinstance(value, Text | Joined):
            self.texts.append(fill(value, NAMES, ("Red", "Blue", "Green", "Yellow")))
        elif isinstance(value, str) and value:
            self.plain.append(value)


def play(words: Words, seats: int, options: dict, version: int, seed: int) -> None:
    engine = ENGINE.at_version(version) if version != ENGINE.version else ENGINE
    chance = SeededChance(seed)
    rng = random.Random(seed)
    state = engine.setup(seats, options, chance)
    kinds = set()
    for _ in range(2000):
        words.add(engine.phase_line(state)[0])
        for part in engine.turn_line(state):
            words.add(part)
        due = sorted(engine.to_move(state))
        if not due:
            break
        seat = due[0]
        view = engine.view(state, seat)
        words.add(view["phase"])
        for line in engine.own_words(view):
            words.add(line)
        legal = engine.legal_moves(state, seat)
        for move in legal:
            words.add(engine.move_label(move, view))
            words.add(engine.move_label(move))
            kinds.add(move["type"])
        move = engine.bot_move(view, legal, rng, "easy")
        for bad in mutations(move):
            try:
                engine.apply(state, seat, bad, SeededChance(0))
            except IllegalMove as refused:
                words.add(refused.reason)
        other = (seat + 1) % seats
        try:
            engine.apply(state, other, move, SeededChance(0))
        except IllegalMove as refused:
            words.add(refused.reason)
        after = engine.apply(state, seat, move, chance)
        for viewer in (None, *range(seats)):
            for line in engine.describe(state, seat, move, after, viewer):
                words.add(line)
        state = after
    result = engine.result(state)
    assert result is not None, "the game ended"
    words.add(result.reason)
    for label in result.table.columns:
        words.add(label)
    for line in engine.own_words(engine.view(state, 0)):
        words.add(line)
    for kind in (*kinds, "trade", "load", "tax", "cash"):
        words.add(engine.kind_name(kind))
    # Refused at the end and out of turn
    try:
        engine.apply(state, 0, {"type": "tax", "card": "corn-01"}, chance)
    except IllegalMove as refused:
        words.add(refused.reason)


@pytest.fixture(scope="module")
def words() -> Words:
    found = Words()
    for seats, options, version, seed in GAMES:
        play(found, seats, options, version, seed)
    engine = Mercatores(2)
    for option in engine.options:
        found.add(option.label)
        found.add(option.help)
        for label in option.choice_labels or ():
            found.add(label)
    for form in engine.written_forms.values():
        found.add(form)
    reference = engine.rules_reference()
    for item in (*reference["goods"], *reference["specials"]):
        found.add(item["name"])
        for arrow in item.get("arrows", ()):
            found.add(arrow)
        if item.get("counts"):
            found.add(item["counts"])
    return found


def test_every_word_the_engine_writes_is_a_text(words):
    assert len(words.texts) > 1000
    # Plain strings only where nothing is said: a turn line's empty step
    assert words.plain == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_message_reached_is_translated(words, language):
    reached = {found for text in words.texts for found in messages(text)}
    assert len(reached) > 100
    missing = sorted(found for found in reached if not translated(language, *found))
    assert missing == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_nothing_is_left_in_english(words, language):
    left = set()
    for text in words.texts:
        shown = str(i18n.localize(text, language))
        for form in ENGINE.written_forms.values():  # what a reply writes stays English
            shown = shown.replace(form.params["example"], "")
        left |= set(left_in(shown, language, plain=True))
    assert sorted(left) == []


def test_a_few_sentences_read_as_a_player_would_write_them():
    from engines.mercatores import views

    label = views.base_label({"type": "cash", "pile": "corn"})
    assert i18n.localize(label, "de") == "Stapel Mais einlösen"
    assert i18n.localize(label, "fr") == "Encaisser la pile de Maïs"
    load = views.base_label({"type": "load", "way": "one_kind", "cards": ["corn-01", "corn-16"]})
    assert str(load) == "Load Corn (no ships) and Corn (2 ships)"
    assert i18n.localize(load, "pl") == "Załaduj: Kukurydza (bez statków) i Kukurydza (2 statki)"
    assert i18n.localize(views.card_label("cotton-14"), "pl") == "Bawełna (2 statki)"
    assert i18n.localize(views.card_label("q5"), "fr") == "Quai (gauche + droite)"


# ---------------------------------------------------------------- pages


def svg_words(html: str) -> list[str]:
    """The texts drawn on the table and its tooltips (english_left skips an SVG)."""
    found = re.findall(r"<text[^>]*>([^<]+)</text>", html)
    found += re.findall(r"<title>([^<]+)</title>", html)
    return [" ".join(part.split()) for part in found if part.strip()]


def board_of(page: str) -> str:
    start = page.rindex("<link", 0, page.index("mercatores/static/board.css"))
    end = page.index("</div>", page.index('class="legend"'))
    return page[start:end]


def composes_of(page: str) -> str:
    return "".join(re.findall(r'<form class="compose".*?</form>', page, re.S))


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A 3-player game some way into the investment phase, and a finished one."""
    folder = tmp_path_factory.mktemp("mercatores_words")
    database = sqlite_engine(folder / "test.sqlite3")
    runtime = build_runtime(overrides(folder), db=database, create_schema=False)
    app = create_app({"TESTING": True}, runtime=runtime)
    games = []
    for seats, moves in ((3, 7), (2, 2000)):
        specs = [SeatSpec(NAMES[i], f"{NAMES[i].lower()}@example.org") for i in range(seats)]
        created = runtime.service.create_game("mercatores", specs, {}, seed=bytes([seats]) * 32)
        rng = random.Random(seats)
        for _ in range(moves):
            head = runtime.service.head(created.game_id)
            due = sorted(head.engine.to_move(head.state))
            if not due:
                break
            view = head.engine.view(head.state, due[0])
            move = head.engine.bot_move(view, head.engine.legal_moves(head.state, due[0]), rng)
            runtime.service.submit_move(created.game_id, due[0], move, head.seq)
        games.append(created)
    return app.test_client(), games


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_table_forms_and_rules_page_speak_the_readers_language(played, language):
    client, (running, finished) = played
    asked = {"Accept-Language": language}
    for game in (running, finished):
        for token in game.tokens:
            page = client.get(f"/play/{token}", headers=asked).text
            assert f'<html lang="{language}"' in page
            board = board_of(page)
            assert left_in(board, language) == []
            for words in svg_words(board):
                assert left_in(words, language, plain=True) == [], words
            assert left_in(composes_of(page), language) == []
    rules = client.get("/rules/mercatores", headers=asked).text
    body = rules[rules.index('id="flow"') : rules.index("</main>")]
    assert left_in(body, language) == []


def test_the_table_in_german_reads_so(played):
    client, (running, finished) = played
    pages = [
        client.get(f"/play/{token}", headers={"Accept-Language": "de"}).text
        for token in running.tokens
    ]
    for page in pages:
        assert ">Markt</text>" in page and ">Deine Hand</text>" in page
        assert "Der Tisch als Text" in page
    composing = [page for page in pages if 'class="compose"' in page]
    assert len(composing) == 1
    assert (
        "Gib eine Karte aus deiner Hand" in composing[0] or "Karten aus deiner Hand" in composing[0]
    )
    over = client.get(f"/play/{finished.tokens[0]}", headers={"Accept-Language": "de"}).text
    assert "Das Spiel ist vorbei: " in over
    rules = client.get("/rules/mercatores", headers={"Accept-Language": "pl"}).text
    assert "<strong>Faza inwestycji.</strong> Każdy ruch ma dwa kroki:" in rules
    assert "Magazyn" in rules and "Szlak handlowy: Kukurydza" in rules
