"""A game's own pages in German, Polish and French: the turn page, the confirm page, the
spectator page, the history (and one step of it), the audit, the talk page, a finished
game's result and chart, a player's profile, the dice step of making a game, and the
rules reference. Nothing is left in English but the players' names and what the test
title (an English-only fixture engine) writes itself: its phase, move labels, history
lines and view fields, taken out before looking."""

from __future__ import annotations

import html
import json
import re

import pytest

from pbem.games import profiles, talk
from pbem.games.policy import DEFAULT_POLICY
from pbem.games.service import SeatSpec
from tests.i18n.english import english_left
from tests.mail.conftest import take_turn
from tests.web.conftest import csrf_of

LANGUAGES = ("de", "pl", "fr")
NAMES = frozenset({"Anna", "Ben"})
# Words of the languages themselves that the check takes for English: German "Mail(s)",
# Polish "e-mail", French "page(s)".
OWN_WORDS = {
    "de": frozenset({"Mail", "Mails"}),
    "pl": frozenset({"mail"}),
    "fr": frozenset({"page", "pages"}),
}
# What the test title writes itself, in English (tests/fixture_engine.py): not ours.
ENGINE = re.compile(
    r"Turn of player \d+|Player \d+ (?:rolls a 1 and loses the turn(?:'|&#39;)s points\."
    r"|rolls \d+ \(turn: \d+\)\.|stops and banks \d+ points\.)|Roll the die|Stop and bank"
)
# The view's own fields as the generic board lists them (its keys are the engine's).
VIEW_FIELDS = re.compile(r'<dl class="view-fields">(?:(?!<dl).)*?</dl>', re.S)


def new_game(runtime, language: str | None = None, target: int = 30):
    specs = [
        SeatSpec(name, f"{name.lower()}@example.org", timezone="Europe/Berlin", language=language)
        for name in ("Anna", "Ben")
    ]
    return runtime.service.create_game("pig", specs, {"target": target})


def left(page: str, language: str) -> list[str]:
    """The sentences of ``page`` still in English, but the engine's own words."""
    page = ENGINE.sub("", page)
    while True:
        fewer = VIEW_FIELDS.sub("", page)
        if fewer == page:
            break
        page = fewer
    return english_left(page, allowed=NAMES | OWN_WORDS[language])


def assert_translated(page: str, language: str, *sentences: str) -> None:
    assert f'<html lang="{language}"' in page
    assert left(page, language) == []
    for sentence in sentences:
        assert sentence in page, sentence


