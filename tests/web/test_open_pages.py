"""Open games on the web: the lobby leaves seats open, /open lists and filters them, a
stranger asks for a seat, confirms from the mailed link (a button, not the GET), the
creator's page starts the game with bots; no page shows an address; bad input is
named, never a 500."""

from __future__ import annotations

import re

from sqlmodel import Session, select

from pbem.games import open_games
from pbem.games.service import SeatSpec
from pbem.mail.deferred import opened
from pbem.mail.models import Mail
from tests.web.conftest import CSRF

CONFIRM = re.compile(r"/open/confirm/([A-Za-z0-9_-]{20,100})")
MANAGE = re.compile(r"/open/manage/([A-Za-z0-9_-]{20,100})")


def csrf(page) -> str:
    return CSRF.search(page.get_data(as_text=True)).group(1)


def mail_link(runtime, address: str, pattern) -> str:
    with Session(runtime.db) as session:
        row = session.exec(
            select(Mail).where(Mail.recipient == address).order_by(Mail.id.desc())
        ).first()
    return pattern.search(opened(runtime, row)[0]).group(1)


def create_in_lobby(client, **extra):
    page = client.get("/")
    form = {
        "csrf_token": csrf(page),
        "game": "pig",
        "let_server_draw": "on",
        "option_pig_target": "20",
        "title": "Pig with strangers",
        "seat_name_0": "Anna",
        "seat_email_0": "anna@example.org",
        "seat_email_1": "open",
        "seat_email_2": "open",
        **extra,
    }
    return client.post("/games", data=form)


def test_a_stranger_joins_from_the_page_and_the_creator_starts_with_bots(app, runtime):
    client = app.test_client()
    made = create_in_lobby(client)
    assert made.status_code == 303 and "/open/manage/" in made.location
    manage = made.location.rsplit("/", 1)[1]
    assert mail_link(runtime, "anna@example.org", MANAGE) == manage
    listing = client.get("/open")
    text = listing.get_data(as_text=True)
    assert "Pig with strangers" in text and "2 of 3 seats left" in text
    assert "anna@example.org" not in text
    (game_id,) = re.findall(r'href="/open/([a-z0-9]{10})"', text)
    page = client.get(f"/open/{game_id}")
    asked = client.post(
        f"/open/{game_id}/join",
        data={
            "csrf_token": csrf(page),
            "name": "Ben",
            "email": "ben@example.net",
            "timezone": "Europe/Berlin",
        },
    )
    assert asked.status_code == 303
    after = client.get(f"/open/{game_id}").get_data(as_text=True)
    assert "a link to confirm is on its way" in after and "held for someone" in after
    assert "ben@example.net" in after  # the asker's own address, in the answer to them
    # A second visitor sees no address at all.
    other = app.test_client().get(f"/open/{game_id}").get_data(as_text=True)
    assert "ben@example.net" not in other and "anna@example.org" not in other
    token = mail_link(runtime, "ben@example.net", CONFIRM)
    # Opening the link (a mail program's preview does) confirms nothing.
    shown = client.get(f"/open/confirm/{token}")
    assert shown.status_code == 200 and "Confirm my seat" in shown.get_data(as_text=True)
    assert open_games.open_game(runtime, game_id).seats[1].kind == "held"
    done = client.post(f"/open/confirm/{token}", data={"csrf_token": csrf(shown)})
    assert "You have a seat" in done.get_data(as_text=True)
    owner = client.get(f"/open/manage/{manage}")
    assert "Ben" in owner.get_data(as_text=True)
    started = client.post(f"/open/manage/{manage}/start", data={"csrf_token": csrf(owner)})
    assert started.status_code == 303
    seats = runtime.service.seats(game_id)
    assert [(seat.name, seat.is_bot) for seat in seats] == [
        ("Anna", False),
        ("Ben", False),
        ("Bot 3", True),
    ]
    assert seats[1].timezone == "Europe/Berlin"
    assert "has started" in client.get(f"/open/{game_id}").get_data(as_text=True)
    late = client.post(
        f"/open/{game_id}/join",
        data={"csrf_token": csrf(page), "name": "Cleo", "email": "cleo@example.net"},
    )
    assert late.status_code == 410 and "started" in late.get_data(as_text=True)
    assert open_games.list_open(runtime) == []


