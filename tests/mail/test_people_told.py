"""Everyone who held a seat is kept informed: who stops holding a seat is recorded as a
former player (with why and at which event), each seat change tells the affected
player what happened, why, by whom and what they can do, and the game-over mail
reaches every person who held a seat, once per address."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from pbem.games import invitations, rescue
from pbem.games.tables import FormerPlayer
from pbem.mail.models import Mail
from pbem.scheduler import dispatch
from tests.mail.conftest import new_game, part


def formers(runtime, game: str) -> list[tuple]:
    with Session(runtime.db) as session:
        rows = session.exec(
            select(FormerPlayer).where(FormerPlayer.game_id == game).order_by(FormerPlayer.id)
        )
        return [
            (row.seat, row.name, row.email, row.timezone, row.reason, row.left_seq) for row in rows
        ]


def kind_at(runtime, game: str, seq: int) -> str:
    return runtime.service.events(game, after=seq - 1, upto=seq)[0]["kind"]


def test_who_stops_holding_a_seat_is_recorded_with_why_and_when(runtime):
    game = new_game(runtime, seats=3).game_id
    left = rescue.leave_game(runtime, game, 0, by=0).seq
    offered = rescue.offer_seat(runtime, game, 1).seq
    replaced = invitations.invite_replacement(runtime, game, 2, "Zoe", "zoe@example.org").seq
    assert formers(runtime, game) == [
        (0, "Anna", "anna@example.org", "Europe/Berlin", "left", left),
        (1, "Ben", "ben@example.org", "America/New_York", "offered", offered),
        (2, "Cleo", "cleo@example.org", "UTC", "replaced", replaced),
    ]
    assert [kind_at(runtime, game, seq) for seq in (left, offered, replaced)] == [
        "seat_left",
        "seat_offered",
        "seat_offered",
    ]
    # A seat that waits already has nobody to record: a newcomer named for it later
    # adds no former player.
    invitations.invite_replacement(runtime, game, 0, "Yan", "yan@example.org")
    assert len(formers(runtime, game)) == 3
    # A seat handed to a bot keeps its player: not a former player.
    game2 = new_game(runtime, seats=3).game_id
    rescue.hand_to_bot(runtime, game2, 1, by=None)
    assert formers(runtime, game2) == []


def test_a_player_who_takes_their_seat_again_is_no_longer_a_former_player(runtime):
    game = new_game(runtime, seats=3).game_id
    rescue.leave_game(runtime, game, 0, by=0)
    assert len(formers(runtime, game)) == 1
    asked = invitations.request_open_seat(runtime, game, 0, "Anna", "anna@example.org")
    assert invitations.take_seat(runtime, asked.token).done
    assert formers(runtime, game) == []
    assert runtime.service.seats(game)[0].email == "anna@example.org"


def _bot_by_operator(runtime, game):
    rescue.hand_to_bot(runtime, game, 1, by=None)


def _bot_at_deadline(runtime, game):
    rescue.hand_to_bot(runtime, game, 1, claim=lambda session: None)


def _reclaim_by_operator(runtime, game):
    rescue.hand_to_bot(runtime, game, 1, by=1)
    rescue.reclaim(runtime, game, 1, by=None)


def _reclaim_by_player(runtime, game):
    rescue.hand_to_bot(runtime, game, 1, by=1)
    rescue.reclaim(runtime, game, 1, by=1)


def _replaced_by_operator(runtime, game):
    invitations.invite_replacement(runtime, game, 1, "Zoe", "zoe@example.org", by=None)


def _offered_at_deadline(runtime, game):
    rescue.offer_seat(runtime, game, 1)


def _left(runtime, game):
    rescue.leave_game(runtime, game, 1, by=1)


CASES = {
    # action: (the subject's words, what the mail must say: what, why/by whom, what to do)
    "bot by operator": (
        _bot_by_operator,
        "bot takes over",
        ["a bot plays your seat", "by the server's operator", "Take my seat back"],
    ),
    "bot at deadline": (
        _bot_at_deadline,
        "bot takes over",
        ["a bot plays your seat", "because your turn's deadline passed", "Take my seat back"],
    ),
    "reclaim by operator": (
        _reclaim_by_operator,
        "",
        ["Your seat is yours again", "by the server's operator", "fresh link", "/play/"],
    ),
    "reclaim by player": (
        _reclaim_by_player,
        "",
        ["Your seat is yours again", "at your own request", "fresh link", "/play/"],
    ),
    "replaced by operator": (
        _replaced_by_operator,
        "offered",
        ["given to a new player", "by the server's operator", "invite you back"],
    ),
    "offered at deadline": (
        _offered_at_deadline,
        "offered",
        ["deadline of your turn passed", "ask for it there", "http://pbem.test/games/"],
    ),
    "left": (_left, "leaves", ["You left", "ask for it there", "http://pbem.test/games/"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_affected_player_is_told_what_why_by_whom_and_what_to_do(runtime, mailbox, case):
    action, subject, phrases = CASES[case]
    game = new_game(runtime, seats=3).game_id
    dispatch(runtime)
    told_before = len(mailbox.to("ben@example.org"))
    action(runtime, game)
    dispatch(runtime)
    mails = mailbox.to("ben@example.org")[told_before:]
    assert mails, f"{case}: Ben was told nothing"
    last = mails[-1]
    assert subject.lower() in last["Subject"].lower()
    text = " ".join(part(last, "plain").split())
    for phrase in phrases:
        assert phrase in text, f"{case}: {phrase!r} missing from {text!r}"


def test_game_over_reaches_every_person_who_held_a_seat_once_per_address(runtime, mailbox):
    game = new_game(runtime, seats=3, target=40).game_id
    rescue.leave_game(runtime, game, 0, by=0)  # Anna: a former player
    invited = invitations.invite_replacement(runtime, game, 1, "Zoe", "zoe@example.org")
    invitations.take_seat(runtime, invited.token)  # Ben: a former player of seat 1 ...
    asked = invitations.request_open_seat(runtime, game, 0, "Ben", "ben@example.org")
    invitations.take_seat(runtime, asked.token)  # ... who holds seat 0 now
    rescue.hand_to_bot(runtime, game, 2, by=None)  # Cleo still holds seat 2
    rescue.hand_to_bot(runtime, game, 1, by=1)  # Zoe still holds seat 1
    rescue.hand_to_bot(runtime, game, 0, by=0)
    assert runtime.service.game(game).status == "finished"
    dispatch(runtime)
    with Session(runtime.db) as session:
        over = session.exec(select(Mail).where(Mail.game_id == game, Mail.kind == "game_over"))
        recipients = sorted(mail.recipient for mail in over)
    assert recipients == [
        "anna@example.org",
        "ben@example.org",
        "cleo@example.org",
        "zoe@example.org",
    ]
    seed = runtime.service.events(game)[-1]["payload"]["seed"]
    for address in recipients:
        (mail,) = [m for m in mailbox.to(address) if "game is over" in m["Subject"]]
        assert seed in part(mail, "plain")
    # Anna, a former player, gets no link to a seat that is not hers.
    (anna,) = [m for m in mailbox.to("anna@example.org") if "game is over" in m["Subject"]]
    assert "/play/" not in part(anna, "plain")
