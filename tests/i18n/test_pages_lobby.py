"""The pages outside a game's own: the lobby, my games, the open games (list, one,
confirm, manage), ratings, following a game, the mail pages (the local outbox, a seat's
mail and notice settings), the seats-and-deadlines page and its confirmations, and the
error page, each in German, Polish and French with no English left but names."""

from __future__ import annotations

import re

import pytest
from sqlmodel import Session, select

from pbem import zones
from pbem.channels import follow
from pbem.games import open_games, profiles
from pbem.games.policy import DEFAULT_POLICY
from pbem.games.service import SeatSpec
from pbem.mail import games_link
from pbem.mail.deferred import opened
from pbem.mail.models import Mail
from pbem.models import GameFollower
from pbem.web import create_app
from tests.i18n.english import english_left
from tests.i18n.test_languages import settings_path
from tests.mail.conftest import Clock, make_runtime
from tests.web.conftest import csrf_of

LANGUAGES = ("de", "pl", "fr")
NAMES = frozenset({"Anna", "Ben", "Cleo", "Pig", "test", "fixture", "Fremde"})
# Words of these languages that are English words too ("die Mail", "le lien de la page").
OWN_WORDS = {
    "de": frozenset({"mail", "mails", "link", "links", "was"}),
    "pl": frozenset({"mail", "link"}),
    "fr": frozenset({"page", "pages"}),
}
CONFIRM = re.compile(r"/open/confirm/([A-Za-z0-9_-]{20,100})")
MANAGE = re.compile(r"/open/manage/([A-Za-z0-9_-]{20,100})")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """One server for the whole module: a running game, an open game with one seat held
    and one open, a follower, a profile; the pages' addresses by kind."""
    from tests.databases import sqlite_engine

    tmp_path = tmp_path_factory.mktemp("lobby_pages")
    db = sqlite_engine(tmp_path / "pbem.sqlite3")
    runtime = make_runtime(db, tmp_path, Clock())
    app = create_app({"TESTING": True}, runtime=runtime)
    client = app.test_client()
    specs = [
        SeatSpec(name, f"{name.lower()}@example.org", timezone="Europe/Berlin")
        for name in ("Anna", "Ben", "Cleo")
    ]
    created = runtime.service.create_game("pig", specs, {"target": 30}, creator_seat=0)
    game_id = created.game_id
    made = client.post(
        "/games",
        data={
            "csrf_token": csrf_of(client.get("/").text),
            "game": "pig",
            "let_server_draw": "on",
            "option_pig_target": "20",
            "title": "Pig Fremde",
            **DEFAULT_POLICY,
            "seat_name_0": "Anna",
            "seat_email_0": "anna@example.org",
            "seat_email_1": "open",
            "seat_email_2": "open",
        },
    )
    manage = made.location.rsplit("/", 1)[1]
    [listed] = open_games.list_open(runtime)
    open_games.join(runtime, listed.id, "Ben", "ben@example.net", client="127.0.0.9")
    with Session(runtime.db) as session:
        row = session.exec(
            select(Mail).where(Mail.recipient == "ben@example.net").order_by(Mail.id.desc())
        ).first()
    hold = CONFIRM.search(opened(runtime, row)[0]).group(1)
    follow.ask(runtime, game_id, "cleo@example.net", True, "127.0.0.8")
    with Session(runtime.db) as session:
        follower = session.exec(select(GameFollower)).first()
    profiles.claim(runtime, "anna@example.org", "anna")
    paths = {
        "lobby": "/",
        "my games": "/my-games/" + games_link.link_token(runtime.secret_key, "ben@example.org", 0),
        "open list": "/open",
        "open game": f"/open/{listed.id}",
        "open confirm": f"/open/confirm/{hold}",
        "open manage": f"/open/manage/{manage}",
        "ratings": "/ratings/pig",
        "follow": follow.link(runtime, follower, "confirm").split("pbem.test", 1)[1],
        "follow stop": follow.link(runtime, follower, "stop").split("pbem.test", 1)[1],
        "mail list": "/dev/mail",
        "mail show": "/dev/mail/1",
        "error": "/nothing/here",
    }
    return {
        "runtime": runtime,
        "client": client,
        "paths": paths,
        "game_id": game_id,
        "tokens": created.tokens,
    }


def page(site, path: str, language: str) -> str:
    return site["client"].get(path, headers={"Accept-Language": language}).text


def not_these_pages(runtime) -> set[str]:
    """Texts these pages show but do not write: each title's options and the phase of
    a game (its engine's words), the subjects of the mails listed on /dev/mail (each in
    its reader's language)."""
    from engines import REGISTRY

    texts = set()
    for engine in REGISTRY.values():
        for option in engine.options:
            texts |= {option.shown_label, option.help}
            texts |= {str(option.choice_label(choice)) for choice in option.choices or ()}
    with Session(runtime.db) as session:
        texts |= {mail.subject for mail in session.exec(select(Mail))}
    return texts


