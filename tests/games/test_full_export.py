"""A full export carries the game's people (its ``personal`` section); an import puts
every one of them back, appends no event, hands out fresh links and refuses malformed
personal data without writing anything."""

from __future__ import annotations

import copy
import json

import pytest
from sqlmodel import Session, select

from pbem.db import make_engine
from pbem.errors import BadInput
from pbem.games import invitations, rescue, vacations
from pbem.games.portable import import_full
from pbem.games.tables import FormerPlayer, RescueVote, SeatClock, SeatOffer
from pbem.mail.models import Mail
from pbem.models import Event, Game, Seat
from pbem.scheduler import dispatch
from tests.databases import sqlite_engine
from tests.mail.conftest import make_runtime, new_game, part, take_turn

POLICY = {
    "reminder_after_hours": 6,
    "reminder_every_hours": 12,
    "deadline_after_days": 3,
    "at_deadline": "wait",
}


@pytest.fixture
def elsewhere(tmp_path, clock, smtp):
    """A second server: its own (empty) database, the same SMTP server."""
    engine = sqlite_engine(tmp_path / "elsewhere.sqlite3")
    yield make_runtime(engine, tmp_path / "elsewhere", clock, smtp[1])
    engine.dispose()


def table(runtime, clock) -> str:
    """A running game with something of everything personal: zones, a digest reader
    with a mail hour, a vacation, a pending invitation (its old player now a former
    player), an open vote, a custom policy."""
    game = new_game(runtime, seats=3, policy=POLICY).game_id
    take_turn(runtime, game)
    with Session(runtime.db) as session:
        cleo = session.get(Seat, (game, 2))
        cleo.notify, cleo.mail_hour, cleo.talk_mail = "digest", 7, "digest"
        cleo.language = "pl"
        session.add(cleo)
        session.add(
            RescueVote(
                game_id=game,
                action="to_bot:0:late@20260302090000:",
                voter=2,
                created_at=clock.now,
            )
        )
        session.commit()
    assert vacations.start_vacation(runtime, game, 0, 2).done
    clock.advance(hours=1)
    assert invitations.invite_replacement(runtime, game, 1, "Zoe", "zoe@example.org", by=None).done
    return game


def people(db, game: str) -> dict:
    """Everything personal the database holds about a game, comparable across servers."""
    with Session(db) as session:
        row = session.get(Game, game)
        seats = session.exec(select(Seat).where(Seat.game_id == game).order_by(Seat.seat))
        clocks = session.exec(
            select(SeatClock).where(SeatClock.game_id == game).order_by(SeatClock.seat)
        )
        strip = lambda model, *drop: {  # noqa: E731
            key: (value.replace(tzinfo=None) if hasattr(value, "tzinfo") else value)
            for key, value in model.model_dump().items()
            if key not in drop
        }
        return {
            "game": (row.policy, row.creator_seat, row.title),
            "seats": [
                strip(seat, "token_hash", "created_at", "due_since", "game_id") for seat in seats
            ],
            "clocks": [strip(clock) for clock in clocks],
            "votes": [
                strip(vote)
                for vote in session.exec(select(RescueVote).where(RescueVote.game_id == game))
            ],
            "offers": [
                strip(offer, "token_hash")
                for offer in session.exec(select(SeatOffer).where(SeatOffer.game_id == game))
            ],
            "formers": [
                strip(former, "id")
                for former in session.exec(select(FormerPlayer).where(FormerPlayer.game_id == game))
            ],
        }


def events(db, game: str) -> list[dict]:
    with Session(db) as session:
        return [
            row.model_dump()
            for row in session.exec(select(Event).where(Event.game_id == game).order_by(Event.seq))
        ]


