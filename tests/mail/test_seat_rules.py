"""Who may act on a seat, tried as the attacker: opponents, the creator, colluders,
whoever reads the others' mail, whoever holds an invitation, and floods."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from sqlmodel import Session, select

from pbem.errors import BadInput, NotAllowed, NotFound, TooMany
from pbem.games import seat_rules
from pbem.games.invitations import invite_replacement, request_open_seat, take_seat
from pbem.games.rescue import hand_to_bot, leave_game, reclaim
from pbem.games.service import SeatSpec
from pbem.games.tables import RescueVote
from pbem.games.vacations import start_vacation
from pbem.mail.models import Mail
from pbem.scheduler import dispatch, sweep
from tests.mail.conftest import new_game, part, take_turn

LINK = re.compile(r"/play/([A-Za-z0-9_-]{20,100})")
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')


def csrf(client, path: str) -> str:
    page = client.get(path)
    return CSRF.search(page.get_data(as_text=True)).group(1)


def kinds(runtime, game_id: str) -> list[str]:
    return [row["kind"] for row in runtime.service.events(game_id)]


def mail_rows(runtime) -> list[Mail]:
    with Session(runtime.db) as session:
        return list(session.exec(select(Mail).order_by(Mail.id)))


def opens(runtime, token: str) -> int | None:
    try:
        return runtime.service.seat_for_token(token).seat
    except NotFound:
        return None


def creator_game(runtime, seats: int, creator: int, policy: dict):
    names = ["Anna", "Ben", "Cleo", "Dan"][:seats]
    specs = [SeatSpec(name, f"{name.lower()}@example.org") for name in names]
    return runtime.service.create_game(
        "pig", specs, {"target": 30}, policy=policy, creator_seat=creator
    )


def test_in_a_two_player_game_the_opponent_cannot_move_the_other_seat(runtime, clock, app):
    game = new_game(runtime, seats=2, policy={"deadline_after_days": 1})
    game_id = game.game_id  # Anna is to move
    before, mails = kinds(runtime, game_id), len(mail_rows(runtime))
    for attempt in (
        lambda: hand_to_bot(runtime, game_id, 0, by=1),
        lambda: invite_replacement(runtime, game_id, 0, "Mallory", "mal@example.net", by=1),
    ):
        with pytest.raises(NotAllowed, match="present"):
            attempt()
    clock.advance(days=1, minutes=1)
    assert sweep(runtime).deadlines == 1  # Anna is now absent; still no vote can move her
    mails = len(mail_rows(runtime))
    for attempt in (
        lambda: hand_to_bot(runtime, game_id, 0, by=1),
        lambda: invite_replacement(runtime, game_id, 0, "Mallory", "mal@example.net", by=1),
    ):
        with pytest.raises(NotAllowed, match="Fewer than two other players"):
            attempt()
    client = app.test_client()
    token = csrf(client, f"/rescue/{game.tokens[1]}")
    answer = client.post(
        f"/rescue/{game.tokens[1]}",
        data={"action": "replace", "seat": "0", "name": "M", "email": "mal@example.net"}
        | {"csrf_token": token},
    )
    assert answer.status_code == 403
    assert kinds(runtime, game_id) == before
    assert len(mail_rows(runtime)) == mails
    assert opens(runtime, game.tokens[0]) == 0
    with Session(runtime.db) as session:
        assert session.exec(select(RescueVote)).all() == []


def test_the_creator_cannot_act_against_a_present_player(runtime, app):
    game = new_game(runtime, seats=3)
    game_id = game.game_id
    before, mails = kinds(runtime, game_id), len(mail_rows(runtime))
    with pytest.raises(NotAllowed, match="present"):
        invite_replacement(runtime, game_id, 1, "Ben", "ben2@example.net", by=0)
    with pytest.raises(NotAllowed, match="present"):
        hand_to_bot(runtime, game_id, 1, by=0)
    client = app.test_client()
    token = csrf(client, f"/rescue/{game.tokens[0]}")
    answer = client.post(
        f"/rescue/{game.tokens[0]}", data={"action": "to_bot", "seat": "1", "csrf_token": token}
    )
    assert answer.status_code == 403 and b"nobody acts against a present player" in answer.data
    assert kinds(runtime, game_id) == before and len(mail_rows(runtime)) == mails
    assert opens(runtime, game.tokens[1]) == 1 and not runtime.service.seats(game_id)[1].is_bot


def test_two_colluders_of_four_move_an_absent_seat_only(runtime, clock, mailbox, app):
    game = creator_game(runtime, 4, creator=1, policy={"deadline_after_days": 2})
    game_id = game.game_id  # Anna (seat 0) is to move; Ben created the game
    for voter in (1, 2):
        with pytest.raises(NotAllowed, match="present"):
            invite_replacement(runtime, game_id, 0, "Eve", "eve@example.net", by=voter)
    assert opens(runtime, game.tokens[0]) == 0
    clock.advance(days=2, minutes=1)  # Anna's deadline passes; no sweep has run yet
    first = invite_replacement(runtime, game_id, 0, "Eve", "eve@example.net", by=1)
    assert not first.done and (first.votes, first.needed) == (1, 2)  # the creator: one vote
    assert opens(runtime, game.tokens[0]) == 0
    with pytest.raises(NotAllowed, match="another player"):
        invite_replacement(runtime, game_id, 0, "Cleo", "cleo@example.org", by=2)
    second = invite_replacement(runtime, game_id, 0, "Eve", "eve@example.net", by=2)
    assert second.done and opens(runtime, game.tokens[0]) is None
    event = runtime.service.events(game_id)[-1]
    assert event["kind"] == "seat_offered" and event["payload"]["voters"] == [1, 2]
    dispatch(runtime)
    told = part(mailbox.to("anna@example.org", "offered to a new player")[0], "plain")
    assert "given to a new player by a vote of the other players" in told
    assert "write to the other players" in told
    invitation = mailbox.to("eve@example.net")
    assert len(invitation) == 1 and second.token in part(invitation[0], "plain")
    for message in mailbox.messages:
        if message["To"] != "eve@example.net":
            assert second.token not in part(message, "plain")
    gone = app.test_client().get(f"/play/{game.tokens[0]}")
    assert gone.status_code == 410
    assert b"given to a new player by a vote of the other players" in gone.data
    assert b"Anna" not in gone.data.split(b"<main")[-1].split(b"</h1>")[0]


def test_the_replace_policy_mails_no_link_and_the_open_seat_link_goes_to_the_taker_only(
    runtime, clock, mailbox, app
):
    game = new_game(runtime, seats=3, policy={"deadline_after_days": 1, "at_deadline": "replace"})
    game_id = game.game_id
    clock.advance(hours=2)
    take_turn(runtime, game_id, rolls=0)  # Anna moves; Ben is due and goes silent
    clock.advance(days=1, hours=1)
    assert sweep(runtime).deadlines == 1
    dispatch(runtime)
    for message in mailbox.messages:  # the others' and the creator's mail
        for token in LINK.findall(part(message, "plain") + part(message, "html")):
            assert opens(runtime, token) != 1
    late = [
        m
        for m in mailbox.messages
        if m["To"] == "ben@example.org" and "deadline" in m["Subject"].lower()
    ]
    assert late and all(m["List-Unsubscribe"] is None for m in late)
    client = app.test_client()
    page = client.get(f"/games/{game_id}")
    assert f"/games/{game_id}/seats/1/take".encode() in page.data
    token = CSRF.search(page.get_data(as_text=True)).group(1)
    form = {"csrf_token": token, "name": "Eve", "email": "eve@example.net"}
    refused = client.post(
        f"/games/{game_id}/seats/1/take", data={**form, "email": "cleo@example.org"}
    )
    assert refused.status_code == 403
    assert client.post(f"/games/{game_id}/seats/2/take", data=form).status_code == 403
    asked = client.post(f"/games/{game_id}/seats/1/take", data=form, follow_redirects=True)
    assert asked.status_code == 200 and b"on its way to eve@example.net" in asked.data
    assert not LINK.search(asked.get_data(as_text=True))
    sent = len(mailbox.messages)
    dispatch(runtime)
    new = mailbox.messages[sent:]
    assert [message["To"] for message in new] == ["eve@example.net"]
    invite = LINK.search(part(new[0], "plain")).group(1)
    assert opens(runtime, invite) is None  # an invitation, not the seat yet
    # Holding the invitation is not holding the seat: no view, no moves.
    head = runtime.service.head(game_id).seq
    shown = client.get(f"/play/{invite}")
    assert shown.status_code == 200 and b"Take this seat" in shown.data
    assert b'name="move"' not in shown.data and b"/move" not in shown.data
    moved = client.post(
        f"/play/{invite}/move",
        data={"csrf_token": token, "seq": head, "move": json.dumps({"type": "roll"})},
    )
    assert moved.status_code == 403 and b"not yours until you take it" in moved.data
    for path in ("history", "export.json"):
        assert client.get(f"/play/{invite}/{path}").status_code == 403
    assert client.get(f"/rescue/{invite}").status_code == 403
    assert runtime.service.head(game_id).seq == head
    taken = client.post(f"/play/{invite}/take", data={"csrf_token": token, "name": "Eve"})
    assert taken.status_code == 303
    assert opens(runtime, invite) == 1
    sent = len(mailbox.messages)
    dispatch(runtime)
    for message in mailbox.messages[sent:]:
        if message["To"] != "eve@example.net":
            assert invite not in part(message, "plain") + part(message, "html")
    assert "Eve takes over Ben&#39;s seat." in client.get(f"/play/{invite}").get_data(as_text=True)
    assert b"Take this seat" not in client.get(f"/games/{game_id}").data
    # The old link says what happened, without the seat.
    gone = client.get(f"/play/{game.tokens[1]}")
    assert gone.status_code == 410 and b"deadline of your turn" in gone.data


def test_a_returning_player_and_a_namesake_read_right(runtime, clock):
    game = new_game(runtime, seats=3, policy={"deadline_after_days": 1, "at_deadline": "replace"})
    clock.advance(days=1, minutes=1)
    sweep(runtime)  # Anna's seat is open
    back = request_open_seat(runtime, game.game_id, 0, "Anna", "anna@example.org")
    take_seat(runtime, back.token)
    assert runtime.service.events(game.game_id)[-1]["payload"]["returning"] is True
    from pbem.games.admin_lines import describe_admin

    lines = [describe_admin(row) for row in runtime.service.events(game.game_id)]
    assert "Anna takes their seat again." in lines
    row = {"kind": "seat_taken", "seat": 0, "payload": {"name": "Anna", "new_name": "Anna"}}
    assert describe_admin(row) == "A new player, also called Anna, takes over the seat."


def test_hand_my_seat_to_a_bot_then_reclaim_then_leave_from_my_own_link(runtime, mailbox, app):
    game = new_game(runtime, seats=3)
    game_id, link = game.game_id, game.tokens[1]
    client = app.test_client()
    token = csrf(client, f"/rescue/{link}")
    ask = {"csrf_token": token, "action": "to_bot", "seat": "1"}
    assert b"Yes, hand my seat to a bot" in client.post(f"/rescue/{link}", data=ask).data
    assert "seat_to_bot" not in kinds(runtime, game_id)
    assert client.post(f"/rescue/{link}", data={**ask, "confirm": "yes"}).status_code == 302
    event = runtime.service.events(game_id)[-1]
    assert event["kind"] == "seat_to_bot" and event["payload"]["by"] == "player"
    dispatch(runtime)
    told = part(mailbox.to("ben@example.org", "bot takes over")[0], "plain")
    assert "at your own request" in told and "Take my seat back" in told
    assert link in told  # the player's own link, to come back
    back = client.post(f"/rescue/{link}", data={**ask, "action": "reclaim"})
    assert back.status_code == 302 and not runtime.service.seats(game_id)[1].is_bot
    fresh = back.headers["Location"].rsplit("/", 1)[-1]
    leave = {"csrf_token": token, "action": "leave", "seat": "1"}
    assert b"Yes, leave the game" in client.post(f"/rescue/{fresh}", data=leave).data
    assert opens(runtime, fresh) == 1
    gone = client.post(f"/rescue/{fresh}", data={**leave, "confirm": "yes"})
    assert gone.status_code == 303
    assert kinds(runtime, game_id)[-1] == "seat_left"
    assert client.get(f"/play/{fresh}").status_code == 410
    seat = runtime.service.seats(game_id)[1]
    assert seat.is_bot and seat.email == "" and seat.token_hash is None
    dispatch(runtime)
    left = part(mailbox.to("ben@example.org", "leaves the game")[0], "plain")
    assert "You left" in left and f"/games/{game_id}" in left and not LINK.search(left)
    others = part(mailbox.to("anna@example.org", "leaves the game")[0], "plain")
    assert "Ben leaves the game" in others and f"/games/{game_id}" in others
    assert f"/games/{game_id}/seats/1/take".encode() in client.get(f"/games/{game_id}").data
    with pytest.raises(NotAllowed):
        leave_game(runtime, game_id, 2, by=0)
    with pytest.raises(NotAllowed):
        reclaim(runtime, game_id, 1, by=0)


def test_floods_stop_at_the_daily_limit_with_429(runtime, clock, app):
    game = new_game(runtime, seats=4, policy={"deadline_after_days": 1})
    game_id, link = game.game_id, game.tokens[1]
    client = app.test_client()
    token = csrf(client, f"/rescue/{link}")
    answers = [
        client.post(f"/rescue/{link}", data={"csrf_token": token, "action": "vacation", "days": 1})
        for _ in range(6)
    ]
    limit = seat_rules.PER_DAY["vacation"]
    assert [a.status_code for a in answers] == [302] * limit + [429] * (6 - limit)
    assert b"too many vacation requests" in answers[-1].data
    assert kinds(runtime, game_id).count("vacation") == limit
    assert len([m for m in mail_rows(runtime) if m.kind == "notice"]) == 3 * limit
    clock.advance(days=1, minutes=1)
    assert start_vacation(runtime, game_id, 1, 1).done  # a new day
    # Votes with ever new addresses (Anna is late now).
    for number in range(seat_rules.PER_DAY["rescue"]):
        invite_replacement(runtime, game_id, 0, "Eve", f"eve{number}@example.net", by=1)
    with pytest.raises(TooMany):
        invite_replacement(runtime, game_id, 0, "Eve", "eve-last@example.net", by=1)
    with Session(runtime.db) as session:
        assert len(session.exec(select(RescueVote)).all()) == seat_rules.PER_DAY["rescue"]


def test_a_player_flipping_their_own_seat_stops_at_the_daily_limit(runtime, app):
    game = new_game(runtime, seats=3)
    game_id = game.game_id
    limit = seat_rules.PER_DAY["rescue"]
    for number in range(limit):
        if number % 2 == 0:
            assert hand_to_bot(runtime, game_id, 2, by=2).done
        else:
            assert reclaim(runtime, game_id, 2, by=2).done
    events, mails = kinds(runtime, game_id), len(mail_rows(runtime))
    with pytest.raises(TooMany):
        hand_to_bot(runtime, game_id, 2, by=2)
    assert kinds(runtime, game_id) == events and len(mail_rows(runtime)) == mails
    assert not runtime.service.seats(game_id)[2].is_bot


def test_requests_for_an_open_seat_stop_at_the_daily_limit(runtime, clock, app):
    game = new_game(runtime, seats=3, policy={"deadline_after_days": 1, "at_deadline": "replace"})
    clock.advance(days=1, minutes=1)
    sweep(runtime)
    client = app.test_client()
    token = csrf(client, f"/games/{game.game_id}")
    answers = [
        client.post(
            f"/games/{game.game_id}/seats/0/take",
            data={"csrf_token": token, "name": "X", "email": f"x{number}@example.net"},
        )
        for number in range(12)
    ]
    # Counted per client (every address here is new): see tests/security/test_offers_*.
    limit = runtime.config["limits"]["seat_requests_per_client_per_day"]
    assert [a.status_code for a in answers] == [303] * limit + [429] * (12 - limit)
    invitations = [m for m in mail_rows(runtime) if m.recipient.startswith("x")]
    assert len(invitations) == limit


@pytest.mark.parametrize("days", ["1e-300", "0.5", "inf", "nan", "-1", "0", "1e308", "2.5", ""])
def test_a_vacation_is_whole_days(runtime, app, days):
    game = new_game(runtime, seats=2)
    link = game.tokens[0]
    client = app.test_client()
    token = csrf(client, f"/rescue/{link}")
    answer = client.post(
        f"/rescue/{link}", data={"csrf_token": token, "action": "vacation", "days": days}
    )
    assert answer.status_code == 400 and b"whole days" in answer.data
    assert kinds(runtime, game.game_id) == ["created"]


@pytest.mark.parametrize("days", [1e-300, 0.5, float("inf"), float("nan"), True, 10**30])
def test_start_vacation_refuses_what_is_not_whole_days(runtime, days):
    game = new_game(runtime, seats=2)
    with pytest.raises(BadInput, match="whole days"):
        start_vacation(runtime, game.game_id, 0, days)
    assert kinds(runtime, game.game_id) == ["created"]


def test_a_huge_seat_number_is_a_clear_400(runtime, app):
    game = new_game(runtime, seats=3)
    client = app.test_client()
    link = game.tokens[1]
    token = csrf(client, f"/rescue/{link}")
    answer = client.post(
        f"/rescue/{link}", data={"csrf_token": token, "action": "to_bot", "seat": str(2**70)}
    )
    assert answer.status_code == 400


def test_the_readme_shows_the_table_of_the_code():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme.split("### Who may act on a seat", 1)[1]
    assert seat_rules.markdown_table() in section.split("\n###", 1)[0]


def test_bad_requests_for_an_open_seat_get_a_clear_4xx_and_mail_nobody(runtime, clock, app):
    game = new_game(runtime, seats=3, policy={"deadline_after_days": 1, "at_deadline": "replace"})
    clock.advance(days=1, minutes=1)
    sweep(runtime)
    client = app.test_client()
    token = csrf(client, f"/games/{game.game_id}")
    mails = len(mail_rows(runtime))
    good = {"csrf_token": token, "name": "Eve", "email": "eve@example.net"}
    cases = [
        (f"/games/{game.game_id}/seats/0/take", {**good, "name": "Eve\r\nBcc: x@y.z"}, 400),
        (f"/games/{game.game_id}/seats/0/take", {**good, "name": "Eve\x00"}, 400),
        (f"/games/{game.game_id}/seats/0/take", {**good, "name": "E" * 500}, 400),
        (f"/games/{game.game_id}/seats/0/take", {**good, "email": "a@x.org,b@y.org"}, 400),
        (f"/games/{game.game_id}/seats/0/take", {**good, "email": "eve\n@example.net"}, 400),
        (f"/games/{game.game_id}/seats/{2**70}/take", good, 404),
        (f"/games/{game.game_id}/seats/9/take", good, 404),
        ("/games/nosuchgame/seats/0/take", good, 404),
        ("/games/..%2Fetc/seats/0/take", good, 404),
        (f"/games/{game.game_id}/seats/0/take", {**good, "csrf_token": ""}, 400),
    ]
    for path, data, status in cases:
        assert client.post(path, data=data).status_code == status, (path, data)
    assert len(mail_rows(runtime)) == mails