def left_in(site, html: str, language: str, *, allowed: frozenset = frozenset()) -> list:
    """What of ``html`` is still English, apart from names, words of ``language``
    English shares, addresses, and what :func:`not_these_pages` names."""
    others = not_these_pages(site["runtime"])
    return [
        text
        for text in english_left(html, allowed=NAMES | OWN_WORDS[language] | allowed)
        if text not in others
        and not text.startswith("http")
        and text not in zones.zone_names()
        and " · Turn of player " not in text  # the game's phase, in its engine's words
        and not re.match(r"(\w+ ?: )?Target: \d+; Cautious: (yes|no)\.$", text)  # options
    ]


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize(
    "kind",
    [
        "lobby",
        "my games",
        "open list",
        "open game",
        "open confirm",
        "open manage",
        "ratings",
        "follow",
        "follow stop",
        "mail list",
        "mail show",
        "error",
    ],
)
def test_each_page_has_no_english_left(site, kind, language):
    html = page(site, site["paths"][kind], language)
    assert f'<html lang="{language}"' in html
    keywords = frozenset({"open"}) if kind == "lobby" else frozenset()  # typed by players
    left = left_in(site, html, language, allowed=keywords)
    assert left == [], (kind, left)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_seats_own_pages_speak_its_language(site, language):
    """The settings (mail and notices) and the seats-and-deadlines page, and the
    confirmation of leaving, follow the seat's own language."""
    runtime, client = site["runtime"], site["client"]
    game_id, token = site["game_id"], site["tokens"][1]
    settings = settings_path(runtime, game_id, 1)
    form = {"csrf_token": csrf_of(client.get(settings).text), "action": "save"}
    client.post(settings, data={**form, "notify": "every_turn", "language": language})
    for path in (settings, f"/rescue/{token}"):
        html = client.get(path).text
        assert f'<html lang="{language}"' in html
        left = left_in(site, html, language)
        assert left == [], (path, left)
    rescue = client.get(f"/rescue/{token}").text
    asked = client.post(
        f"/rescue/{token}", data={"csrf_token": csrf_of(rescue), "action": "leave", "seat": "1"}
    ).text
    assert left_in(site, asked, language) == []
    client.post(settings, data={**form, "notify": "every_turn", "language": "en"})


def test_a_refusal_in_the_lobby_is_in_the_pages_language(site):
    client = site["client"]
    form = {
        "csrf_token": csrf_of(client.get("/").text),
        "game": "pig",
        "let_server_draw": "on",
        "seat_name_0": "Anna",
        "seat_email_0": "anna@example.org",
        "seat_name_1": "Ben",
    }
    answer = client.post("/games", data=form, headers={"Accept-Language": "de"})
    assert answer.status_code == 400
    assert "Platz 2: Er braucht eine E-Mail-Adresse" in answer.text
    assert left_in(site, answer.text, "de", allowed=frozenset({"open"})) == []


def test_a_few_exact_sentences(site):
    paths = site["paths"]
    lobby = page(site, "/", "de")
    assert "Spiele, die Mitspieler suchen</a>: Nimm an einem fremden Tisch Platz." in lobby
    assert "Ein Spiel starten" in lobby and "Bei Fristablauf" in lobby
    assert "Eine Erinnerung" not in lobby
    listing = page(site, paths["open list"], "pl")
    assert "wolne miejsca: 1 z 3" in listing and "1 czeka na potwierdzenie" in listing
    assert (
        "Pierwsze przypomnienie 24 godziny po rozpoczęciu tury, potem co 24 godziny; "
        "termin 7 dni, potem gra czeka (przypomnienia przychodzą dalej)."
    ) in listing
    game = page(site, paths["open game"], "fr")
    assert "Échéances : le premier rappel 24 heures après le début d&#39;un tour" in game
    assert "<em>réservée pour quelqu'un jusqu'au <time" in game
    mine = page(site, paths["my games"], "de")
    assert "Du bist am Zug." in mine or "Warten auf Anna." in mine
    assert "Deine Fristen in einem Kalender" in mine
    assert "Hier gibt es nichts." in page(site, paths["error"], "de")
    # English stays English.
    assert "Games looking for players</a>: take a seat" in page(site, "/", "en")


@pytest.mark.parametrize("language", LANGUAGES)
def test_taking_over_a_seat_and_a_retired_link_in_the_pages_language(site, language):
    """The frames of an invitation to take over a seat and of a link that no longer opens
    one (the reason on the latter is the seat's history, written where it is decided)."""
    from pbem.games.invitations import invite_replacement
    from pbem.games.rescue import hand_to_bot, reclaim

    runtime, client = site["runtime"], site["client"]
    specs = [SeatSpec(name, f"{name.lower()}@example.org") for name in ("Anna", "Ben", "Cleo")]
    created = runtime.service.create_game("pig", specs, {"target": 30}, creator_seat=0)
    game_id, old = created.game_id, created.tokens[1]
    offer = invite_replacement(runtime, game_id, 2, "Dee", "dee@example.org").token
    html = page(site, f"/play/{offer}", language)
    assert f'<html lang="{language}"' in html
    assert left_in(site, html, language, allowed=frozenset({"Dee"})) == []
    hand_to_bot(runtime, game_id, 1, by=1)
    reclaim(runtime, game_id, 1, by=1)
    answer = client.get(f"/play/{old}", headers={"Accept-Language": language})
    assert answer.status_code == 410
    frame = re.sub(r'<p class="message">.*?</p>', "", answer.text, flags=re.S)
    assert left_in(site, frame, language) == []
    heading = {"de": "Dieser Link öffnet keinen Platz mehr"}.get(language)
    assert heading is None or heading in answer.text
