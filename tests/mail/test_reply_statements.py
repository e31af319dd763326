"""A reply by mail is one unit of work: one load of the game, one apply, one answer.

A one-line reply that plays a move costs at most :data:`STATEMENTS` statements in at
most :data:`TRANSACTIONS` transactions, its answer mail and the next seat's turn mail
included, whether the seat keeps the turn (the answer lists its moves again) or passes
it. Counted as ``tests/mail/test_statements.py`` counts a move: ``before_cursor_execute``
without SQLite's own ``BEGIN``, and the connections' ``begin`` events. Each reply is
taken as ``pbem receive`` takes it, in a process that has not seen the seat before (the
seat is marked taken again)."""

from __future__ import annotations

import json
import uuid
from email.message import EmailMessage

from sqlalchemy import event
from sqlmodel import Session, select

from pbem.mail.inbound import receive, tags
from pbem.mail.models import InboundMessage, Mail
from tests.mail.conftest import as_sent, make_runtime, new_game
from tests.mail.inbound_helpers import REPLY, SENDER

STATEMENTS = 12
TRANSACTIONS = 3
POLICY = {"reminder_after_hours": 6, "deadline_after_days": 3}


def a_reply(runtime, game_id: str, seat: int, seq: int, move: dict) -> bytes:
    message = EmailMessage()
    message["From"] = f"{['Anna', 'Ben'][seat]} <{['anna', 'ben'][seat]}@example.org>"
    message["To"] = tags.reply_address(runtime.config, runtime.secret_key, game_id, seat, seq)
    message["Subject"] = "Re: your turn"
    message["Message-ID"] = f"<{uuid.uuid4().hex}@mail.example.org>"
    message.set_content(json.dumps(move) + "\n\n> Your moves.\n")
    return bytes(message)


def test_a_one_line_reply_is_one_load_one_apply_one_answer(db, tmp_path, clock):
    runtime = make_runtime(db, tmp_path, clock, mail={"reply_address": REPLY, "sender": SENDER})
    created = new_game(runtime, seats=2, target=10**6, policy=POLICY)
    game_id, service = created.game_id, runtime.service
    # A seat's first reply also records the contribution to the dice the server draws
    # for it (once per seat); what is counted here is every reply after.
    for seat in range(1, 2):
        service.contribute(game_id, seat, None, "server")
    statements: list[str] = []
    begun: list[int] = []

    def statement(_conn, _cursor, sql, *_):
        if sql.split()[0].upper() != "BEGIN":
            statements.append(sql.split()[0].upper())

    def begin(_conn):
        begun.append(1)

    counted: dict[str, list] = {"keeps": [], "passes": []}
    event.listen(runtime.db, "before_cursor_execute", statement)
    event.listen(runtime.db, "begin", begin)
    try:
        for number in range(12):
            head = service.head(game_id)
            seat = min(head.engine.to_move(head.state))
            move = {"type": "stop"} if number % 3 == 2 else {"type": "roll"}
            raw = a_reply(runtime, game_id, seat, head.seq, move)
            runtime.extras.pop("budget_taken", None)  # a process of its own, as `pbem receive`
            statements.clear()
            begun.clear()
            taken = receive.take(runtime, raw)
            cost = (len(begun), statements[:])
            assert taken.outcome == "applied", taken
            after = service.head(game_id)
            counted["keeps" if seat in after.engine.to_move(after.state) else "passes"].append(cost)
    finally:
        event.remove(runtime.db, "before_cursor_execute", statement)
        event.remove(runtime.db, "begin", begin)
    assert counted["keeps"] and counted["passes"]
    for transactions, made in counted["keeps"] + counted["passes"]:
        assert len(made) <= STATEMENTS, made
        assert transactions <= TRANSACTIONS, (transactions, made)
        assert made.count("SELECT") == 1, (transactions, made)  # the one load
    with Session(runtime.db) as session:
        answers = session.exec(select(Mail).where(Mail.kind == "answer").order_by(Mail.id)).all()
        records = session.exec(select(InboundMessage)).all()
        # The answer that lists the seat's moves again is the only mail of its turn.
        dropped = session.exec(select(Mail).where(Mail.status == "dropped")).all()
    assert len(answers) == 12 and {record.outcome for record in records} == {"applied"}
    assert not [mail for mail in dropped if mail.kind != "your_turn"]
    text = as_sent(runtime, answers[:1])[0].body_text
    assert "Your reply made this move:" in text and "Roll" in text
