"""What of a page or a mail is still in English: the sentences of its visible text (and
of the attributes a reader meets: ``title``, ``alt``, ``aria-label``, ``placeholder``, a
button's ``value``) that hold an English word no German, Polish or French sentence
holds. Names (of players, titles, places) are not such words, so they pass; a sentence
left untranslated almost always has one of these in it."""

from __future__ import annotations

import re
from html.parser import HTMLParser

# English words that are not words of German, Polish or French (so "in", "to", "a",
# "on", "was", "will", "no", "phase", "page", "score", "link", "mail" are left out: each
# is a word of one of them, or one their players use).
ENGLISH = frozenset(
    """
    the and your you is are this that with for from has have were not would
    can cannot could should which when where their there what who whom whose it its
    been being here they them these those our ours yes any some every each
    game games move moves turn turns player players seat seats deadline
    board history rules round winner
    choose chosen send reply open closed join leave waiting nobody anyone
    settings language colours back next previous show hide more less new old
    """.split()
)
WORD = re.compile(r"(?:[^\W\d_]|')+")  # letters of any script: "présent" is no "sent"
IDENTIFIER = re.compile(r"[/_@]")
SKIPPED_TAGS = {"script", "style", "title", "svg", "code", "pre", "kbd", "samp"}
ATTRIBUTES = {"title", "alt", "aria-label", "placeholder"}


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag, attrs):
        if tag in SKIPPED_TAGS:
            self.skipping += 1
        attributes = dict(attrs)
        for name in ATTRIBUTES:
            if attributes.get(name):
                self.parts.append(attributes[name])
        if tag == "input" and attributes.get("type") in ("submit", "button"):
            self.parts.append(attributes.get("value") or "")

    def handle_endtag(self, tag):
        if tag in SKIPPED_TAGS and self.skipping:
            self.skipping -= 1

    def handle_data(self, data):
        if not self.skipping and data.strip():
            self.parts.append(data)


def visible_text(html: str) -> list[str]:
    """The texts of ``html`` a reader sees, one per node or attribute."""
    parser = _Text()
    parser.feed(html)
    return [" ".join(part.split()) for part in parser.parts if part.strip()]


def english_left(text_or_html: str, *, html: bool = True, allowed: frozenset = frozenset()):
    """The sentences of a page (or a plain-text mail, ``html=False``) with an English
    word in them, apart from ``allowed`` words (a test's own names)."""
    parts = visible_text(text_or_html) if html else text_or_html.splitlines()
    found = []
    for part in parts:
        # an identifier is a name too: a time zone (America/New_York), a handle (ann_b),
        # an address or a link
        kept = " ".join(token for token in part.split() if not IDENTIFIER.search(token))
        words = {word.lower() for word in WORD.findall(kept)}
        if (words & ENGLISH) - {word.lower() for word in allowed}:
            found.append(part.strip())
    return found
