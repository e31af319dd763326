"""Every kind of mail, delivered through a real SMTP server on loopback."""

from __future__ import annotations

import re

from engines.api import Result
from pbem.games.invitations import invite_replacement
from pbem.games.rescue import hand_to_bot, reclaim
from pbem.games.vacations import start_vacation
from pbem.scheduler import dispatch, sweep
from tests.fixture_engine import Pig
from tests.mail.conftest import new_game, part, take_turn

LINK = re.compile(r"http://pbem\.test(/\S+?)(?=[\s\"<]|$)")


class SecretPig(Pig):
    """Pig whose history lines tell the mover its own secret bonus (and no one else)."""

    slug = "secret_pig"

    def describe(self, before, seat, move, after, viewer):
        lines = super().describe(before, seat, move, after, viewer)
        if viewer == seat:
            lines.append(f"Your secret bonus is {after['bonus'][seat]}-SECRET-{seat}.")
        return [*lines, f"(as seen by seat {viewer})"]


def settings_path(message) -> str:
    return message["List-Unsubscribe"].strip().strip("<>").removeprefix("http://pbem.test")


def links(message) -> list[str]:
    return LINK.findall(part(message, "plain"))


def assert_well_formed(message, runtime):
    assert message["Message-ID"].startswith("<") and message["Message-ID"].endswith(">")
    assert message["From"] == runtime.config["mail"]["sender"]
    assert message["Date"]
    assert part(message, "plain").strip()
    assert "<html" in part(message, "html")


def test_invitation_and_turn_mails_with_threading_and_working_links(runtime, mailbox, app):
    created = new_game(runtime)
    game = created.game_id
    runtime.service.submit_move(game, 0, {"type": "stop"}, 0)
    assert dispatch(runtime).sent == 4

    invitation = mailbox.to("ben@example.org", "invited")[0]
    assert_well_formed(invitation, runtime)
    assert created.commitment in part(invitation, "plain")
    assert created.commitment in part(invitation, "html")
    assert f"/play/{created.tokens[1]}" in part(invitation, "plain")

    turn = mailbox.to("ben@example.org", "your turn")[0]
    assert_well_formed(turn, runtime)
    assert turn["In-Reply-To"] == invitation["Message-ID"]
    assert turn["References"] == invitation["Message-ID"]
    text = part(turn, "plain")
    assert "Player 1 stops and banks 0 points." in text
    assert "Player 1 stops and banks 0 points." in part(turn, "html")
    head = runtime.service.head(game)
    assert head.hash in text
    assert "UTC)" in text and (" EST (" in text or " EDT (" in text)
    client = app.test_client()
    for message in mailbox.messages:
        assert links(message), message["Subject"]
        for link in links(message):
            assert client.get(link).status_code == 200, link
            assert f"http://pbem.test{link}" in part(message, "html")
        assert client.get(settings_path(message)).status_code == 200
    # Anna's first turn came with her invitation; Cleo is not due: no other turn mails.
    assert [m["Subject"] for m in mailbox.to("anna@example.org")] == [
        "Pig (test fixture): you are invited to play"
    ]
    assert mailbox.to("cleo@example.org", "your turn") == []


def test_your_turn_once_per_turn_not_per_event(runtime, mailbox):
    game = new_game(runtime, seats=2).game_id
    runtime.service.submit_move(game, 0, {"type": "stop"}, 0)
    take_turn(runtime, game, rolls=3)
    dispatch(runtime)
    assert len(mailbox.to("ben@example.org", "your turn")) == 1


def test_no_line_is_mangled_into_from_on_the_wire(runtime, mailbox):
    """A line of a mail that starts with "From " reaches the SMTP server as it is (mbox
    quoting, ">From", is for mailboxes, not for SMTP)."""
    game = new_game(runtime, seats=2).game_id
    runtime.service.submit_move(game, 0, {"type": "stop"}, 0)
    take_turn(runtime, game, rolls=2)
    dispatch(runtime)
    assert mailbox.raw
    turn = [raw for raw in mailbox.raw if b"\nFrom your last move on:" in raw]
    assert turn, "the your-turn mail's text part has its line as written"
    assert not any(b"\n>From " in raw for raw in mailbox.raw)


