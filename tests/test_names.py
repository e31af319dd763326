"""Every label and history line of whole bot games of each title, as a player reads it
(placeholders filled by :func:`pbem.games.names.fill`): players by name with their
civilisation or colour, never "seat N", and none of the grammar slips of issue 14."""

from __future__ import annotations

import random
import re

import pytest

from engines import REGISTRY
from engines.api import SeededChance
from pbem.games.names import fill, fill_lines, marks_of
from tests.engine_harness import soak_count

NAMES = ["Ann", "Ben", "Cleo", "Dan", "Eve"]
WRONG = {
    "a seat number": re.compile(r"\bseat \d", re.IGNORECASE),
    "a placeholder": re.compile(r"\{(seat|name):|player \d"),
    "a raw dictionary": re.compile(r"\{'"),
    "a before a vowel": re.compile(r"\ba [AEIOUaeiou]"),
    "an before a consonant": re.compile(r"\ban [^AEIOUaeiou\W]"),
    "a plural after 1": re.compile(r"(?<![\d.])1 (cards|coins|points|ships|kinds)\b"),
    "a list joined by and twice": re.compile(r"\band \w+ and\b"),
    "a player inside brackets": re.compile(r"\(\w+ \(\w+\)\)"),
    "doubled stops": re.compile(r"\.\)\.|\.\.(?!\.)"),
    "an article before a hero or wonder": re.compile(
        r"\ba (Pyramids|Colossus|Hanging Gardens|Temple of Artemis|Statue of Zeus|"
        r"Lighthouse|Mausoleum|Julius Caesar|Hannibal|Pericles|Cleopatra|Hammurabi|"
        r"Agamemnon|Archimedes|Helen of Troy|Nebuchadnezzar|Solomon|Ulysses)\b"
    ),
}
MOVE_CAP = 6000
GAMES = [
    ("mare_nostrum", 3, {"turn_limit": 4}),
    ("mare_nostrum", 4, {"turn_limit": 4, "civilisations": "choose"}),
    ("mare_nostrum", 5, {"turn_limit": 3, "setup": "experienced"}),
    ("mercatores", 2, {}),
    ("mercatores", 3, {}),
    ("mare_balticum", 3, {}),
    ("mare_balticum", 4, {"demand_management": True, "trade_contracts": True}),
]


def read(
    slug: str, seats: int, options: dict, seed: int, phases: set[str] | None = None
) -> tuple[set[str], set[str]]:
    """Every filled label of every legal move and every filled describe line for every
    viewer, over one whole bot game (and into ``phases`` every filled phase line, as
    the public and the mover see it)."""
    engine = REGISTRY[slug]
    rng = random.Random(seed)
    state = engine.setup(seats, options, SeededChance(seed))
    labels: set[str] = set()
    lines: set[str] = set()
    phases = set() if phases is None else phases
    for _ in range(MOVE_CAP):
        due = sorted(engine.to_move(state))
        if not due:
            break
        seat = rng.choice(due)
        view = engine.view(state, seat)
        marks = marks_of(view)
        for seen in (engine.view(state, None), view):
            phases.add(fill(str(seen.get("phase", "")), NAMES, marks_of(seen)))
        legal = engine.legal_moves(state, seat)
        labels.update(fill(engine.move_label(move, view), NAMES, marks) for move in legal)
        move = engine.bot_move(view, legal, rng)
        after = engine.apply(state, seat, move, SeededChance(rng.randrange(1 << 30)))
        marks_after = marks_of(engine.view(after, None))
        for viewer in (None, *range(seats)):
            lines.update(
                fill_lines(engine.describe(state, seat, move, after, viewer), NAMES, marks_after)
            )
        state = after
    assert engine.result(state) is not None, "a bot-only game must end"
    return labels, lines


def slips(texts: set[str]) -> list[str]:
    return sorted(
        f"{what}: {text!r}" for text in texts for what, wrong in WRONG.items() if wrong.search(text)
    )


@pytest.mark.parametrize(
    "slug, seats, options",
    GAMES,
    ids=[f"{slug}-{seats}-{len(opts)}" for slug, seats, opts in GAMES],
)
def test_every_label_and_line_names_players_and_reads_well(slug, seats, options):
    labels: set[str] = set()
    lines: set[str] = set()
    phases: set[str] = set()
    for seed in range(soak_count(2, 20)):
        found = read(slug, seats, options, seed, phases)
        labels |= found[0]
        lines |= found[1]
    assert labels and lines and phases
    assert slips(labels) == []
    assert slips(lines) == []
    assert slips(phases) == []
    if slug == "mare_balticum":  # its phase line names the player to act
        assert any(
            re.search(r"\b(Ann|Ben|Cleo|Dan) \((Red|Blue|Green|Yellow)\)", p) for p in phases
        )
    # The players are named: by name, with their civilisation or colour.
    named = re.compile(r"\b(Ann|Ben|Cleo|Dan|Eve) \((\w+)\)")
    assert any(named.search(line) for line in lines)
    assert {match.group(1) for line in lines for match in named.finditer(line)} == set(
        NAMES[:seats]
    )


