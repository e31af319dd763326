"""An engine's words (engines/text.py) are English strings that the server shows in the
reader's language from the title's own catalogue: names filled in every language,
counts in each language's plural forms, lists joined, and a translation that does not
fit its parameters falls back to English instead of failing."""

from __future__ import annotations

import copy
import json
import pickle
from types import SimpleNamespace

import pytest
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from jinja2 import Environment

import engines
from engines.text import joined, markers
from pbem import i18n
from pbem.games import names

T, Tn = markers("wordy")


@pytest.fixture
def wordy(tmp_path, monkeypatch):
    """A title "wordy" whose catalogue translates a few words into German and Polish."""
    entries = {
        "de": {
            "cod": "Dorsch",
            "herring": "Hering",
            "Sail from %(start)s to %(end)s": "Segle von %(start)s nach %(end)s",
            "%(who)s fishes %(kind)s.": "%(who)s fischt %(kind)s.",
            " and ": " und ",
            "Broken %(word)s": "Kaputt %(other)s",
            ("Throw %(num)d %(kind)s overboard", "Throw %(num)d %(kind)s overboard"): (
                "Wirf %(num)d %(kind)s über Bord",
                "Wirf %(num)d %(kind)s über Bord",
            ),
        },
        "pl": {
            "cod": "dorsz",
            ("%(num)d ship", "%(num)d ships"): (
                "%(num)d statek",
                "%(num)d statki",
                "%(num)d statków",
            ),
        },
    }
    for language, messages in entries.items():
        catalog = Catalog(locale=language)
        for key, value in messages.items():
            catalog.add(key, value)
        folder = tmp_path / language / "LC_MESSAGES"
        folder.mkdir(parents=True)
        with open(folder / "messages.mo", "wb") as out:
            write_mo(out, catalog)
    monkeypatch.setitem(
        engines.REGISTRY, "wordy", SimpleNamespace(slug="wordy", translations_folder=str(tmp_path))
    )
    i18n.title_catalogue.cache_clear()
    yield
    i18n.title_catalogue.cache_clear()


def test_a_text_is_its_english_words_everywhere_a_string_goes():
    label = T("Sail from %(start)s to %(end)s", start="Gotland Deep", end="Riga")
    assert label == "Sail from Gotland Deep to Riga" and isinstance(label, str)
    assert json.dumps([label]) == '["Sail from Gotland Deep to Riga"]'
    assert pickle.loads(pickle.dumps(label)).msgid == label.msgid
    assert copy.deepcopy({"a": label})["a"].params == label.params
    assert {label: 1}["Sail from Gotland Deep to Riga"] == 1
    assert Tn("%(num)d ship", "%(num)d ships", 1) == "1 ship"
    assert Tn("%(num)d ship", "%(num)d ships", 3) == "3 ships"
    assert joined([T("cod"), T("herring"), "amber"], ", ", T(" and ")) == "cod, herring and amber"


def test_the_reader_gets_the_titles_own_translation_with_names_filled(wordy):
    line = T("%(who)s fishes %(kind)s.", who="{seat:1}", kind=T("cod"))
    filled = names.fill(line, ["Anna", "Ben"], ["red", "blue"])
    assert filled == "Ben (blue) fishes cod."
    assert i18n.localize(filled, "de") == "Ben (blue) fischt Dorsch."
    assert i18n.localize(filled, "en") == "Ben (blue) fishes cod."
    # French has no catalogue for this title: the English words
    assert i18n.localize(filled, "fr") == "Ben (blue) fishes cod."


def test_counts_take_each_languages_forms_and_lists_join_in_the_language(wordy):
    ships = [Tn("%(num)d ship", "%(num)d ships", n) for n in (1, 3, 5, 22)]
    assert [i18n.localize(s, "pl") for s in ships] == [
        "1 statek",
        "3 statki",
        "5 statków",
        "22 statki",
    ]
    fish = joined([T("cod"), T("herring")], ", ", T(" and "))
    assert i18n.localize(fish, "de") == "Dorsch und Hering"
    assert i18n.localize(
        Tn(
            "Throw %(num)d %(kind)s overboard", "Throw %(num)d %(kind)s overboard", 2, kind=T("cod")
        ),
        "de",
    ) == ("Wirf 2 Dorsch über Bord")


def test_a_translation_that_does_not_fit_its_parameters_gives_english(wordy):
    assert i18n.localize(T("Broken %(word)s", word="x"), "de") == "Broken x"


def test_a_template_prints_an_engines_words_in_the_language_being_written(wordy):
    environment = Environment(finalize=i18n.localize, autoescape=True)
    page = environment.from_string("<p>{{ line }}</p><p>{{ other }}</p>")
    line = T("%(who)s fishes %(kind)s.", who="<b>", kind=T("cod"))
    with i18n.speaking("de"):
        assert page.render(line=line, other="cod") == "<p>&lt;b&gt; fischt Dorsch.</p><p>cod</p>"
    assert page.render(line=line, other="cod") == "<p>&lt;b&gt; fishes cod.</p><p>cod</p>"
    assert i18n.localize("plain words", "de") == "plain words"


def test_a_players_colour_reads_in_the_language_beside_the_name(wordy):
    red = T("cod")  # any word of the title's: here it stands for a colour
    line = T("%(who)s fishes %(kind)s.", who="{seat:0}", kind=T("herring"))
    view = {"players": [{"colour": red}, {"colour": "blue"}]}
    filled = names.fill(line, ["Anna", "Ben"], names.marks_of(view))
    assert filled == "Anna (cod) fishes herring."
    assert i18n.localize(filled, "de") == "Anna (Dorsch) fischt Hering."


def test_a_word_kept_as_english_is_looked_up_as_its_own_message(wordy):
    assert i18n.localize_kept("herring", "wordy", "de") == "Hering"
    assert i18n.localize_kept("herring", "wordy", "en") == "herring"
    assert i18n.localize_kept("not a message", "wordy", "de") == "not a message"
    assert i18n.localize_kept(3, "wordy", "de") == 3


def test_an_engines_words_given_to_a_templates_sentence_read_in_the_language(wordy):
    environment = Environment(extensions=["jinja2.ext.i18n"], autoescape=True)
    environment.install_gettext_callables(
        gettext=lambda message: message,
        ngettext=lambda one, many, n: one if n == 1 else many,
        newstyle=True,
    )
    i18n.localize_template_parameters(environment)
    page = environment.from_string(
        '{{ _("Rule: %(kind)s", kind=kind) }} {% trans n=2 %}{{ n }} of {{ kind }}{% endtrans %}'
    )
    with i18n.speaking("de"):
        assert page.render(kind=T("cod")) == "Rule: Dorsch 2 of Dorsch"
    assert page.render(kind=T("cod")) == "Rule: cod 2 of cod"
