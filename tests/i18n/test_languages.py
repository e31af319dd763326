"""Pages and mails in the reader's language: a seat's own (chosen on its settings page,
or in the lobby per invitee), else the footer's chooser, else the browser's
``Accept-Language``, else English. Unknown languages are refused and change nothing."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import Session, select

from pbem import zones
from pbem.games.policy import DEFAULT_POLICY
from pbem.games.service import SeatSpec
from pbem.mail.models import Mail
from pbem.models import Game, Seat
from pbem.scheduler import sweep
from pbem.web import create_app
from tests.mail.conftest import as_sent
from tests.web.conftest import csrf_of

SETTINGS = re.compile(r"http://pbem\.test(/mail/settings/\S+?)(?=[\s\"<>]|$)")


def new_game(runtime, **language):
    specs = [
        SeatSpec(name, f"{name.lower()}@example.org", timezone="Europe/Berlin", **language)
        for name in ("Anna", "Ben")
    ]
    return runtime.service.create_game("pig", specs, {"target": 30})


def seat_row(runtime, game_id: str, seat: int) -> Seat:
    with Session(runtime.db) as session:
        return session.get(Seat, (game_id, seat))


def settings_path(runtime, game_id: str, seat: int) -> str:
    from pbem.mail import outbox, render

    token_hash = seat_row(runtime, game_id, seat).token_hash
    signature = render.settings_signature(outbox.secret(runtime), game_id, seat, token_hash)
    return f"/mail/settings/{game_id}/{seat}/{signature}"


def save_settings(client, path: str, **fields) -> object:
    page = client.get(path).text
    form = {"csrf_token": csrf_of(page), "action": "save", "notify": "every_turn", **fields}
    return client.post(path, data=form)


def mails(runtime, recipient: str, kind: str) -> list[Mail]:
    """The mails of ``kind`` to ``recipient``, as sent."""
    with Session(runtime.db) as session:
        rows = list(
            session.exec(select(Mail).where(Mail.recipient == recipient, Mail.kind == kind))
        )
    return as_sent(runtime, rows)


def test_a_seat_that_chose_german_gets_its_settings_page_and_turn_mail_in_german(runtime, client):
    created = new_game(runtime)
    path = settings_path(runtime, created.game_id, 1)
    assert "Which mails do you want for this game?" in client.get(path).text
    assert save_settings(client, path, language="de").status_code == 302
    assert seat_row(runtime, created.game_id, 1).language == "de"

    page = client.get(path).text
    assert '<html lang="de"' in page
    assert "Welche Mails möchtest du für dieses Spiel?" in page
    assert "Which mails do you want for this game?" not in page
    assert "Speichern" in page and ">Save<" not in page
    assert "dieses Platzes: Deutsch, wie in seinen Mail-Einstellungen festgelegt" in page

    runtime.service.submit_move(created.game_id, 0, {"type": "stop"}, 0)
    [mail] = mails(runtime, "ben@example.org", "your_turn")
    assert mail.subject.endswith(": du bist am Zug")
    for body in (mail.body_text, mail.body_html):
        assert "Hallo Ben," in body and "Hello Ben," not in body
        assert "Du bist am Zug in" in body and "It is your turn in" not in body
        assert "Mail-Einstellungen für diesen Platz" in body
        assert "Mail settings for this seat" not in body
        assert "Frist: " in body and "Deadline: " not in body
        assert " 2026, " in body and "in 7 Tagen" in body  # Babel's German date
    assert '<html lang="de">' in mail.body_html

    runtime.clock.advance(hours=25)  # a day into Ben's turn: his reminder
    sweep(runtime)
    [reminder] = mails(runtime, "ben@example.org", "reminder")
    assert reminder.subject.endswith(": Erinnerung, du bist noch am Zug")
    assert "Eine Erinnerung: Pig (test fixture) wartet seit " in reminder.body_text
    assert "Bei Fristablauf wartet das Spiel auf dich" in reminder.body_text

    # A mail program's one-click unsubscribe answers in the seat's language too.
    answer = client.post(path, data={"List-Unsubscribe": "One-Click"})
    assert "Keine Zug-Mails mehr für Ben" in answer.text
    # Anna said nothing: her mails stay English.
    assert all(
        "Hello Anna," in row.body_text for row in mails(runtime, "anna@example.org", "your_turn")
    )


def test_the_turn_page_follows_the_seat_and_changes_with_it(runtime, client):
    created = new_game(runtime, language="de")
    token = created.tokens[0]
    page = client.get(f"/play/{token}", headers={"Accept-Language": "fr"}).text
    assert '<html lang="de"' in page
    assert "Du bist am Zug." in page and "It is your turn." not in page
    assert "Seit deinem letzten Zug" in page and "Since your last move" not in page
    assert "Frist: " in page and "Deadline: " not in page
    assert "Zum Inhalt springen" not in page  # the turn page skips to the moves
    assert "Zu deinen Zügen springen" in page
    assert "Tischgespräch" in page and "Table talk" not in page

    # A move that hands the turn over asks first, in German too.
    form = {"csrf_token": csrf_of(page), "seq": "0", "move": json.dumps({"type": "stop"})}
    asked = client.post(f"/play/{token}/move", data=form).text
    assert "Damit geht der Zug an Ben über" in asked and ">Bestätigen</button>" in asked
    assert "Confirm" not in asked and "cannot be taken back" not in asked

    save_settings(client, settings_path(runtime, created.game_id, 0), language="pl")
    page = client.get(f"/play/{token}").text
    assert '<html lang="pl"' in page and "Twój ruch." in page and "Du bist am Zug." not in page


def test_a_page_without_a_seat_speaks_the_browsers_language(client):
    page = client.get("/", headers={"Accept-Language": "fr-CH, fr;q=0.9, en;q=0.5"})
    assert '<html lang="fr"' in page.text
    assert "jeux de plateau lents par courriel" in page.text
    assert "slow board games by email" not in page.text
    assert "Accept-Language" in page.headers["Vary"]
    english = client.get("/", headers={"Accept-Language": "ja, es;q=0.8"}).text
    assert '<html lang="en"' in english and "slow board games by email" in english


def test_the_chooser_keeps_the_language_and_goes_back_to_this_site_only(client):
    answer = client.get("/language?lang=pl&next=/open")
    assert answer.status_code == 303 and answer.headers["Location"] == "/open"
    assert "lang=pl" in answer.headers["Set-Cookie"]
    page = client.get("/", headers={"Accept-Language": "fr"}).text
    assert '<html lang="pl"' in page and "powolne gry planszowe przez e-mail" in page
    assert 'value="pl" lang="pl" aria-pressed="true"' in page
    for elsewhere in ("https://evil.example/", "//evil.example/x", "/\\evil.example", "evil"):
        answer = client.get("/language", query_string={"lang": "de", "next": elsewhere})
        assert answer.status_code == 303 and answer.headers["Location"] == "/", elsewhere


def test_an_unknown_language_is_refused_and_changes_nothing(runtime, client):
    answer = client.get("/language?lang=xx&next=/")
    assert answer.status_code == 400
    assert "Choose one of the offered languages" in answer.text
    assert "Set-Cookie" not in answer.headers

    created = new_game(runtime, language="fr")
    path = settings_path(runtime, created.game_id, 1)
    refused = save_settings(client, path, language="klingon", notify="none")
    assert refused.status_code == 400
    # The seat's page speaks French, and so does its refusal.
    assert "Choisissez l&#39;une des langues proposées" in refused.text
    row = seat_row(runtime, created.game_id, 1)
    assert (row.language, row.notify) == ("fr", "every_turn")


def test_the_lobby_gives_each_invitee_a_language(runtime, client):
    page = client.get("/").text
    form = {
        "csrf_token": csrf_of(page),
        "game": "pig",
        "let_server_draw": "on",
        "option_pig_target": "30",
        **DEFAULT_POLICY,
        "timezone": "UTC",
        "seat_name_0": "Anna",
        "seat_email_0": "anna@example.org",
        "seat_language_0": "fr",
        "seat_name_1": "Ben",
        "seat_email_1": "ben@example.org",
        "seat_language_1": "de",
        "seat_name_2": "Cleo",
        "seat_email_2": "cleo@example.org",
    }
    assert client.post("/games", data={**form, "seat_language_1": "xx"}).status_code == 400
    with Session(runtime.db) as session:
        assert session.exec(select(Game)).first() is None
    assert client.post("/games", data=form).status_code == 303
    with Session(runtime.db) as session:
        seats = session.exec(select(Seat).order_by(Seat.seat)).all()
    assert [seat.language for seat in seats] == ["fr", "de", None]
    # Each invitation is written in its reader's language.
    [german] = mails(runtime, "ben@example.org", "invitation")
    assert german.subject.endswith(": du bist zum Spiel eingeladen")
    for body in (german.body_text, german.body_html):
        assert "Du bist zu " in body and "You are invited" not in body
        assert "Mit dir spielen: Anna und Cleo." in body
        assert (
            "Eine Erinnerung kommt 24 Stunden nach Beginn eines Zugs, danach alle 24 Stunden."
            in body
        )
        assert "Jeder Zug hat eine Frist von 7 Tagen ab seinem Beginn." in body
    [english] = mails(runtime, "cleo@example.org", "invitation")
    assert "Playing with you: Anna and Ben." in english.body_text
    assert "A reminder comes 24 hours into a turn, then every 24 hours." in english.body_text


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en", "Sun 6 Dec 2026, 16:00 CET (15:00 UTC), in 2 days 3 hours"),
        ("de", "So., 6. Dez. 2026, 16:00 CET (15:00 UTC), in 2 Tagen 3 Stunden"),
        ("pl", "niedz., 6 gru 2026, 16:00 CET (15:00 UTC), za 2 dni 3 godziny"),
        ("fr", "dim. 6 déc. 2026, 16:00 CET (15:00 UTC), dans 2 jours 3 heures"),
    ],
)
def test_a_deadline_reads_in_the_readers_language_and_zone(language, expected):
    deadline = datetime(2026, 12, 6, 15, 0, tzinfo=UTC)
    now = deadline - timedelta(days=2, hours=3)
    assert zones.when(deadline, "Europe/Berlin", now, language) == expected


def test_polish_counts_take_their_three_forms():
    deadline = datetime(2026, 12, 6, 15, 0, tzinfo=UTC)
    left = [
        zones.time_left(deadline, deadline - timedelta(hours=hours), "pl").split(" ", 1)[1]
        for hours in (1, 3, 5, 22)
    ]
    assert left == ["1 godzinę", "3 godziny", "5 godzin", "22 godziny"]


def test_bot_levels_are_named_in_the_pages_language(runtime):
    from pbem.web.i18n import bot_level_word

    app = create_app({"TESTING": True}, runtime=runtime)
    with app.test_request_context("/", headers={"Accept-Language": "de"}):
        assert [bot_level_word(level) for level in ("easy", "normal", "hard", "odd")] == [
            "leicht",
            "normal",
            "schwer",
            "odd",
        ]
    with app.test_request_context("/"):
        assert bot_level_word("hard") == "hard"
