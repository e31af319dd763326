"""/metrics counts from the games table and the outbox's index, never the event log."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import event, func
from sqlmodel import Session, select

from pbem.games.service import SeatSpec
from pbem.mail.models import Mail
from pbem.models import Event
from pbem.runtime import build_runtime
from pbem.web import create_app


@pytest.fixture
def runtime(db, tmp_path):
    return build_runtime(
        {"security": {"secret_key": "k"}, "paths": {"var": str(tmp_path / "var")}}, db=db
    )


def metric(text: str, name: str) -> int:
    return int(re.search(rf"^{re.escape(name)} (\d+)$", text, re.M).group(1))


def test_metrics_agree_with_the_tables_without_reading_the_log(runtime):
    service = runtime.service
    for number in range(3):
        seats = [SeatSpec("A", f"a{number}@example.org"), SeatSpec("Bot", is_bot=True)]
        created = service.create_game("pig", seats, {"target": 12 if number else 10**6})
        service.play_bots(created.game_id)
        if number:  # two games played out by a bot and a player who always stops
            while service.game(created.game_id).status == "active":
                head = service.head(created.game_id)
                seat = min(head.engine.to_move(head.state))
                service.submit_move(created.game_id, seat, {"type": "roll"}, head.seq)
                service.play_bots(created.game_id)
    with Session(runtime.db) as session:
        events = session.exec(select(func.count()).select_from(Event)).one()
        mails = dict(session.exec(select(Mail.status, func.count()).group_by(Mail.status)).all())
        outbox = session.exec(select(func.count()).select_from(Mail)).one()
    assert events > 3 and outbox
    statements = []

    def capture(_conn, _cursor, statement, *_args):
        statements.append(statement)

    client = create_app(runtime=runtime).test_client()
    event.listen(runtime.db, "before_cursor_execute", capture)
    try:
        text = client.get("/metrics").get_data(as_text=True)
    finally:
        event.remove(runtime.db, "before_cursor_execute", capture)
    assert metric(text, "pbem_events_appended_total") == events
    assert metric(text, 'pbem_games{status="active"}') == 1
    assert metric(text, 'pbem_games{status="finished"}') == 2
    for status in ("pending", "sending", "sent", "failed"):
        assert metric(text, f'pbem_mails{{status="{status}"}}') == mails.get(status, 0)
    assert not any(re.search(r"\bFROM events\b", statement) for statement in statements)
    assert not any("GROUP BY mail_outbox" in statement for statement in statements)