def test_nothing_hidden_reaches_another_seat(runtime, mailbox):
    from engines import REGISTRY
    from pbem.games.service import SeatSpec

    REGISTRY.setdefault("secret_pig", SecretPig())
    created = runtime.service.create_game(
        "secret_pig", [SeatSpec("Anna", "anna@example.org"), SeatSpec("Ben", "ben@example.org")]
    )
    game = created.game_id
    for _ in range(3):
        take_turn(runtime, game)
    dispatch(runtime)
    for seat, address in ((0, "anna@example.org"), (1, "ben@example.org")):
        other = 1 - seat
        for message in mailbox.to(address):
            body = part(message, "plain") + part(message, "html")
            assert f"SECRET-{other}" not in body
            assert f"seen by seat {other}" not in body
            assert created.tokens[other] not in body
    assert any("seen by seat 1" in part(m, "plain") for m in mailbox.to("ben@example.org", "your"))


def test_reminder_deadline_and_game_over_mails(runtime, mailbox, clock):
    created = new_game(runtime, seats=2, policy={"deadline_after_days": 2})
    game = created.game_id
    clock.advance(hours=25)
    assert sweep(runtime).reminders == 1
    clock.advance(days=1)
    assert sweep(runtime).deadlines == 1
    dispatch(runtime)
    reminder = mailbox.to("anna@example.org", "reminder")[0]
    assert_well_formed(reminder, runtime)
    assert "Wed 4 Mar 2026, 10:00 CET (09:00 UTC), in 23 hours" in part(reminder, "plain")
    assert "/play/" + created.tokens[0] in part(reminder, "html")
    late = mailbox.to("anna@example.org", "deadline")[0]
    assert "The game waits for you" in part(late, "plain")
    told = mailbox.to("ben@example.org", "deadline")[0]
    assert "Anna's turn" in part(told, "plain") and created.tokens[0] not in part(told, "plain")

    for _ in range(200):
        if runtime.service.game(game).status != "active":
            break
        take_turn(runtime, game, rolls=4)
    dispatch(runtime)
    seed = runtime.service.events(game)[-1]["payload"]["seed"]
    for address in ("anna@example.org", "ben@example.org"):
        over = mailbox.to(address, "is over")
        assert len(over) == 1
        text = part(over[0], "plain")
        assert seed in text and created.commitment in text and "pbem verify" in text
        assert seed in part(over[0], "html")


def test_digest_rescue_notices_and_fresh_links(runtime, mailbox, clock, app):
    created = new_game(runtime, seats=3)
    game = created.game_id
    client = app.test_client()
    dispatch(runtime)
    path = settings_path(mailbox.to("anna@example.org")[0])
    page = client.get(path)
    token = re.search(rb'name="csrf_token" value="([^"]+)"', page.data).group(1).decode()
    assert client.post(path, data={"notify": "digest", "csrf_token": token}).status_code == 302
    assert runtime.service.seats(game)[0].notify == "digest"
    clock.advance(days=1)
    assert sweep(runtime).digests == 1
    assert sweep(runtime).digests == 0

    assert start_vacation(runtime, game, 1, 3).done
    # Cleo asks for a bot from her seat's page: she has taken her seat (mail budget).
    assert client.get(f"/play/{created.tokens[2]}").status_code == 200
    assert hand_to_bot(runtime, game, 2, by=2).done
    assert reclaim(runtime, game, 2, by=2).done
    replaced = invite_replacement(runtime, game, 1, "Dora", "dora@example.org")
    dispatch(runtime)

    digest = mailbox.to("anna@example.org", "waiting for you")[0]
    mine = links(digest)[1]  # the footer's link to all of Anna's games
    assert mine.startswith("/my-games/") and client.get(mine).status_code == 200
    assert links(digest) == [f"/play/{created.tokens[0]}", mine, path]
    assert client.get(links(digest)[0]).status_code == 200
    assert "List-Unsubscribe" in digest
    vacation = mailbox.to("cleo@example.org", "vacation")[0]
    assert "Ben is on vacation until" in part(vacation, "plain")
    bot = mailbox.to("anna@example.org", "bot takes over")[0]
    assert "A bot takes over Cleo's seat (at the player's own request)." in part(bot, "plain")
    fresh = mailbox.to("cleo@example.org", "your link")[0]
    fresh_path = links(fresh)[0]
    assert client.get(fresh_path).status_code == 200
    old = client.get(f"/play/{created.tokens[2]}")  # the reclaimed seat's old link explains
    assert old.status_code == 410 and "newest mail from this game" in old.text
    invite = mailbox.to("dora@example.org", "offered to you")[0]
    assert f"/play/{replaced.token}" in part(invite, "plain")
    assert "take over Ben&#39;s seat" in part(invite, "html")
    assert "Take this seat" in client.get(f"/play/{replaced.token}").text
    assert client.get(f"/play/{created.tokens[1]}").status_code == 410
    assert client.get(path.replace("/0/", "/1/")).status_code == 404


