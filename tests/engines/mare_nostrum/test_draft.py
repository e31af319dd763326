"""``apply`` on a copy-on-access draft: the same states as a whole copy, the state before
never changed, and the parts a move does not touch shared instead of copied.

A replay (``pbem verify``, the log's fold, take-backs) keeps every state it passes
through, so a move that changed a part it shares with an earlier state would corrupt
that state silently; the checks here hash every state of a game again at its end.
"""

from __future__ import annotations

import operator
import pickle
import random

import pytest

from engines.api import SeededChance, state_hash
from engines.mare_nostrum import ENGINE, rules
from engines.mare_nostrum.data import (
    COASTS,
    LAND_NEIGHBOURS,
    PROVINCE_IDS,
    SEA_IDS,
    SEA_NEIGHBOURS,
)
from engines.mare_nostrum.reach import linked
from engines.mare_nostrum.state import clone, draft, reading, settled
from engines.mare_nostrum.war import legion_destinations
from tests.engines.mare_nostrum.helpers import OPTIONS, start


def whole_copy_apply(monkeypatch, state, seat, move, chance):
    """``apply`` as it was: the handler works on a deep copy of the whole state."""
    with monkeypatch.context() as patched:
        patched.setattr(rules, "draft", clone)
        patched.setattr(rules, "settled", lambda state: state)
        return rules.apply(state, seat, move, chance)


def check_plain(state) -> None:
    """Only plain dicts and lists, and none of them in two places (a shared part would
    make a change in one place a change in the other)."""
    seen: set[int] = set()
    todo = [state]
    while todo:
        part = todo.pop()
        assert type(part) in (dict, list), f"a {type(part).__name__} in the state"
        assert id(part) not in seen, f"{part!r} sits in two places"
        seen.add(id(part))
        for value in part.values() if type(part) is dict else part:
            if isinstance(value, dict | list):
                todo.append(value)


# --- The draft itself ------------------------------------------------------------------


def test_a_read_part_is_the_drafts_own_and_the_state_before_keeps_its_own():
    before = start()
    frozen = repr(before)
    after = draft(before)
    after["hands"][0]["coin"] += 5
    after.get("bank")["coin"] -= 5
    after["provinces"]["latium"]["legions"]["rome"] = 9
    after.setdefault("placed", []).append("latium")
    after.pop("title_check")
    for key, value in after.items():
        if key == "seas":
            value["tyrrhenian_sea"] = {"rome": 4}
    plain = settled(after)
    assert repr(before) == frozen
    assert plain["hands"][0]["coin"] == before["hands"][0]["coin"] + 5
    assert plain["bank"]["coin"] == before["bank"]["coin"] - 5
    assert plain["provinces"]["latium"]["legions"] == {"rome": 9}
    assert plain["placed"] == ["latium"]
    assert "title_check" not in plain and "title_check" in before
    assert plain["seas"]["tyrrhenian_sea"] == {"rome": 4}
    check_plain(plain)


def test_the_parts_a_move_does_not_touch_are_shared_not_copied():
    before = start()
    after = draft(before)
    after["hands"][1]["coin"] += 1
    after["provinces"]["latium"]["marker"] = None
    plain = settled(after)
    assert type(plain) is dict and type(plain["provinces"]) is dict
    assert plain["hands"] is not before["hands"]
    assert plain["provinces"]["latium"] is not before["provinces"]["latium"]
    assert plain["provinces"]["attica"] is before["provinces"]["attica"]
    assert plain["supply"] is before["supply"] and plain["seas"] is before["seas"]


def test_a_move_shares_what_it_leaves_alone_with_the_state_before():
    before = ENGINE.setup(4, OPTIONS, SeededChance(1))
    seat = min(ENGINE.to_move(before))
    assert before["phase"] == "trade_number"
    after = ENGINE.apply(before, seat, {"type": "set_trade", "n": 1}, SeededChance(0))
    assert after["phase"] == "offer" and before["phase"] == "trade_number"
    assert after["trade"] is not before["trade"] and after["log"] is not before["log"]
    assert after["provinces"] is before["provinces"] and after["supply"] is before["supply"]


def test_a_value_written_in_is_kept_as_written():
    after = draft(start())
    added: dict = {}
    after.update(trade=added)
    added["n"] = 2
    after["war"] = {"done": []}
    after["war"]["done"].append(1)
    plain = settled(after)
    assert plain["trade"] == {"n": 2} and plain["trade"] is added
    assert plain["war"] == {"done": [1]}


