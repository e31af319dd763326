"""Players by name in every line a player reads: the one place seat placeholders are filled.

Engines write a seat in labels, history lines and refusals as a placeholder (see
:mod:`engines.api`): ``{seat:N}`` is seat N's holder with the seat's civilisation or
colour, "Ann (Rome)"; ``{name:N}`` the holder's name alone. ``N`` counts from 0, as the
engine's seats do. The names are the roster's as of the event a line tells of (or the
seat rows of today, for labels of legal moves and refusals); the marks come from the
engine's view (:func:`marks_of`). A placeholder naming no seat of the game reads
"player N" (counting from 1), never a raw brace.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from engines.text import Joined, Text

PLACEHOLDER = re.compile(r"\{(seat|name):(-?\d{1,6})\}")


def marks_of(view: Mapping[str, Any] | None) -> list[str]:
    """Each seat's civilisation or colour as the engine's view names it ("" for none):
    a player's ``colour``, else their ``name`` unless the view says no civilisation has
    been chosen for the seat yet (``"civ": None``)."""
    marks = []
    for player in (view or {}).get("players") or []:
        if not isinstance(player, Mapping):
            marks.append("")
            continue
        mark = player.get("colour")
        if not mark and ("civ" not in player or player.get("civ")):
            mark = player.get("name")
        # an engine's word ("Red", engines.text.Text) stays one, to be read in any language
        marks.append(mark if isinstance(mark, str) else str(mark) if mark else "")
    return marks


def phase_line(engine: Any, state: Any) -> tuple[str, list[str]]:
    """The public view's phase text and each seat's mark (:func:`marks_of`): from the
    engine's optional ``phase_line`` (see :mod:`engines.api`), which builds nothing else,
    else read from ``engine.view(state, None)``."""
    cheap = getattr(engine, "phase_line", None)
    if cheap is not None:
        phase, marks = cheap(state)
        return (phase if isinstance(phase, str) else str(phase)), [
            mark if isinstance(mark, str) else str(mark) if mark else "" for mark in marks
        ]
    public = engine.view(state, None)
    phase = public.get("phase", "")
    return (phase if isinstance(phase, str) else str(phase)), marks_of(public)


def kind_name(engine: Any, kind: str) -> str:
    """What a player calls moves of ``kind``: the engine's optional ``kind_name`` (see
    :mod:`engines.api`), else the kind with its underscores as spaces ("End turn")."""
    named = getattr(engine, "kind_name", None)
    name = named(kind) if named is not None else None
    return name or str(kind).replace("_", " ").capitalize()


def public_marks(engine: Any, state: Any) -> list[str]:
    """Each seat's mark in the public view of ``state`` (:func:`phase_line`)."""
    return phase_line(engine, state)[1]


def fill(text: str, names: Sequence[str], marks: Sequence[str] = ()) -> str:
    """``text`` with each seat placeholder replaced by the seat's name (and mark). An
    engine's words (:class:`engines.text.Text`) stay words a page translates: their
    parameters are filled, so the names read the same in every language."""
    if "{" not in text:
        return text
    if isinstance(text, Text):
        return text.with_params(
            {
                key: _filled_value(value, names, marks) if isinstance(value, str) else value
                for key, value in text.params.items()
            }
        )
    if isinstance(text, Joined):
        return Joined(
            [fill(item, names, marks) for item in text.items],
            fill(text.separator, names, marks),
            fill(text.last, names, marks),
        )

    def named(found: re.Match) -> str:
        kind, seat = found.group(1), int(found.group(2))
        if not 0 <= seat < len(names) or not names[seat]:
            return f"player {seat + 1}"
        name = str(names[seat])
        mark = str(marks[seat]) if seat < len(marks) and marks[seat] else ""
        if kind == "name" or not mark or mark == name:
            return name
        return f"{name} ({mark})"

    return PLACEHOLDER.sub(named, text)


def _filled_value(value: str, names: Sequence[str], marks: Sequence[str]) -> str:
    """A text's parameter filled: a lone placeholder whose seat's mark is itself an
    engine's word ("Red") stays a text, so the mark reads in the page's language."""
    found = PLACEHOLDER.fullmatch(value)
    if found and found.group(1) == "seat":
        seat = int(found.group(2))
        mark = marks[seat] if 0 <= seat < len(marks) else ""
        if isinstance(mark, Text) and seat < len(names) and names[seat] and mark != names[seat]:
            return Text("%(name)s (%(mark)s)", {"name": str(names[seat]), "mark": mark})
    return fill(value, names, marks)


def has_placeholder(text: str) -> bool:
    return PLACEHOLDER.search(text) is not None


def fill_lines(
    lines: Iterable[str],
    names: Sequence[str],
    marks: Sequence[str] | Callable[[], Sequence[str]] = (),
) -> list[str]:
    """Every line filled; ``marks`` may be a function, called only when a line needs it
    (so the view behind it is built only then)."""
    lines = list(lines)
    if not any(has_placeholder(line) for line in lines):
        return lines
    found = marks() if callable(marks) else marks
    return [fill(line, names, found) for line in lines]
