"""Resigning: through the service (the event, the roster, verify, mails, refusals) and
through the web (a second step, CSRF, stale and repeated forms)."""

from __future__ import annotations

import re

import pytest
from sqlmodel import Session, select

from engines.api import DEFAULT_RESIGNATION, resignation_of
from pbem.errors import Gone, NotAllowed, Rejected
from pbem.eventlog.roster import RosterError, apply, fold
from pbem.eventlog.verify import verify_export
from pbem.games import control, invitations, rescue, seat_links
from pbem.games.admin_lines import describe_admin
from pbem.games.tables import FormerPlayer
from pbem.mail.models import Mail
from pbem.scheduler import dispatch
from tests.mail.conftest import new_game, part, take_turn


def csrf(client, path: str) -> str:
    page = client.get(path)
    assert page.status_code == 200
    return re.search(rb'name="csrf_token" value="([^"]+)"', page.data).group(1).decode()


def finish(runtime, game_id: str) -> None:
    for _ in range(400):
        if runtime.service.game(game_id).status != "active":
            return
        take_turn(runtime, game_id, rolls=3)
    raise AssertionError("the game did not end")


def test_every_engine_says_what_resigning_means():
    from engines import REGISTRY

    for engine in REGISTRY.values():
        assert resignation_of(engine) == "bot_plays_on"
    assert resignation_of(object()) == DEFAULT_RESIGNATION

    class Odd:
        resignation = "vanish"

    with pytest.raises(ValueError):
        resignation_of(Odd())


def test_a_resigned_seat_is_a_bot_to_the_end_and_nobody_can_move_it(runtime, mailbox):
    created = new_game(runtime, seats=3)
    game, tokens = created.game_id, created.tokens
    outcome = rescue.resign(runtime, game, 1, by=1)
    assert outcome.done
    event = runtime.service.events(game)[-1]
    assert event["kind"] == "seat_resigned"
    assert event["payload"]["resignation"] == "bot_plays_on"
    assert describe_admin(event) == ("Ben resigns; a bot plays Ben's seat to the end of the game.")
    seat = runtime.service.seats(game)[1]
    assert seat.is_bot and not seat.email and seat.token_hash is None
    roster = fold(runtime.service.events(game))
    assert roster.seats[1].resigned and roster.seats[1].bot and not roster.seats[1].open
    assert seat_links.open_seats(runtime, game) == []
    # The link is retired with a sentence; a second resignation finds nothing to resign.
    with pytest.raises(Gone, match="You resigned"):
        seat_links.holder_seat(runtime, tokens[1])
    head = runtime.service.head(game).seq
    for attempt in (
        lambda: rescue.resign(runtime, game, 1, by=1),
        lambda: rescue.reclaim(runtime, game, 1, by=1),
        lambda: rescue.reclaim(runtime, game, 1, by=None),
        lambda: invitations.invite_replacement(runtime, game, 1, "Eve", "eve@example.org"),
        lambda: invitations.invite_replacement(runtime, game, 1, "Eve", "eve@example.org", by=0),
        lambda: rescue.leave_game(runtime, game, 1, by=1),
    ):
        with pytest.raises((NotAllowed, Rejected)):
            attempt()
    assert "already" in rescue.hand_to_bot(runtime, game, 1, by=None, level="easy").message
    assert runtime.service.head(game).seq == head
    # Everybody is told: Ben without a link, the others with the history line.
    dispatch(runtime)
    told = mailbox.to("ben@example.org", "Your resignation is recorded")
    assert len(told) == 1 and tokens[1] not in part(told[0], "plain")
    for other in ("anna@example.org", "cleo@example.org"):
        (notice,) = mailbox.to(other, "A player resigns")
        assert "Ben resigns; a bot plays Ben's seat to the end" in part(notice, "plain")
    # The export verifies, with the resignation in its header; a forged header does not.
    exported = runtime.service.export_game(game, full=True)
    data = exported
    assert data["game"]["resigned"] == [1]
    assert verify_export(data).ok
    data["game"].pop("resigned")
    assert not verify_export(data).ok
    # Ben is still told how the game ends, and the result says he resigned.
    finish(runtime, game)
    dispatch(runtime)
    (over,) = mailbox.to("ben@example.org", "is over")
    assert "(played by a bot for Ben, who resigned)" in part(over, "plain")
    assert "You resigned from" in part(over, "plain") and "You resigned from" in part(over, "html")
    assert "Ben (resigned)" in part(over, "plain")
    (anna_over,) = mailbox.to("anna@example.org", "is over")
    assert "Ben (resigned)" in part(anna_over, "plain")


def test_the_fold_refuses_a_change_to_a_resigned_seat():
    created = {
        "kind": "created",
        "payload": {
            "seats": 2,
            "roster": {"seats": [{"name": "Ann", "bot": False}, {"name": "Ben", "bot": False}]},
        },
    }
    resigned = {
        "kind": "seat_resigned",
        "seat": 0,
        "payload": {"name": "Ann", "resignation": "bot_plays_on"},
    }
    roster = fold([created, resigned])
    assert roster.resigned == [0] and roster.header()["resigned"] == [0]
    for kind in ("seat_reclaimed", "seat_to_bot", "seat_offered", "seat_resigned"):
        with pytest.raises(RosterError):
            apply(roster, {"kind": kind, "seat": 0, "payload": {"new_name": "Eve"}})
    with pytest.raises(RosterError):
        fold([created, {**resigned, "payload": {"resignation": "vanish"}}])