def test_the_full_export_carries_the_people_and_no_other_export_does(runtime, clock):
    game = table(runtime, clock)
    full = runtime.service.export_game(game, full=True)
    personal = full["personal"]
    assert personal["format"] == "pbem-personal/1"
    assert personal["game"] == {"creator_seat": 0, "policy": POLICY, "paused_at": None}
    anna, ben, cleo = personal["seats"]
    assert (anna["email"], anna["timezone"], anna["notify"]) == (
        "anna@example.org",
        "Europe/Berlin",
        "every_turn",
    )
    assert anna["clock"]["paused_until"] and anna["clock"]["vacation_days_used"] == 2
    assert ben["email"] == "" and ben["clock"]["deadline_at"] is None
    assert (cleo["notify"], cleo["mail_hour"], cleo["talk_mail"]) == ("digest", 7, "digest")
    assert (anna["language"], cleo["language"]) == (None, "pl")
    assert personal["votes"] == [
        {
            "action": "to_bot:0:late@20260302090000:",
            "voter": 2,
            "created_at": personal["votes"][0]["created_at"],
        }
    ]
    (offer,) = personal["offers"]
    assert offer["seat"] == 1 and not offer["open"]
    assert (offer["name"], offer["email"], offer["former_email"]) == (
        "Zoe",
        "zoe@example.org",
        "ben@example.org",
    )
    (former,) = personal["former_players"]
    assert (former["name"], former["email"], former["timezone"], former["reason"]) == (
        "Ben",
        "ben@example.org",
        "America/New_York",
        "replaced",
    )
    assert former["left_seq"] == runtime.service.head(game).seq
    text = json.dumps(full)
    assert "token_hash" not in text
    with Session(runtime.db) as session:
        for row in session.exec(select(Seat).where(Seat.game_id == game)):
            assert row.token_hash is None or row.token_hash not in text
        assert session.get(SeatOffer, (game, 1)).token_hash not in text
    for seat in range(3):
        seat_text = runtime.service.export_text(game, seat=seat)
        assert "personal" not in json.loads(seat_text)
        assert "@example.org" not in seat_text


def test_the_public_export_of_a_finished_game_carries_no_people(runtime, clock, app):
    game = new_game(runtime, seats=2, target=5).game_id
    for _ in range(60):
        if runtime.service.game(game).status != "active":
            break
        take_turn(runtime, game, rolls=3)
    assert runtime.service.game(game).status == "finished"
    public = app.test_client().get(f"/games/{game}/export.json")
    assert public.status_code == 200
    assert "personal" not in public.get_json() and b"@example.org" not in public.data
    assert "personal" not in runtime.service.export_game(game)
    assert "personal" in runtime.service.export_game(game, full=True)


def test_an_import_puts_every_person_back_appends_nothing_and_mails_fresh_links(
    runtime, elsewhere, clock, mailbox
):
    game = table(runtime, clock)
    exported = runtime.service.export_game(game, full=True)
    before = people(runtime.db, game)
    imported = import_full(elsewhere.service, exported, runtime=elsewhere)
    assert imported.game_id == game
    assert events(elsewhere.db, game) == events(runtime.db, game)
    assert elsewhere.service.head(game).hash == runtime.service.head(game).hash
    assert people(elsewhere.db, game) == before
    # Fresh links for the two people holding seats; the waiting seat's newcomer is
    # invited again with a fresh token of their own.
    assert sorted(imported.links) == [0, 2] and sorted(imported.invitations) == [1]
    for seat, token in imported.links.items():
        assert elsewhere.service.seat_for_token(token).seat == seat
    dispatch(elsewhere)
    for address, seat in (("anna@example.org", 0), ("cleo@example.org", 2)):
        (moved,) = [m for m in mailbox.to(address) if "now lives at" in part(m, "plain")]
        text = part(moved, "plain")
        assert "now lives at http://pbem.test" in text
        assert imported.links[seat] in text
    (invite,) = mailbox.to("zoe@example.org", "offered to you")[-1:]
    assert imported.invitations[1] in part(invite, "plain")
    assert not mailbox.to("ben@example.org", "now lives")
    # The re-sent invitation is accepted like the first one.
    assert invitations.take_seat(elsewhere, imported.invitations[1]).done
    assert elsewhere.service.seats(game)[1].email == "zoe@example.org"


def test_an_import_without_mail_writes_no_mail(runtime, elsewhere, clock):
    game = table(runtime, clock)
    imported = import_full(
        elsewhere.service,
        runtime.service.export_game(game, full=True),
        runtime=elsewhere,
        mail=False,
    )
    assert sorted(imported.links) == [0, 2]
    with Session(elsewhere.db) as session:
        assert session.exec(select(Mail)).all() == []
    assert elsewhere.service.seat_for_token(imported.links[2]).seat == 2


