"""Reminder floods: a stranger's address named as a player gets its invitation and at
most two reminders, ever; any address at most a day's budget of one game's mail. Mail
over budget stays in the outbox as ``held``, with why."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from sqlmodel import Session, select

from pbem.games import policy
from pbem.games.service import SeatSpec
from pbem.mail import outbox, seat_mails
from pbem.mail.dispatch import dispatch
from pbem.mail.models import Mail
from pbem.scheduler import sweep
from tests.mail.conftest import make_runtime, new_game

# Reminders at every sweep: the budget must hold whatever the policy, so these tests lift
# the policy's floors (a game may carry an older policy, and the floors may change).
EAGER = {"reminder_after_hours": 0.01, "reminder_every_hours": 0.01}


@pytest.fixture(autouse=True)
def no_policy_floors(monkeypatch):
    monkeypatch.setattr(policy, "POLICY_FLOORS", dict.fromkeys(policy.POLICY_FLOORS, 0))


def run_for(runtime, clock, hours: float, every_minutes: float = 15) -> None:
    """Sweeps and sends every few minutes for ``hours``."""
    for _ in range(int(hours * 60 / every_minutes)):
        clock.advance(minutes=every_minutes)
        sweep(runtime)
        dispatch(runtime)


def rows_to(runtime, address: str) -> list[Mail]:
    with Session(runtime.db) as session:
        return list(session.exec(select(Mail).where(Mail.recipient == address)))


def seat_link(runtime, game_id: str, seat: int) -> str:
    from pbem.models import Seat

    with Session(runtime.db) as session:
        token = seat_mails.seat_token(session, runtime, session.get(Seat, (game_id, seat)))
    return f"/play/{token}"


def test_a_stranger_named_as_a_player_gets_three_mails_in_a_day(runtime, clock, mailbox, app):
    # Ben creates the game and names Anna, a stranger: her seat is due first, and she
    # never opens its link.
    specs = [SeatSpec(name, f"{name.lower()}@example.org") for name in ("Anna", "Ben")]
    game = runtime.service.create_game("pig", specs, {"target": 30}, policy=EAGER, creator_seat=1)
    dispatch(runtime)
    run_for(runtime, clock, 24)
    kinds = [message["Subject"] for message in mailbox.to("anna@example.org")]
    assert len(kinds) == 3, kinds
    sent = Counter(row.kind for row in rows_to(runtime, "anna@example.org") if row.status == "sent")
    assert sent == {"invitation": 1, "reminder": 2}
    # Once the budget is spent the sweep writes no more reminders (the outbox does not
    # fill with mail that cannot go); any other mail of the game to her is held.
    assert len(rows_to(runtime, "anna@example.org")) == 3
    with Session(runtime.db) as session:
        session.add(
            outbox.new_mail(
                runtime,
                "notice",
                "more",
                "anna@example.org",
                "Hi",
                "Hi",
                "<p>Hi</p>",
                "",
                game.game_id,
                0,
            )
        )
        session.commit()
    dispatch(runtime)
    assert len(mailbox.to("anna@example.org")) == 3
    held = [row for row in rows_to(runtime, "anna@example.org") if row.status == "held"]
    assert len(held) == 1
    assert held[0].last_error.startswith(
        "over budget: anna@example.org has not taken its seat; it got its invitation and 2 more"
    )
    client = app.test_client()
    listing = client.get("/dev/mail").get_data(as_text=True)
    assert "held" in listing and "over budget: anna@example.org" in listing
    metrics = client.get("/metrics").get_data(as_text=True)
    assert f'status="held"}} {len(held)}' in metrics
    # Once she opens her link, her mail goes out again (within the day's budget).
    assert client.get(seat_link(runtime, game.game_id, 0)).status_code == 200
    run_for(runtime, clock, 1)
    assert len(mailbox.to("anna@example.org")) > 3


def test_a_player_gets_at_most_the_day_s_budget_of_one_game(runtime, clock, mailbox, app):
    clock.now = clock.now.replace(hour=1)
    game = new_game(runtime, policy=EAGER)
    app.test_client().get(seat_link(runtime, game.game_id, 0))  # Anna takes her seat
    dispatch(runtime)
    run_for(runtime, clock, 22.75)  # 01:00 to 23:45
    assert len(mailbox.to("anna@example.org")) == 24
    assert not [row for row in rows_to(runtime, "anna@example.org") if row.status == "held"]
    # The day's budget is spent: a notice is held, the result goes all the same.
    with Session(runtime.db) as session:
        for kind in ("notice", "game_over"):
            session.add(
                outbox.new_mail(
                    runtime,
                    kind,
                    kind,
                    "anna@example.org",
                    kind,
                    "Hi",
                    "<p>Hi</p>",
                    "",
                    game.game_id,
                    None,
                )
            )
        session.commit()
    dispatch(runtime)
    assert mailbox.to("anna@example.org")[-1]["Subject"] == "game_over"
    held = [row for row in rows_to(runtime, "anna@example.org") if row.status == "held"]
    assert [row.kind for row in held] == ["notice"]
    assert held[0].last_error == (
        "over budget: anna@example.org got 24 mails of this game today (UTC)"
    )
    run_for(runtime, clock, 1.25)  # to 01:00 the next day: a new day's budget
    days = Counter(
        f"{row.sent_at:%Y-%m-%d}"
        for row in rows_to(runtime, "anna@example.org")
        if row.sent_at and row.kind != "game_over"
    )
    assert sorted(days.values()) == [5, 24], days  # the next day: 00:00 to 01:00, 5 sweeps


def test_the_budget_counts_one_person_across_plus_tags_and_case(runtime, clock, mailbox):
    game = new_game(runtime, policy=EAGER)
    dispatch(runtime)
    with Session(runtime.db) as session:
        for number, address in enumerate(
            ["Ben+1@example.org", "BEN+2@Example.org", "ben@example.org"]
        ):
            session.add(
                outbox.new_mail(
                    runtime,
                    "reminder",
                    f"extra:{number}",
                    address,
                    "Hi",
                    "Hi",
                    "<p>Hi</p>",
                    "",
                    game.game_id,
                    1,
                )
            )
        session.commit()
    dispatch(runtime)
    sent = [message["To"] for message in mailbox.messages if "ben" in message["To"].lower()]
    assert len(sent) == 3  # the invitation and two more, whichever spelling


def test_two_dispatchers_at_once_keep_to_the_budget(db, tmp_path, clock, smtp):
    runtime = make_runtime(
        db, tmp_path, clock, smtp[1], limits={"mails_per_address_per_game_per_day": 5}
    )
    game = new_game(runtime)
    with Session(runtime.db) as session:
        session.exec(select(Mail)).all()
        for row in session.exec(select(Mail)):
            session.delete(row)  # only the mails below
        for number in range(20):
            session.add(
                outbox.new_mail(
                    runtime,
                    "notice",
                    f"n:{number}",
                    "cleo@example.org",
                    "Hi",
                    "Hi",
                    "<p>Hi</p>",
                    "",
                    game.game_id,
                    None,
                )
            )
        session.commit()
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    def one_pass() -> None:
        try:
            start.wait()
            dispatch(runtime, limit=10)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=one_pass) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    statuses = Counter(row.status for row in rows_to(runtime, "cleo@example.org"))
    assert statuses == {"sent": 5, "held": 15}, statuses
    assert len(smtp[0].to("cleo@example.org")) == 5
