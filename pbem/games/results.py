"""A finished game's result as players read it: who won and why, in names, and the
scoring table ranked winners first (see :class:`engines.api.Result` for what each part
means in every engine). Used by the game, turn and spectator pages and the game-over mail.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engines.text import joined
from pbem.i18n import T, Tn, localize_kept
from pbem.words import sentence


def shown(value: Any) -> str:
    """A table value as text: whole numbers without a fraction, text as it is."""
    if isinstance(value, bool):
        return T("yes") if value else "—"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def standings(
    result: Mapping[str, Any] | None, names: Sequence[str], title: str | None = None
) -> dict[str, Any] | None:
    """The result to show: ``headline`` ("Ann wins." / "Ann and Bo share the win."),
    ``reason`` (a sentence), ``columns`` and ``rows`` (each with the seat, name, rank,
    whether it won, and its values as text), ranked: winners first, then by score, ties
    sharing a rank. None while the game runs. Given the ``title`` (its slug), the reason
    and the columns the engine wrote are in the language being written
    (:func:`pbem.i18n.localize_kept`: the result is kept as English JSON)."""
    if not result:
        return None
    winners = [seat for seat in result.get("winners") or [] if 0 <= seat < len(names)]
    scores = list(result.get("scores") or [])
    table = result.get("table")
    if table:
        columns, values, deciding = list(table["columns"]), table["rows"], table["deciding"]
    else:
        columns, values, deciding = ["Score"], [[score] for score in scores], 0
    seats = [seat for seat in range(len(names)) if seat < len(values)]

    def kept(words: Any) -> Any:
        return localize_kept(words, title) if title else words

    def score(seat: int) -> float:
        value = scores[seat] if seat < len(scores) else 0
        return value if isinstance(value, int | float) else 0

    def key(seat: int) -> tuple[bool, float]:
        return seat not in winners, -score(seat)

    order = sorted(seats, key=lambda seat: (*key(seat), seat))
    rows = []
    for place, seat in enumerate(order):
        tied = place and key(order[place - 1]) == key(seat)
        rank = rows[-1]["rank"] if tied else place + 1
        rows.append(
            {
                "seat": seat,
                "name": names[seat],
                "rank": rank,
                "winner": seat in winners,
                "values": [shown(value) for value in values[seat]],
            }
        )
    # Shown in the page's language; the same words in English as join_names.
    last = T(" and ")
    headline = (
        Tn(
            "%(names)s wins.",
            "%(names)s share the win.",
            len(winners),
            names=joined([str(names[seat]) for seat in winners], ", ", last),
        )
        if winners
        else ""
    )
    return {
        "headline": headline,
        "reason": sentence(str(kept(result.get("reason") or ""))),
        "columns": [kept(column) for column in columns],
        "deciding": deciding,
        "rows": rows,
    }


def standings_text(standing: Mapping[str, Any] | None) -> list[str]:
    """The result as plain text lines (for mail): the headline, the reason, then one
    line per seat in rank order with its labelled values."""
    if not standing:
        return []
    lines = [line for line in (standing["headline"], standing["reason"]) if line]
    for row in standing["rows"]:
        figures = ", ".join(
            f"{label}: {value}"
            for label, value in zip(standing["columns"], row["values"], strict=True)
        )
        mark = " (winner)" if row["winner"] else ""
        lines.append(f"{row['rank']}. {row['name']}{mark}: {figures}")
    return lines
