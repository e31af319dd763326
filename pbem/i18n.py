"""The languages pages and mails are written in, and their catalogues.

Catalogues are gettext ``.po`` files in ``pbem/translations/<language>/LC_MESSAGES``,
compiled to ``.mo`` beside them (``make i18n`` extracts, updates and compiles them;
``tests/i18n/test_catalogues.py`` checks that nothing is missing or fuzzy). English is
the language the source is written in: it has no catalogue.

Pages choose their language through Flask-Babel (:mod:`pbem.web.i18n`); a mail is
rendered while :func:`speaking` its reader's language, which the mail templates'
``_()`` and :func:`gettext` read. Dates and numbers in the reader's language come from
Babel's CLDR data (:mod:`pbem.zones`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from typing import Any

from babel.support import NullTranslations, Translations

from pbem.errors import BadInput

# Each language by its code, named in its own words (as the chooser offers it).
LANGUAGES = {"en": "English", "de": "Deutsch", "pl": "Polski", "fr": "Français"}
DEFAULT = "en"
CATALOGUES = Path(__file__).resolve().parent / "translations"

_speaking: ContextVar[str] = ContextVar("pbem_language", default=DEFAULT)


def N_(message: str) -> str:
    """Marks ``message`` for the catalogues where it is defined; translated where used."""
    return message


def known(language: Any) -> str | None:
    """``language`` if it is one this server speaks, else None."""
    return language if isinstance(language, str) and language in LANGUAGES else None


def clean_language(value: Any) -> str:
    """A language code exactly as offered, or :class:`BadInput`."""
    found = known(value.strip() if isinstance(value, str) else value)
    if found is None:
        offered = ", ".join(f"{name} ({code})" for code, name in LANGUAGES.items())
        raise BadInput(f"Choose one of the offered languages: {offered}. Nothing was changed.")
    return found


@cache
def translation(language: str) -> NullTranslations:
    """The catalogue of ``language`` (English, or an unknown code: the source's words)."""
    if known(language) in (None, DEFAULT):
        return NullTranslations()
    return Translations.load(str(CATALOGUES), [language])


@contextmanager
def speaking(language: str | None) -> Iterator[str]:
    """Renders what is inside in ``language`` (English when None or unknown)."""
    chosen = known(language) or DEFAULT
    token = _speaking.set(chosen)
    try:
        yield chosen
    finally:
        _speaking.reset(token)


def spoken() -> str:
    """The language :func:`speaking` set (English outside it)."""
    return _speaking.get()


def gettext(message: str, **variables: Any) -> str:
    """``message`` in the spoken language, its ``%(name)s`` filled from ``variables``."""
    text = translation(spoken()).gettext(message)
    return text % variables if variables else text


def ngettext(singular: str, plural: str, number: int, **variables: Any) -> str:
    """The form of ``singular``/``plural`` for ``number`` in the spoken language;
    ``%(num)d`` is ``number``."""
    text = translation(spoken()).ngettext(singular, plural, number)
    return text % {"num": number, **variables}
