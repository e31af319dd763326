"""Reading a reply's line as a move (:mod:`pbem.mail.inbound.moves`), on real engine
states: codes, labels, written forms in any order, JSON; and the list a mail shows."""

from __future__ import annotations

import random

import pytest

from engines import REGISTRY
from engines.api import SeededChance
from pbem.games import names
from pbem.mail.inbound import moves

NAMES = ["Anna", "Ben", "Cleo"]


def state_where(slug: str, seats: int, kind: str, seed: int = 3, wanted=None):
    """A state of a bot-played game where seat 0 may make a move of ``kind`` (and, when
    given, ``wanted(engine, state)`` holds)."""
    engine = REGISTRY[slug]
    options = {option.name: option.default for option in engine.options}
    state = engine.setup(seats, options, SeededChance(seed))
    rng, chance = random.Random(seed), SeededChance(seed + 1)
    for _ in range(2000):
        due = sorted(engine.to_move(state))
        if (
            0 in due
            and any(move["type"] == kind for move in engine.legal_moves(state, 0))
            and (wanted is None or wanted(engine, state))
        ):
            return engine, state
        seat = due[0]
        legal = engine.legal_moves(state, seat)
        state = engine.apply(
            state, seat, engine.bot_move(engine.view(state, seat), legal, rng), chance
        )
    raise AssertionError(f"no {kind} move for seat 0")


def label_of(engine, state, move, view=True):
    shown = engine.view(state, 0)
    text = engine.move_label(move, shown if view else None)
    return names.fill(text, NAMES, names.marks_of(shown))


def test_codes_labels_and_json():
    engine, state = state_where("mare_balticum", 3, "place_start")
    listed = moves.numbered(engine, state, 0, NAMES)
    assert [entry.code for entry in listed] == list(range(1, len(listed) + 1))
    second = listed[1]
    for line in ("2", "#2", "2.", "2)"):
        assert moves.resolve(line, listed, engine, state, 0, NAMES) == second.move
    assert moves.resolve(second.label.upper(), listed, engine, state, 0, NAMES) == second.move
    assert moves.resolve(second.label + ".", listed, engine, state, 0, NAMES) == second.move
    json_line = '{"type": "place_start", "port": "riga"}'
    assert moves.resolve(json_line, listed, engine, state, 0, NAMES)["port"] == "riga"
    for bad, words in [
        ("99", "no move number 99"),
        ("{not json", "cannot be read"),
        ("[1, 2]", "not a move"),
        ("Sail to the moon", "not a move"),
    ]:
        with pytest.raises(moves.Unreadable) as refused:
            moves.resolve(bad, listed, engine, state, 0, NAMES)
        assert words in refused.value.reason


def test_mare_nostrum_offer_written_in_any_order():
    engine, state = state_where("mare_nostrum", 3, "offer")
    offers = [
        m for m in engine.legal_moves(state, 0) if m["type"] == "offer" and len(m["cards"]) > 1
    ]
    wanted = next(m for m in offers if len(set(m["cards"])) > 1)
    written = "offer " + ", ".join(reversed(wanted["cards"]))
    found = moves.resolve(written, [], engine, state, 0, NAMES)
    assert sorted(found["cards"]) == sorted(wanted["cards"])
    listed = moves.numbered(engine, state, 0, NAMES)
    assert moves.written_forms("mare_nostrum", listed) == list(engine.written_forms.values())
    with pytest.raises(moves.Unreadable, match="not one of your legal moves"):
        moves.resolve("offer elephant, elephant", [], engine, state, 0, NAMES)


def test_mercatores_trade_written_with_the_taken_cards_in_any_order():
    engine, state = state_where("mercatores", 2, "trade")
    trade = next(
        m for m in engine.legal_moves(state, 0) if m["type"] == "trade" and len(m["take"]) > 1
    )
    label = label_of(engine, state, trade, view=False)  # "Give X, take Y and Z"
    give, take = label[len("Give ") :].split(", take ")
    taken = [part.strip() for part in take.replace(" and ", ", ").split(", ")]
    written = f"trade {give} for {', '.join(reversed(taken))}"
    found = moves.resolve(written, [], engine, state, 0, NAMES)
    assert label_of(engine, state, found, view=False) == label


def test_a_long_list_is_grouped_by_kind():
    def long_list(engine, state) -> bool:
        return len(moves.numbered(engine, state, 0, NAMES)) > moves.GROUP_OVER

    engine, state = state_where("mare_nostrum", 3, "build", wanted=long_list)
    listed = moves.numbered(engine, state, 0, NAMES)
    groups = moves.groups(listed)
    assert all(group["heading"] for group in groups)
    shown = [entry.code for group in groups for entry in group["moves"]]
    assert shown == list(range(1, len(listed) + 1))  # codes ascend down the mail
    kinds = [group["heading"] for group in groups]
    assert len(kinds) == len(set(kinds)) > 1
