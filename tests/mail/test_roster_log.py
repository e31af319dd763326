"""The roster is part of the log: the first roster in the ``created`` event, every seat
change an event the fold understands, and the read model always equal to the fold."""

from __future__ import annotations

import random

import pytest
from sqlmodel import Session, select

from pbem.errors import PbemError
from pbem.eventlog import roster as roster_mod
from pbem.games import invitations, rescue, seat_links
from pbem.games.admin_lines import describe_admin
from pbem.games.service import SeatSpec
from pbem.games.tables import SeatOffer
from tests.mail.conftest import Clock, make_runtime

NAMES = ["Ann", "Bo", "Cy", "Dot"]


def fold_and_read_model(runtime, game_id: str):
    """The roster folded from every event, and the one the read model describes."""
    service = runtime.service
    folded = roster_mod.fold(service.events(game_id))
    game = service.game(game_id)
    with Session(runtime.db) as session:
        offers = [
            row.seat for row in session.exec(select(SeatOffer).where(SeatOffer.game_id == game_id))
        ]
    read = roster_mod.from_seats(
        service.seats(game_id),
        game.creator_seat,
        game.policy,
        paused=game.paused_at is not None,
        open_seats=offers,
    )
    return folded, read


def test_a_new_game_logs_its_first_roster(tmp_path, sqlite_db):
    runtime = make_runtime(sqlite_db, tmp_path, Clock())
    specs = [
        SeatSpec("  Ann   Lee ", "ann@example.org", timezone="Asia/Tokyo"),
        SeatSpec("", "bo@example.org"),
        SeatSpec("Hal", is_bot=True, bot_level="easy"),
    ]
    policy = {"deadline_after_days": 2.0, "at_deadline": "bot_seat"}
    created = runtime.service.create_game(
        "pig", specs, {"target": 50}, policy=policy, creator_seat=1
    )
    first = runtime.service.events(created.game_id)[0]
    logged = roster_mod.initial(first["payload"])
    assert logged.names == ["Ann Lee", "Player 2", "Hal"]
    assert logged.bots == [2] and logged.bot_levels == {"2": "easy"}
    assert logged.creator == 1
    assert logged.policy == {
        "reminder_after_hours": 24,
        "reminder_every_hours": 24,
        "deadline_after_days": 2,
        "at_deadline": "bot_seat",
    }
    assert "ann@example.org" not in str(first["payload"])
    assert "Asia/Tokyo" not in str(first["payload"])
    folded, read = fold_and_read_model(runtime, created.game_id)
    assert folded == logged and roster_mod.same_holders(folded, read)


@pytest.mark.parametrize(
    ("specs", "creator"),
    [
        ([SeatSpec("A" * 61, "a@example.org"), SeatSpec("Bo", "b@example.org")], 0),
        ([SeatSpec("Ann\nBcc: x", "a@example.org"), SeatSpec("Bo", "b@example.org")], 0),
        ([SeatSpec("Ann", "a@example.org"), SeatSpec("Bo", "b@example.org")], 2),
        ([SeatSpec("Ann", "a@example.org"), SeatSpec("Bo", "b@example.org")], True),
    ],
)
def test_a_roster_the_log_could_not_hold_is_refused(tmp_path, sqlite_db, specs, creator):
    runtime = make_runtime(sqlite_db, tmp_path, Clock())
    with pytest.raises(PbemError):
        runtime.service.create_game("pig", specs, {"target": 50}, creator_seat=creator)
    assert runtime.service.games() == []


class Table:
    """Drives seat changes at random through the rescue actions, as the operator, the
    seats' players, the deadline policy and newcomers would."""

    def __init__(self, runtime, clock, game_id: str, rng: random.Random):
        self.runtime, self.clock, self.game_id, self.rng = runtime, clock, game_id, rng
        self.invitations: list[str] = []
        self.newcomers = 0

    def seat(self) -> int:
        return self.rng.randrange(len(NAMES))

    def newcomer(self) -> tuple[str, str]:
        self.newcomers += 1
        return self.rng.choice(["Eve", "Fay", "Ann", "Gus"]), f"new{self.newcomers}@example.org"

    def step(self) -> str:
        runtime, game_id = self.runtime, self.game_id
        action = self.rng.choice(
            ["bot", "bot", "leave", "offer", "invite", "ask", "take", "take", "reclaim", "move"]
        )
        seat = self.seat()
        if action == "bot":
            level = self.rng.choice(["easy", "normal"])
            by = self.rng.choice([None, seat])
            rescue.hand_to_bot(runtime, game_id, seat, by=by, level=level)
        elif action == "leave":
            rescue.leave_game(runtime, game_id, seat, by=seat)
        elif action == "offer":
            rescue.offer_seat(runtime, game_id, seat)
        elif action == "invite":
            name, address = self.newcomer()
            outcome = invitations.invite_replacement(runtime, game_id, seat, name, address)
            self.invitations.append(outcome.token)
        elif action == "ask":
            open_seats = seat_links.open_seats(runtime, game_id)
            if open_seats:
                name, address = self.newcomer()
                target = self.rng.choice(open_seats).seat
                outcome = invitations.request_open_seat(runtime, game_id, target, name, address)
                self.invitations.append(outcome.token)
        elif action == "take" and self.invitations:
            token = self.invitations.pop(self.rng.randrange(len(self.invitations)))
            invitations.take_seat(runtime, token, self.rng.choice([None, "Zed"]))
        elif action == "reclaim":
            rescue.reclaim(runtime, game_id, seat, by=None)
        elif action == "move":
            head = runtime.service.head(game_id)
            due = sorted(head.engine.to_move(head.state))
            if due:
                move = self.rng.choice([{"type": "roll"}, {"type": "stop"}])
                runtime.service.submit_move(game_id, due[0], move, head.seq)
                runtime.service.play_bots(game_id)
        return action