# Sentences of each page in each language, exactly as shown.
WORDS = {
    "de": {
        "spectator": "Zuschauer",
        "latest": "Neueste Ereignisse",
        "follow": "Diesem Spiel folgen",
        "history": "Alle Ereignisse, nach Zügen",
        "setup": "Das Spiel wurde aufgebaut; die Zusage der Saat wurde veröffentlicht",
        "audit": "Prüfung der gespeicherten Kette",
        "contributions": "Ersteller Anna, Platz 1 (vom Server gezogen)",
        "result": "Schlusswertung, Sieger zuerst",
        "wins": "gewinnt.",
        "player": "Beendete Spiele",
        "dice": "Den Server ziehen lassen",
        "rules": "Mercatores: Regelübersicht",
        "no_rules": "Für &#39;pig&#39; gibt es keine Regelübersicht.",
        "bad_form": "Das Formular sagt nicht, bei welchem Ereignis es erstellt wurde",
        "zoom_in": "Vergrößern",
        "private": "Du an Ben (privat)",
        "said": "Ben hat zum Tisch gesagt: „Hallo“",
    },
    "pl": {
        "spectator": "widz",
        "latest": "Najnowsze zdarzenia",
        "follow": "Obserwuj tę grę",
        "history": "Wszystkie zdarzenia, tura po turze",
        "setup": "Gra została przygotowana; opublikowano zobowiązanie ziarna",
        "audit": "Weryfikacja zapisanego łańcucha",
        "contributions": "twórca Anna, miejsce 1 (wylosowany przez serwer)",
        "result": "Końcowa punktacja, najpierw zwycięzcy",
        "wins": " wygrywa.",
        "player": "Zakończone gry",
        "dice": "Niech serwer wylosuje",
        "rules": "Mercatores: zasady w skrócie",
        "no_rules": "Dla &#39;pig&#39; nie ma zasad w skrócie.",
        "bad_form": "Formularz nie podaje, przy którym zdarzeniu powstał",
        "zoom_in": "Powiększ",
        "private": "Ty do Ben (prywatnie)",
        "said": "Ben powiedział do stołu: „Hallo”",
    },
    "fr": {
        "spectator": "spectateur",
        "latest": "Derniers événements",
        "follow": "Suivre cette partie",
        "history": "Tous les événements, tour par tour",
        "setup": "La partie a été mise en place ; l&#39;engagement de la graine a été publié",
        "audit": "Vérification de la chaîne enregistrée",
        "contributions": "créateur Anna, place 1 (tirée par le serveur)",
        "result": "Décompte final, gagnants en tête",
        "wins": "gagne.",
        "player": "Parties terminées",
        "dice": "Laisser le serveur la tirer",
        "rules": "Mercatores : référence des règles",
        "no_rules": "Il n&#39;y a pas de référence des règles pour &#39;pig&#39;.",
        "bad_form": "Le formulaire n&#39;indique pas à quel événement il a été créé",
        "zoom_in": "Agrandir",
        "private": "Vous à Ben (privé)",
        "said": "Ben a dit à la table : « Hallo »",
    },
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_running_games_pages_speak_the_readers_language(runtime, client, language):
    words = WORDS[language]
    created = new_game(runtime, language=language)
    game_id, token = created.game_id, created.tokens[0]
    runtime.service.submit_move(game_id, 0, {"type": "roll"}, 0)
    head = runtime.service.head(game_id)
    if 0 in head.engine.to_move(head.state):  # Anna did not roll a 1: she may stop
        runtime.service.submit_move(game_id, 0, {"type": "roll"}, head.seq)
    talk.post(runtime, game_id, 1, None, "Hallo", via="web")  # Ben to the table
    talk.post(runtime, game_id, 0, 1, "Psst", via="web")  # Anna to Ben alone
    browser = {"Accept-Language": language}

    turn = client.get(f"/play/{token}").text
    assert_translated(turn, language, words["private"])
    # The words the map's zoom tools write (static/map.js) come with the page.
    script = json.loads(html.unescape(re.search(r"data-words='([^']*)'", turn)[1]))
    assert script["zoom_in"] == words["zoom_in"] and "%(level)s" in script["zoom_said"]

    seq = runtime.service.game(game_id).head_seq
    due = 0 in runtime.service.head(game_id).engine.to_move(runtime.service.head(game_id).state)
    if due:  # stopping hands the turn to Ben: the page asks first
        form = {"csrf_token": csrf_of(turn), "seq": str(seq), "move": json.dumps({"type": "stop"})}
        asked = client.post(f"/play/{token}/move", data=form).text
        assert_translated(asked, language)

    spectator = client.get(f"/games/{game_id}", headers=browser).text
    assert_translated(spectator, language, words["spectator"], words["latest"], words["follow"])

    for path in (f"/games/{game_id}/history", f"/play/{token}/history"):
        history = client.get(path, headers=browser).text
        assert_translated(history, language, words["history"], words["setup"], words["said"])
        filtered = client.get(f"{path}?kind=moves&player=0", headers=browser).text
        assert_translated(filtered, language)
        # What the page's script says as filters change (history.js) comes translated.
        counts = re.search(r'data-some="([^"]*)" data-all="([^"]*)"', filtered)
        assert "{shown}" in counts[1]
        assert (
            english_left("\n".join(html.unescape(part) for part in counts.groups()), html=False)
            == []
        )
        step = client.get(f"{path}/step?at=1", headers=browser).text
        assert left(step, language) == []

    audit = client.get(f"/games/{game_id}/audit", headers=browser).text
    assert_translated(audit, language, words["audit"], words["contributions"])

    talk_page = client.get(f"/play/{token}/talk").text
    assert_translated(talk_page, language, words["private"])

    # A form without its event, and a filter naming no player: refused in the language.
    refused = client.post(f"/play/{token}/move", data={"csrf_token": csrf_of(turn)})
    assert refused.status_code == 400
    assert_translated(refused.text, language, words["bad_form"])
    unknown = client.get(f"/games/{game_id}/history?player=7", headers=browser)
    assert unknown.status_code == 400 and left(unknown.text, language) == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_finished_games_result_audit_and_players_page(runtime, client, language):
    words = WORDS[language]
    created = new_game(runtime, target=12)
    for _ in range(200):
        if runtime.service.game(created.game_id).status != "active":
            break
        take_turn(runtime, created.game_id, rolls=2)
    assert runtime.service.game(created.game_id).status == "finished"
    browser = {"Accept-Language": language}

    spectator = client.get(f"/games/{created.game_id}", headers=browser).text
    assert_translated(spectator, language, words["result"], words["wins"])
    audit = client.get(f"/games/{created.game_id}/audit", headers=browser).text
    assert_translated(audit, language)
    history = client.get(f"/games/{created.game_id}/history", headers=browser).text
    assert_translated(history, language)

    profiles.claim(runtime, "anna@example.org", "Anna")
    player = client.get("/players/Anna", headers=browser).text
    assert_translated(player, language, words["player"])


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_dice_step_of_making_a_game_and_the_rules_reference(client, language):
    browser = {"Accept-Language": language}
    page = client.get("/", headers=browser).text
    form = {
        "csrf_token": csrf_of(page),
        "game": "pig",
        "option_pig_target": "30",
        **DEFAULT_POLICY,
        "timezone": "UTC",
        "seat_name_0": "Anna",
        "seat_email_0": "anna@example.org",
        "seat_name_1": "Ben",
        "seat_email_1": "ben@example.org",
    }
    dice = client.post("/games", data=form, headers=browser)
    assert dice.status_code == 200
    assert_translated(dice.text, language, WORDS[language]["dice"])

    rules = client.get("/rules/mercatores", headers=browser).text
    assert WORDS[language]["rules"] in rules
    missing = client.get("/rules/pig", headers=browser)
    assert missing.status_code == 404
    assert_translated(missing.text, language, WORDS[language]["no_rules"])
