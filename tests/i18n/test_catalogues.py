"""The catalogues are current: every message the source marks is in the committed
``messages.pot`` (extracted as ``make i18n`` extracts), every language translates every
one of them with nothing fuzzy, and each committed ``.mo`` is what its ``.po`` compiles to.

When this fails, run ``make i18n``, translate what it added, and commit the files."""

from __future__ import annotations

import gettext
import io
import shlex

import pytest
from babel.messages.frontend import CommandLineInterface
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from pbem.i18n import CATALOGUES, DEFAULT, LANGUAGES
from pbem.locations import CHECKOUT

TRANSLATED = [code for code in LANGUAGES if code != DEFAULT]


def extract_arguments() -> list[str]:
    """``make i18n``'s extraction options, read from the Makefile (one place for both)."""
    for line in (CHECKOUT / "Makefile").read_text().splitlines():
        if line.startswith("I18N_EXTRACT :="):
            return shlex.split(line.partition(":=")[2])
    raise AssertionError("the Makefile has no I18N_EXTRACT line")


def ids(catalog) -> set:
    return {message.id for message in catalog if message.id}


def read(path):
    with open(path, "rb") as source:
        return read_po(source)


@pytest.fixture(scope="module")
def extracted(tmp_path_factory, request):
    """The messages the source marks now, extracted as ``make i18n`` does."""
    target = tmp_path_factory.mktemp("i18n") / "messages.pot"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(CHECKOUT)
        CommandLineInterface().run(["pybabel", "-q", *extract_arguments(), "-o", str(target), "."])
    return read(target)


def test_the_committed_template_holds_every_marked_message(extracted):
    committed = read(CATALOGUES / "messages.pot")
    missing = sorted(map(str, ids(extracted) - ids(committed)))
    stale = sorted(map(str, ids(committed) - ids(extracted)))
    assert not missing, f"messages.pot lacks (run make i18n): {missing}"
    assert not stale, f"messages.pot still holds messages no source marks (run make i18n): {stale}"


def test_the_template_is_written_as_make_i18n_writes_it(extracted, tmp_path):
    """The same bytes again: no date or order that changes from one run to the next."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(CHECKOUT)
        again = tmp_path / "again.pot"
        CommandLineInterface().run(["pybabel", "-q", *extract_arguments(), "-o", str(again), "."])
    assert again.read_bytes() == (CATALOGUES / "messages.pot").read_bytes()


@pytest.mark.parametrize("language", TRANSLATED)
def test_every_message_is_translated_and_none_is_fuzzy(language, extracted):
    catalog = read(CATALOGUES / language / "LC_MESSAGES" / "messages.po")
    missing = sorted(map(str, ids(extracted) - ids(catalog)))
    assert not missing, f"{language}: not in its .po (run make i18n): {missing}"
    untranslated, fuzzy = [], []
    for message in catalog:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if not all(strings):
            untranslated.append(str(message.id))
        if message.fuzzy:
            fuzzy.append(str(message.id))
    assert not untranslated, f"{language}: untranslated: {untranslated}"
    assert not fuzzy, f"{language}: fuzzy: {fuzzy}"


@pytest.mark.parametrize("language", TRANSLATED)
def test_the_committed_mo_is_what_its_po_compiles_to(language):
    folder = CATALOGUES / language / "LC_MESSAGES"
    compiled = io.BytesIO()
    write_mo(compiled, read(folder / "messages.po"))
    compiled.seek(0)
    with open(folder / "messages.mo", "rb") as committed:
        assert gettext.GNUTranslations(committed)._catalog == (
            gettext.GNUTranslations(compiled)._catalog
        ), f"{language}: messages.mo is older than messages.po (run make i18n)"