def test_no_resigning_in_a_paused_or_finished_game(runtime):
    game = new_game(runtime, seats=3).game_id
    control.pause_game(runtime, game)
    head = runtime.service.head(game).seq
    with pytest.raises(Rejected, match="paused"):
        rescue.resign(runtime, game, 0, by=0)
    assert runtime.service.head(game).seq == head
    control.resume_game(runtime, game)
    finish(runtime, game)
    with pytest.raises(Rejected, match="over"):
        rescue.resign(runtime, game, 0, by=0)


def test_a_player_handed_to_a_bot_may_still_resign(runtime):
    created = new_game(runtime, seats=3)
    game = created.game_id
    rescue.hand_to_bot(runtime, game, 2, by=2, level="easy")
    assert rescue.resign(runtime, game, 2, by=2).done
    seat = runtime.service.seats(game)[2]
    assert seat.is_bot and seat.bot_level == "easy"
    with Session(runtime.db) as session:
        (former,) = session.exec(select(FormerPlayer).where(FormerPlayer.game_id == game))
    assert (former.seat, former.reason, former.email) == (2, "resigned", "cleo@example.org")


def test_resigning_through_the_web_asks_first_and_checks_everything(runtime, app):
    created = new_game(runtime, seats=3)
    game, tokens = created.game_id, created.tokens
    client = app.test_client()
    play = client.get(f"/play/{tokens[0]}")
    assert b"Hand my seat to a bot, or resign" in play.data
    page = client.get(f"/rescue/{tokens[0]}")
    assert b">Resign</button>" in page.data and b">Hand my seat to a bot</button>" in page.data
    token = csrf(client, f"/rescue/{tokens[0]}")
    head = runtime.service.head(game).seq
    # Without the form's CSRF token nothing happens.
    refused = client.post(f"/rescue/{tokens[0]}", data={"action": "resign", "confirm": "yes"})
    assert refused.status_code in (400, 403)
    # The first step only asks; aiming at another seat still resigns only one's own.
    asked = client.post(
        f"/rescue/{tokens[0]}", data={"action": "resign", "seat": "0", "csrf_token": token}
    )
    assert asked.status_code == 200 and b"Yes, resign" in asked.data
    assert runtime.service.head(game).seq == head
    other = client.post(
        f"/rescue/{tokens[0]}",
        data={"action": "resign", "seat": "2", "confirm": "yes", "csrf_token": token},
    )
    assert other.status_code == 303
    assert [seat.is_bot for seat in runtime.service.seats(game)] == [True, False, False]
    # Twice (the confirmation page posted again): the link no longer opens the seat.
    again = client.post(
        f"/rescue/{tokens[0]}",
        data={"action": "resign", "seat": "0", "confirm": "yes", "csrf_token": token},
    )
    assert again.status_code == 410 and b"You resigned" in again.data
    assert [row["kind"] for row in runtime.service.events(game)].count("seat_resigned") == 1
    # The others see it on the players list and the seats page, and cannot vote on it.
    shown = client.get(f"/play/{tokens[1]}").data
    assert b"Anna</li>" not in shown and b"resigned (a bot plays on)" in shown
    seats = client.get(f"/rescue/{tokens[1]}").data
    assert b"Anna (resigned; a bot plays to the end)" in seats
    vote = client.post(
        f"/rescue/{tokens[1]}",
        data={
            "action": "replace",
            "seat": "0",
            "name": "Eve",
            "email": "e@example.org",
            "csrf_token": token,
        },
    )
    assert vote.status_code == 403
    spectator = client.get(f"/games/{game}").data
    assert b"resigned (a bot plays on)" in spectator
    # A confirmation page left open until the game ended is refused plainly.
    finish(runtime, game)
    stale = client.post(
        f"/rescue/{tokens[1]}",
        data={"action": "resign", "seat": "1", "confirm": "yes", "csrf_token": token},
    )
    assert stale.status_code == 422 and b"over" in stale.data
    with Session(runtime.db) as session:
        assert session.exec(select(Mail).where(Mail.kind == "game_over")).first() is not None


def test_a_resignation_survives_export_and_import(runtime, tmp_path, clock):
    from tests.databases import sqlite_engine
    from tests.mail.conftest import make_runtime

    created = new_game(runtime, seats=3)
    game = created.game_id
    rescue.resign(runtime, game, 2, by=2)
    exported = runtime.service.export_game(game, full=True)
    other = sqlite_engine(tmp_path / "elsewhere.sqlite3")
    elsewhere = make_runtime(other, tmp_path / "elsewhere", clock)
    assert elsewhere.service.import_game(exported) == game
    seat = elsewhere.service.seats(game)[2]
    assert seat.is_bot and not seat.email
    with pytest.raises(NotAllowed, match="resigned"):
        rescue.reclaim(elsewhere, game, 2, by=None)
    assert elsewhere.service.verify_game(game).ok
    other.dispose()
