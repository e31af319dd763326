"""Words an engine writes for players, in English, that the server can show in another
language: each label, history line, refusal and phase is a :class:`Text`.

A :class:`Text` *is* its English string (a ``str`` subclass: it compares, hashes,
slices and serialises as the English words, so the log, the hashes, the notation and
every English page are unchanged), and it also keeps what a translation needs: its
message id (the English pattern with ``%(name)s`` parameters), the parameters, and the
title whose catalogue holds it. Engines stay pure: they never look a translation up.
The server does, where the words are shown (:func:`pbem.i18n.localize`), in the
reader's language, translating the parameters that are themselves texts (a fish, a
province) the same way.

Each title makes its markers once, in its own folder::

    from engines.text import markers
    T, Tn = markers("mare_balticum")

    T("Sail from %(start)s to %(end)s", start=NAMES[a], end=NAMES[b])
    Tn("Throw %(num)d %(kind)s overboard", "Throw %(num)d %(kind)s overboard", count,
       kind=T("cod"))

``T`` marks a sentence (or a word), ``Tn`` a sentence with a count (``%(num)d`` is the
count; the catalogue holds each language's plural forms). A parameter that is a plain
``str`` is a name and reads the same in every language (a player's placeholder, a place
whose name is not translated); one that is a :class:`Text` is translated in turn.
:func:`joined` lists texts with a separator that is itself a text (", ", " and ").
``make i18n`` extracts every ``T(...)`` and ``Tn(...)`` of a title into its own catalogue
(``engines/<slug>/translations``). A seat placeholder (``{seat:N}``) is always a
parameter's value, never part of a message id, so the server fills names in any
language.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["Joined", "Text", "joined", "markers"]


class Text(str):
    """English words that also know their message id, parameters and catalogue."""

    msgid: str
    plural: str | None
    count: int | None
    params: dict[str, Any]
    domain: str | None

    def __new__(
        cls,
        msgid: str,
        params: dict[str, Any] | None = None,
        *,
        domain: str | None = None,
        plural: str | None = None,
        count: int | None = None,
    ) -> Text:
        params = dict(params or {})
        if plural is not None:
            pattern = msgid if count == 1 else plural
            english = pattern % {"num": count, **params}
        else:
            english = msgid % params if params else msgid
        text = super().__new__(cls, english)
        text.msgid, text.plural, text.count = msgid, plural, count
        text.params, text.domain = params, domain
        return text

    def __reduce__(self):
        return (_rebuild, (self.msgid, self.params, self.domain, self.plural, self.count))

    def __deepcopy__(self, memo):
        return self

    def __copy__(self):
        return self

    def with_params(self, params: dict[str, Any]) -> Text:
        """The same message with other parameter values (the server fills names so)."""
        return Text(self.msgid, params, domain=self.domain, plural=self.plural, count=self.count)


def _rebuild(msgid, params, domain, plural, count) -> Text:
    return Text(msgid, params, domain=domain, plural=plural, count=count)


class Joined(str):
    """Texts in a row with a separator (itself a text): "cod, herring and amber"."""

    items: tuple[Any, ...]
    separator: Any
    last: Any

    def __new__(cls, items: Iterable[Any], separator: Any = ", ", last: Any = None) -> Joined:
        items = tuple(items)
        last = separator if last is None else last
        if len(items) <= 1:
            english = "".join(items)
        else:
            english = str(separator).join(items[:-1]) + str(last) + items[-1]
        text = super().__new__(cls, english)
        text.items, text.separator, text.last = items, separator, last
        return text

    def __reduce__(self):
        return (Joined, (self.items, self.separator, self.last))

    def __deepcopy__(self, memo):
        return self

    def __copy__(self):
        return self


def joined(items: Iterable[Any], separator: Any = ", ", last: Any = None) -> Joined:
    """``items`` separated by ``separator``, the last two by ``last`` (default the same)."""
    return Joined(items, separator, last)


def markers(domain: str | None) -> tuple[Callable[..., Text], Callable[..., Text]]:
    """A title's markers ``(T, Tn)``: a sentence, a sentence with a count (``domain``
    None: the server's own catalogue, for sentences the server words alike)."""

    def T(msgid: str, **params: Any) -> Text:  # noqa: N802 (a marker, as gettext's _)
        return Text(msgid, params, domain=domain)

    def Tn(singular: str, plural: str, count: int, **params: Any) -> Text:  # noqa: N802
        return Text(singular, params, domain=domain, plural=plural, count=count)

    return T, Tn
