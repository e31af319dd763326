"""Mare Nostrum's words in German, Polish and French: seeded bot games of every rules
version and player count (and the options that change words) give move labels, history
lines for every kind of reader, phases, refusals, results, option and rules words; each
is a text whose every message the title's catalogue translates, and which reads with no
English left. Every stored log line becomes a text whose English is the line describe
printed before. The turn page prints the board and compose forms in German."""

from __future__ import annotations

import random
from functools import cache

import pytest

from engines.api import IllegalMove, MalformedMove, SeededChance
from engines.mare_nostrum import VERSIONS, views
from engines.mare_nostrum.history import as_text
from engines.text import Joined, Text
from pbem import i18n
from pbem.games import names
from pbem.games.service import SeatSpec
from pbem.web import create_app
from tests.i18n.english import english_left
from tests.mail.conftest import Clock, make_runtime

LANGUAGES = ("de", "pl", "fr")
PLAYERS = ["Anna", "Ben", "Cleo", "Dara", "Emil"]
MARKS = ["Rome", "Greece", "Carthage", "Egypt", "Babylon"]
# The names left in a sentence (players, civilisations, places, heroes) hold no word
# english.py counts as English: nothing needs allowing.
ALLOWED: frozenset[str] = frozenset()

# (version, players, civilisations, set-up): every version and count once, and the
# options that change what is said (civilisations chosen, the experienced set-up).
GAMES = [
    (1, 3, "recommended", "starting"),
    (1, 4, "choose", "experienced"),
    (2, 5, "random", "starting"),
    (2, 3, "recommended", "experienced"),
    (3, 4, "recommended", "starting"),
    (3, 5, "choose", "starting"),
    (4, 3, "random", "starting"),
    (4, 5, "recommended", "starting"),
]


def bad_moves(move: dict) -> list[dict]:
    """Moves that break a rule near a legal one (refusals to collect)."""
    bad = [{**move, key: "atlantis"} for key, value in move.items() if isinstance(value, str)]
    bad += [{**move, key: 99} for key, value in move.items() if isinstance(value, int)]
    bad += [
        {**move, key: [*value, "coin"]} for key, value in move.items() if isinstance(value, list)
    ]
    bad += [{**move, key: value[:-1]} for key, value in move.items() if isinstance(value, list)]
    return [candidate for candidate in bad if candidate != move]


@cache
def collected() -> dict[str, list]:
    """Every word a player reads from the engine in the games above."""
    found: dict[str, list] = {"labels": [], "lines": [], "phases": [], "refusals": [], "stored": []}
    for version, seats, civs, setup in GAMES:
        engine = VERSIONS[version]
        chance = SeededChance(version * 10 + seats)
        rng = random.Random(version * 10 + seats)
        options = {"civilisations": civs, "setup": setup, "turn_limit": 8}
        state = engine.setup(seats, options, chance)
        for step in range(3000):
            due = engine.to_move(state)
            if not due:
                break
            seat = min(due)
            view = engine.view(state, seat)
            legal = engine.legal_moves(state, seat)
            found["labels"] += [engine.move_label(move, view) for move in legal[:12]]
            if step % 5 == 0:
                for move in legal[:2]:
                    for bad in bad_moves(move):
                        try:
                            engine.apply(state, seat, bad, SeededChance(1))
                        except MalformedMove:
                            pass  # a move that is no move at all: its words stay English
                        except IllegalMove as refused:
                            found["refusals"].append(refused.reason)
                for other in range(seats):
                    if other not in due:
                        try:
                            engine.apply(state, other, legal[0], SeededChance(1))
                        except IllegalMove as refused:
                            found["refusals"].append(refused.reason)
                        break
            level = "easy" if step % 2 else "normal"
            move = engine.bot_move(view, legal, rng, level)
            after = engine.apply(state, seat, move, chance)
            for viewer in (None, seat, (seat + 1) % seats):
                found["lines"] += engine.describe(state, seat, move, after, viewer)
            seats_of = views.seats_of(after)
            found["stored"] += [views.reword(text, seats_of) for text, _ in after["log"]]
            found["phases"] += [engine.phase_line(after)[0], *engine.turn_line(after)]
            state = after
        result = engine.result(state)
        assert result is not None, (version, seats)
        found["phases"] += [result.reason, *result.table.columns] if result.table else []
    return found


def texts(value) -> list:
    """The texts in a word tree (a text's parameters, a list's items and separators)."""
    if isinstance(value, Text):
        return [value, *(t for param in value.params.values() for t in texts(param))]
    if isinstance(value, Joined):
        return [t for part in (*value.items, value.separator, value.last) for t in texts(part)]
    return []


def untranslated(value, language: str) -> list[str]:
    catalogue = i18n.title_catalogue(language, "mare_nostrum")
    missing = []
    for text in texts(value):
        if text.domain != "mare_nostrum":
            continue
        key = (text.msgid, 0) if text.plural is not None else text.msgid
        if not catalogue._catalog.get(key):
            missing.append(text.msgid)
    return missing


