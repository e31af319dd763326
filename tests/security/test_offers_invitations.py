"""Invitations as the attacker finds them: a link mailed years ago that still takes a
seat, an invitation that nobody can renew, and an unaccepted invitation used on the API.
On SQLite and PostgreSQL."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from sqlmodel import Session

from pbem.errors import Gone, NotAllowed, NotFound, TooMany
from pbem.games import invitations, seat_rules
from pbem.games.invitations import invite_replacement, take_seat
from pbem.games.service import SeatSpec
from pbem.games.tables import SeatOffer
from pbem.scheduler import dispatch
from tests.security.conftest import part, take_turn

LINK = re.compile(r"/play/([A-Za-z0-9_-]{20,100})")
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def creator_game(runtime, creator: int = 1) -> str:
    """Four players; Ben (seat 1) created the game."""
    specs = [
        SeatSpec(name, f"{name.lower()}@example.org") for name in ("Anna", "Ben", "Cleo", "Dan")
    ]
    return runtime.service.create_game(
        "pig", specs, {"target": 30}, policy={"deadline_after_days": 2}, creator_seat=creator
    )


def invited(runtime, game_id: str, seat: int = 0, name: str = "Zoe") -> str:
    """The operator gives ``seat`` to ``name``; the link of their invitation."""
    return invite_replacement(runtime, game_id, seat, name, f"{name.lower()}@example.net").token


def post_rescue(client, link: str, **form):
    token = CSRF.search(client.get(f"/rescue/{link}").get_data(as_text=True)).group(1)
    return client.post(f"/rescue/{link}", data={"csrf_token": token, **form})


def test_an_invitation_older_than_30_days_is_refused_with_a_clear_page(runtime, clock, app):
    created = creator_game(runtime)
    link = invited(runtime, created.game_id)
    client = app.test_client()
    clock.advance(days=29, hours=23)
    form = client.get(f"/play/{link}")
    assert form.status_code == 200  # the take form, still
    token = CSRF.search(form.get_data(as_text=True)).group(1)
    clock.advance(hours=1, minutes=1)
    page = client.get(f"/play/{link}")
    text = page.get_data(as_text=True)
    assert page.status_code == 410
    assert "This invitation expired on" in text and "30 days" in text
    assert "creator can send it again" in text and "operator" in text
    with pytest.raises(Gone):
        take_seat(runtime, link)
    assert client.post(f"/play/{link}/take", data={"csrf_token": token}).status_code == 410
    moved = client.post(
        f"/api/play/{link}/moves", json={"move": {"type": "roll"}, "expected_seq": 0}
    )
    assert moved.status_code == 410 and "expired" in moved.json["error"]["message"]
    assert runtime.service.seats(created.game_id)[0].email == ""


def test_an_invitation_dated_2020_no_longer_takes_the_seat(runtime, app):
    created = creator_game(runtime)
    link = invited(runtime, created.game_id)
    with Session(runtime.db) as session:  # as a pending link from before offers were dated
        offer = session.get(SeatOffer, (created.game_id, 0))
        offer.created_at, offer.invited_at = datetime(2020, 3, 1, tzinfo=UTC), None
        session.add(offer)
        session.commit()
    assert app.test_client().get(f"/play/{link}").status_code == 410
    with pytest.raises(Gone, match="expired on Tue 31 Mar 2020"):
        take_seat(runtime, link)


def test_the_creator_sends_an_invitation_again_from_the_seats_page(runtime, clock, mailbox, app):
    created = creator_game(runtime)
    game_id, creator_link = created.game_id, created.tokens[1]
    old = invited(runtime, game_id)
    clock.advance(days=31)  # expired: the creator sends it again
    client = app.test_client()
    page = client.get(f"/rescue/{creator_link}").get_data(as_text=True)
    assert "Invitations not yet accepted" in page and "Send the invitation again" in page
    assert "Zoe, for Anna's seat: expired" in page
    dispatch(runtime)
    sent = len(mailbox.to("zoe@example.net"))
    assert post_rescue(client, creator_link, action="resend", seat="0").status_code == 302
    dispatch(runtime)
    fresh_mails = mailbox.to("zoe@example.net")[sent:]
    assert len(fresh_mails) == 1
    fresh = LINK.search(part(fresh_mails[0], "plain")).group(1)
    assert fresh != old
    retired = client.get(f"/play/{old}")
    assert retired.status_code == 410 and "sent again" in retired.get_data(as_text=True)
    assert client.get(f"/play/{fresh}").status_code == 200
    # Another player cannot, and the creator is limited per day.
    refused = post_rescue(client, created.tokens[2], action="resend", seat="0")
    assert refused.status_code == 403 and "creator" in refused.get_data(as_text=True)
    for _ in range(seat_rules.PER_DAY["resend"] - 1):
        fresh = invitations.resend_invitation(runtime, game_id, 0, by=1).token
    with pytest.raises(TooMany, match="you can ask again from"):
        invitations.resend_invitation(runtime, game_id, 0, by=1)
    assert take_seat(runtime, fresh).done
    assert runtime.service.seat_for_token(fresh).seat == 0
    with pytest.raises(NotFound):
        take_seat(runtime, old)


def test_the_operator_renews_an_expired_invitation(runtime, clock):
    created = creator_game(runtime, creator=None)
    old = invited(runtime, created.game_id)
    clock.advance(days=40)
    with pytest.raises(Gone, match="operator can send it again"):
        take_seat(runtime, old)
    with pytest.raises(NotAllowed):  # no creator: only the operator
        invitations.resend_invitation(runtime, created.game_id, 0, by=1)
    fresh = invited(runtime, created.game_id)  # `pbem seat invite` does this
    assert take_seat(runtime, fresh).done
    # The command line's other road, without a new event, renews too.
    other = invited(runtime, created.game_id, seat=2, name="Yves")
    clock.advance(days=31)
    renewed = invitations.resend_invitation(runtime, created.game_id, 2, by=None).token
    assert take_seat(runtime, renewed).done and renewed != other


def test_a_seat_held_since_creation_never_expires(runtime, clock, app):
    created = creator_game(runtime)
    clock.advance(days=90)  # nobody moved: the deadline policy acts, the link still works
    assert runtime.service.seat_for_token(created.tokens[0]).seat == 0
    assert app.test_client().get(f"/play/{created.tokens[0]}").status_code == 200
    assert take_turn(runtime, created.game_id) == 0


def test_an_unaccepted_invitation_answers_the_api_403(runtime, app):
    created = creator_game(runtime)
    link = invited(runtime, created.game_id)
    client = app.test_client()
    head = runtime.service.head(created.game_id).seq
    moved = client.post(
        f"/api/play/{link}/moves", json={"move": {"type": "roll"}, "expected_seq": head}
    )
    assert moved.status_code == 403
    assert "accept the seat first" in moved.json["error"]["message"]
    viewed = client.get(f"/api/play/{link}")
    assert viewed.status_code == 403 and "accept the seat first" in viewed.json["error"]["message"]
    assert runtime.service.head(created.game_id).seq == head
    assert client.get("/api/play/" + "x" * 40).status_code == 404


def test_the_operator_resends_an_invitation_from_the_command_line(tmp_path, monkeypatch, capsys):
    from pbem.cli import main

    monkeypatch.setenv("PBEM_PATHS_VAR", str(tmp_path / "var"))
    monkeypatch.setenv("PBEM_SECURITY_SECRET_KEY", "cli-key")
    database = f"sqlite:///{tmp_path / 'cli.sqlite3'}"

    def pbem(*args: str) -> int:
        return main(["--database", database, *args])

    assert pbem("new", "pig", "--seat", "Ann:ann@example.org", "--seat", "Ben:ben@x.org") == 0
    game_id = capsys.readouterr().out.split("Game ", 1)[1].split(" ", 1)[0]
    assert pbem("seat", "invite", game_id, "0", "--newcomer", "Zoe:zoe@example.net") == 0
    capsys.readouterr()
    for _ in range(seat_rules.PER_DAY["resend"] + 1):  # the operator is not limited
        assert pbem("seat", "resend", game_id, "0") == 0
        assert "A fresh invitation is on its way to zoe@example.net" in capsys.readouterr().out
    assert pbem("seat", "resend", game_id, "1") != 0
    assert "No invitation waits for Ben's seat" in capsys.readouterr().err