@pytest.mark.parametrize("seed", range(6))
def test_random_seat_changes_keep_the_read_model_equal_to_the_fold(db, tmp_path, seed):
    clock = Clock()
    runtime = make_runtime(db, tmp_path, clock)
    specs = [SeatSpec(name, f"{name.lower()}@example.org") for name in NAMES]
    game_id = runtime.service.create_game("pig", specs, {"target": 10**6}).game_id
    table = Table(runtime, clock, game_id, random.Random(seed))
    steps = 40 if db.dialect.name == "sqlite" else 15
    kinds = set()
    for number in range(steps):
        clock.advance(hours=7)
        before = runtime.service.head(game_id).seq
        try:
            action = table.step()
        except PbemError:
            # A refused action changes nothing.
            assert runtime.service.head(game_id).seq == before
            action = "refused"
        kinds.add(action)
        folded, read = fold_and_read_model(runtime, game_id)
        assert roster_mod.same_holders(folded, read), (number, action, folded, read)
    assert len(kinds) >= 5
    events = runtime.service.events(game_id)
    assert roster_mod.SEAT_KINDS[0] in {row["kind"] for row in events}
    report = runtime.service.verify_game(game_id)
    assert report.ok and report.roster_in_chain
    assert report.roster == roster_mod.fold(events)


def test_each_seat_action_does_to_the_read_model_what_its_event_says(sqlite_db, tmp_path):
    clock = Clock()
    runtime = make_runtime(sqlite_db, tmp_path, clock)
    specs = [SeatSpec(name, f"{name.lower()}@example.org") for name in NAMES]
    game_id = runtime.service.create_game("pig", specs, {"target": 10**6}).game_id

    def check(kind: str, seat: int, **holder) -> None:
        events = runtime.service.events(game_id)
        last = [row for row in events if row["kind"] not in ("move", "auto_move")][-1]
        assert last["kind"] == kind and last["seat"] == seat
        folded, read = fold_and_read_model(runtime, game_id)
        assert roster_mod.same_holders(folded, read)
        for name, value in holder.items():
            assert getattr(folded.seats[seat], name) == value, (kind, name)

    rescue.hand_to_bot(runtime, game_id, 0, level="easy")
    check("seat_to_bot", 0, bot=True, level="easy", name="Ann")
    handed = [row for row in runtime.service.events(game_id) if row["kind"] == "seat_to_bot"]
    assert handed[-1]["payload"]["level"] == "easy"
    assert (
        describe_admin(handed[-1])
        == "An easy bot takes over Ann's seat (by the server's operator)."
    )
    rescue.reclaim(runtime, game_id, 0)
    check("seat_reclaimed", 0, bot=False, level="normal")
    rescue.leave_game(runtime, game_id, 0, by=0)
    # The bot that keeps a left seat going plays at the normal level, not the earlier one.
    check("seat_left", 0, bot=True, open=True, level="normal")
    rescue.offer_seat(runtime, game_id, 1)
    check("seat_offered", 1, bot=False, open=True)
    token = invitations.invite_replacement(runtime, game_id, 2, "Dee", "dee@example.org").token
    check("seat_offered", 2, open=True, name="Cy")
    invitations.take_seat(runtime, token)
    check("seat_taken", 2, name="Dee", bot=False, open=False, person=1)
    asked = invitations.request_open_seat(runtime, game_id, 0, "Ann", "ann@example.org").token
    invitations.take_seat(runtime, asked)
    check("seat_taken", 0, name="Ann", bot=False, open=False, person=0)
    for seat in range(len(NAMES)):
        assert runtime.service.seats(game_id)[seat].bot_level == "normal"
