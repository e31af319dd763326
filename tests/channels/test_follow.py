"""Following a public game by mail: double opt-in, the result only or every turn,
one-click unsubscribe, limits per address and per client."""

from __future__ import annotations

import re

from pbem.games.service import SeatSpec
from pbem.scheduler import dispatch
from tests.mail.conftest import new_game, part, take_turn
from tests.web.conftest import csrf_of

LINK = re.compile(r"http://pbem\.test(/follow/\d+/[^/\s]+/(?:confirm|stop))")


def ask(client, game_id: str, email: str, every_turn: str = "yes", ip: str = "203.0.113.5"):
    page = client.get(f"/games/{game_id}")
    return client.post(
        f"/games/{game_id}/follow",
        data={"csrf_token": csrf_of(page.text), "email": email, "every_turn": every_turn},
        environ_base={"REMOTE_ADDR": ip},
        follow_redirects=True,
    )


def confirm_link(mailbox, address: str) -> str:
    [message] = mailbox.to(address, "confirm")
    return LINK.search(part(message, "plain")).group(1)


def test_a_spectator_confirms_then_gets_every_turn_and_stops_in_one_click(client, runtime, mailbox):
    created = new_game(runtime)
    game = created.game_id
    answer = ask(client, game, "fan@example.net")
    assert "A link to confirm is on its way to fan@example.net" in answer.text
    take_turn(runtime, game)
    dispatch(runtime)
    assert [m["Subject"] for m in mailbox.to("fan@example.net")] == [
        f"{runtime.service.game(game).title}: confirm that you follow this game"
    ], "nothing but the confirmation before it is confirmed"
    link = confirm_link(mailbox, "fan@example.net")
    page = client.get(link)
    assert "Yes, follow this game" in page.text, "opening the link alone confirms nothing"
    take_turn(runtime, game)
    dispatch(runtime)
    assert len(mailbox.to("fan@example.net")) == 1
    page = client.post(link, data={"csrf_token": csrf_of(page.text)})
    assert "You follow this game" in page.text
    take_turn(runtime, game)  # Cleo's turn ends: Anna's begins
    dispatch(runtime)
    [turn] = mailbox.to("fan@example.net", "to play")
    text = part(turn, "plain")
    assert "it is now Anna's turn" in text
    assert f"http://pbem.test/games/{game}" in text
    assert all(token not in text + part(turn, "html") for token in created.tokens)
    assert "@example.org" not in text + part(turn, "html")
    assert "/my-games/" not in text
    stop = turn["List-Unsubscribe"].strip("<>").removeprefix("http://pbem.test")
    assert turn["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert stop.endswith("/stop") and stop in text
    # RFC 8058: a mail provider's POST, without the site's token.
    fresh = type(client)(client.application)
    answer = fresh.post(stop, data={"List-Unsubscribe": "One-Click"})
    assert answer.status_code == 200 and "no more mail about this game" in answer.text
    take_turn(runtime, game)
    dispatch(runtime)
    assert len(mailbox.to("fan@example.net", "to play")) == 1
    assert client.get(stop).status_code == 404, "the links open nothing once stopped"


def test_the_result_only(client, runtime, mailbox):
    created = new_game(runtime, seats=2, target=12)
    game = created.game_id
    ask(client, game, "quiet@example.net", every_turn="no")
    dispatch(runtime)
    link = confirm_link(mailbox, "quiet@example.net")
    page = client.get(link)
    client.post(link, data={"csrf_token": csrf_of(page.text)})
    while runtime.service.game(game).status == "active":
        take_turn(runtime, game, rolls=3)
    dispatch(runtime)
    subjects = [m["Subject"] for m in mailbox.to("quiet@example.net")]
    assert len(subjects) == 2 and subjects[1].endswith("the game is over")
    [over] = mailbox.to("quiet@example.net", "is over")
    assert "win" in part(over, "plain")  # one winner or a shared win: the rolls are random
    assert over["List-Unsubscribe"]


def test_follow_requests_are_limited_per_address_and_per_client(client, runtime):
    game = new_game(runtime).game_id
    for _ in range(3):
        assert "on its way" in ask(client, game, "Same+x@Example.net", ip="198.51.100.1").text
    answer = ask(client, game, "same@example.net", ip="198.51.100.2")
    assert answer.status_code == 429 and "this address" in answer.text
    for number in range(7):
        assert "on its way" in ask(client, game, f"f{number}@example.net", ip="198.51.100.1").text
    answer = ask(client, game, "new@example.net", ip="198.51.100.1")
    assert answer.status_code == 429 and "your network address" in answer.text


def test_no_following_a_private_or_finished_game_or_with_a_bad_address(client, runtime):
    private = runtime.service.create_game(
        "pig",
        [SeatSpec("Anna", "anna@example.org"), SeatSpec("Ben", "ben@example.org")],
        {"target": 30},
        private=True,
    )
    assert "Follow this game" not in client.get(f"/games/{private.game_id}").text
    public = new_game(runtime, seats=2, target=12).game_id
    token = csrf_of(client.get(f"/games/{public}").text)
    form = {"csrf_token": token, "email": "x@example.net", "every_turn": "no"}
    assert client.post(f"/games/{private.game_id}/follow", data=form).status_code == 404
    assert ask(client, public, "not an address").status_code == 400
    assert ask(client, public, "x@example.net", every_turn="maybe").status_code == 400
    while runtime.service.game(public).status == "active":
        take_turn(runtime, public, rolls=3)
    answer = client.post(f"/games/{public}/follow", data=form)
    assert answer.status_code in (403, 409) and "over" in answer.text


def test_forged_follow_links_are_404(client, runtime, mailbox):
    game = new_game(runtime).game_id
    ask(client, game, "fan@example.net")
    dispatch(runtime)
    link = confirm_link(mailbox, "fan@example.net")
    number = link.split("/")[2]
    assert client.get(f"/follow/{number}/AAAAAAAAAAAAAAAAAAAAAAAA/confirm").status_code == 404
    assert client.get(f"/follow/{int(number) + 1}/{link.split('/')[3]}/stop").status_code == 404


def test_the_confirmed_request_ends_the_addresss_other_ones(client, runtime, mailbox):
    from sqlmodel import Session, select

    from pbem.models import GameFollower

    game = new_game(runtime).game_id
    ask(client, game, "fan@example.net", every_turn="yes")
    ask(client, game, "Fan@example.net", every_turn="no")
    dispatch(runtime)
    first, second = (
        LINK.search(part(message, "plain")).group(1)
        for message in mailbox.to("fan@example.net", "confirm")
        + mailbox.to("Fan@example.net", "confirm")
    )
    client.post(second, data={"csrf_token": csrf_of(client.get(second).text)})
    with Session(runtime.db) as session:
        rows = session.exec(select(GameFollower)).all()
    assert [(row.email, row.every_turn) for row in rows] == [("Fan@example.net", False)]
    assert client.get(first).status_code == 404
