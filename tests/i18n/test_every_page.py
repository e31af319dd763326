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
from tests.web.conftest import SCREENSHOTS, browser, shoot  # noqa: F401 (a fixture)
from tests.web.test_browser_every_page import CONTEXTS, TITLES, site  # noqa: F401 (a fixture)

# The players' names, and the keyword one writes for an open seat in the lobby's form.
NAMES = frozenset(name for names in TITLES.values() for name in names) | {"open"}
SIZES = {"phone": CONTEXTS["phone"], "desk": CONTEXTS["desk"]}


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


@pytest.mark.browser
@pytest.mark.parametrize("language", [code for code in LANGUAGES if code != DEFAULT])
def test_each_titles_turn_page_reads_in_the_language_on_a_phone(site, browser, language):  # noqa: F811
    """What a phone shows of each title's turn page in the middle of a game: in the
    language, nothing left in English (``make screenshots`` keeps a picture of each in
    test-artifacts/screenshots/languages/, desk and phone)."""
    base, paths = site
    problems = []
    for size, options in SIZES.items():
        context = browser.new_context(**options)
        context.add_cookies([{"name": "lang", "value": language, "url": base}])
        page = context.new_page()
        try:
            for slug in TITLES:
                page.goto(base + paths[f"{slug} mid turn (due)"])
                assert page.locator("html").get_attribute("lang") == language
                text = page.locator("main").inner_text()
                problems += [
                    f"{slug}: {line}" for line in english_left(text, html=False, allowed=NAMES)
                ]
                shoot(
                    page,
                    path=str(SCREENSHOTS / "languages" / f"{slug}-{language}-{size}.png"),
                    full_page=True,
                )
        finally:
            context.close()
    unique = sorted(set(problems))
    assert not unique, f"{language}:\n" + "\n".join(unique[:100])
