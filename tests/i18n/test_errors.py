"""The service's refusals in the reader's language: a forged link, a stale or bad form
of the lobby, a move out of turn, a bad message to the table, an unknown language or
zone, and a refused reply by mail are each answered in German, Polish and French, and
no English is left in the refusal's sentence."""

from __future__ import annotations

import re
from html import unescape

import pytest
from sqlmodel import Session

from pbem.games import control
from pbem.games.service import SeatSpec
from pbem.i18n import LANGUAGES, localize, translation
from pbem.mail.dispatch import dispatch
from pbem.mail.inbound.receive import take
from pbem.models import Seat
from tests.i18n.english import english_left
from tests.mail.conftest import Clock, make_runtime
from tests.mail.conftest import smtp as smtp  # noqa: F401 (a fixture, for the mail test)
from tests.mail.inbound_helpers import REPLY, SENDER, reply_to
from tests.web.conftest import csrf_of

NAMES = {"Anna", "Ben", "Zed"}
# "Link" is a German and a Polish word too (the catalogues use it); English's list has it.
WORDS_OF_THEIR_OWN = {"de": {"link"}, "pl": {"link"}, "fr": set()}
REFUSAL = re.compile(r'<p class="message bad"[^>]*>(.*?)</p>', re.DOTALL)
LOBBY = {
    "game": "pig",
    "let_server_draw": "on",
    "option_pig_target": "30",
    "timezone": "UTC",
    "seat_name_0": "Anna",
    "seat_email_0": "anna@example.org",
    "seat_name_1": "Ben",
    "seat_email_1": "ben@example.org",
}
# The sentences each language reads, as the catalogues have them.
EXPECTED = {
    "forged": {
        "de": "Dieser Link ist nicht gültig (vielleicht wurde er ersetzt).",
        "pl": "Ten link jest nieważny (mógł zostać zastąpiony).",
        "fr": "Ce lien n'est pas valable (il a peut-être été remplacé).",
    },
    "stale": {
        "de": "Dieses Formular stammt nicht vom Server (oder sein erster Schritt ist verfallen)",
        "pl": "Ten formularz nie pochodzi z serwera (albo jego pierwszy krok wygasł)",
        "fr": "Ce formulaire ne vient pas du serveur (ou sa première étape a expiré)",
    },
    "zone": {
        "de": "Deine Zeitzone: Wähle eine Zeitzone aus der Liste",
        "pl": "Twoja strefa czasowa: Wybierz strefę czasową z listy",
        "fr": "Votre fuseau horaire : Choisissez un fuseau horaire dans la liste",
    },
    "language": {
        "de": "Platz 2: Wähle eine der angebotenen Sprachen: English (en), Deutsch (de)",
        "pl": "Miejsce 2: Wybierz jeden z oferowanych języków: English (en), Deutsch (de)",
        "fr": "Place 2 : Choisissez l'une des langues proposées : English (en), Deutsch (de)",
    },
    "names": {
        "de": "Zwei Plätze heißen 'ben'; gib jedem Spieler einen anderen Namen",
        "pl": "Dwa miejsca nazywają się 'ben'; daj każdemu graczowi inne imię",
        "fr": "Deux places s'appellent 'ben' ; donnez à chaque joueur un nom différent",
    },
    "turn": {
        "de": "Dieser Zug wurde nicht ausgeführt: Du bist nicht am Zug.",
        "pl": "To nie twój ruch.",
        "fr": "Ce n'est pas votre tour.",
    },
    "paused": {
        "de": "Das Spiel ist pausiert; keine Züge, bis es fortgesetzt wird.",
        "pl": "Gra jest wstrzymana; żadnych ruchów, dopóki nie zostanie wznowiona.",
        "fr": "La partie est en pause ; aucun coup avant sa reprise.",
    },
    "talk": {
        "de": "Diesen Spieler gibt es in diesem Spiel nicht. Nichts wurde gesendet.",
        "pl": "W tej grze nie ma takiego gracza. Nic nie zostało wysłane.",
        "fr": "Ce joueur n'existe pas dans cette partie. Rien n'a été envoyé.",
    },
    "hour": {
        "de": "Die bevorzugte Stunde ist eine volle Stunde von 0 bis 23 oder keine.",
        "pl": "Preferowana godzina to pełna godzina od 0 do 23 albo żadna.",
        "fr": "L'heure préférée est une heure entière de 0 à 23, ou aucune.",
    },
    "chooser": {
        "de": "Wähle eine der angebotenen Sprachen",
        "pl": "Wybierz jeden z oferowanych języków",
        "fr": "Choisissez l'une des langues proposées",
    },
}
FOREIGN = ["de", "pl", "fr"]


def refusal(answer) -> str:
    """The refusal a page shows, as text."""
    found = REFUSAL.search(answer.text)
    assert found, answer.text[:2000]
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", found[1])).split())


def assert_spoken(answer, language: str, kind: str, status: int) -> None:
    assert answer.status_code == status, answer.text[:2000]
    assert f'<html lang="{language}"' in answer.text
    said = refusal(answer)
    assert EXPECTED[kind][language] in said, said
    allowed = NAMES | WORDS_OF_THEIR_OWN[language]
    assert english_left(said, html=False, allowed=allowed) == [], said


def new_game(runtime, language: str | None = None):
    specs = [
        SeatSpec(name, f"{name.lower()}@example.org", language=language) for name in ("Anna", "Ben")
    ]
    return runtime.service.create_game("pig", specs, {"target": 30})


@pytest.mark.parametrize("language", FOREIGN)
def test_a_forged_link_is_refused_in_the_browsers_language(client, language):
    answer = client.get(
        "/play/forged-link-forged-link-forged-link/history",
        headers={"Accept-Language": language},
    )
    assert_spoken(answer, language, "forged", 404)


