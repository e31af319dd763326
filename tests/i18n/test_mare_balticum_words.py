"""Mare Balticum's words in German, Polish and French: every move label (with and without
the mover's view), history line (for each viewer), phase, round, kind of move, refusal,
option and score column of seeded bot games, over every player count and both modules,
is a text of the title's catalogue translated in each language, with no English left but
names; and the turn page's board and the rules page print no English of the title."""

from __future__ import annotations

import random

import pytest
from sqlmodel import Session

from engines.api import IllegalMove, SeededChance
from engines.mare_balticum import ENGINE
from engines.mare_balticum.data import CONTRACT_IDS, FISH, GOODS, LOCATIONS, PORT_IDS
from engines.text import Joined, Text
from pbem import i18n
from pbem.games import names
from pbem.games.service import SeatSpec
from pbem.models import Seat
from pbem.web import create_app
from tests.i18n.english import english_left

SLUG = "mare_balticum"
LANGUAGES = ("de", "pl", "fr")
PLAYERS = ["Anna", "Ben", "Cleo", "Dora", "Emil"]
ALLOWED = frozenset(PLAYERS)
KINDS = (
    "place_start",
    "sail",
    "fish",
    "unload",
    "take_contract",
    "overboard",
    "end_turn",
    "produce",
)
GAMES = [
    (3, {"demand_management": False, "trade_contracts": False, "seat_order": "as_listed"}),
    (4, {"demand_management": True, "trade_contracts": True, "seat_order": "random"}),
    (5, {"demand_management": True, "trade_contracts": False, "seat_order": "as_listed"}),
    (3, {"demand_management": False, "trade_contracts": True, "seat_order": "random"}),
]


def texts(value):
    """Every :class:`Text` in ``value`` (the text itself, its parameters, a list's items),
    but the server's own ("%(name)s (%(mark)s)": a player's name beside their colour)."""
    if isinstance(value, Text):
        if value.domain is not None:
            yield value
        for param in value.params.values():
            yield from texts(param)
    elif isinstance(value, Joined):
        for part in (*value.items, value.separator, value.last):
            yield from texts(part)


def refusals(state, seat: int, rng: random.Random) -> list:
    """The reasons of a sample of moves the rules refuse now (and of malformed ones)."""
    tries = [
        "sail",
        {"type": "fly"},
        {"type": "sail"},
        {"type": "sail", "to": "riga", "port": "riga"},
        {"type": "overboard", "kind": "cod", "count": 1, "to": "riga"},
        {"type": "take_contract", "contract": "c9"},
        {"type": "fish", "area": "atlantis", "kind": "cod"},
        {"type": "fish", "area": "bornholm", "kind": "whale"},
        {"type": "unload", "port": "riga", "fish": {}},
        {"type": "unload", "port": "riga", "fish": {"cod": 0}},
        {"type": "unload", "port": "riga", "fish": {"cod": 1}, "demand": {}},
        {"type": "unload", "port": "riga", "fish": {"cod": 1}, "demand": {"cod": "x"}},
        {"type": "overboard", "kind": "cod", "count": 0},
        {"type": "produce", "token": 7, "kind": "cod"},
        {"type": "produce", "token": 1},
        {"type": "produce", "token": 1, "kind": "cod", "discard": {}},
        {"type": "produce", "token": "tax", "kind": "cod", "discard": {}},
        {"type": "produce", "token": "tax"},
        {"type": "produce", "token": "tax", "discard": {"sea": {}}},
        {"type": "end_turn"},
        {"type": "take_contract", "contract": rng.choice(CONTRACT_IDS)},
        {"type": "overboard", "kind": rng.choice(FISH), "count": 9},
        {"type": "produce", "token": rng.choice((0, 1, 2, 3)), "kind": rng.choice(FISH)},
        {"type": "produce", "token": "tax", "discard": {"hold": {rng.choice(FISH): 3}}},
        {"type": "produce", "token": "tax", "discard": {"warehouse": {rng.choice(GOODS): 1}}},
        {"type": "produce", "token": "tax", "discard": {"warehouse": {rng.choice(GOODS): 9}}},
    ]
    for _ in range(6):
        place, other = rng.choice(LOCATIONS), rng.choice(LOCATIONS)
        port, kind, fish = rng.choice(PORT_IDS), rng.choice(GOODS), rng.choice(FISH)
        tries += [
            {"type": "place_start", "port": place},
            {"type": "sail", "to": place},
            {"type": "sail", "from": place, "to": other},
            {"type": "fish", "area": place, "kind": kind},
            {"type": "unload", "port": place, "fish": {fish: 1}},
            {"type": "unload", "port": port, "fish": {fish: rng.choice((1, 2))}},
            {"type": "unload", "port": port, "fish": {fish: 1}, "demand": {fish: 1}},
            {"type": "unload", "port": port, "fish": {fish: 2}, "demand": {fish: 0}},
            {"type": "unload", "port": port, "fish": {fish: 1}, "demand": {rng.choice(FISH): 0}},
        ]
    found = []
    for move in tries:
        for who in (seat, (seat + 1) % state.seats):
            try:
                ENGINE.apply(state, who, move, SeededChance(1))
            except IllegalMove as refused:
                found.append(refused.reason)
    return found


