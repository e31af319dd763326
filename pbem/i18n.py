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

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from typing import Any

from babel.support import NullTranslations, Translations

from engines.text import Joined, Text, markers
from pbem.errors import BadInput

# Each language by its code, named in its own words (as the chooser offers it).
LANGUAGES = {"en": "English", "de": "Deutsch", "pl": "Polski", "fr": "Français"}
DEFAULT = "en"
CATALOGUES = Path(__file__).resolve().parent / "translations"

_speaking: ContextVar[str | None] = ContextVar("pbem_language", default=None)
# Where a page's language comes from while a request is being answered (set by
# pbem.web.i18n): a function giving it, or None outside a request.
_request_language: list[Callable[[], str | None]] = []


# The server's markers for words it writes once and shows later in the reader's language
# (a refusal raised deep in a service, shown on a page or in a mail): see engines/text.py.
T, Tn = markers(None)


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
        raise BadInput(
            T(
                "Choose one of the offered languages: %(offered)s. Nothing was changed.",
                offered=offered,
            )
        )
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
    return _speaking.get() or DEFAULT


def current_language() -> str:
    """The language being written now: the one :func:`speaking` set (a mail), else the
    page's while a request is answered, else English."""
    chosen = _speaking.get()
    if chosen:
        return chosen
    for source in _request_language:
        found = known(source())
        if found:
            return found
    return DEFAULT


def set_request_language(source: Callable[[], str | None]) -> None:
    """Tells :func:`current_language` how to read a page's language (once, by the web)."""
    if source not in _request_language:
        _request_language.append(source)


@cache
def title_catalogue(language: str, domain: str) -> NullTranslations:
    """The catalogue of a title's own words (``domain`` is its slug) in ``language``:
    from the folder its engine names as ``translations_folder`` (see
    :mod:`engines.api`); the source's English words when it has none."""
    if known(language) in (None, DEFAULT):
        return NullTranslations()
    import engines

    folder = getattr(engines.REGISTRY.get(domain), "translations_folder", None)
    if not folder:
        return NullTranslations()
    return Translations.load(str(folder), [language])


def title_folders() -> list[str]:
    """Every title's catalogue folder (pages read their templates' words there too)."""
    import engines

    found = (getattr(engine, "translations_folder", None) for engine in engines.REGISTRY.values())
    return [str(folder) for folder in found if folder]


def localize(value: Any, language: str | None = None) -> Any:
    """An engine's words (:class:`engines.text.Text`, :class:`engines.text.Joined`) in
    ``language`` (default :func:`current_language`); anything else as it is. A
    translation whose parameters do not fit gives the English words, never an error."""
    if not isinstance(value, Text | Joined):
        return value
    language = known(language) or current_language()
    if language == DEFAULT:
        return str(value)
    if isinstance(value, Joined):
        parts = [str(localize(item, language)) for item in value.items]
        if len(parts) <= 1:
            return "".join(parts)
        separator = str(localize(value.separator, language))
        last = str(localize(value.last, language))
        return separator.join(parts[:-1]) + last + parts[-1]
    catalogue = title_catalogue(language, value.domain) if value.domain else translation(language)
    params = {key: localize(item, language) for key, item in value.params.items()}
    if value.plural is not None:
        pattern = catalogue.ngettext(value.msgid, value.plural, value.count)
        params = {"num": value.count, **params}
    else:
        pattern = catalogue.gettext(value.msgid)
    try:
        return pattern % params if params else pattern
    except (KeyError, TypeError, ValueError):
        return str(value)


def gettext(message: str, **variables: Any) -> str:
    """``message`` in the spoken language, its ``%(name)s`` filled from ``variables``."""
    text = translation(spoken()).gettext(message)
    return text % variables if variables else text


def ngettext(singular: str, plural: str, number: int, **variables: Any) -> str:
    """The form of ``singular``/``plural`` for ``number`` in the spoken language;
    ``%(num)d`` is ``number``."""
    text = translation(spoken()).ngettext(singular, plural, number)
    return text % {"num": number, **variables}


