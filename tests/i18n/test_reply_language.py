"""A reply by mail may name a move as the seat's own mail lists it: in the seat's
language (the list's label, translated), as well as in English, by code or as JSON."""

from __future__ import annotations

from sqlmodel import Session, select

from pbem.games import names
from pbem.games.service import SeatSpec
from pbem.i18n import localize
from pbem.mail.dispatch import build_message
from pbem.mail.inbound.receive import take
from pbem.mail.models import Mail
from tests.mail.conftest import Clock, as_sent
from tests.mail.inbound_helpers import reply_runtime, reply_to


def test_a_german_seat_names_its_move_in_german(sqlite_db, tmp_path):
    runtime = reply_runtime(sqlite_db, tmp_path, Clock(), None)
    specs = [
        SeatSpec("Anna", "anna@example.org", language="de"),
        SeatSpec("Ben", "ben@example.org"),
    ]
    created = runtime.service.create_game("mercatores", specs, {})
    head = runtime.service.head(created.game_id)
    due = sorted(head.engine.to_move(head.state))[0]
    assert due == 0  # Anna's, the German seat's, is the first move
    address = specs[due].email
    view = head.engine.view(head.state, due)
    move = head.engine.legal_moves(head.state, due)[-1]
    label = names.fill(head.engine.move_label(move, view), ["Anna", "Ben"], names.marks_of(view))
    german = localize(label, "de")
    assert german != label  # the label is translated: the test names a German move
    with Session(runtime.db) as session:
        rows = session.exec(
            select(Mail).where(Mail.recipient == address, Mail.kind == "invitation")
        ).all()
        [invitation] = as_sent(runtime, list(rows))
    taken = take(runtime, reply_to(build_message(runtime, invitation), [german.upper()], address))
    assert taken.outcome == "applied", taken.detail
    after = runtime.service.head(created.game_id)
    assert after.seq > head.seq