def every_word() -> list:
    found = collected()
    engine = VERSIONS[4]
    words = [*found["labels"], *found["lines"], *found["phases"], *found["refusals"]]
    words += [engine.kind_name(kind) for kind in views.KIND_NAMES]
    words += list(engine.written_forms.values())
    for version in VERSIONS.values():
        for option in version.options:
            words += [option.label, option.help, *(option.choice_labels or ())]
    reference = engine.rules_reference()
    words += [row["name"] for row in reference["costs"]]
    words += [title["name"] for title in reference["titles"]]
    words += [row["item"] for setup in reference["setups"] for row in setup["rows"]]
    return words


def test_every_stored_line_reads_as_a_text_with_the_same_english():
    stored = collected()["stored"]
    assert len(stored) > 1000
    plain = [line for line in stored if not isinstance(as_text(line), Text)]
    assert plain == []
    assert all(as_text(line) == line for line in stored)
    lines = collected()["lines"]
    assert all(isinstance(line, Text) for line in lines)


def test_the_games_reach_the_words_that_matter():
    found = collected()
    msgids = {text.msgid for value in every_word() for text in texts(value)}
    for needed in (
        "%(who)s attacks %(target)s in %(where)s: %(attack)s against %(defence)s; no unit is lost.",
        "Income: %(who)s receives %(counted)s.",
        "%(who)s builds %(item)s in %(province)s, paying %(cards)s.",
        "The turn limit is reached after turn %(turn)d: %(who)s wins.",
        "%(label)s: costs %(price)d, paying %(cards)s",
        "Turn %(turn)d — %(phase)s",
        "It is not your turn.",
    ):
        assert needed in msgids
    assert len(found["refusals"]) > 50


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_word_is_translated_and_reads_with_no_english_left(language):
    missing, english = set(), set()
    for value in every_word():
        if not isinstance(value, Text | Joined):
            assert value is None or not any(c.isalpha() for c in value), value
            continue
        missing.update(untranslated(value, language))
        filled = names.fill(value, PLAYERS, MARKS)
        english.update(english_left(i18n.localize(filled, language), html=False, allowed=ALLOWED))
    assert missing == set()
    assert english == set()


def test_a_few_sentences_read_as_a_player_of_each_language_says_them():
    T = views.T
    line = as_text("{seat:0} builds a city in Latium (Roma), paying coin, coin, coin.")
    filled = names.fill(line, PLAYERS, MARKS)
    assert i18n.localize(filled, "de") == (
        "Anna (Rome) baut eine Stadt in Latium (Roma) und bezahlt mit Münze, Münze, Münze."
    )
    assert i18n.localize(filled, "pl") == (
        "Anna (Rome) buduje miasto w prowincji Latium (Roma), płacąc: moneta, moneta, moneta."
    )
    assert i18n.localize(filled, "fr") == (
        "Anna (Rome) construit une ville en Latium (Roma), en payant pièce, pièce, pièce."
    )
    income = as_text("Income: {seat:1} receives 3 coins, 1 wine card, 2 fish cards.")
    assert i18n.localize(names.fill(income, PLAYERS), "pl") == (
        "Dochód: Ben otrzymuje: 3 monety, 1 karta (wino), 2 karty (ryby)."
    )
    assert i18n.localize(T("Turn %(turn)d", turn=5), "de") == "Zug 5"
    label = VERSIONS[4].move_label({"type": "set_trade", "n": 5})
    assert i18n.localize(label, "pl") == "Handel po 5 kart"


def test_the_turn_page_prints_the_board_and_the_forms_in_german(sqlite_db, tmp_path):
    runtime = make_runtime(sqlite_db, tmp_path, Clock())
    app = create_app({"TESTING": True}, runtime=runtime)
    specs = [SeatSpec(name, f"{name.lower()}@example.org", language="de") for name in PLAYERS[:4]]
    created = runtime.service.create_game("mare_nostrum", specs, seed=b"\x04" * 32)
    page = app.test_client().get(f"/play/{created.tokens[0]}").text
    assert '<html lang="de"' in page
    start = page.index('class="map-frame')
    end = page.index("</div>", page.index('class="legend"'))
    board = page[start:end]
    for german in ("Das Mittelmeer", "Legende", "Kontrollmarker", "Karten auf der Hand", "Titel:"):
        assert german in board
    # The places' own descriptions (engines/mare_nostrum/board.py) are left out here.
    shown = [part for part in english_left(board) if ":" not in part or "Titel" in part]
    assert shown == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_rules_reference_reads_in_each_language(sqlite_db, tmp_path, language):
    runtime = make_runtime(sqlite_db, tmp_path, Clock())
    client = create_app({"TESTING": True}, runtime=runtime).test_client()
    page = client.get("/rules/mare_nostrum", headers={"Accept-Language": language}).text
    start = page.index('<section id="turn"')
    end = (
        page.index('<section id="options"') if 'id="options"' in page else page.rindex("</section>")
    )
    # "phase" is a French word too (english.py counts it as English).
    allowed = frozenset({"phase"}) if language == "fr" else frozenset()
    assert english_left(page[start:end], allowed=allowed) == []
    assert {"de": "Startaufstellungen", "pl": "Rozstawienia startowe", "fr": "Mises en place"}[
        language
    ] in page
