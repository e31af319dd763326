"""Webhooks per game: set by the game's creator, posted by the worker (never in a
request), Discord-, Slack- or JSON-shaped, to safe addresses only."""

from __future__ import annotations

import json
import re

import pytest
from sqlmodel import Session, select

from pbem.channels import deliver, safehttp, webhooks
from pbem.errors import NotAllowed, TooMany
from pbem.models import NoticeDelivery
from tests.mail.conftest import new_game, take_turn
from tests.web.conftest import csrf_of


def statuses(runtime) -> list[tuple[str, str]]:
    with Session(runtime.db) as session:
        rows = session.exec(select(NoticeDelivery).order_by(NoticeDelivery.id)).all()
        return [(row.status, row.last_error) for row in rows]


def test_a_discord_webhook_gets_each_turn_from_the_worker(runtime, receiver, clock):
    created = new_game(runtime)
    game = created.game_id
    webhooks.add(runtime, game, "discord", f"{receiver.url}/api/webhooks/1/abc", by=0)
    mover = take_turn(runtime, game)
    assert mover == 0
    assert receiver.received == [], "nothing is posted inside the move's request"
    report = deliver.deliver(runtime)
    assert report.sent == 1
    [post] = receiver.received
    assert post.path == "/api/webhooks/1/abc"
    assert post.headers["Content-Type"] == "application/json"
    body = post.json()
    assert set(body) == {"content", "allowed_mentions"}
    assert body["allowed_mentions"] == {"parse": []}
    title = runtime.service.game(game).title
    assert body["content"] == f"{title}: it is Ben's turn. http://pbem.test/games/{game}"
    # Never a seat's link or anyone's address.
    for token in created.tokens:
        assert token not in post.body.decode()
    assert "@" not in body["content"]
    assert deliver.deliver(runtime).sent == 0, "sent once"


def test_slack_and_json_shapes_and_the_result(runtime, receiver):
    created = new_game(runtime, seats=2, target=12)
    game = created.game_id
    webhooks.add(runtime, game, "slack", f"{receiver.url}/slack", by=0)
    webhooks.add(runtime, game, "json", f"{receiver.url}/json", by=0)
    take_turn(runtime, game)
    deliver.deliver(runtime)
    by_path = {post.path: post.json() for post in receiver.received}
    title = runtime.service.game(game).title
    assert by_path["/slack"] == {
        "text": f"{title}: it is Ben's turn. <http://pbem.test/games/{game}|Open the game>"
    }
    assert by_path["/json"]["event"] == "turn"
    assert by_path["/json"]["to_move"] == ["Ben"]
    assert by_path["/json"]["url"] == f"http://pbem.test/games/{game}"
    receiver.received.clear()
    while runtime.service.game(game).status == "active":
        take_turn(runtime, game, rolls=3)
    deliver.deliver(runtime)
    # (the posts are delivered one by one but may reach the receiver in any order)
    results = [post.json() for post in receiver.received if post.path == "/json"]
    [final] = [post for post in results if post["event"] == "result"]
    assert "win" in final["result"]  # "Anna wins." or a shared win: the rolls are random


def test_only_the_creator_sets_webhooks_and_only_a_few(runtime, receiver):
    created = new_game(runtime)
    with pytest.raises(NotAllowed):
        webhooks.add(runtime, created.game_id, "json", f"{receiver.url}/x", by=1)
    for number in range(3):
        webhooks.add(runtime, created.game_id, "json", f"{receiver.url}/{number}", by=0)
    with pytest.raises(TooMany):
        webhooks.add(runtime, created.game_id, "json", f"{receiver.url}/4", by=0)
    assert [hook["host"] for hook in webhooks.shown(runtime, created.game_id)] == ["127.0.0.1"] * 3


@pytest.mark.parametrize(
    "url",
    [
        "http://example.org/hook",  # plain http, not loopback
        "ftp://example.org/hook",
        "https://user:secret@example.org/hook",
        "https://10.0.0.1/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]/hook",
        "https://127.0.0.1/hook",
        "https://localhost/hook",
        "https://192.168.1.10/hook",
        "https://[fd00::1]/hook",
        "https://[::ffff:10.0.0.1]/hook",
        "https://0.0.0.0/hook",
        "https://example.org/ho ok",
        "https://nosuchhost.invalid/hook",
        "",
    ],
)
def test_unsafe_addresses_are_refused_without_loopback(url):
    with pytest.raises(safehttp.Unsafe):
        target = safehttp.check_url(url, allow_loopback=False)
        safehttp.resolve(target, allow_loopback=False)


def test_a_public_address_passes_the_check():
    target = safehttp.check_url("https://1.1.1.1/hook?x=1", allow_loopback=False)
    assert safehttp.resolve(target, allow_loopback=False) == "1.1.1.1"
    assert target.path == "/hook?x=1"


