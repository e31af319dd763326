"""Bounds on outside JSON: nesting deeper than the limit and NUL in any text are refused,
wherever they sit; anything within the bounds passes."""

from __future__ import annotations

import pytest

from pbem.bounds import JSON_MAX_DEPTH, check_json, loads


def nested(depth: int, inner: object = 1) -> object:
    """``depth`` containers one inside the other (lists and dicts in turn)."""
    data = inner
    for level in range(depth):
        data = [data] if level % 2 else {"k": data}
    return data


@pytest.mark.parametrize("depth", [1, 2, JSON_MAX_DEPTH - 1, JSON_MAX_DEPTH])
def test_nesting_up_to_the_limit_passes(depth):
    check_json(nested(depth))
    check_json([1, "text", None, True, 2.5, nested(depth - 1)])


@pytest.mark.parametrize("depth", [JSON_MAX_DEPTH + 1, JSON_MAX_DEPTH + 5])
def test_nesting_past_the_limit_is_refused(depth):
    with pytest.raises(ValueError, match=f"nested more than {JSON_MAX_DEPTH} deep"):
        check_json(nested(depth))
    with pytest.raises(ValueError, match="nested more than 3 deep"):
        check_json({"a": [1, 2], "b": [[{"c": 1}]]}, max_depth=3)


def test_an_empty_container_counts_as_a_level():
    check_json([[[]]], max_depth=3)
    with pytest.raises(ValueError, match="nested more than 2 deep"):
        check_json([[[]]], max_depth=2)


class Text(str):
    pass


@pytest.mark.parametrize(
    "data",
    [
        "a\x00b",
        {"key\x00": 1},
        {"k": ["fine", {"deeper": "no\x00"}]},
        [1, 2, [3, [Text("sub\x00class")]]],
    ],
)
def test_nul_in_any_text_is_refused(data):
    with pytest.raises(ValueError, match="NUL"):
        check_json(data)


def test_loads_applies_the_bounds():
    assert loads('{"a": [1, 2.5, "x"]}') == {"a": [1, 2.5, "x"]}
    with pytest.raises(ValueError, match="NUL"):
        loads('{"a": "\\u0000"}')
    with pytest.raises(ValueError, match="nested"):
        loads("[" * (JSON_MAX_DEPTH + 1) + "]" * (JSON_MAX_DEPTH + 1))
