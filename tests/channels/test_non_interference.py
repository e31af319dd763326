"""Non-interference: no feed, push, webhook, calendar or follower's mail reveals an
address, a seat's link (but a seat's own, in its own push) or what only one seat may
see; two games that differ only in one seat's hidden hand give the same feed."""

from __future__ import annotations

import json

import pytest
from sqlmodel import Session

from pbem.channels import deliver, webhooks
from pbem.games.service import SeatSpec
from pbem.models import Game
from pbem.scheduler import dispatch
from tests.channels.test_calendar import ICS, my_games
from tests.channels.test_follow import ask, confirm_link
from tests.channels.test_push import Browser, switch_on
from tests.mail.conftest import part, take_turn
from tests.mail.test_mails import SecretPig
from tests.web.conftest import csrf_of
from tests.web.test_security import PAIRS


def test_nothing_secret_leaves_by_any_channel(client, runtime, receiver, mailbox):
    from engines import REGISTRY

    REGISTRY.setdefault("secret_pig", SecretPig())
    created = runtime.service.create_game(
        "secret_pig",
        [SeatSpec("Anna", "anna@example.org"), SeatSpec("Ben", "ben@example.org")],
        {"target": 100},  # out of reach in four turns, whatever the dice
        policy={"deadline_after_days": 3},
    )
    game = created.game_id
    for kind in ("discord", "slack", "json"):
        webhooks.add(runtime, game, kind, f"{receiver.url}/hook/{kind}", by=0)
    browsers = {seat: Browser(f"{receiver.url}/push/{seat}") for seat in (0, 1)}
    for seat, browser in browsers.items():
        switch_on(client, runtime, game, seat, browser)
    ask(client, game, "fan@example.net")
    dispatch(runtime)
    link = confirm_link(mailbox, "fan@example.net")
    client.post(link, data={"csrf_token": csrf_of(client.get(link).text)})
    for _ in range(4):
        take_turn(runtime, game, rolls=2)
        deliver.deliver(runtime)
    dispatch(runtime)
    said: list[tuple[str, str]] = []  # (who may read it, what it says)
    for post in receiver.received:
        if post.path.startswith("/push/"):
            seat = int(post.path.rsplit("/", 1)[1])
            message = browsers[seat].read(post.body)
            assert message["url"] == f"http://pbem.test/play/{created.tokens[seat]}"
            said.append((f"seat {seat}", json.dumps(message)))
        else:
            said.append(("anyone", post.body.decode()))
    assert {who for who, _ in said} == {"anyone", "seat 0", "seat 1"}
    for message in mailbox.to("fan@example.net"):
        said.append(("anyone", part(message, "plain") + part(message, "html")))
    said.append(("anyone", client.get(f"/games/{game}/feed.atom").data.decode()))
    calendar = ICS.search(client.get(my_games(client, runtime, "ben@example.org")).text)
    said.append(("anyone", client.get(calendar.group(1).removeprefix("http://pbem.test")).text))
    for who, text in said:
        assert "SECRET-" not in text
        assert "seen by seat 0" not in text and "seen by seat 1" not in text
        assert "anna@example.org" not in text and "ben@example.org" not in text
        for seat, token in enumerate(created.tokens):
            if who != f"seat {seat}":
                assert token not in text, f"seat {seat}'s link reached {who}"


@pytest.mark.parametrize("slug", sorted(PAIRS))
def test_a_hidden_hand_changes_nothing_in_the_feed(sqlite_runtime, slug):
    """The engines' non-interference pairs: two states that differ only in what one seat
    may see give the very same feed."""
    from engines import get_engine
    from pbem.web import create_app

    runtime = sqlite_runtime
    engine = get_engine(slug)
    seats, _, pairs = PAIRS[slug]
    client = create_app(runtime=runtime).test_client()
    specs = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(seats)]
    created = runtime.service.create_game(slug, specs)
    checked = 0
    for first, second in pairs():
        feeds = []
        for state in (first, second):
            with Session(runtime.db) as session:
                row = session.get(Game, created.game_id)
                row.head_state = engine.dump(state)
                session.add(row)
                session.commit()
            feeds.append(client.get(f"/games/{created.game_id}/feed.atom").data)
        assert feeds[0] == feeds[1]
        checked += 1
    assert checked >= 1