def localize_kept(value: Any, domain: str | None, language: str | None = None) -> Any:
    """Words an engine wrote that were kept as plain English (a finished game's result,
    stored as JSON; the phase a game's row keeps for the lobby and the mails) in
    ``language``. A word without parameters is its own message id, so it is looked up as
    it stands in the catalogue of ``domain`` (the title's slug); a sentence with
    parameters is matched against the catalogue's patterns (:func:`_kept_patterns`) and
    its parameters are read back the same way; "Ann (Red)" is a name beside a word.
    What matches nothing stays as it is."""
    if isinstance(value, Text | Joined):
        return localize(value, language)
    if not isinstance(value, str) or not value:
        return value
    language = known(language) or current_language()
    if language == DEFAULT:
        return value
    return _kept(value, domain, language, 3)


_NAMED = re.compile(r"^(?P<name>.+) \((?P<mark>[^()]+)\)$")
_PARAMETER = re.compile(r"%\((\w+)\)([sd])")


def _kept(value: str, domain: str | None, language: str, depth: int) -> str:
    catalogue = title_catalogue(language, domain) if domain else translation(language)
    found = catalogue.gettext(value)
    if found != value or depth <= 0:
        return found
    for pattern, msgid, plural in _kept_patterns(domain):
        match = pattern.match(value)
        if match is None:
            continue
        params: dict[str, Any] = {}
        for name, text in match.groupdict().items():
            params[name] = int(text) if text.isdigit() else _kept(text, domain, language, depth - 1)
        if plural is not None:
            count = params.get("num")
            if not isinstance(count, int):
                continue
            translated = catalogue.ngettext(msgid, plural, count)
        else:
            translated = catalogue.gettext(msgid)
        try:
            return translated % params
        except (KeyError, TypeError, ValueError):
            return value
    named = _NAMED.match(value)
    if named:
        mark = _kept(named["mark"], domain, language, 0)
        if mark != named["mark"]:
            return f"{named['name']} ({mark})"
    return value


@cache
def _kept_patterns(domain: str | None) -> list[tuple[re.Pattern, str, str | None]]:
    """The message ids with parameters of ``domain``'s catalogue (read from any
    language's), each as a regular expression reading its English back, the ones with
    the most fixed words first; a pattern of parameters alone is left out."""
    from babel.messages.mofile import read_mo

    folder = None
    if domain:
        import engines

        folder = getattr(engines.REGISTRY.get(domain), "translations_folder", None)
    else:
        folder = str(CATALOGUES)
    if not folder:
        return []
    ids: list[tuple[str, str, str | None]] = []  # (English read, message id, plural)
    for language in LANGUAGES:
        path = Path(folder) / language / "LC_MESSAGES" / "messages.mo"
        if path.is_file():
            with open(path, "rb") as source:
                for message in read_mo(source):
                    if isinstance(message.id, tuple):
                        one, many = message.id
                        ids += [(one, one, many), (many, one, many)]
                    elif message.id:
                        ids.append((message.id, message.id, None))
            break
    patterns = []
    for english, msgid, plural in ids:
        if "%(" not in english:
            continue
        fixed = _PARAMETER.sub("", english)
        if len(fixed.strip(" .,:;()—-")) < 3:
            continue
        regex, at, seen = "", 0, set()
        for match in _PARAMETER.finditer(english):
            regex += re.escape(english[at : match.start()])
            name = match.group(1)
            if name in seen:
                regex += f"(?P={name})"
            else:
                regex += f"(?P<{name}>\\d+)" if match.group(2) == "d" else f"(?P<{name}>.+?)"
                seen.add(name)
            at = match.end()
        regex += re.escape(english[at:])
        patterns.append((re.compile(f"^{regex}$", re.S), msgid, plural, len(fixed)))
    patterns.sort(key=lambda found: -found[3])
    return [(pattern, msgid, plural) for pattern, msgid, plural, _ in patterns]


def localize_template_parameters(environment: Any) -> None:
    """Makes a Jinja environment's ``_()``, ``gettext``, ``ngettext`` (and ``{% trans %}``)
    put an engine's words given as parameters (``_("Rule: %(kind)s", kind=...)``) in the
    language being written, as ``{{ ... }}`` does through ``finalize``: Jinja's own
    functions would print them as their English string. Called once the environment's
    gettext callables are installed."""
    from jinja2 import pass_context

    def localizing(function: Callable) -> Callable:
        @pass_context
        def call(context, *args: Any, **variables: Any) -> Any:
            variables = {name: localize(value) for name, value in variables.items()}
            return function(context, *args, **variables)

        return call

    for name in ("gettext", "ngettext", "pgettext", "npgettext"):
        if name in environment.globals:
            environment.globals[name] = localizing(environment.globals[name])
