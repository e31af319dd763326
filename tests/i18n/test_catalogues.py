"""The catalogues are current: the server's (``pbem/translations``) and each title's own
(``engines/<slug>/translations``, the words of its engine and templates). Every message
the source marks is in the committed ``messages.pot`` (extracted as ``make i18n``
extracts), every language translates every one of them with nothing fuzzy and with the
message's own placeholders, and each committed ``.mo`` is what its ``.po`` compiles to.

When this fails, run ``make i18n``, translate what it added, and commit the files."""

from __future__ import annotations

import gettext
import io
import shlex
from pathlib import Path

import pytest
from babel.messages.frontend import CommandLineInterface
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from pbem.i18n import CATALOGUES, DEFAULT, LANGUAGES
from pbem.locations import CHECKOUT

TRANSLATED = [code for code in LANGUAGES if code != DEFAULT]
# (name, the folder extracted, the Makefile's options, the catalogue folder)
SETS = [("server", ".", "I18N_EXTRACT", CATALOGUES)] + [
    (folder.parent.name, f"engines/{folder.parent.name}", "I18N_TITLE_EXTRACT", folder)
    for folder in sorted((CHECKOUT / "engines").glob("*/translations"))
]
NAMES = [name for name, *_ in SETS]


def extract_arguments(variable: str) -> list[str]:
    """``make i18n``'s extraction options, read from the Makefile (one place for both)."""
    for line in (CHECKOUT / "Makefile").read_text().splitlines():
        if line.startswith(f"{variable} :="):
            return shlex.split(line.partition(":=")[2])
    raise AssertionError(f"the Makefile has no {variable} line")


def ids(catalog) -> set:
    return {message.id for message in catalog if message.id}


def read(path):
    with open(path, "rb") as source:
        return read_po(source)


def extract(name: str, target: Path) -> None:
    _, source, variable, _ = SETS[NAMES.index(name)]
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(CHECKOUT)
        arguments = extract_arguments(variable)
        CommandLineInterface().run(["pybabel", "-q", *arguments, "-o", str(target), source])


def folder_of(name: str) -> Path:
    return SETS[NAMES.index(name)][3]


@pytest.fixture(scope="module")
def extracted(tmp_path_factory):
    """Each set's messages as the source marks them now, extracted as ``make i18n`` does."""
    found = {}
    for name in NAMES:
        target = tmp_path_factory.mktemp("i18n") / "messages.pot"
        extract(name, target)
        found[name] = (target, read(target))
    return found


def test_every_title_with_words_has_a_catalogue():
    """The titles the catalogues cover are folders of engines/ (none named twice)."""
    assert NAMES[0] == "server" and len(set(NAMES)) == len(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_the_committed_template_holds_every_marked_message(name, extracted):
    committed = read(folder_of(name) / "messages.pot")
    now = extracted[name][1]
    missing = sorted(map(str, ids(now) - ids(committed)))
    stale = sorted(map(str, ids(committed) - ids(now)))
    assert not missing, f"{name}: messages.pot lacks (run make i18n): {missing}"
    assert not stale, f"{name}: messages.pot holds messages no source marks: {stale}"


@pytest.mark.parametrize("name", NAMES)
def test_the_template_is_written_as_make_i18n_writes_it(name, extracted):
    """The same bytes again: no date or order that changes from one run to the next."""
    assert extracted[name][0].read_bytes() == (folder_of(name) / "messages.pot").read_bytes()


@pytest.mark.parametrize("language", TRANSLATED)
@pytest.mark.parametrize("name", NAMES)
def test_every_message_is_translated_and_none_is_fuzzy(name, language, extracted):
    catalog = read(folder_of(name) / language / "LC_MESSAGES" / "messages.po")
    missing = sorted(map(str, ids(extracted[name][1]) - ids(catalog)))
    assert not missing, f"{name}, {language}: not in its .po (run make i18n): {missing}"
    untranslated, fuzzy = [], []
    for message in catalog:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if not all(strings):
            untranslated.append(str(message.id))
        if message.fuzzy:
            fuzzy.append(str(message.id))
    assert not untranslated, f"{name}, {language}: untranslated: {untranslated}"
    assert not fuzzy, f"{name}, {language}: fuzzy: {fuzzy}"
    broken = [(str(message.id), [str(e) for e in errors]) for message, errors in catalog.check()]
    assert not broken, f"{name}, {language}: placeholders that do not fit: {broken}"


@pytest.mark.parametrize("language", TRANSLATED)
@pytest.mark.parametrize("name", NAMES)
def test_the_committed_mo_is_what_its_po_compiles_to(name, language):
    folder = folder_of(name) / language / "LC_MESSAGES"
    compiled = io.BytesIO()
    write_mo(compiled, read(folder / "messages.po"))
    compiled.seek(0)
    with open(folder / "messages.mo", "rb") as committed:
        assert gettext.GNUTranslations(committed)._catalog == (
            gettext.GNUTranslations(compiled)._catalog
        ), f"{name}, {language}: messages.mo is older than messages.po (run make i18n)"