@pytest.mark.parametrize("language", FOREIGN)
def test_the_lobby_refuses_bad_and_stale_forms_in_the_browsers_language(client, language):
    headers = {"Accept-Language": language}
    token = csrf_of(client.get("/", headers=headers).text)
    cases = [
        ("stale", {"pending": "abcd-1234-efgh"}, 422),
        ("zone", {"timezone": "Mars/Olympus_Mons"}, 400),
        ("language", {"seat_language_1": "klingon"}, 400),
        ("names", {"seat_name_1": "ben", "seat_name_0": "Ben"}, 400),
    ]
    for kind, changed, status in cases:
        form = {**LOBBY, "csrf_token": token, **changed}
        assert_spoken(client.post("/games", data=form, headers=headers), language, kind, status)


@pytest.mark.parametrize("language", FOREIGN)
def test_the_turn_page_refuses_in_the_seats_language(runtime, client, language):
    created = new_game(runtime, language)
    ben = created.tokens[1]
    page = client.get(f"/play/{ben}").text
    token = csrf_of(page)
    seq = str(runtime.service.head(created.game_id).seq)
    # Anna moves first: Ben's move is out of turn.
    moved = client.post(
        f"/play/{ben}/move",
        data={"csrf_token": token, "seq": seq, "move": '{"type": "stop"}', "confirmed": "1"},
    )
    assert_spoken(moved, language, "turn", 422)
    # A message to a seat that does not exist.
    said = client.post(f"/play/{ben}/talk", data={"csrf_token": token, "text": "hi", "to": "7"})
    assert_spoken(said, language, "talk", 400)
    # A paused game takes no move.
    control.pause_game(runtime, created.game_id)
    anna = created.tokens[0]
    seq = str(runtime.service.head(created.game_id).seq)
    paused = client.post(
        f"/play/{anna}/move",
        data={"csrf_token": token, "seq": seq, "move": '{"type": "stop"}', "confirmed": "1"},
    )
    assert_spoken(paused, language, "paused", 422)


@pytest.mark.parametrize("language", FOREIGN)
def test_an_unknown_language_or_hour_is_refused_in_the_readers_language(runtime, client, language):
    from tests.i18n.test_languages import save_settings, settings_path

    chooser = client.get("/language?lang=xx&next=/", headers={"Accept-Language": language})
    assert_spoken(chooser, language, "chooser", 400)

    created = new_game(runtime, language)
    path = settings_path(runtime, created.game_id, 1)
    answer = save_settings(client, path, mail_hour="99")
    assert_spoken(answer, language, "hour", 400)
    answer = save_settings(client, path, language="klingon")
    assert_spoken(answer, language, "chooser", 400)
    with Session(runtime.db) as session:
        assert session.get(Seat, (created.game_id, 1)).language == language


def test_a_refused_reply_by_mail_is_answered_in_the_seats_language(sqlite_db, tmp_path, smtp):
    mailbox, port = smtp
    mail = {"reply_address": REPLY, "sender": SENDER, "quiet_minutes": 0}
    runtime = make_runtime(sqlite_db, tmp_path, Clock(), port, mail=mail)
    specs = [
        SeatSpec("Anna", "anna@example.org", language="de"),
        SeatSpec("Ben", is_bot=True),
    ]
    runtime.service.create_game("pig", specs, {"target": 30})
    dispatch(runtime)
    [turn] = mailbox.to("anna@example.org")
    taken = take(runtime, reply_to(turn, ["to Zed: hello"], "anna@example.org"))
    assert taken.outcome == "refused", taken
    dispatch(runtime)
    answer = mailbox.to("anna@example.org")[-1]
    text = answer.get_body(preferencelist=("plain",)).get_content()
    sentence = "In diesem Spiel gibt es keinen Spieler namens 'Zed'. Nichts wurde gesendet."
    assert sentence in text
    assert "There is no player called" not in text


def test_every_refusal_reads_whole_in_each_language():
    """Each T() of the server's refusals has a translation whose placeholders are the
    English message's (a refusal never falls back to English for a missing one)."""
    from pbem.errors import BadInput
    from pbem.i18n import T, clean_language

    with pytest.raises(BadInput) as refused:
        clean_language("xx")
    message = refused.value.message
    assert str(message).startswith("Choose one of the offered languages: English (en)")
    for language in FOREIGN:
        shown = localize(message, language)
        assert shown != str(message)
        assert english_left(shown, html=False) == [], shown
        assert translation(language).gettext(message.msgid) != message.msgid
    nested = T("Your time zone: %(problem)s", problem=T("There is no such game."))
    assert localize(nested, "de") == "Deine Zeitzone: Dieses Spiel gibt es nicht."
    assert set(LANGUAGES) == {"en", *FOREIGN}


def test_each_translation_keeps_the_english_placeholders():
    """A translation with a placeholder too many or too few would show the English (see
    :func:`pbem.i18n.localize`): every one keeps exactly the message's."""
    from babel.messages.pofile import read_po

    from pbem.i18n import CATALOGUES

    placeholder = re.compile(r"%\(\w+\)[sd]")
    for language in FOREIGN:
        with open(CATALOGUES / language / "LC_MESSAGES" / "messages.po", "rb") as po:
            catalogue = read_po(po)
        for entry in catalogue:
            if not entry.id:
                continue
            ids = entry.id if isinstance(entry.id, tuple) else (entry.id,)
            strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
            wanted = set(placeholder.findall(ids[-1])) | set(placeholder.findall(ids[0]))
            for string in strings:
                found = set(placeholder.findall(string))
                # A singular form may leave out the count ("one day"); nothing else.
                assert found <= wanted and wanted - found <= {"%(num)d"}, (language, ids[0])