class SealedBids:
    """Both seats bid at once each round; the bids show when both are in (a test engine)."""

    slug = "sealed_bids"
    title = "Sealed bids"
    version = 1
    min_seats = max_seats = 2
    options = ()

    def setup(self, seats, options, chance):
        return {"round": 1, "bids": [None, None], "shown": []}

    def to_move(self, state):
        if state["round"] > 3:
            return frozenset()
        return frozenset(seat for seat in (0, 1) if state["bids"][seat] is None)

    def legal_moves(self, state, seat):
        return [{"type": "bid", "amount": amount} for amount in (1, 2, 3)]

    def apply(self, state, seat, move, chance):
        bids = list(state["bids"])
        bids[seat] = move["amount"]
        if None in bids:
            return {**state, "bids": bids}
        return {"round": state["round"] + 1, "bids": [None, None], "shown": [*state["shown"], bids]}

    def view(self, state, seat):
        return {
            "game": self.slug,
            "seat": seat,
            "to_move": sorted(self.to_move(state)),
            "phase": f"Round {state['round']}",
            "players": [{}, {}],
            "finished": state["round"] > 3,
        }

    def result(self, state):
        return None if state["round"] <= 3 else Result((0.0, 0.0), (0, 1))

    def dump(self, state):
        return state

    def load(self, data):
        return dict(data)

    def describe(self, before, seat, move, after, viewer):
        if viewer == seat:
            return [f"You bid {move['amount']}-BID-{seat}."]
        if after["round"] > before["round"]:
            return [f"Bids revealed: {after['shown'][-1]}."]
        return [f"Player {seat + 1} has bid."]

    def move_label(self, move, view=None):
        return f"Bid {move['amount']}"

    def bot_move(self, view, legal_moves, rng):
        return legal_moves[0]


def test_simultaneous_choices_tell_every_due_seat_once(runtime, mailbox):
    from engines import REGISTRY
    from pbem.games.service import SeatSpec

    REGISTRY.setdefault("sealed_bids", SealedBids())
    game = runtime.service.create_game(
        "sealed_bids", [SeatSpec("Anna", "anna@example.org"), SeatSpec("Ben", "ben@example.org")]
    ).game_id
    runtime.service.submit_move(game, 0, {"type": "bid", "amount": 3}, 0)
    dispatch(runtime)
    assert [len(mailbox.to(a, "your turn")) for a in ("anna@example.org", "ben@example.org")] == [
        0,
        0,
    ]
    runtime.service.submit_move(game, 1, {"type": "bid", "amount": 1}, 1)
    dispatch(runtime)
    for address, other in (("anna@example.org", "Ben"), ("ben@example.org", "Anna")):
        turn = mailbox.to(address, "your turn")
        assert len(turn) == 1
        text = part(turn[0], "plain")
        assert "Round 2" in text and f"Also choosing now: {other}." in text
    anna = part(mailbox.to("anna@example.org", "your turn")[0], "plain")
    assert "You bid 3-BID-0." in anna and "Bids revealed: [3, 1]." in anna
    assert "BID-1" not in anna
    ben = part(mailbox.to("ben@example.org", "your turn")[0], "plain")
    assert "You bid 1-BID-1." in ben and "BID-0" not in ben
