"""``pbem sweep [--at ISO-TIME]``: one scheduler sweep and its mail, now or as if at an
instant, to rehearse a schedule; and ``pbem game policy|pause|resume``, the operator's
game-level actions. Mail goes through a real SMTP server on loopback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from aiosmtpd.controller import Controller
from sqlmodel import Session

from pbem.db import make_engine
from pbem.games.tables import SeatClock
from pbem.mail import budget
from pbem.models import Game
from tests.mail.conftest import Mailbox, free_port
from tests.pbem.test_cli import game_id_from, pbem


@pytest.fixture
def mailbox(monkeypatch) -> Iterator[Mailbox]:
    box = Mailbox()
    port = free_port()
    controller = Controller(box, hostname="127.0.0.1", port=port)
    controller.start()
    monkeypatch.setenv("PBEM_MAIL_HOST", "127.0.0.1")
    monkeypatch.setenv("PBEM_MAIL_PORT", str(port))
    monkeypatch.setenv("PBEM_MAIL_SECURITY", "none")
    yield box
    controller.stop()


def new_pig(database, capsys, *seats: str, target: int = 500) -> str:
    args = ["new", "pig", "--options", json.dumps({"target": target})]
    for seat in seats:
        args += ["--seat", seat]
    assert pbem(database, *args) == 0
    return game_id_from(capsys.readouterr().out)


def read(database, model, key):
    from pbem.runtime import build_runtime

    runtime = build_runtime({"database": {"url": database}})
    try:
        with Session(runtime.db) as session:
            return session.get(model, key)
    finally:
        runtime.db.dispose()


def events(database, capsys, game_id: str) -> list[dict]:
    path = f"{database.removeprefix('sqlite:///')}.{game_id}.json"
    assert pbem(database, "export", game_id, "--full", "-o", path) == 0
    capsys.readouterr()
    with open(path) as handle:
        return json.load(handle)["events"]


def aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def test_a_week_rehearsed_day_by_day(database, capsys, mailbox):
    game = new_pig(database, capsys, "Ann:ann@example.org", "Ben:ben@example.org")
    assert (
        pbem(
            database,
            "game",
            "policy",
            game,
            "--deadline-days",
            "1",
            "--reminder-after-hours",
            "6",
            "--reminder-every-hours",
            "6",
            "--at-deadline",
            "bot_turn",
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "The deadline policy was changed by the server's operator" in out
    assert "after 1 day a bot plays that turn" in out
    # A shorter policy applies from the next turn (Ann's running one keeps its week):
    # Ann ends her turn, and Ben's begins under the new policy.
    assert pbem(database, "move", game, "0", '{"type": "stop"}') == 0
    capsys.readouterr()
    start = aware(read(database, SeatClock, (game, 1)).turn_since)
    # Ben opened his seat's link (the mail budget holds mail to a seat never taken).
    engine = make_engine(database)
    with engine.begin() as connection:
        budget.mark_taken(connection, game, "ben@example.org", start)
    engine.dispose()
    reports = []
    # Four sweeps a day for a week: 6 h, 12 h, 18 h and 24 h (plus a minute) into each day.
    for step in range(1, 29):
        at = start + timedelta(hours=6 * step, minutes=1)
        assert pbem(database, "sweep", "--at", at.isoformat()) == 0
        reports.append(capsys.readouterr().out)
    assert reports[0].startswith(f"Sweep at {start + timedelta(hours=6, minutes=1):%Y-%m-%d %H:%M}")
    assert "1 reminders, 0 deadlines" in reports[0]
    # Each day: one reminder 6 hours into the turn; none in its last 12 hours; the
    # deadline at the end of the day, where a bot plays the turn and the other's begins.
    for day in range(7):
        quarter = reports[4 * day : 4 * day + 4]
        assert [" 1 reminders" in line for line in quarter] == [True, False, False, False]
        assert [" 1 deadlines" in line for line in quarter] == [False, False, False, True]
    assert all("0 failed" in line for line in reports)
    log = events(database, capsys, game)
    played = [row for row in log if row["actor"] == "deadline"]
    assert {row["seat"] for row in played} == {0, 1}
    assert len({row["created_at"][:16] for row in played}) == 7  # one bot turn a day
    # The mails that crossed the wire: reminders alternate, Ben's on days 1, 3, 5, 7.
    assert len(mailbox.to("ben@example.org", "reminder")) == 4
    assert len(mailbox.to("ann@example.org", "reminder")) == 3
    for address in ("ann@example.org", "ben@example.org"):
        late = mailbox.to(address, "deadline has passed")
        assert len(late) == 7
        assert "A bot plays this one turn" in late[0].get_body(("plain",)).get_content()
    # Every reminder came at least 12 hours before its turn's deadline (6 h into the turn).
    for message in mailbox.to("ben@example.org", "reminder"):
        sent = datetime.strptime(message["Date"], "%a, %d %b %Y %H:%M:%S %z")
        since = sent - start.replace(microsecond=0)  # the Date header has whole seconds
        assert since % timedelta(days=2) == timedelta(hours=6, minutes=1)


def test_sweep_at_reads_iso_times_and_refuses_bad_ones(database, capsys):
    new_pig(database, capsys, "Ann:ann@example.org", "bot")
    assert pbem(database, "sweep", "--at", "2026-12-01T10:00+01:00", "--no-send") == 0
    out = capsys.readouterr().out
    assert out.startswith("Sweep at 2026-12-01 09:00:00 UTC:") and "Mail:" not in out
    assert pbem(database, "sweep", "--at", "2026-12-01 09:30", "--no-send") == 0
    assert capsys.readouterr().out.startswith("Sweep at 2026-12-01 09:30:00 UTC:")
    for bad in ("tomorrow", "2026-13-01", "2026-12-01T25:00", "", "1e9"):
        assert pbem(database, "sweep", "--at", bad) == 2
        captured = capsys.readouterr()
        assert "is not an ISO 8601 time" in captured.err and captured.out == ""
    assert pbem(database, "sweep") == 0
    assert "Sweep at " in capsys.readouterr().out


def test_the_operators_game_commands(database, capsys, mailbox):
    game = new_pig(database, capsys, "Ann:ann@example.org", "Ben:ben@example.org")
    assert pbem(database, "game", "pause", game) == 0
    assert "The game was paused by the server's operator" in capsys.readouterr().out
    assert read(database, Game, game).paused_at is not None
    assert pbem(database, "move", game, "0", '{"type": "roll"}') == 1
    assert "paused" in capsys.readouterr().err
    assert pbem(database, "game", "pause", game) == 1
    assert "paused already" in capsys.readouterr().err
    assert pbem(database, "game", "resume", game) == 0
    assert "goes on again" in capsys.readouterr().out
    assert read(database, Game, game).paused_at is None
    policy = read(database, Game, game).policy
    for bad in (
        ["--deadline-days", "-1"],
        ["--reminder-after-hours", "soon"],
        [],
    ):
        assert pbem(database, "game", "policy", game, *bad) == 1
        assert capsys.readouterr().err.strip()
    assert read(database, Game, game).policy == policy
    assert pbem(database, "game", "pause", "nosuchgame") == 1
    assert pbem(database, "sweep") == 0
    capsys.readouterr()
    assert len(mailbox.to("ben@example.org", "is paused")) == 1
    assert len(mailbox.to("ann@example.org", "goes on")) == 1
