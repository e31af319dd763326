"""How many "your turn" mails a Mare Nostrum player gets per game turn, without and with
the quiet window: one human seat among bots, played through the service with a clock.

The player comes back to each game turn after a long absence (hours), then plays its
phases one after another, a couple of minutes apart, as the bots answer at once. Without
a window every phase that finds the seat due is a mail (the complaint: 5 to 8 a turn);
with it, only the one that finds the player away.

``python -m tests.mail.test_quiet_volume [TURNS]`` prints the figures.
"""

from __future__ import annotations

import os
import random
import sys
from datetime import timedelta

import pytest
from sqlmodel import Session, col, func, select

from engines import bot_move
from pbem.games.service import SeatSpec
from pbem.mail.dispatch import dispatch
from pbem.mail.models import Mail
from tests.mail.conftest import Clock, make_runtime

AWAY = timedelta(hours=8)  # before the first phase of each game turn
AT_THE_TABLE = timedelta(minutes=2)  # before each later phase of the same turn
TURNS = 12 if os.environ.get("PBEM_SOAK") == "1" else 3


def mails_per_turn(runtime, clock, turns: int, seed: int = 7) -> tuple[float, int, int]:
    """Plays one game; returns (your-turn mails sent per game turn, mails, game turns)."""
    service = runtime.service
    specs = [SeatSpec("Anna", "anna@example.org")] + [
        SeatSpec(f"Bot {n}", is_bot=True) for n in (1, 2)
    ]
    created = service.create_game("mare_nostrum", specs, {"turn_limit": turns})
    service.play_bots(created.game_id, max_moves=20_000)
    rng = random.Random(seed)
    last_turn = None
    while True:
        head = service.head(created.game_id)
        if head.game.status != "active":
            break
        assert 0 in head.engine.to_move(head.state), "only the player can hold the game up"
        view = head.engine.view(head.state, 0)
        clock.advance(seconds=(AT_THE_TABLE if view["turn"] == last_turn else AWAY).seconds)
        dispatch(runtime)
        last_turn = view["turn"]
        move = bot_move(head.engine, view, head.engine.legal_moves(head.state, 0), rng)
        service.submit_move(created.game_id, 0, move, head.seq)
        service.play_bots(created.game_id, max_moves=20_000)
    clock.advance(seconds=AWAY.seconds)
    dispatch(runtime)
    with Session(runtime.db) as session:
        sent = session.exec(
            select(func.count())
            .select_from(Mail)
            .where(col(Mail.kind) == "your_turn", col(Mail.status) == "sent")
        ).one()
    played = int(service.head(created.game_id).engine.view(head.state, None)["turn"])
    return sent / played, sent, played


@pytest.mark.soak
@pytest.mark.parametrize("minutes", [0, 10])
def test_a_player_gets_about_one_mail_per_game_turn(sqlite_db, tmp_path, smtp, minutes):
    clock = Clock()
    runtime = make_runtime(sqlite_db, tmp_path, clock, smtp[1], mail={"quiet_minutes": minutes})
    per_turn, sent, played = mails_per_turn(runtime, clock, TURNS)
    if minutes:
        assert per_turn <= 1.0, f"{sent} mails in {played} turns"
        assert sent >= played - 1  # the turns that found the player away were still mailed
    else:
        assert per_turn >= 3.0, f"{sent} mails in {played} turns"


class Discard:
    """A sender that sends nothing (the measurement counts the rows marked sent)."""

    def send(self, message, mail, mail_from) -> None:
        return None

    def close(self) -> None:
        return None


if __name__ == "__main__":  # pragma: no cover - a measurement, not a test
    import tempfile
    from pathlib import Path

    from pbem.db import make_engine
    from pbem.mail import dispatch as dispatcher
    from pbem.migrations import migrate

    dispatcher.make_sender = lambda config: Discard()

    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    for minutes in (0, 10):
        with tempfile.TemporaryDirectory() as folder:
            engine = make_engine(f"sqlite:///{folder}/measure.sqlite3")
            migrate(engine)
            clock = Clock()
            runtime = make_runtime(
                engine, Path(folder), clock, None, mail={"quiet_minutes": minutes}
            )
            per_turn, sent, played = mails_per_turn(runtime, clock, turns)
            print(
                f"quiet_minutes={minutes}: {sent} your-turn mails in {played} game turns "
                f"= {per_turn:.1f} per turn"
            )