def play(seats: int, options: dict, seed: int) -> dict[str, list]:
    """A seeded bot game's words, by kind (filled with the players' names)."""
    rng = random.Random(seed)
    state = ENGINE.setup(seats, options, SeededChance(seed))
    found: dict[str, list] = {
        kind: [] for kind in ("label", "history", "phase", "turn", "refusal", "result")
    }
    moves = 0
    while ENGINE.result(state) is None:
        seat = min(ENGINE.to_move(state))
        view = ENGINE.view(state, seat)
        legal = ENGINE.legal_moves(state, seat)
        found["phase"].append(view["phase"])
        # the round, and the phase unless it is a player (a name, filled by the server)
        found["turn"] += [part for part in ENGINE.turn_line(state) if part and part[0] != "{"]
        for move in legal[:40]:
            found["label"] += [ENGINE.move_label(move), ENGINE.move_label(move, view)]
        if moves % 15 == 0:
            found["refusal"] += refusals(state, seat, rng)
        move = ENGINE.bot_move(view, legal, rng, "easy")
        after = ENGINE.apply(state, seat, move, SeededChance(seed + moves))
        for viewer in (None, *range(seats)):
            found["history"] += ENGINE.describe(state, seat, move, after, viewer)
        state, moves = after, moves + 1
    outcome = ENGINE.result(state)
    found["phase"].append(ENGINE.view(state, None)["phase"])
    found["result"] += [outcome.reason, *outcome.table.columns]
    marks = names.marks_of(ENGINE.view(state, None))
    return {
        kind: [names.fill(item, PLAYERS[:seats], marks) for item in items]
        for kind, items in found.items()
    }


@pytest.fixture(scope="module")
def words() -> dict[str, list]:
    found: dict[str, list] = {}
    for index, (seats, options) in enumerate(GAMES):
        for kind, items in play(seats, options, 4000 + index).items():
            found.setdefault(kind, []).extend(items)
    found["kind"] = [ENGINE.kind_name(kind) for kind in KINDS]
    found["option"] = [
        word
        for option in ENGINE.options
        for word in (option.label, option.help, *(option.choice_labels or ()))
    ]
    return found


def translated(language: str) -> tuple[set, set]:
    """The title's msgids (and plural msgids) translated in ``language``."""
    catalogue = i18n.title_catalogue(language, SLUG)._catalog
    singular = {key for key, value in catalogue.items() if isinstance(key, str) and value}
    plural = {key[0] for key, value in catalogue.items() if isinstance(key, tuple) and value}
    return singular, plural


def test_every_word_a_game_shows_is_a_text_of_the_title(words):
    for kind, items in words.items():
        assert items, kind
        for item in items:
            assert isinstance(item, Text | Joined), (kind, item)
            assert all(text.domain == SLUG for text in texts(item)), (kind, item)
    msgids = {text.msgid for items in words.values() for item in items for text in texts(item)}
    assert len(msgids) >= 90, len(msgids)  # the games reach most of the words
    reasons = {text.msgid for item in words["refusal"] for text in texts(item)}
    assert len(reasons) >= 30, sorted(reasons)


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_word_is_translated_with_no_english_left(words, language):
    singular, plural = translated(language)
    seen: set[str] = set()
    for kind, items in words.items():
        for item in items:
            for text in texts(item):
                known = plural if text.plural is not None else singular
                assert text.msgid in known, (language, kind, text.msgid)
            shown = i18n.localize(item, language)
            if shown in seen:
                continue
            seen.add(shown)
            assert english_left(shown, html=False, allowed=ALLOWED) == [], (language, shown)