def test_fill_names_each_seat_with_its_mark():
    marks = ["Rome", "", "Ben"]
    assert fill("{seat:0} takes 1 coin from {seat:1}.", NAMES, marks) == (
        "Ann (Rome) takes 1 coin from Ben."
    )
    assert fill("{name:0} plays Rome.", NAMES, marks) == "Ann plays Rome."
    # A mark equal to the name is not said twice; text without placeholders is untouched.
    assert fill("{seat:2}", ["Ann", "Ben", "Ben"], marks) == "Ben"
    assert fill("Keep {coin} as it is", NAMES, marks) == "Keep {coin} as it is"


def test_fill_reads_a_placeholder_naming_no_seat_as_a_player():
    assert fill("Give it to {seat:7}.", NAMES[:3]) == "Give it to player 8."
    assert fill("{seat:-1} and {seat:x}", NAMES[:3]) == "player 0 and {seat:x}"
    assert fill("{seat:1}", ["Ann", ""]) == "player 2"


def test_marks_come_from_the_view_colour_or_civilisation():
    view = {
        "players": [
            {"seat": 0, "civ": "rome", "name": "Rome"},
            {"seat": 1, "civ": None, "name": None},
            {"seat": 2, "colour": "Red"},
            {"seat": 3, "name": "Blue"},
            "broken",
        ]
    }
    assert marks_of(view) == ["Rome", "", "Red", "Blue", ""]
    assert marks_of(None) == []


def test_marks_are_built_only_when_a_line_needs_them():
    def boom():
        raise AssertionError("marks were built for lines without placeholders")

    assert fill_lines(["Refill: the market gets Corn."], NAMES, boom) == [
        "Refill: the market gets Corn."
    ]
    assert fill_lines(["{seat:1} ends."], NAMES, lambda: ["", "Blue"]) == ["Ben (Blue) ends."]


@pytest.mark.parametrize(
    "stored, read",
    [
        ("Greece builds a Pyramids, paying coin.", "{seat:0} builds the Pyramids, paying coin."),
        ("Greece builds a Archimedes, paying coin.", "{seat:0} builds Archimedes, paying coin."),
        ("Rome sets up a Agamemnon.", "{seat:1} sets up Agamemnon."),
        ("Rome builds a city in Latium (Roma), paying coin.", None),
        ("Seat 2 plays Rome.", "{name:1} plays Rome."),
        (
            "The turn limit is reached after turn 4: Greece and Rome and Carthage share the win.",
            "The turn limit is reached after turn 4: {seat:0}, {seat:1} and {seat:2} share the win.",
        ),
        (
            "Helen of Troy: a Rome legion deserts in Attica and joins Greece.",
            "Helen of Troy: a legion of {seat:1} deserts in Attica and joins {seat:0}.",
        ),
        (
            "Rome's legions in Aegyptus hold city:Alexandria, temple, caravan:papyrus.",
            "The legions of {seat:1} in Aegyptus hold the city of Alexandria, the temple and "
            "the papyrus caravan.",
        ),
        # A neutral civilisation keeps its name; provinces that look alike are untouched.
        (
            "Rome attacks Egypt in Aegyptus: 6 = 6 against 4 = 4; Egypt loses 1, Rome loses 0.",
            "{seat:1} attacks Egypt in Aegyptus: 6 against 4; Egypt loses 1 unit, {seat:1} "
            "loses none.",
        ),
        ("Egypt is the Great General.", "Egypt is the Great General."),
        ("Greece takes coin from Rome.", "{seat:0} takes a coin from {seat:1}."),
        # The city site Babylon is no civilisation.
        (
            "Babylon builds a temple in Babylonia (Babylon), paying coin.",
            "{seat:3} builds a temple in Babylonia (Babylon), paying coin.",
        ),
        (
            "Babylon's legions in Babylonia hold city:Babylon.",
            "The legions of {seat:3} in Babylonia hold the city of Babylon.",
        ),
        (
            "Rome swaps gold for coin with the bank (Cleopatra).",
            "{seat:1} swaps a gold card for a coin with the bank (Cleopatra).",
        ),
        ("Rome keeps 1 cards (Mausoleum).", "{seat:1} keeps 1 card (Mausoleum)."),
        (
            "Rome takes the title of Great General from Greece.",
            "{seat:1} takes the title of Great General from {seat:0}.",
        ),
    ],
)
def test_mare_nostrum_rewords_its_stored_log_as_it_is_read(stored, read):
    from engines.mare_nostrum.views import reword

    seats = {"greece": 0, "rome": 1, "carthage": 2, "babylon": 3}
    expected = read or stored.replace("Rome", "{seat:1}", 1)
    assert reword(stored, seats) == expected


def test_mare_nostrum_describe_leaves_the_stored_log_as_it_was():
    engine = REGISTRY["mare_nostrum"]
    state = engine.setup(3, {"civilisations": "choose"}, SeededChance(0))
    move = engine.legal_moves(state, 0)[0]
    after = engine.apply(state, 0, move, SeededChance(0))
    stored = [list(entry) for entry in after["log"]]
    assert stored[0][0].startswith("Seat 1 plays ")
    assert engine.describe(state, 0, move, after, None)[0].startswith("{name:0} plays ")
    assert [list(entry) for entry in after["log"]] == stored
