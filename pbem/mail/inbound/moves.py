"""The legal moves a mail lists with short codes, and a reply's lines read as moves.

The list (:func:`numbered`): a seat's legal moves in the engine's order, each with its
label (players by name), numbered from 1; moves whose labels read the same (two Corn
cards with one ship each) are listed once. A list longer than :data:`GROUP_OVER` is
grouped under headings by kind of move.

A reply line names a move (:func:`resolve`) as

- a code: ``7`` (also ``#7``, ``7.``, ``7)``): the move with that number in the list of
  the mail being replied to (the list at the event the reply's address names); a
  later line's code still means that list, and the rules refuse a move that is no
  longer legal;
- the move's label, case-insensitive (``End the turn``), with or without what the
  label adds about what the move pays now (": Corn pile of 1 pays ...");
- a written form for the moves one composes, in the title's own grammar (the engine's
  optional ``written_key`` and ``written_forms``, see :mod:`engines.api`), such as
  ``offer coin, grain, grain`` with the things in a list in any order;
- the move's JSON (``{"type": "end_turn"}``).

Labels, written forms and JSON are read against the legal moves of the moment, after
the lines before them were applied.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from engines import REGISTRY
from pbem import i18n
from pbem.games import names
from pbem.i18n import DEFAULT, N_, localize

GROUP_OVER = 12
CODE = re.compile(r"^#?(\d{1,4})[.)]?$")


@dataclass(frozen=True)
class Listed:
    code: int
    label: str
    kind: str
    move: dict


def labelled(
    engine: Any, state: Any, seat: int, seat_names: list[str], *, bare: bool = False
) -> list[tuple]:
    """The seat's legal moves with their labels (players by name), duplicates dropped:
    (label, move), or with ``bare`` (label, the label without what the move pays now,
    move)."""
    view = engine.view(state, seat)
    marks = names.marks_of(view)
    seen: set[str] = set()
    found: list[tuple] = []
    for move in engine.legal_moves(state, seat):
        label = names.fill(engine.move_label(move, view), seat_names, marks)
        if label.casefold() in seen:
            continue
        seen.add(label.casefold())
        if bare:
            found.append((label, names.fill(engine.move_label(move), seat_names, marks), move))
        else:
            found.append((label, move))
    return found


def numbered(engine: Any, state: Any, seat: int, seat_names: list[str]) -> list[Listed]:
    """The list a mail shows: each legal move with its code (empty when not due)."""
    if seat not in engine.to_move(state):
        return []
    found = labelled(engine, state, seat, seat_names)
    if len(found) > GROUP_OVER:
        # Grouped by kind in the mail: number them in that order, so codes ascend.
        first: dict[str, int] = {}
        for index, (_, move) in enumerate(found):
            first.setdefault(str(move.get("type", "")), index)
        found.sort(key=lambda entry: first[str(entry[1].get("type", ""))])
    return [
        Listed(number, label, str(move.get("type", "")), move)
        for number, (label, move) in enumerate(found, 1)
    ]


def groups(listed: list[Listed], engine: Any = None) -> list[dict]:
    """The list for a template: one group without a heading, or (a long list) one
    group per kind of move with a heading, the engine's name for the kind ("Sail",
    "End the turn": :func:`pbem.games.names.kind_name`)."""
    if len(listed) <= GROUP_OVER:
        return [{"heading": "", "moves": listed}] if listed else []
    by_kind: dict[str, list[Listed]] = {}
    for entry in listed:
        by_kind.setdefault(entry.kind, []).append(entry)
    return [
        {"heading": names.kind_name(engine, kind), "moves": entries}
        for kind, entries in by_kind.items()
    ]


def written_forms(engine_slug: str, listed: list[Listed]) -> list[str]:
    """The sentences explaining the written forms of the kinds of move in the list (the
    engine's ``written_forms``, in its order; none for a title without them)."""
    engine = REGISTRY.get(engine_slug)
    forms = getattr(engine, "written_forms", None) or {}
    kinds = {entry.kind for entry in listed}
    return [sentence for kind, sentence in forms.items() if kind in kinds]


def move_context(engine_slug: str, listed: list[Listed]) -> dict[str, Any]:
    """What a mail needs to list the moves with codes: ``move_groups``, ``written``."""
    return {
        "move_groups": groups(listed, REGISTRY.get(engine_slug)),
        "written": written_forms(engine_slug, listed),
        "move_count": len(listed),
    }


def written_key(engine: Any, text: str) -> tuple | None:
    """A move written out in ``engine``'s grammar reduced to what identifies it (its
    ``written_key``), or None: text of no written form, or a title without a grammar."""
    grammar = getattr(engine, "written_key", None)
    return grammar(text) if grammar is not None else None


class Unreadable(ValueError):
    """A line that names no move: ``reason`` says why, fit for the player (in English,
    for the reply's record); :meth:`said` in the spoken language, for the answer."""

    def __init__(self, message: str, **params: Any):
        self.message, self.params = message, params
        self.reason = message % params if params else message
        super().__init__(self.reason)

    def said(self) -> str:
        """The reason in the spoken language (:func:`pbem.i18n.speaking`)."""
        return i18n.gettext(self.message, **self.params)


def resolve(
    line: str,
    mail_list: list[Listed],
    engine: Any,
    state: Any,
    seat: int,
    seat_names: list[str],
    language: str | None = None,
) -> dict:
    """The move one reply line names (see the module's docstring); :class:`Unreadable`
    when it names none. A label may be written in English or in the seat's
    ``language``, as the seat's mail lists it."""
    text = line.strip()
    code = CODE.match(text)
    if code:
        number = int(code[1])
        for entry in mail_list:
            if entry.code == number:
                return dict(entry.move)
        if not mail_list:
            raise Unreadable(
                N_('"%(line)s" is a number, but the mail you replied to lists no moves.'),
                line=text,
            )
        raise Unreadable(
            N_(
                "There is no move number %(number)s in the mail you replied to (it lists 1 "
                "to %(last)s)."
            ),
            number=number,
            last=len(mail_list),
        )
    if text.startswith("{"):
        try:
            move = json.loads(text)
        except ValueError:
            raise Unreadable(
                N_('"%(line)s" looks like JSON but cannot be read.'), line=_short(text)
            ) from None
        if not isinstance(move, dict) or not isinstance(move.get("type"), str):
            raise Unreadable(N_('A move in JSON must be an object with a "type".'))
        return move
    wanted = " ".join(text.casefold().rstrip(".").split())
    current = labelled(engine, state, seat, seat_names, bare=True)
    for label, base, move in current:
        words = {label, base}
        if language and language != DEFAULT:
            words |= {str(localize(label, language)), str(localize(base, language))}
        if wanted in {" ".join(str(word).casefold().rstrip(".").split()) for word in words}:
            return dict(move)
    key = written_key(engine, text)
    if key is not None:
        for _, base, move in current:
            if written_key(engine, base) == key:
                return dict(move)
        raise Unreadable(N_('"%(line)s" is not one of your legal moves now.'), line=_short(text))
    raise Unreadable(
        N_(
            '"%(line)s" is not a move: write a move\'s number from the list, its name as '
            "the list shows it, or its JSON."
        ),
        line=_short(text),
    )


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
