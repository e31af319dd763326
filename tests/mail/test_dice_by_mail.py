"""A player who plays by mail only gives no contribution to the dice: the server draws
one for the seat, marked so in the log, just before its first move by mail."""

from __future__ import annotations

import json

from pbem.cli import main
from pbem.games.service import SeatSpec
from pbem.mail.dispatch import dispatch
from tests.mail.inbound_helpers import (
    listed_moves,
    reply_runtime,
    reply_to,
    send_lmtp,
    start_lmtp,
    tag_seq,
)

BEN = "ben@example.org"


def test_a_mail_only_players_contribution_is_drawn_by_the_server(sqlite_db, tmp_path, clock, smtp):
    mailbox, smtp_port = smtp
    runtime = reply_runtime(sqlite_db, tmp_path, clock, smtp_port)
    listener, port = start_lmtp(runtime)
    try:
        seats = [SeatSpec("Anna", "anna@example.org"), SeatSpec("Ben", BEN)]
        game_id = runtime.service.create_game("pig", seats, {"target": 40}).game_id
        assert runtime.service.needs_contribution(game_id, 1)
        runtime.service.submit_move(game_id, 0, {"type": "stop"}, 0)  # Ben's turn
        dispatch(runtime)
        mine = [m for m in mailbox.messages if m["To"] == BEN and m["Reply-To"] and listed_moves(m)]
        newest = max(mine, key=tag_seq)
        refused = send_lmtp(
            port, reply_to(newest, ["Roll the die"], BEN, 0), str(newest["Reply-To"])
        )
        assert refused == {}
        events = runtime.service.events(game_id, after=1)
        assert [row["kind"] for row in events] == ["contribution", "move"]
        given, move = events
        assert given["seat"] == 1 and given["payload"]["by"] == "server"
        assert given["payload"]["role"] == "player" and given["actor"] == "mail"
        assert move["seat"] == 1 and move["actor"] == "mail"
        assert not runtime.service.needs_contribution(game_id, 1)
        path = tmp_path / "game.json"
        path.write_text(json.dumps(runtime.service.export_game(game_id, full=True)))
        assert main(["verify", str(path)]) == 0
    finally:
        listener.stop()
