"""The history lines of administrative events in German, Polish and French, and in
English exactly as before."""

from __future__ import annotations

import pytest

from pbem.games.admin_lines import describe_admin, policy_text
from pbem.i18n import localize
from tests.i18n.english import english_left

NAMES = frozenset({"Ann", "Bob"})
POLICY = {
    "reminder_after_hours": 24,
    "reminder_every_hours": 12,
    "deadline_after_days": 3,
    "at_deadline": "bot_seat",
}


def row(kind: str, **payload) -> dict:
    return {"kind": kind, "seat": 1, "payload": {"name": "Ann", **payload}}


# Each kind of event, and the line it reads as in English.
EVENTS = [
    (
        row("seat_to_bot", by="vote"),
        "A bot takes over Ann's seat (by a vote of the other players).",
    ),
    (
        row("seat_to_bot", by="deadline", level="easy"),
        "An easy bot takes over Ann's seat (the deadline passed).",
    ),
    (
        row("seat_replaced", new_name="Bob", by="creator"),
        "Bob takes over Ann's seat (by the game's creator).",
    ),
    (
        row("seat_replaced", new_name="Ann", by="operator"),
        "A new player, also called Ann, takes over the seat (by the server's operator).",
    ),
    (row("seat_taken", new_name="Bob", returning=True), "Bob takes their seat again."),
    (row("seat_reclaimed"), "Ann takes their seat back from the bot."),
    (
        row("vacation", until="2026-03-05 10:00 UTC"),
        "Ann is on vacation until 2026-03-05 10:00 UTC; deadlines pause.",
    ),
    (row("vacation_ended"), "Ann is back from vacation early; their deadlines run again."),
    (
        row("policy_changed", by="creator", policy=POLICY),
        "The deadline policy was changed by the game's creator: the first reminder 24 hours "
        "after a turn begins, then every 12 hours; after 3 days a bot takes over the seat "
        "(its player may reclaim it).",
    ),
    (
        row("game_paused", by="operator"),
        "The game was paused by the server's operator; no moves, reminders or deadlines until it goes on.",
    ),
    (
        row("game_resumed", by="creator"),
        "The game goes on again by the game's creator; the deadlines moved later by the pause.",
    ),
    (
        row("seat_offered", new_name="Bob", by="vote"),
        "Ann's seat is offered to Bob (by a vote of the other players); the old link no longer works.",
    ),
    (
        row("seat_offered", by="player"),
        "Ann's seat is open for a new player (at the player's own request); the old link no longer works.",
    ),
    (row("seat_left"), "Ann leaves the game; a bot keeps the seat until a new player takes it."),
    (row("seat_resigned"), "Ann resigns; a bot plays Ann's seat to the end of the game."),
    (
        row(
            "roster",
            roster={
                "seats": [
                    {"name": "Ann", "bot": True, "level": "hard"},
                    {"name": "Bob", "resigned": True},
                ]
            },
        ),
        "The log records who holds the seats: Ann (hard bot); Bob, resigned.",
    ),
    (row("take_back", to_seq=7), "The game is taken back to event 7."),
    (
        row("contribution", by="browser", sha256="0123456789abcdef0123"),
        "Ann adds a contribution to the dice (from their browser); every draw from here on "
        "mixes it in. Its sha256: 0123456789abcdef...",
    ),
]


@pytest.mark.parametrize(("event", "english"), EVENTS, ids=[e[0]["kind"] for e in EVENTS])
def test_english_as_before(event, english):
    line = describe_admin(event)
    assert line == english
    assert localize(line, "en") == english


@pytest.mark.parametrize("language", ["de", "pl", "fr"])
@pytest.mark.parametrize(("event", "english"), EVENTS, ids=[e[0]["kind"] for e in EVENTS])
def test_every_kind_translated(event, english, language):
    text = localize(describe_admin(event), language)
    assert text != english
    assert english_left(text, html=False, allowed=NAMES) == []


def test_exact_sentences():
    vote = describe_admin(row("seat_to_bot", by="vote"))
    assert (
        localize(vote, "de")
        == "Ein Bot übernimmt den Platz von Ann (durch Abstimmung der anderen Spieler)."
    )
    assert (
        localize(vote, "pl") == "Bot przejmuje miejsce gracza Ann (głosowaniem pozostałych graczy)."
    )
    assert (
        localize(vote, "fr") == "Un bot reprend la place de Ann (par un vote des autres joueurs)."
    )
    policy = policy_text(POLICY)
    assert localize(policy, "de") == (
        "die erste Erinnerung 24 Stunden nach Beginn eines Zugs, danach alle 12 Stunden; "
        "nach 3 Tagen übernimmt ein Bot den Platz (sein Spieler kann ihn zurückfordern)"
    )


def test_result_headline_and_yes():
    from pbem.games.results import standings

    names = ["Ann", "Bob", "Cy"]
    one = standings({"winners": [0], "scores": [3, 1, 0]}, names)
    assert one["headline"] == "Ann wins."
    two = standings(
        {
            "winners": [0, 1],
            "scores": [3, 3, 0],
            "table": {"columns": ["Done"], "rows": [[True], [True], [False]], "deciding": 0},
        },
        names,
    )
    assert two["headline"] == "Ann and Bob share the win."
    assert two["rows"][0]["values"] == ["yes"]
    assert localize(two["headline"], "de") == "Ann und Bob teilen sich den Sieg."
    assert localize(two["rows"][0]["values"][0], "fr") == "oui"
    for language in ("de", "pl", "fr"):
        assert english_left(localize(one["headline"], language), html=False, allowed=NAMES) == []
        assert english_left(localize(two["headline"], language), html=False, allowed=NAMES) == []


def test_fresh_invitation_message():
    from pbem.i18n import T

    said = T("A fresh invitation is on its way to %(address)s.", address="ann@example.org")
    assert said == "A fresh invitation is on its way to ann@example.org."
    assert localize(said, "de") == "Eine neue Einladung ist unterwegs an ann@example.org."
    for language in ("de", "pl", "fr"):
        assert english_left(localize(said, language), html=False) == []
