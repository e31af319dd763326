"""History, audit and mail name who made each move as of that move (the roster then),
and mark the moves a bot made; personal data stays out of per-seat and public exports."""

from __future__ import annotations

import json
import re

from sqlmodel import Session

from pbem.games.invitations import invite_replacement, take_seat
from pbem.games.rescue import hand_to_bot
from pbem.games.tables import SeatClock
from pbem.games.vacations import start_vacation
from pbem.mail import history
from pbem.models import Seat
from tests.mail.conftest import new_game, take_turn

EVENT_LINE = re.compile(r'<p class="message" id="event-line"[^>]*>(.*?)</p>', re.S)
PLAYERS = re.compile(r'<ul class="players">(.*?)</ul>', re.S)


def moves_of(runtime, game_id: str, seat: int, kind: str = "move") -> list[int]:
    return [
        row["seq"]
        for row in runtime.service.events(game_id)
        if row["kind"] == kind and row["seat"] == seat
    ]


def step(client, game_id: str, seq: int) -> tuple[str, str]:
    page = client.get(f"/games/{game_id}/history?at={seq}")
    assert page.status_code == 200
    line = EVENT_LINE.search(page.text).group(1)
    # when: the turn, the phase and the time
    line = re.sub(r'<span class="muted">.*?</time></span> ', "", line, flags=re.S)
    return line, PLAYERS.search(page.text).group(1)


def test_a_replaced_players_moves_stay_theirs(runtime, app, clock):
    game_id = new_game(runtime, seats=3).game_id
    take_turn(runtime, game_id, rolls=1)
    anna = moves_of(runtime, game_id, 0)
    token = invite_replacement(runtime, game_id, 0, "Dee", "dee@example.org").token
    take_seat(runtime, token)
    for _ in range(3):
        take_turn(runtime, game_id, rolls=1)
    dee = [seq for seq in moves_of(runtime, game_id, 0) if seq not in anna]
    assert anna and dee
    client = app.test_client()
    for seq in anna:
        line, players = step(client, game_id, seq)
        assert line.startswith(f"#{seq} <strong>Anna</strong>: ")
        assert "Anna" in players and "Dee" not in players
        assert "bot" not in line and "bot" not in players
    for seq in dee:
        line, players = step(client, game_id, seq)
        assert line.startswith(f"#{seq} <strong>Dee</strong>: ")
        assert "Dee" in players and "Anna" not in players
    spectator = client.get(f"/games/{game_id}").text
    for seq in anna:
        assert re.search(rf'<li value="{seq}">.*?<strong>Anna</strong>', spectator)
    assert "(bot)" not in spectator and "played by a bot" not in spectator
    audit = client.get(f"/games/{game_id}/audit").text
    assert "The roster (who holds each seat) is in the hash chain and checked." in audit


def test_moves_a_bot_made_say_so_and_human_moves_never_do(runtime, app, clock):
    game_id = new_game(runtime, seats=3, policy={"at_deadline": "bot_turn"}).game_id
    take_turn(runtime, game_id, rolls=0)  # Anna stops
    hand_to_bot(runtime, game_id, 1, level="easy")  # the bot plays Ben's turn at once
    head = runtime.service.head(game_id)
    assert head.engine.to_move(head.state) == {2}
    # The deadline passed: a bot plays Cleo's turn for her.
    runtime.service.submit_move(
        game_id, 2, {"type": "stop"}, head.seq, kind="auto_move", actor="deadline"
    )
    take_turn(runtime, game_id, rolls=0)  # Anna again
    ben = moves_of(runtime, game_id, 1, "auto_move")
    cleo = moves_of(runtime, game_id, 2, "auto_move")
    anna = moves_of(runtime, game_id, 0)
    assert ben and cleo and len(anna) == 2
    client = app.test_client()
    for seq in ben:
        line, players = step(client, game_id, seq)
        assert line.startswith(f"#{seq} <strong>Ben (bot)</strong>: ")
        assert "played by a bot" not in line
    line, _ = step(client, game_id, cleo[0])
    assert line.startswith(f"#{cleo[0]} <strong>Cleo</strong>: ")
    assert line.endswith("(played by a bot for Cleo)")
    for seq in anna:
        line, _ = step(client, game_id, seq)
        assert line.startswith(f"#{seq} <strong>Anna</strong>: ") and "bot" not in line
    # Before the bot took Ben's seat, Ben's players entry was not marked bot.
    _, players = step(client, game_id, anna[0])
    assert "bot" not in players
    # Mail: what happened since Anna's first move, as she reads it.
    with Session(runtime.db) as session:
        game = runtime.service.game(game_id)
        engine = runtime.service.head(game_id).engine
        lines, _ = history.history(session, runtime, game, engine, 0, anna[0])
    # Each note sits on its move's own line, never on a line of its own.
    assert any(line.endswith(" (played by Ben, a bot)") for line in lines)
    assert any(line.endswith(" (played by a bot for Cleo)") for line in lines)
    assert not any(line.startswith("(played by") for line in lines)
    assert sum("played by" in line for line in lines) == len(ben) + len(cleo)


def test_no_personal_data_in_per_seat_or_public_exports(runtime, clock):
    game_id = new_game(runtime, seats=4).game_id
    start_vacation(runtime, game_id, 3, 2, by=3)
    with Session(runtime.db) as session:
        clock_row = session.get(SeatClock, (game_id, 3))
        paused = clock_row.paused_until
        for number, hour in enumerate([7, 8, 9, 21]):
            row = session.get(Seat, (game_id, number))
            row.mail_hour = hour
            session.add(row)
        session.commit()
    take_turn(runtime, game_id, rolls=1)
    seats = runtime.service.seats(game_id)
    personal = [row.email for row in seats] + [
        "Europe/Berlin",
        "America/New_York",
        "Asia/Tokyo",
        paused.isoformat()[:16],
        paused.strftime("%Y-%m-%dT%H:%M"),
    ]
    assert all(personal)

    def scan(text: str) -> None:
        for value in personal:
            assert value not in text, value
        data = json.loads(text)
        assert not {"email", "timezone", "mail_hour", "notify"} & set(data["game"])

    for seat in range(4):
        scan(runtime.service.export_text(game_id, seat=seat))
    for seat in range(4):
        hand_to_bot(runtime, game_id, seat)
    assert runtime.service.game(game_id).status == "finished"
    scan(runtime.service.export_text(game_id))
    scan(runtime.service.export_text(game_id, seat=1))