def test_failures_are_retried_then_given_up_and_a_4xx_fails_at_once(runtime, receiver, clock):
    created = new_game(runtime)
    game = created.game_id
    webhooks.add(runtime, game, "json", f"{receiver.url}/flaky", by=0)
    receiver.answers = [503, 200]
    take_turn(runtime, game)
    report = deliver.deliver(runtime)
    assert report.retried == 1 and statuses(runtime)[-1][1] == "answered 503"
    assert deliver.deliver(runtime).sent == 0, "it waits its backoff"
    clock.advance(seconds=31)
    assert deliver.deliver(runtime).sent == 1
    receiver.answers = [400]
    take_turn(runtime, game)
    assert deliver.deliver(runtime).failed == 1
    assert statuses(runtime)[-1] == ("failed", "refused: answered 400")


def test_a_removed_or_unsafe_webhook_sends_nothing(runtime, receiver):
    created = new_game(runtime)
    game = created.game_id
    hook = webhooks.add(runtime, game, "json", f"{receiver.url}/gone", by=0)
    take_turn(runtime, game)
    webhooks.remove(runtime, game, hook.id, by=0)
    assert deliver.deliver(runtime).dropped == 1
    webhooks.add(runtime, game, "json", f"{receiver.url}/later", by=0)
    runtime.config["notices"]["allow_loopback"] = False  # as in production
    take_turn(runtime, game)
    assert deliver.deliver(runtime).failed == 1
    assert statuses(runtime)[-1][1].startswith("refused: ")
    assert receiver.received == []


def test_turns_within_the_quiet_window_make_one_post(runtime, receiver, clock):
    runtime.config["mail"]["quiet_minutes"] = 10
    created = new_game(runtime)
    game = created.game_id
    webhooks.add(runtime, game, "json", f"{receiver.url}/q", by=0)
    take_turn(runtime, game)
    take_turn(runtime, game)
    assert deliver.deliver(runtime).sent == 0, "it waits the quiet window"
    clock.advance(minutes=11)
    assert deliver.deliver(runtime).sent == 1
    [post] = receiver.received
    assert post.json()["to_move"] == ["Cleo"], "the latest turn's notice replaced the first"


def test_a_webhooks_budget_per_day_holds_the_rest(runtime, receiver):
    runtime.config["limits"]["mails_per_address_per_game_per_day"] = 2
    created = new_game(runtime)
    game = created.game_id
    webhooks.add(runtime, game, "json", f"{receiver.url}/b", by=0)
    for _ in range(3):
        take_turn(runtime, game)
        deliver.deliver(runtime)
    assert [status for status, _ in statuses(runtime)] == ["sent", "sent", "held"]


def test_the_creator_adds_and_removes_a_webhook_from_the_rescue_page(client, runtime, receiver):
    created = new_game(runtime)
    page = client.get(f"/rescue/{created.tokens[0]}")
    assert "Webhooks" in page.text
    answer = client.post(
        f"/rescue/{created.tokens[0]}",
        data={
            "csrf_token": csrf_of(page.text),
            "action": "webhook_add",
            "kind": "discord",
            "url": f"{receiver.url}/api/webhooks/9/SECRETPART",
        },
        follow_redirects=True,
    )
    assert "The webhook is added" in answer.text
    assert "SECRETPART" not in answer.text and "Discord at 127.0.0.1" in answer.text
    refused = client.post(
        f"/rescue/{created.tokens[0]}",
        data={
            "csrf_token": csrf_of(page.text),
            "action": "webhook_add",
            "kind": "json",
            "url": "https://10.1.2.3/x",
        },
    )
    assert refused.status_code == 400 and "public internet" in refused.text
    # Another seat's rescue page has no such section, and its post is refused.
    other = client.get(f"/rescue/{created.tokens[1]}")
    assert "Webhooks" not in other.text
    answer = client.post(
        f"/rescue/{created.tokens[1]}",
        data={
            "csrf_token": csrf_of(other.text),
            "action": "webhook_add",
            "kind": "json",
            "url": f"{receiver.url}/x",
        },
    )
    assert answer.status_code == 403
    page = client.get(f"/rescue/{created.tokens[0]}")
    hook = re.search(r'name="webhook" value="(\d+)"', page.text).group(1)
    answer = client.post(
        f"/rescue/{created.tokens[0]}",
        data={"csrf_token": csrf_of(page.text), "action": "webhook_remove", "webhook": hook},
        follow_redirects=True,
    )
    assert "The webhook is removed" in answer.text
    assert webhooks.shown(runtime, created.game_id) == []


def test_a_game_is_marked_once_it_has_a_channel(runtime, receiver):
    created = new_game(runtime)
    game = created.game_id
    assert runtime.service.game(game).notice_channels is False
    take_turn(runtime, game)
    webhooks.add(runtime, game, "json", f"{receiver.url}/late", by=0)
    assert runtime.service.game(game).notice_channels is True
    take_turn(runtime, game)  # the next move sees the mark and the webhook
    assert deliver.deliver(runtime).sent == 1


def test_a_title_cannot_ping_a_channel_or_make_a_link():
    facts = {"text": "<!channel> & @everyone <http://evil.example|x>", "url": "http://p/g"}
    slack = json.loads(deliver.webhook_body("slack", facts)[0])
    assert slack["text"] == (
        "&lt;!channel&gt; &amp; @everyone &lt;http://evil.example|x&gt; <http://p/g|Open the game>"
    )
    discord = json.loads(deliver.webhook_body("discord", facts)[0])
    assert discord["allowed_mentions"] == {"parse": []}
