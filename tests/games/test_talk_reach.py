"""Where table talk reaches: the mail settings choice, the daily digest, and
non-interference: two games that differ only in a private message look the same to
every other seat and to spectators (pages, exports, mails)."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from sqlmodel import Session, select

from pbem import receipts, scheduler
from pbem.games import talk
from pbem.games.service import SeatSpec
from pbem.mail import render
from pbem.mail.models import Mail
from pbem.models import Event, Seat
from tests.databases import sqlite_engine
from tests.mail.conftest import START, Clock, make_runtime, new_game, take_turn


def settings_path(runtime, game_id: str, seat: int) -> str:
    with Session(runtime.db) as session:
        row = session.get(Seat, (game_id, seat))
    url = render.settings_url(runtime.config, runtime.secret_key, game_id, seat, row.token_hash)
    return url.replace("http://pbem.test", "")


def test_the_settings_page_sets_how_talk_comes_by_mail(runtime, app):
    game = new_game(runtime).game_id
    client = app.test_client()
    path = settings_path(runtime, game, 1)
    page = client.get(path).get_data(as_text=True)
    assert "Table talk" in page and 'value="at_once" checked' in page
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    form = {"csrf_token": token, "action": "save", "notify": "every_turn"}
    assert client.post(path, data={**form, "talk_mail": "loud"}).status_code == 400
    assert client.post(path, data={**form, "talk_mail": "off"}).status_code == 302
    with Session(runtime.db) as session:
        assert session.get(Seat, (game, 1)).talk_mail == "off"
    talk.post(runtime, game, 0, None, "Anyone there?")
    with Session(runtime.db) as session:
        heard = [mail.seat for mail in session.exec(select(Mail).where(Mail.kind == "talk"))]
    assert heard == [2]  # Ben chose no talk mail; Cleo hears it at once


def test_talk_in_the_daily_digest(runtime, clock):
    game = new_game(runtime).game_id  # Anna (Berlin), Ben (New York), Cleo (UTC)
    with Session(runtime.db) as session:
        for number in (1, 2):
            row = session.get(Seat, (game, number))
            row.talk_mail = "digest"
            session.add(row)
        session.commit()
    talk.post(runtime, game, 0, None, "Morning, all")
    talk.post(runtime, game, 0, 1, "Ben: a secret offer")
    with Session(runtime.db) as session:
        assert session.exec(select(Mail).where(Mail.kind == "talk")).first() is None
    # 08:05 UTC the next day: Cleo's digest hour (UTC); Ben's (New York) is later.
    scheduler.sweep(runtime, clock.now.replace(hour=8, minute=5) + timedelta(days=1))
    with Session(runtime.db) as session:
        mails = list(session.exec(select(Mail).where(Mail.kind.in_(("digest", "talk_digest")))))
    assert [(mail.recipient, mail.kind, mail.subject) for mail in mails] == [
        ("cleo@example.org", "talk_digest", "Table talk in your games")
    ]
    assert "Anna said to the table: “Morning, all”" in mails[0].body_text
    assert "secret offer" not in mails[0].body_text + mails[0].body_html
    assert "private" not in mails[0].body_text  # only what Cleo may read


# Non-interference ------------------------------------------------------------------

GAME = "quiet00001"
SEED = b"non-interference" * 2


def world(tmp_path, name: str, note: str):
    """A game on its own database: Ann, Ben, Cleo (pig); Ann sends Ben ``note``, then
    everyone talks and plays a little. The clock, seed and game id are fixed."""
    engine = sqlite_engine(tmp_path / f"{name}.sqlite3")
    clock = Clock(START)
    runtime = make_runtime(engine, tmp_path / name, clock)
    specs = [SeatSpec(n, f"{n.lower()}@example.org") for n in ("Ann", "Ben", "Cleo")]
    created = runtime.service.create_game("pig", specs, {"target": 30}, seed=SEED, game_id=GAME)
    clock.advance(minutes=1)
    talk.post(runtime, GAME, 2, None, "Good luck, both")
    clock.advance(minutes=1)
    talk.post(runtime, GAME, 0, 1, note)
    clock.advance(minutes=1)
    talk.post(runtime, GAME, 1, 2, "Cleo, watch Ann")
    clock.advance(minutes=1)
    take_turn(runtime, GAME, rolls=2)
    clock.advance(minutes=1)
    talk.post(runtime, GAME, 2, None, "Nice roll")
    return runtime, created.tokens


def normaliser(runtime, tokens):
    """Replaces what is random per game (or session) by design: the salted commitments
    and their salts, the event hashes that chain over them (and the signed receipts
    that name them), the seats' link tokens, mail ids, sealed
    links and the session's CSRF token."""
    with Session(runtime.db) as session:
        events = list(session.exec(select(Event).where(Event.game_id == GAME).order_by(Event.seq)))
    swaps = {}
    for event in events:
        swaps[event.hash] = f"<hash {event.seq}>"
        if event.kind == "talk" and "commitment" in event.payload:
            swaps[event.payload["commitment"]] = f"<commitment {event.seq}>"
            swaps[event.payload["sealed"]["salt"]] = f"<salt {event.seq}>"
    for number, token in enumerate(tokens):
        swaps[token] = f"<token {number}>"

    def receipt(found: re.Match) -> str:
        # A signed receipt names the head it covers: compared by its seq and its head.
        claims = receipts.parse(found.group(0))
        return f"<receipt {claims.seq} {swaps.get(claims.head, claims.head)}>"

    def normal(text: str) -> str:
        text = receipts.FOUND.sub(receipt, text)
        for old, new in swaps.items():
            text = text.replace(old, new)
            text = text.replace(old[:16], new)  # hashes shortened on pages
        text = re.sub(r"<[a-z_]+\.[0-9a-f]{16}\.", "<MID.", text)
        text = re.sub(r'name="csrf_token" value="[^"]+"', "csrf", text)
        return re.sub(r"\{sealed:[^}]+\}", "{sealed}", text)

    return normal


