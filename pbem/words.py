"""Small helpers for the prose players read, shared by pages and mails."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def sentence(text: Any) -> str:
    """``text`` as one sentence: a capital first letter and exactly one closing stop
    ("red wins with 6 coins" and "Red wins with 6 coins." both end as the latter); an
    engine's words in the language being written (:func:`pbem.i18n.localize`)."""
    from pbem.i18n import localize

    text = str(localize(text) or "").strip()
    if not text:
        return ""
    text = text[:1].upper() + text[1:]
    return text if text[-1] in ".!?" else f"{text}."


def join_names(names: Iterable[str], language: str = "en") -> str:
    """ "Ann", "Ann and Bo", "Ann, Bo and Cy"; in another ``language`` as Babel joins a
    list there: "Ann, Bo und Cy", "Ann, Bo i Cy", "Ann, Bo et Cy"."""
    words = [str(name) for name in names]
    if len(words) <= 1:
        return "".join(words)
    if language != "en":
        from babel.lists import format_list

        return format_list(words, locale=language)
    return f"{', '.join(words[:-1])} and {words[-1]}"
