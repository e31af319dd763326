"""Every page kind of every title (the pages the browser checks in
``tests/web/test_browser_every_page.py``: the turn pages, history, audit, spectator,
rules, settings, seats and deadlines, my games, lobby, profile, ratings, not found), at
its start, middle and end, read in German, Polish and French: none has a sentence left
in English (``tests/i18n/english.py``), the players' and titles' names apart."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from pbem.i18n import DEFAULT, LANGUAGES
from tests.i18n.english import english_left
from tests.web.test_browser_every_page import TITLES, site  # noqa: F401 (a fixture)

NAMES = frozenset(name for names in TITLES.values() for name in names)


def fetch(url: str, language: str) -> tuple[int, str]:
    request = urllib.request.Request(url, headers={"Cookie": f"lang={language}"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode()


@pytest.mark.parametrize("language", [code for code in LANGUAGES if code != DEFAULT])
def test_no_page_has_english_left(site, language):  # noqa: F811
    base, paths = site
    problems = []
    for name, path in paths.items():
        status, html = fetch(base + path, language)
        assert status == (404 if name == "not found" else 200), f"{name}: {status}"
        assert f'<html lang="{language}"' in html, f"{name}: not written in {language}"
        problems += [f"{name}: {sentence}" for sentence in english_left(html, allowed=NAMES)]
    unique = sorted(set(problems))
    assert not unique, f"{language}: {len(unique)} sentences in English:\n" + "\n".join(
        unique[:200]
    )
