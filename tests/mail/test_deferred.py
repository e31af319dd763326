"""Your-turn mails are rendered after the move: the move's transaction records only what
to send; the dispatcher renders it from the game as it was at the recorded head, and the
stored body, like every stored body, opens nothing."""

from __future__ import annotations

from sqlmodel import Session, col, select

from pbem.mail import deferred, history
from pbem.mail.dispatch import dispatch
from pbem.mail.models import Mail
from pbem.models import Event
from tests.mail.conftest import new_game, part, take_turn


def turn_mails(runtime) -> list[Mail]:
    with Session(runtime.db) as session:
        query = select(Mail).where(Mail.kind == "your_turn").order_by(col(Mail.id))
        return list(session.exec(query))


def roll_then_stop(runtime, game_id: str) -> int:
    """The seat to move rolls twice and stops (or busts); returns the seat now due."""
    take_turn(runtime, game_id, rolls=2)
    head = runtime.service.head(game_id)
    return min(head.engine.to_move(head.state))


def test_the_move_records_only_what_to_send(runtime):
    created = new_game(runtime, seats=2)
    due = roll_then_stop(runtime, created.game_id)
    [mail] = turn_mails(runtime)
    assert deferred.is_deferred(mail)
    assert mail.seat == due and mail.recipient == ["anna", "ben"][due] + "@example.org"
    assert mail.body_html == "" and mail.unsubscribe == ""
    assert "http" not in mail.body_text
    assert not any(token and token in mail.body_text for token in created.tokens)


def test_the_dispatcher_renders_the_lines_as_of_the_recorded_head(runtime, mailbox):
    created = new_game(runtime, seats=2)
    due = roll_then_stop(runtime, created.game_id)
    address = ["anna", "ben"][due] + "@example.org"
    recorded = runtime.service.head(created.game_id)
    # The game goes on before the mail is sent: the seat due rolls.
    runtime.service.submit_move(created.game_id, due, {"type": "roll"}, recorded.seq)
    dispatch(runtime)
    [message] = mailbox.to(address, "your turn")[:1]
    text = part(message, "plain")
    assert "From your last move on:" in text
    assert recorded.hash in text and f"/play/{created.tokens[due]}" in text
    with Session(runtime.db) as session:
        later = session.get(Event, (created.game_id, recorded.seq + 1))
    assert later.hash not in text
    stored = turn_mails(runtime)[0]
    assert stored.status == "sent" and not deferred.is_deferred(stored)
    assert recorded.hash in stored.body_text and "{sealed:" in stored.body_text
    assert created.tokens[due] not in stored.body_text + stored.body_html + stored.unsubscribe
    assert f"/play/{created.tokens[due]}" in deferred.opened(runtime, stored)[0]


def test_a_deferred_mail_whose_game_is_gone_fails_alone(runtime, mailbox):
    created = new_game(runtime, seats=2)
    roll_then_stop(runtime, created.game_id)
    with Session(runtime.db) as session:
        mail = session.exec(select(Mail).where(Mail.kind == "your_turn")).first()
        mail.body_text = deferred.DEFERRED + '{"from": 0, "upto": 999, "others": []}'
        session.add(mail)
        session.commit()
    report = dispatch(runtime)
    assert report.failed == 1 and report.sent >= 2  # the invitations still go out
    failed = turn_mails(runtime)[0]
    assert failed.status == "failed" and failed.last_error.startswith("unbuildable:")


def test_the_game_over_mail_tells_the_final_move(runtime):
    from html import unescape

    from pbem.models import Seat

    created = new_game(runtime, seats=2, target=3)
    for _ in range(200):
        head = runtime.service.head(created.game_id)
        if head.game.status != "active":
            break
        take_turn(runtime, created.game_id, rolls=3)
    assert runtime.service.game(created.game_id).status == "finished"
    with Session(runtime.db) as session:
        game = runtime.service.store.game(session, created.game_id)
        engine = runtime.service.store.head(session, game.id).engine
        for seat in session.exec(select(Seat).where(Seat.game_id == game.id)):
            lines = history.since_last_move(session, runtime, game, engine, seat)
            mail = session.exec(
                select(Mail).where(Mail.kind == "game_over", Mail.seat == seat.seat)
            ).one()
            assert lines and all(unescape(line) in mail.body_text for line in lines)
