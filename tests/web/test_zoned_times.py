"""Every time a page or a mail shows carries its zone: a seat's pages and mails in the
seat's own zone ("2026-03-02 10:00 CET"), anonymous pages in UTC, labelled "UTC".
And the phase line names the player to act by name and colour, never "{seat:N}".

One Mare Balticum game (Ann in Europe/Berlin against two bots) is played a while
through the service; then every page of it, a seat's pages and its mails are scanned
for a clock time (hh:mm) that no zone follows."""

from __future__ import annotations

import html as html_lib
import random
import re
from datetime import UTC, datetime

import pytest
from sqlmodel import Session, select

from engines import bot_move
from pbem.games.service import SeatSpec
from pbem.mail import deferred, seat_mails
from pbem.mail.dispatch import dispatch
from pbem.mail.models import Mail
from pbem.models import Seat
from pbem.runtime import build_runtime
from pbem.web import create_app
from tests.web.conftest import overrides

CLOCK_TIME = re.compile(r"(?<![\d:.])(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?![\d:])")
ZONE = re.compile(r"\s*(?:\(?UTC\b|GMT\b|Z\b|[A-Z]{3,5}\b|[A-Z][a-z]+/[A-Za-z_]+(?:/[A-Za-z_]+)?)")
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


class Clock:
    def __init__(self):
        self.now = START

    def __call__(self):
        return self.now


def visible(page: str) -> str:
    """A page's text as a reader sees it (no scripts, styles or tags; no choices of a
    list, such as a preferred hour of the day, which is a time of day, not a moment)."""
    page = re.sub(r"(?is)<(script|style|select)\b.*?</\1>", " ", page)
    return html_lib.unescape(re.sub(r"<[^>]+>", " ", page))


def unzoned(text: str) -> list[str]:
    """Each clock time in ``text`` not followed by a zone, with some context."""
    found = []
    for match in CLOCK_TIME.finditer(text):
        if not ZONE.match(text, match.end()):
            found.append(text[max(match.start() - 40, 0) : match.end() + 20].replace("\n", " "))
    return found


def test_the_scan_finds_a_bare_time():
    assert unzoned("Deadline: Mon 2 Mar 2026, 10:00. Go.") != []
    assert unzoned("#4 2026-03-02 10:00 CET Ann rolls") == []
    assert unzoned("16:00 Europe/Berlin, 09:00 UTC, (15:00 UTC)") == []


@pytest.fixture
def played(sqlite_db, tmp_path):
    clock = Clock()
    runtime = build_runtime(overrides(tmp_path), db=sqlite_db, clock=clock)
    specs = [
        SeatSpec("Ann", "ann@example.org", timezone="Europe/Berlin"),
        SeatSpec("Robo", is_bot=True),
        SeatSpec("Tin", is_bot=True),
    ]
    created = runtime.service.create_game(
        "mare_balticum", specs, {}, policy={"deadline_after_days": 3}
    )
    rng = random.Random(3)
    runtime.service.play_bots(created.game_id)
    for _ in range(12):
        head = runtime.service.head(created.game_id)
        if head.game.status != "active" or 0 not in head.engine.to_move(head.state):
            break
        clock.now = clock.now.replace(minute=(clock.now.minute + 7) % 60)
        view = head.engine.view(head.state, 0)
        move = bot_move(head.engine, view, head.engine.legal_moves(head.state, 0), rng)
        runtime.service.submit_move(created.game_id, 0, move, head.seq)
        runtime.service.play_bots(created.game_id)
    dispatch(runtime)
    return runtime, created


def pages(runtime, created) -> dict[str, str]:
    from pbem.web import mail_pages, rescue_pages

    app = create_app(runtime=runtime)
    app.config["TESTING"] = True
    for blueprint in (mail_pages.bp, rescue_pages.bp):
        if blueprint.name not in app.blueprints:
            app.register_blueprint(blueprint)
    client = app.test_client()
    game_id, token = created.game_id, created.tokens[0]
    with Session(runtime.db) as session:
        seat = session.get(Seat, (game_id, 0))
        settings = seat_mails.settings_link(runtime, seat).replace("http://localhost", "")
    urls = {
        "lobby": "/",
        "game": f"/games/{game_id}",
        "history": f"/games/{game_id}/history",
        "history step": f"/games/{game_id}/history?at=2",
        "audit": f"/games/{game_id}/audit",
        "turn page": f"/play/{token}",
        "seat history": f"/play/{token}/history",
        "seat history step": f"/play/{token}/history?at=2",
        "settings": settings,
        "rescue": f"/rescue/{token}",
    }
    found = {}
    for name, url in urls.items():
        answer = client.get(url)
        assert answer.status_code == 200, (name, url, answer.status_code)
        found[name] = visible(answer.text)
    return found


def test_every_time_on_every_page_and_mail_has_its_zone(played):
    runtime, created = played
    shown = pages(runtime, created)
    with Session(runtime.db) as session:
        mails = list(session.exec(select(Mail)))
    assert mails
    for mail in mails:
        text, html, _ = deferred.opened(runtime, mail)
        shown[f"mail {mail.kind} text"] = text
        shown[f"mail {mail.kind} html"] = visible(html)
    slips = {name: unzoned(text) for name, text in shown.items() if unzoned(text)}
    assert slips == {}
    # The seat's pages read times in the seat's zone, anonymous ones in UTC.
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d CET", shown["turn page"])
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d CET", shown["seat history step"])
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", shown["game"])
    assert " CET" not in shown["game"] + shown["history step"]
    assert "Deadline:" in shown["turn page"] and "CET" in shown["turn page"]


def test_the_phase_line_names_the_player_to_act(played):
    runtime, created = played
    shown = pages(runtime, created)
    head = runtime.service.head(created.game_id)
    phase_names = re.compile(r"\b(Ann|Robo|Tin) \((Red|Blue|Green)\)")
    for name in ("lobby", "game", "turn page", "seat history"):
        assert "{seat:" not in shown[name] and not re.search(r"\bseat \d", shown[name])
    if head.game.status == "active" and "Passage of time" not in head.game.phase:
        assert phase_names.search(head.game.phase), head.game.phase
        for name in ("lobby", "game", "turn page"):
            assert head.game.phase in shown[name], name


def test_every_golden_mail_names_the_zone_of_its_times():
    from pathlib import Path

    folder = Path(__file__).parent.parent / "mail" / "golden"
    files = sorted(folder.glob("*.txt")) + sorted(folder.glob("*.html"))
    assert len(files) > 20
    for path in files:
        text = path.read_text()
        assert unzoned(visible(text) if path.suffix == ".html" else text) == [], path.name