def test_the_log_s_roster_wins_over_the_personal_section(runtime, elsewhere, clock):
    """A log that records its roster (here a ``roster`` event, as appended to an older
    game) gives the names, bots, creator and policy; the personal section only the
    people."""
    game = new_game(runtime, seats=3, policy=POLICY).game_id
    logged = {
        "seats": [
            {"name": "Anna", "bot": False},
            {"name": "Benedikt", "bot": True, "level": "easy"},
            {"name": "Cleo", "bot": False},
        ],
        "creator": 2,
        "policy": {**POLICY, "at_deadline": "bot_turn"},
    }
    runtime.service.append_admin(game, "roster", None, {"roster": logged})
    exported = runtime.service.export_game(game, full=True)
    assert exported["personal"]["game"]["creator_seat"] == 0
    import_full(elsewhere.service, exported, runtime=elsewhere, mail=False)
    imported = elsewhere.service.game(game)
    assert (imported.creator_seat, imported.policy["at_deadline"]) == (2, "bot_turn")
    seats = elsewhere.service.seats(game)
    assert [seat.name for seat in seats] == ["Anna", "Benedikt", "Cleo"]
    assert (seats[1].is_bot, seats[1].bot_level, seats[1].email) == (
        True,
        "easy",
        "ben@example.org",
    )


def _set(path: tuple, value):
    def change(data):
        target = data["personal"]
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


BAD = {
    "address": _set(("seats", 0, "email"), "not an address"),
    "two addresses": _set(("seats", 0, "email"), "a@example.org, b@example.org"),
    "zone": _set(("seats", 1, "timezone"), "Mars/Olympus_Mons"),
    "zone path": _set(("seats", 1, "timezone"), "../../etc/passwd"),
    "hour 24": _set(("seats", 2, "mail_hour"), 24),
    "hour true": _set(("seats", 2, "mail_hour"), True),
    "hour text": _set(("seats", 2, "mail_hour"), "7"),
    "kind of mail": _set(("seats", 2, "notify"), "sometimes"),
    "talk by mail": _set(("seats", 2, "talk_mail"), "shouting"),
    "language": _set(("seats", 2, "language"), "tlh"),
    "seat out of range": _set(("seats", 2, "seat"), 3),
    "seat twice": _set(("seats", 2, "seat"), 1),
    "unknown field": _set(("seats", 0, "password"), "x"),
    "deadline": _set(("seats", 0, "clock", "deadline_at"), "next Tuesday"),
    "deadline number": _set(("seats", 0, "clock", "deadline_at"), 1700000000),
    "reminders": _set(("seats", 0, "clock", "reminders"), -1),
    "vacation days": _set(("seats", 0, "clock", "vacation_days_used"), float("inf")),
    "vote seat": _set(("votes", 0, "action"), "to_bot:9:late:"),
    "vote voter": _set(("votes", 0, "voter"), -1),
    "vote time": _set(("votes", 0, "created_at"), None),
    "offer seat": _set(("offers", 0, "seat"), 7),
    "offer address": _set(("offers", 0, "email"), "zoe at example.org"),
    "offer flag": _set(("offers", 0, "open"), "no"),
    "former address": _set(("former_players", 0, "email"), "@example.org"),
    "former event": _set(("former_players", 0, "left_seq"), 10_000),
    "former reason": _set(("former_players", 0, "reason"), "kicked"),
    "policy": _set(("game", "policy"), {"deadline_after_days": -3}),
    "creator": _set(("game", "creator_seat"), 5),
    "pause": _set(("game", "paused_at"), "yesterday"),
    "format": _set(("format",), "pbem-personal/99"),
    "seats not a list": _set(("seats",), {"0": {}}),
    "address on a waiting seat": _set(("seats", 1, "email"), "ben@example.org"),
}


@pytest.mark.parametrize("mutation", sorted(BAD))
def test_malformed_personal_data_is_refused_and_writes_nothing(runtime, elsewhere, clock, mutation):
    game = table(runtime, clock)
    exported = runtime.service.export_game(game, full=True)
    bad = copy.deepcopy(exported)
    BAD[mutation](bad)
    with pytest.raises(BadInput) as refused:
        import_full(elsewhere.service, bad, runtime=elsewhere)
    assert "personal section" in refused.value.message
    with Session(elsewhere.db) as session:
        for table_ in (Game, Seat, Event, Mail, SeatClock, SeatOffer, RescueVote, FormerPlayer):
            assert session.exec(select(table_)).all() == [], table_.__name__
    # The untouched file still imports.
    assert import_full(elsewhere.service, exported, runtime=elsewhere).game_id == game


