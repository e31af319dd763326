"""Rescuing a whole game and refusing bad rescue requests."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from pbem.errors import BadInput, NotFound, Rejected
from pbem.games.admin_lines import describe_admin
from pbem.games.invitations import invite_replacement, take_seat
from pbem.games.rescue import hand_to_bot, reclaim
from pbem.mail.models import Mail
from pbem.scheduler import dispatch
from tests.databases import sqlite_engine
from tests.mail.conftest import make_runtime, new_game, take_turn


@pytest.fixture
def other_db(tmp_path):
    engine = sqlite_engine(tmp_path / "elsewhere.sqlite3")
    yield engine
    engine.dispose()


def test_an_abandoned_game_is_exported_imported_elsewhere_and_continued(
    runtime, other_db, tmp_path, clock, mailbox
):
    game = new_game(runtime, seats=3).game_id
    for _ in range(4):
        take_turn(runtime, game)
    exported = runtime.service.export_game(game, full=True)
    port = runtime.config["mail"]["port"]
    elsewhere = make_runtime(other_db, tmp_path / "elsewhere", clock, port)
    assert elsewhere.service.import_game(exported) == game
    due = elsewhere.service.game(game).to_move[0]
    tokens = {}
    for seat, name in enumerate(["Anna", "Ben", "Cleo"]):
        outcome = invite_replacement(elsewhere, game, seat, name, f"{name.lower()}2@example.org")
        assert outcome.done
        assert take_seat(elsewhere, outcome.token).done
        tokens[seat] = outcome.token
    dispatch(elsewhere)
    invite = mailbox.to("anna2@example.org", "offered to you")[0]
    assert tokens[0] in invite.get_body(preferencelist=("plain",)).get_content()
    assert elsewhere.service.seat_for_token(tokens[due]).seat == due
    before = elsewhere.service.head(game).seq
    take_turn(elsewhere, game)
    assert elsewhere.service.head(game).seq > before
    assert elsewhere.service.verify_game(game).ok
    history = [describe_admin(row) for row in elsewhere.service.events(game)]
    first = runtime.service.seats(game)[0].name
    assert elsewhere.service.seats(game)[0].name == "Anna"
    assert first == "Anna"
    assert (
        "Anna's seat is offered to Anna (by the server's operator); the old link no longer works."
        in history
    )
    assert "A new player, also called Anna, takes over the seat." in history
    assert "Anna takes over Anna's seat" not in " ".join(history)


def test_bad_rescue_requests_are_refused_and_change_nothing(runtime):
    game = new_game(runtime, seats=3).game_id
    head = runtime.service.head(game).seq
    with pytest.raises(NotFound):
        hand_to_bot(runtime, game, 7, by=0)
    with pytest.raises(NotFound):
        hand_to_bot(runtime, "nosuchgame", 0, by=0)
    with pytest.raises(BadInput):
        hand_to_bot(runtime, game, "1", by=0)
    with pytest.raises(BadInput):
        hand_to_bot(runtime, game, 1, by=9)
    with pytest.raises(Rejected):
        reclaim(runtime, game, 1, by=1)
    with pytest.raises(BadInput):
        invite_replacement(runtime, game, 1, "Eve", "not an address", by=0)
    assert runtime.service.head(game).seq == head
    with Session(runtime.db) as session:
        assert [m.kind for m in session.exec(select(Mail))] == ["invitation"] * 3