def what_a_reader_gets(runtime, tokens, seat: int | None) -> dict:
    from pbem.web import (
        create_app,
        mail_pages,  # noqa: F401 - the settings pages
    )

    app = create_app({"TESTING": True}, runtime=runtime)
    client = app.test_client()
    normal = normaliser(runtime, tokens)
    got = {}
    if seat is None:
        got["spectator"] = client.get(f"/games/{GAME}").get_data(as_text=True)
        got["history"] = client.get(f"/games/{GAME}/history").get_data(as_text=True)
        got["audit"] = client.get(f"/games/{GAME}/audit").get_data(as_text=True)
    else:
        link = tokens[seat]
        got["page"] = client.get(f"/play/{link}").get_data(as_text=True)
        got["history"] = client.get(f"/play/{link}/history").get_data(as_text=True)
        got["export"] = json.dumps(json.loads(runtime.service.export_text(GAME, seat=seat)))
        with Session(runtime.db) as session:
            mails = session.exec(select(Mail).where(Mail.seat == seat).order_by(Mail.id))
            got["mails"] = [
                (mail.kind, mail.subject, mail.body_text, mail.body_html) for mail in mails
            ]
        got["mails"] = json.dumps(got["mails"])
    return {key: normal(value) for key, value in got.items()}


@pytest.mark.parametrize("note", ["Ben, I will let you win.", "x" * 1999])
def test_a_private_message_changes_nothing_any_other_reader_gets(tmp_path, note):
    one, one_tokens = world(tmp_path, "one", "Ben, meet me at the harbour.")
    two, two_tokens = world(tmp_path, "two", note)
    # Cleo and a spectator: the same, once per-game randomness is normalised.
    for seat in (2, None):
        got_one = what_a_reader_gets(one, one_tokens, seat)
        got_two = what_a_reader_gets(two, two_tokens, seat)
        for key in got_one:
            assert got_one[key] == got_two[key], (seat, key)
        assert all("harbour" not in value for value in got_one.values())
    # The audience does tell them apart (the test can fail).
    ben_one = what_a_reader_gets(one, one_tokens, 1)
    ben_two = what_a_reader_gets(two, two_tokens, 1)
    assert "harbour" in ben_one["page"] and ben_one["page"] != ben_two["page"]
    assert "harbour" in ben_one["export"] and "harbour" in ben_one["mails"]