def test_bad_input_is_named_and_changes_nothing(app, runtime):
    client = app.test_client()
    private = create_in_lobby(client, private="on")
    assert private.status_code == 400 and "cannot be private" in private.get_data(as_text=True)
    assert client.get("/open?seats=zero").status_code == 400
    assert client.get("/open?game=chess").status_code == 400
    assert client.get("/open/nosuchgame").status_code == 404
    assert client.get("/open/confirm/" + "x" * 43).status_code == 404
    assert client.get("/open/manage/" + "x" * 43).status_code == 404
    created = open_games.create_open(
        runtime, "pig", [SeatSpec("Zed", "zed@example.org"), None], {"target": 20}
    )
    page = client.get(f"/open/{created.game_id}")
    for form, words in [
        ({"name": "", "email": "x@example.net"}, "name"),
        ({"name": "X", "email": "not an address"}, "address"),
        ({"name": "Zed", "email": "x@example.net"}, "name"),
        ({"name": "X", "email": "x@example.net", "timezone": "Mars/Olympus"}, "time zone"),
    ]:
        answer = client.post(
            f"/open/{created.game_id}/join", data={"csrf_token": csrf(page), **form}
        )
        assert answer.status_code == 400, form
        assert words in answer.get_data(as_text=True)
    no_csrf = client.post(f"/open/{created.game_id}/join", data={"name": "X", "email": "x@y.org"})
    assert no_csrf.status_code in (400, 403)
    assert open_games.open_game(runtime, created.game_id).seats_left == 1


def test_one_client_asking_too_often_gets_429_before_anything_is_looked_up(db, tmp_path):
    from pbem.runtime import build_runtime
    from pbem.web import create_app
    from tests.web.conftest import overrides

    config = overrides(tmp_path)
    config["limits"] = {"open_join": "2 per hour"}
    runtime = build_runtime(config, db=db, create_schema=False)
    client = create_app({"TESTING": True}, runtime=runtime).test_client()
    created = open_games.create_open(
        runtime, "pig", [SeatSpec("Zed", "zed@example.org"), None, None, None], {"target": 20}
    )
    page = client.get(f"/open/{created.game_id}")
    statuses = [
        client.post(
            f"/open/{created.game_id}/join",
            data={"csrf_token": csrf(page), "name": f"P{n}", "email": f"p{n}@example.net"},
        ).status_code
        for n in range(3)
    ]
    assert statuses == [303, 303, 429]
    assert open_games.open_game(runtime, created.game_id).held == 2


def test_a_lapsed_link_says_so_and_confirms_nothing(app, runtime):
    from datetime import timedelta

    from pbem.models import OpenSeat

    client = app.test_client()
    created = open_games.create_open(
        runtime, "pig", [SeatSpec("Zed", "zed@example.org"), None], {"target": 20}
    )
    joined = open_games.join(runtime, created.game_id, "Ben", "ben@example.net")
    with Session(runtime.db) as session:
        hold = session.get(OpenSeat, (created.game_id, 1))
        hold.expires_at = runtime.clock() - timedelta(minutes=1)
        session.add(hold)
        session.commit()
    shown = client.get(f"/open/confirm/{joined.token}")
    assert shown.status_code == 410 and "lapsed" in shown.get_data(as_text=True)
    assert "Confirm my seat" not in shown.get_data(as_text=True)
    page = client.get(f"/open/{created.game_id}")
    posted = client.post(f"/open/confirm/{joined.token}", data={"csrf_token": csrf(page)})
    assert posted.status_code == 410
    assert open_games.open_game(runtime, created.game_id).seats_left == 1


def test_the_creator_s_page_calls_the_game_off_only_when_the_box_is_ticked(app, runtime):
    client = app.test_client()
    created = open_games.create_open(
        runtime, "pig", [SeatSpec("Zed", "zed@example.org"), None], {"target": 20}
    )
    page = client.get(f"/open/manage/{created.token}")
    unticked = client.post(f"/open/manage/{created.token}/cancel", data={"csrf_token": csrf(page)})
    assert unticked.status_code == 400
    assert open_games.open_game(runtime, created.game_id).status == "open"
    done = client.post(
        f"/open/manage/{created.token}/cancel", data={"csrf_token": csrf(page), "sure": "yes"}
    )
    assert done.status_code == 303
    assert "called off" in client.get(f"/open/manage/{created.token}").get_data(as_text=True)
    assert "called off" in client.get(f"/open/{created.game_id}").get_data(as_text=True)