def test_a_personal_section_that_is_not_an_object_is_refused(runtime, elsewhere, clock):
    game = new_game(runtime, seats=2).game_id
    exported = runtime.service.export_game(game, full=True)
    exported["personal"] = ["anna@example.org"]
    with pytest.raises(BadInput, match="personal section"):
        import_full(elsewhere.service, exported, runtime=elsewhere)
    with Session(elsewhere.db) as session:
        assert session.exec(select(Game)).all() == []


def test_a_paused_game_comes_back_paused(runtime, elsewhere, clock):
    game = new_game(runtime, seats=2, policy=POLICY).game_id

    def pause(session, row):
        row.paused_at = clock.now
        session.add(row)

    runtime.service.append_admin(game, "game_paused", None, {}, change=pause)
    exported = runtime.service.export_game(game, full=True)
    assert exported["personal"]["game"]["paused_at"] == clock.now.isoformat()
    import_full(elsewhere.service, exported, runtime=elsewhere, mail=False)
    paused = elsewhere.service.game(game).paused_at
    assert paused is not None and paused.replace(tzinfo=None) == clock.now.replace(tzinfo=None)


def test_a_finished_game_is_imported_with_its_people_but_without_links_or_mail(
    runtime, elsewhere, clock
):
    game = new_game(runtime, seats=3, target=40).game_id
    rescue.leave_game(runtime, game, 0, by=0)
    rescue.hand_to_bot(runtime, game, 1, by=None)
    rescue.hand_to_bot(runtime, game, 2, by=None)
    for _ in range(10):
        runtime.service.play_bots(game)
    assert runtime.service.game(game).status == "finished"
    before = people(runtime.db, game)
    imported = import_full(
        elsewhere.service, runtime.service.export_game(game, full=True), runtime=elsewhere
    )
    assert (imported.links, imported.invitations, imported.mailed) == ({}, {}, [])
    assert people(elsewhere.db, game) == before
    assert [former["email"] for former in before["formers"]] == ["anna@example.org"]
    with Session(elsewhere.db) as session:
        assert session.exec(select(Mail)).all() == []


def test_pbem_import_without_mail_prints_the_links_and_a_folder_imports_file_by_file(
    runtime, clock, tmp_path, monkeypatch, capsys
):
    from pbem.cli import main

    game = table(runtime, clock)
    folder = tmp_path / "export"
    folder.mkdir()
    exported = runtime.service.export_game(game, full=True)
    (folder / f"{game}.json").write_text(json.dumps(exported))
    other = new_game(runtime, seats=2).game_id
    broken = runtime.service.export_game(other, full=True)
    broken["personal"]["seats"][0]["timezone"] = "Nowhere/Land"
    (folder / f"{other}.json").write_text(json.dumps(broken))
    monkeypatch.setenv("PBEM_PATHS_VAR", str(tmp_path / "var"))
    monkeypatch.setenv("PBEM_SECURITY_SECRET_KEY", "test-key")
    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    capsys.readouterr()
    assert main(["--database", url, "import", "--no-mail", str(folder)]) == 1
    out, err = capsys.readouterr()
    assert f"{other}.json: The personal section's seat 0's time zone" in err
    assert "Imported 1 of 2 files" in out
    assert "not mailed (--no-mail)" in out
    token = out.split("seat 2 Cleo: ", 1)[1].split("/play/", 1)[1].split()[0]
    assert "waits for a newcomer" in out.split("seat 1 ", 1)[1].splitlines()[0]
    engine = make_engine(url)
    with Session(engine) as session:
        assert session.exec(select(Mail)).all() == []
        assert session.get(Game, other) is None
        (seat,) = session.exec(select(Seat).where(Seat.game_id == game, Seat.seat == 2))
    from pbem.games.tokens import hash_token

    assert seat.token_hash == hash_token(token)
    engine.dispose()
