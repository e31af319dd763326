"""The fast canonical JSON: the bytes of ``canonical_json`` exactly, or its refusal.

orjson writes most data as ``json.dumps`` does; what it would write otherwise (floats,
enums, UUIDs, NaN) or refuses (non-text keys, big integers, subclasses) must come out as
``json.dumps`` writes it, so that no recorded hash changes. An engine's ``hash_form``
must be its ``dump`` without the copy, and hashing must leave the state as it was.
"""

from __future__ import annotations

import enum
import json
import uuid
from collections import OrderedDict

import pytest

from engines import REGISTRY
from engines.api import canonical_bytes, canonical_json, plain_canonical_bytes, state_json
from pbem.eventlog.chance import ReplayChance
from tests.golden import load_records


class Colour(enum.Enum):
    RED = 1


class Level(enum.IntEnum):
    HIGH = 3


class Name(str):
    pass


TEXT = "".join(chr(code) for code in range(1, 0x800)) + "\u2028\u2029\ufeff\U0010ffff"
SAMPLES = [
    {"b": 1, "a": [True, False, None], "é": "ü", "Z": {"y": [], "x": {}}},
    {TEXT: TEXT, "\x7f": '\x1f\n\t"\\/'},
    {chr(code): code for code in (0x41, 0xE9, 0x2028, 0xFFFF, 0x10000, 0x10FFFF, 0x5A, 0x61)},
    [2**63 - 1, -(2**63), 2**64 - 1, 2**64, -(2**63) - 1, 10**40],
    {"tuple": (1, "two", (3,))},
    [1e16, 2e22],
    [1e-7],
    {"floats": [0.0, -0.0, 1.0, 0.1, 1e15, 1e16, 1e-5, 9.8e-05, 1.5e300, 5e-324]},
    {1: "int key", 30: "int keys"},
    {True: 1},
    {"enum": Level.HIGH, "name": Name("x")},
    OrderedDict([("b", 1), ("a", 2)]),
    {"text that looks like a float": "3.5 and 1e5 and 2E3"},
    "bare",
    7,
    None,
]


@pytest.mark.parametrize("data", SAMPLES, ids=range(len(SAMPLES)))
def test_the_bytes_are_json_dumps_bytes(data):
    expected = canonical_json(data).encode("utf-8")
    assert canonical_bytes(data) == expected
    assert plain_canonical_bytes(data) == expected


def test_nan_and_infinities_are_written_as_json_dumps_writes_them():
    # orjson writes them as null; a hash_form never holds them (plain_canonical_bytes).
    data = {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf"), "none": None}
    assert canonical_bytes(data) == canonical_json(data).encode("utf-8")
    assert b"NaN" in canonical_bytes(data)


@pytest.mark.parametrize(
    "data",
    [{"colour": Colour.RED}, {"id": uuid.UUID(int=5)}, {"set": {1}}, {"object": object()}],
    ids=["enum", "uuid", "set", "object"],
)
def test_what_json_dumps_refuses_is_refused(data):
    with pytest.raises(TypeError):
        json.dumps(data)
    with pytest.raises(TypeError):
        canonical_bytes(data)


def test_a_lone_surrogate_is_refused_as_before():
    with pytest.raises(UnicodeEncodeError):
        canonical_json({"a": "\ud800"}).encode("utf-8")
    with pytest.raises(UnicodeEncodeError):
        canonical_bytes({"a": "\ud800"})


def states_of(slug):
    """Every state of every recorded game of ``slug`` (each on its recorded version)."""
    engine = REGISTRY[slug]
    for _, record in load_records(slug):
        played = engine.at_version(record["engine_version"])
        state = played.setup(
            record["seats"], record["options"], ReplayChance(record["setup_chance"])
        )
        yield played, state
        for entry in record["moves"]:
            state = played.apply(state, entry["seat"], entry["move"], ReplayChance(entry["chance"]))
            yield played, state


@pytest.mark.parametrize("slug", ["mare_nostrum", "mare_balticum", "mercatores"])
def test_hash_form_is_dump_and_leaves_the_state_alone(slug):
    count = 0
    for engine, state in states_of(slug):
        before = canonical_json(engine.dump(state))
        assert engine.hash_form(state) == engine.dump(state)
        assert state_json(engine, state) == before.encode("utf-8")
        assert canonical_json(engine.dump(state)) == before
        count += 1
    assert count > 100


def test_mare_nostrum_reads_the_state_in_place():
    engine = REGISTRY["mare_nostrum"]
    for played, state in states_of("mare_nostrum"):
        form = played.hash_form(state)
        shared = [key for key, value in state.items() if isinstance(value, dict | list)]
        assert shared and all(form[key] is state[key] for key in shared)
        assert ("rules_version" in form) == (state.get("rules_version", 1) != 1)
        assert engine.dump(state) == form
        break