def test_reading_copies_nothing_and_sees_what_the_move_changed():
    before = start()
    after = draft(before)
    assert reading(after, "hands") is before["hands"]
    after["hands"][0]["coin"] = 77
    assert reading(after, "hands")[0]["coin"] == 77
    assert before["hands"][0]["coin"] != 77


REFUSED = {
    "popitem": lambda after: after.popitem(),
    "copy": lambda after: after.copy(),
    "|": lambda after: after | {},
    "|=": lambda after: operator.ior(after, {}),
    "pickle": pickle.dumps,
}


@pytest.mark.parametrize("way", REFUSED)
def test_a_draft_refuses_the_ways_around_its_copies(way):
    with pytest.raises(TypeError, match="draft"):
        REFUSED[way](draft(start()))


# --- Whole games -----------------------------------------------------------------------

EXPERIENCED = {**OPTIONS, "setup": "experienced", "civilisations": "random", "turn_limit": 8}
GAMES = [
    *((version, 3, 11, {**OPTIONS, "turn_limit": 12}) for version in ENGINE.versions),
    *((version, 5, 13, EXPERIENCED) for version in ENGINE.versions),
    (3, 4, 12, {**OPTIONS, "civilisations": "choose", "turn_limit": 6}),
]


@pytest.mark.parametrize(("version", "seats", "seed", "options"), GAMES)
def test_every_move_gives_the_state_a_whole_copy_gives(monkeypatch, version, seats, seed, options):
    """Bots play a seeded game; each move, and a few other legal moves, are applied both
    ways and must give equal states; at the end every state of the game still hashes as
    it did when it was made."""
    engine = ENGINE.at_version(version)
    rng = random.Random(seed)
    state = engine.setup(seats, options, SeededChance(seed))
    states, hashes = [state], [state_hash(engine, state)]
    while engine.to_move(state):
        seat = min(engine.to_move(state))
        legal = engine.legal_moves(state, seat)
        move = engine.bot_move(engine.view(state, seat), legal, rng, "easy")
        frozen = repr(state)
        after = None
        for other in [move, *rng.sample(legal, min(3, len(legal)))]:
            draw = rng.randrange(1 << 30)
            fast = engine.apply(state, seat, other, SeededChance(draw))
            whole = whole_copy_apply(monkeypatch, state, seat, other, SeededChance(draw))
            assert repr(fast) == repr(whole), other  # the same data, keys in the same order
            if after is None:
                check_plain(fast)
                after = fast
        state = after
        assert repr(states[-1]) == frozen, "apply changed the state before"
        states.append(state)
        hashes.append(state_hash(engine, state))
    assert engine.result(state) is not None
    assert [state_hash(engine, old) for old in states] == hashes


# --- Reach -----------------------------------------------------------------------------


def chains_reach(state, civ, origin):
    """Reach as it was first written: every chain of the power's triremes, then every
    province touching a chain that touches ``origin``."""
    manned = {sea for sea, fleet in state["seas"].items() if fleet.get(civ)}
    chains, seen = [], set()
    for begin in sorted(manned):
        if begin in seen:
            continue
        chain, todo = set(), [begin]
        while todo:
            sea = todo.pop()
            if sea not in chain:
                chain.add(sea)
                todo += [near for near in SEA_NEIGHBOURS[sea] if near in manned]
        seen |= chain
        chains.append(chain)
    found = set(LAND_NEIGHBOURS[origin])
    if COASTS[origin]:
        for chain in chains:
            if set(COASTS[origin]) & chain:
                found |= {pid for pid in PROVINCE_IDS if chain & set(COASTS[pid])}
    found.discard(origin)
    return found


@pytest.mark.parametrize("seed", range(40))
def test_a_legion_reaches_what_the_chains_of_triremes_reach(seed):
    rng = random.Random(seed)
    state = start()
    for sea in SEA_IDS:
        state["seas"][sea] = {"rome": 1} if rng.random() < 0.4 else {}
    for origin in PROVINCE_IDS:
        expected = chains_reach(state, "rome", origin)
        assert linked(state, "rome", origin) == expected
        assert legion_destinations(state, "rome", origin) == [
            pid for pid in PROVINCE_IDS if pid in expected
        ]