def test_a_few_sentences_read_as_a_player_of_each_language_writes_them():
    from engines.mare_balticum import views

    line = names.fill(
        views.T(
            "%(who)s throws %(fish)s overboard.", who="{seat:1}", fish=views.count_of("cod", 5)
        ),
        PLAYERS,
    )
    assert i18n.localize(line, "de") == "Ben wirft 5 Dorsche über Bord."
    assert i18n.localize(line, "pl") == "Ben wyrzuca za burtę: 5 dorszy."
    assert i18n.localize(line, "fr") == "Ben jette par-dessus bord : 5 cabillauds."
    label = ENGINE.move_label({"type": "fish", "area": "bornholm", "kind": "herring"})
    assert label == "Fish herring in Bornholm Basin"
    assert i18n.localize(label, "de") == "Hering fischen (Bornholmbecken)"
    assert i18n.localize(label, "pl") == "Łów w akwenie Basen Bornholmski: śledź"
    assert i18n.localize(label, "fr") == "Pêcher un hareng (Bassin de Bornholm)"
    counts = [views.count_of("salmon", n) for n in (1, 3, 5)]
    assert [i18n.localize(c, "pl") for c in counts] == ["1 łosoś", "3 łososie", "5 łososi"]


# --------------------------------------------------------------------------- pages
def board_part(page: str) -> str:
    """The title's board on a page: from the map to the end of its legend."""
    start = page.index('<div class="map-frame')
    end = page.index("</div>", page.index('<div class="legend"')) + len("</div>")
    return page[start:end]


def advance(runtime, game_id: str, moves: int) -> None:
    rng = random.Random(5)
    for _ in range(moves):
        head = runtime.service.head(game_id)
        due = sorted(head.engine.to_move(head.state))
        if head.game.status != "active" or not due:
            return
        view = head.engine.view(head.state, due[0])
        move = head.engine.bot_move(view, head.engine.legal_moves(head.state, due[0]), rng)
        runtime.service.submit_move(game_id, due[0], move, head.game.head_seq, actor="web")


SAID = {  # a few words of the board and the rules page, as each language says them
    "de": (
        "Legende",
        "Die Ostsee",
        ": Laderaum ",
        "Märkte und Multiplikatoren",
        "Seegebiete",
        "Rigaer Bucht",
    ),
    "pl": (
        "Legenda",
        "Morze Bałtyckie",
        ": ładownia ",
        "Rynki i mnożniki",
        "Akweny",
        "Zatoka Ryska",
    ),
    "fr": (
        "Légende",
        "La mer Baltique",
        " : cale ",
        "Marchés et multiplicateurs",
        "Zones maritimes",
        "Golfe de Riga",
    ),
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_turn_page_and_rules_page_print_the_title_in_the_language(runtime, language):
    specs = [
        SeatSpec(name, f"{name.lower()}@example.org", language=language) for name in PLAYERS[:4]
    ]
    options = {"demand_management": True, "trade_contracts": True}
    created = runtime.service.create_game(SLUG, specs, options, seed=b"m" * 32)
    advance(runtime, created.game_id, 60)
    client = create_app({"TESTING": True}, runtime=runtime).test_client()
    head = runtime.service.head(created.game_id)
    seat = min(head.engine.to_move(head.state))
    with Session(runtime.db) as session:
        assert session.get(Seat, (created.game_id, seat)).language == language
    page = client.get(f"/play/{created.tokens[seat]}").text
    assert f'<html lang="{language}"' in page
    assert english_left(board_part(page), allowed=ALLOWED) == []
    rules = client.get(f"/rules/{SLUG}", headers={"Accept-Language": language}).text
    body = rules[rules.index('<nav class="toc"') : rules.index("</article>")]
    options_at = body.index('<section id="options"')
    assert english_left(body[:options_at], allowed=ALLOWED) == []
    legend, sea, hold, markets, areas, riga = SAID[language]
    assert legend in page and sea in page and hold in page
    assert markets in rules and areas in rules and riga in rules and "Gulf of Riga" not in rules
