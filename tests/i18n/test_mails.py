"""Every mail kind in German, Polish and French: no English left in its subject, text or
HTML but names, and a few sentences as a player reads them. The cases are the golden
mails' (:mod:`tests.mail.test_golden_mails`), each rendered in the language; what other
parts of the server write into a mail (an engine's lines and phase, a rescue's sentences,
a result's headline, a player's own words) is replaced by names here, so only the mail's
own words are tested. Then the way each kind finds its reader's language: a seat's, or
for a mail to an address, that of the address's seat."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from pbem import i18n, zones
from pbem.games.notices import Notice
from pbem.mail import open_mails, outbox, render
from pbem.mail.inbound import answers, commands, moves
from tests.i18n.english import english_left
from tests.mail.conftest import Clock
from tests.mail.test_golden_mails import (
    DEADLINE,
    GAME_ID,
    NAMES,
    NOW,
    TURN_SINCE,
    cases,
    golden_runtime,
    seat_row,
)

LANGUAGES = ("de", "pl", "fr")
# Words of the list of English ones (tests/i18n/english.py) that are words of a language
# too ("Mail", "Link" and "Was" in German; "page" in French), and the commands a player
# types in a mail to the general address (never translated).
OWN_WORDS = {
    "de": frozenset({"mail", "mails", "link", "links", "was"}),
    "pl": frozenset({"mail", "link"}),
    "fr": frozenset({"page"}),
}
KEYWORDS = frozenset({"join", "open"})
NAMES_ONLY = ["Anna, Zoe (Carthago)", "Dan"]


@pytest.fixture
def golden(sqlite_db, tmp_path):
    """The golden mails' server and game (:mod:`tests.mail.test_golden_mails`), without
    its board drawer: the mails are only rendered here."""
    return golden_runtime(sqlite_db, tmp_path)


def localized(runtime, name: str, language: str) -> tuple[str, dict]:
    """A golden case's kind and context in ``language``, with what other parts of the
    server write replaced by names (see the module's docstring)."""
    kind, case = cases(runtime)[name]
    context = dict(case["context"])
    context["language"] = language
    if context.get("lines"):
        context["lines"] = NAMES_ONLY
    context["phase"] = ""
    with i18n.speaking(language):
        if kind == "answer":
            context.update(
                headline=answers._headline(["Anna"], ""),
                applied=["Anna (Carthago)"],
                next_up=i18n.gettext("It is your turn again."),
                move_groups=moves.groups(
                    [
                        moves.Listed(1, "Ben (Carthago)", "take", {}),
                        moves.Listed(2, "Cleo", "x", {}),
                    ]
                ),
            )
        elif kind == "deadline":
            policy = context["policy"]["at_deadline"]
            mine = context["late"] == "your turn"
            context["outcome"] = render.deadline_outcome(policy, "Ben", mine)
        elif kind == "seat_link":
            context["message"] = ""
        elif kind == "digest":
            context["games"] = [
                {
                    **game,
                    "phase": "",
                    "since": zones.when(TURN_SINCE, "UTC", None, language),
                    "deadline": zones.when(DEADLINE, "UTC", NOW, language)
                    if game["deadline"]
                    else "",
                }
                for game in context["games"]
            ]
        elif kind in ("talk", "talk_digest"):
            context["said"] = "Anna!"
            context["talk"] = [{"title": "Friday at Anna's", "said": NAMES_ONLY}]
        elif kind == "game_over":
            context.update(
                headline="",
                reason="",
                standings=[{**row, "score": "14, 3"} for row in context["standings"]],
            )
        elif kind == "follow_result":
            context["result"] = ""
        elif name == "open__newcomer":
            notice = Notice(
                kind="open_hold",
                key="k",
                game_id=GAME_ID,
                address="zoe@example.net",
                name="Zoe",
                facts={"title": "Friday at Anna's", "token": "T" * 43, "lapses_at": DEADLINE},
            )
            context.update(open_mails.notice_context(runtime, notice))
        elif name == "open__other":
            context.update(commands.help_answer(runtime))
    return kind, outbox.with_receipt(runtime, context)


def words_of(text: str) -> str:
    """A text part without its links and the board's slot (filled when it is sent)."""
    return "\n".join(
        line
        for line in text.splitlines()
        if not line.startswith(("http://", "https://", "[pbem-board:"))
    )


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_mail_kind_is_in_the_readers_language(golden, language):
    runtime = golden
    left = {}
    for name in NAMES:
        kind, context = localized(runtime, name, language)
        subject, text, html = render.render(kind, context)
        allowed = OWN_WORDS[language] | KEYWORDS
        found = english_left(subject, html=False, allowed=allowed)
        found += english_left(words_of(text), html=False, allowed=allowed)
        found += english_left(html, allowed=allowed)
        if found:
            left[name] = found
        assert f'<html lang="{language}">' in html, name
    assert left == {}


def test_english_is_found_when_a_sentence_is_left_unmarked(golden):
    runtime = golden
    """The check above would see a sentence a template left in English."""
    kind, context = localized(runtime, "deadline__other", "de")
    _, text, html = render.render(kind, context)
    allowed = OWN_WORDS["de"] | KEYWORDS
    assert english_left(
        words_of(text) + "\nThe game's page for you:", html=False, allowed=allowed
    ) == ["The game's page for you:"]


def render_in(runtime, name: str, language: str) -> tuple[str, str, str]:
    kind, context = localized(runtime, name, language)
    return render.render(kind, context)


def test_a_few_sentences_as_players_read_them(golden):
    runtime = golden
    subject, text, html = render_in(runtime, "deadline__other", "de")
    assert subject == "Friday at Anna's: die Frist ist abgelaufen"
    assert "Die Frist für den Zug von Ben in Friday at Anna's ist abgelaufen." in text
    assert "Ein Bot übernimmt den Platz von Ben; Ben kann ihn jederzeit" in text

    subject, text, _ = render_in(runtime, "answer__player", "pl")
    assert subject == "Friday at Anna's: twój ruch został wykonany"
    assert "Twoja odpowiedź wykonała ten ruch:" in text
    assert "Znowu twój ruch." in text

    subject, text, html = render_in(runtime, "talk__player_private", "fr")
    assert subject == "Friday at Anna's : Ben vous a écrit en privé"
    assert "Ben vous a écrit en privé dans Friday at Anna's :" in text
    assert 'commencez votre réponse par "to Ben:" ;' in text  # the keyword stays
    assert "commencez votre réponse par “to Ben:”" in html

    subject, text, _ = render_in(runtime, "digest__player", "pl")
    assert subject == "Twoje gry czekają na ciebie (2)"
    assert "2 twoje gry czekają na twój ruch:" in text

    subject, text, _ = render_in(runtime, "open__other", "de")
    assert subject == "Was du per Mail erfragen kannst"
    assert "HELP: diese Liste." in text

    subject, text, _ = render_in(runtime, "notice__player", "fr")
    assert subject == "Friday at Anna's : Un bot reprend une place"
    assert "Un bot reprend une place dans Friday at Anna's." in text


def test_a_mail_to_an_address_is_in_the_language_of_its_seat(golden):
    runtime = golden
    """An address's own mails (an open game's, an answer to a command, a stranger's
    refusal) are written in the language its newest seat chose; English without one."""
    with Session(runtime.db) as session:
        seat = seat_row(2, "Cleo")
        seat.language = "pl"
        session.add(seat)
        session.commit()
        assert outbox.address_language(session, "CLEO@example.org") == "pl"
        assert outbox.address_language(session, "nobody@example.org") == "en"
        mail = outbox.enqueue(
            session,
            runtime,
            "answer_stranger",
            key="k",
            recipient="cleo@example.org",
            context={"name": "", "sender": "cleo@example.org"},
        )
        session.rollback()
    assert mail.subject == "Twój mail nie został wykonany"
    assert "Cześć," in mail.body_text
    assert english_left(words_of(mail.body_text), html=False, allowed=OWN_WORDS["pl"]) == []


def test_a_refusal_is_mailed_in_the_players_language_and_recorded_in_english():
    error = moves.Unreadable('"%(line)s" is not one of your legal moves now.', line="sial")
    assert error.reason == '"sial" is not one of your legal moves now.'
    with i18n.speaking("de"):
        assert error.said() == "„sial“ ist gerade keiner deiner erlaubten Züge."
    with i18n.speaking("pl"):
        assert answers._headline([], "x") == "twoja odpowiedź nie została wykonana"
        assert answers._headline(["a", "b", "c", "d", "e"], "") == (
            "twoich 5 ruchów zostało wykonanych"
        )


def test_who_won_is_told_in_the_readers_language():
    from pbem.mail.game_over import winners_headline

    with i18n.speaking("de"):
        assert winners_headline(["Anna"]) == "Anna gewinnt."
        assert winners_headline(["Anna", "Ben"]) == "Anna und Ben teilen sich den Sieg."
    with i18n.speaking("fr"):
        assert winners_headline(["Anna", "Ben"]) == "Anna et Ben se partagent la victoire."
    assert winners_headline(["Anna"]) == "Anna wins."


def test_a_reply_by_mail_is_answered_in_the_seats_language(sqlite_db, tmp_path):
    """A German seat's reply that names no move: the answer says why in German; the
    reply's record keeps it in English (for the operator)."""
    from sqlmodel import select

    from pbem.games.service import SeatSpec
    from pbem.mail.dispatch import build_message
    from pbem.mail.inbound.receive import take
    from pbem.mail.models import InboundMessage, Mail
    from tests.mail.conftest import as_sent
    from tests.mail.inbound_helpers import reply_runtime, reply_to

    runtime = reply_runtime(sqlite_db, tmp_path, Clock(), None)
    specs = [
        SeatSpec("Anna", "anna@example.org", language="de"),
        SeatSpec("Ben", "ben@example.org"),
    ]
    runtime.service.create_game("pig", specs, {"target": 30})

    def mails_to_anna(kind: str) -> list:
        with Session(runtime.db) as session:
            rows = session.exec(
                select(Mail).where(Mail.recipient == "anna@example.org", Mail.kind == kind)
            ).all()
            return as_sent(runtime, list(rows))

    [invitation] = mails_to_anna("invitation")
    taken = take(
        runtime, reply_to(build_message(runtime, invitation), ["xyzzy"], "anna@example.org")
    )
    assert taken.outcome == "refused"
    assert taken.detail.startswith('"xyzzy" is not a move: write a move\'s number')
    [answer] = mails_to_anna("answer")
    assert answer.subject.endswith(": deine Antwort wurde nicht ausgeführt")
    assert "„xyzzy“ ist kein Zug: Schreib die Nummer eines Zugs" in answer.body_text
    assert 'beginne deine Antwort mit "say:".' in answer.body_text
    assert "Es wurde nichts ausgeführt: " in answer.body_text
    with Session(runtime.db) as session:
        [record] = session.exec(select(InboundMessage)).all()
    assert "is not a move" in record.detail
