"""Bounds on what comes from outside: how deep JSON may nest, how large a number may be.

Used by the web (request bodies) and by ``pbem verify`` and ``pbem import`` (files), so
that no input reaches the database, the engines or a recursive function unbounded.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

# The largest seq, seat or count the database stores (a PostgreSQL INTEGER).
INT_MAX = 2**31 - 1
JSON_MAX_DEPTH = 64


def is_count(value: Any, low: int = 0, high: int = INT_MAX) -> bool:
    """Whether ``value`` is a whole number (not a bool) in ``[low, high]``."""
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def check_json(data: Any, max_depth: int = JSON_MAX_DEPTH) -> None:
    """``ValueError`` when ``data`` nests deeper than ``max_depth`` or holds a NUL.

    It walks the data a level at a time, each level's items in one list (``pbem verify``
    checks a whole exported log before anything else: a walk of an item at a time, with
    its depth beside it, was a tenth of the verification)."""
    level = [data]
    depth = 1
    while level:
        deeper: list[Any] = []
        for item in level:
            if isinstance(item, str):
                if "\x00" in item:
                    raise ValueError("text may not contain NUL characters")
            elif isinstance(item, dict):
                if depth > max_depth:
                    raise ValueError(f"the JSON is nested more than {max_depth} deep")
                deeper += item
                deeper += item.values()
            elif isinstance(item, list):
                if depth > max_depth:
                    raise ValueError(f"the JSON is nested more than {max_depth} deep")
                deeper += item
        level = deeper
        depth += 1


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError("numbers must be finite")
    return value


def loads(text: str | bytes, max_depth: int = JSON_MAX_DEPTH, **kwargs: Any) -> Any:
    """``json.loads`` refusing NaN/Infinity, non-finite numbers, deep nesting and NUL;
    every refusal is a ``ValueError``."""
    kwargs.setdefault("parse_constant", _no_constant)
    kwargs.setdefault("parse_float", _finite)
    try:
        data = json.loads(text, **kwargs)
    except RecursionError:
        raise ValueError("the JSON is nested too deeply") from None
    check_json(data, max_depth)
    return data


def read_json_file(path: str | Path, max_depth: int = JSON_MAX_DEPTH) -> Any:
    """A JSON file, bounded as :func:`loads`; ``OSError`` or ``ValueError`` otherwise."""
    return loads(Path(path).read_bytes(), max_depth)
