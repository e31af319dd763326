"""Every registered title, and a tiny one living under ``tests/`` (Drawn Nim), driven
through the whole server: created from the lobby, its turn page with the board, the game
and history pages, its rules page, the turn mail, a reply by mail, export and verify.

A title written from :mod:`engines.api` alone must work everywhere: a title without a
board of its own gets the generic board showing its view, one with a rules reference but
no page the generic rules page, never a 500.
"""

from __future__ import annotations

import json
import re

import pytest
from sqlmodel import Session, select

from engines import REGISTRY, is_listed
from pbem.cli import main
from pbem.mail.dispatch import dispatch
from pbem.models import Event
from pbem.web import create_app
from tests.mail.conftest import *  # noqa: F403 - the mail fixtures (clock, smtp)
from tests.mail.inbound_helpers import (
    listed_moves,
    reply_runtime,
    reply_to,
    send_lmtp,
    start_lmtp,
    tag_seq,
)
from tests.titles_fixture import DRAWN_NIM

ANNA = "anna@example.org"
TITLES = sorted({*REGISTRY, DRAWN_NIM.slug})


@pytest.fixture(autouse=True)
def drawn_nim_registered(monkeypatch):
    """Drawn Nim registered for each test here only (other tests count the titles)."""
    monkeypatch.setitem(REGISTRY, DRAWN_NIM.slug, DRAWN_NIM)


def csrf_of(html: str) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)


@pytest.mark.parametrize("slug", TITLES)
def test_a_title_plays_through_every_road(sqlite_db, tmp_path, clock, smtp, slug):
    engine = REGISTRY[slug]
    mailbox, smtp_port = smtp
    runtime = reply_runtime(sqlite_db, tmp_path, clock, smtp_port)
    client = create_app(runtime=runtime).test_client()

    lobby = client.get("/")
    assert lobby.status_code == 200
    assert (f'value="{slug}"' in lobby.text) == is_listed(engine)
    seats = {f"seat_email_{n}": "bot" for n in range(1, engine.min_seats)}
    options = {  # every option at its default, as the lobby's form offers it
        f"option_{slug}_{option.name}": str(option.default)
        for option in engine.options
        if option.default is not False
    }
    created = client.post(
        "/games",
        data={
            "csrf_token": csrf_of(lobby.text),
            "game": slug,
            "let_server_draw": "on",
            "seat_name_0": "Anna",
            "seat_email_0": ANNA,
            **seats,
            **options,
        },
    )
    assert created.status_code == 303, created.text
    token = created.location.rsplit("/play/", 1)[1]
    (game,) = runtime.service.games()

    turn = client.get(f"/play/{token}")
    assert turn.status_code == 200 and 'class="board' in turn.text
    if not (getattr(engine, "templates_folder", None)):
        assert "generic-board" in turn.text
        for name in engine.view(runtime.service.head(game.id).state, 0):
            if name != "players":
                assert name.replace("_", " ").capitalize() in turn.text
    assets = set(re.findall(rf'"(/titles/{slug}/static/[^"]+)"', turn.text))
    assert bool(assets) == bool(getattr(engine, "static_folder", None))
    for url in assets:
        asset = client.get(url.replace("&amp;", "&"))
        assert asset.status_code == 200, url
        assert asset.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    for page in (f"/games/{game.id}", f"/games/{game.id}/history", f"/play/{token}/history"):
        shown = client.get(page)
        assert shown.status_code == 200, page

    rules = client.get(f"/rules/{slug}")
    if hasattr(engine, "rules_reference"):
        assert rules.status_code == 200 and engine.title in rules.text
    else:
        assert rules.status_code == 404 and "There is no rules reference" in rules.text

    listener, port = start_lmtp(runtime)
    try:
        runtime.service.play_bots(game.id)
        dispatch(runtime)
        assert mailbox.messages, "no mail was sent"
        for message in mailbox.messages:
            assert message.get_body(preferencelist=("plain",)) is not None
        mine = [m for m in mailbox.messages if m["To"] == ANNA and listed_moves(m)]
        assert mine, "no turn mail listed Anna's moves"
        newest = max(mine, key=tag_seq)
        before = runtime.service.head(game.id).seq
        refused = send_lmtp(port, reply_to(newest, ["1"], ANNA), str(newest["Reply-To"]))
        assert refused == {}
    finally:
        listener.stop()
    assert runtime.service.head(game.id).seq > before
    with Session(sqlite_db) as session:
        by_mail = session.exec(
            select(Event).where(Event.game_id == game.id, Event.actor == "mail")
        ).all()
    assert by_mail

    exported = client.get(f"/play/{token}/export.json")
    assert exported.status_code == 200
    path = tmp_path / "game.json"
    path.write_text(json.dumps(runtime.service.export_game(game.id, full=True)))
    assert main(["verify", str(path)]) == 0


@pytest.mark.parametrize(
    "path",
    [
        "/titles/nothing/static/board.css",
        "/titles/drawn_nim/static/board.css",
        "/titles/pig/static/anything",
        *[f"/titles/{slug}/static/../__init__.py" for slug in TITLES],
        *[f"/titles/{slug}/static/%2e%2e/__init__.py" for slug in TITLES],
        *[f"/titles/{slug}/static/..%2f__init__.py" for slug in TITLES],
        *[f"/titles/{slug}/static/no-such-file.css" for slug in TITLES],
    ],
)
def test_only_a_titles_own_static_files_are_served(sqlite_db, tmp_path, clock, path):
    runtime = reply_runtime(sqlite_db, tmp_path, clock, None)
    answer = create_app(runtime=runtime).test_client().get(path)
    assert answer.status_code == 404


def test_a_titles_static_file_is_revalidated_unless_asked_by_its_version(
    sqlite_db, tmp_path, clock
):
    slug = next(
        slug for slug, engine in sorted(REGISTRY.items()) if hasattr(engine, "static_folder")
    )
    client = create_app(runtime=reply_runtime(sqlite_db, tmp_path, clock, None)).test_client()
    answer = client.get(f"/titles/{slug}/static/board.css")
    assert answer.status_code == 200 and answer.mimetype == "text/css"
    assert answer.headers["Cache-Control"] == "no-cache"
