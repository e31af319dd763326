"""A crafted import may not mail a seat's invitation to another seat's player, nor hand
a held seat to a newcomer, nor bring in a policy below the floors or two players of one
name: it is refused with a sentence, and nothing is written or mailed."""

from __future__ import annotations

import copy

import pytest
from sqlmodel import Session, select

from pbem.errors import BadInput
from pbem.games.portable import import_full
from pbem.games.tables import FormerPlayer, RescueVote, SeatClock, SeatOffer
from pbem.mail.models import Mail
from pbem.models import Event, Game, Seat
from tests.databases import sqlite_engine
from tests.games.test_full_export import table
from tests.security.conftest import make_runtime, new_game


@pytest.fixture
def source(tmp_path, clock, smtp):
    """The server the game comes from (the import goes to ``runtime``, on SQLite and on
    PostgreSQL)."""
    engine = sqlite_engine(tmp_path / "source.sqlite3")
    yield make_runtime(engine, tmp_path / "source", clock, smtp[1])
    engine.dispose()


def offer(data) -> dict:
    (found,) = data["personal"]["offers"]
    assert found["seat"] == 1 and found["email"] == "zoe@example.org"
    return found


def to_cleo(data):
    offer(data)["email"] = "Cleo+seat1@example.org"


def moved_to_cleos_seat(data):
    offer(data)["seat"] = 2


def named_ann(data):
    offer(data)["name"] = "ANNA"


def zoe_twice(data):
    data["personal"]["offers"].append({**offer(data), "seat": 0, "email": "zoe+0@example.org"})


CRAFTED = {
    "invitation to another seat's player": (to_cleo, "player of seat 2"),
    "invitation for a held seat": (moved_to_cleos_seat, "a player holds it"),
    "newcomer under a player's name": (named_ann, "called 'ANNA' already"),
    "one newcomer for two seats": (zoe_twice, "a player holds it"),
}


def assert_nothing_written(runtime) -> None:
    with Session(runtime.db) as session:
        for model in (Game, Seat, Event, Mail, SeatClock, SeatOffer, RescueVote, FormerPlayer):
            assert session.exec(select(model)).all() == [], model.__name__


@pytest.mark.parametrize("craft", sorted(CRAFTED))
def test_a_crafted_personal_section_is_refused(runtime, source, clock, mailbox, craft):
    game = table(source, clock)
    exported = source.service.export_game(game, full=True)
    bad = copy.deepcopy(exported)
    change, sentence = CRAFTED[craft]
    change(bad)
    with pytest.raises(BadInput) as refused:
        import_full(runtime.service, bad, runtime=runtime)
    assert sentence in refused.value.message
    assert_nothing_written(runtime)
    # The file as exported imports, and Zoe alone is invited to seat 1.
    imported = import_full(runtime.service, exported, runtime=runtime)
    assert sorted(imported.invitations) == [1]
    with Session(runtime.db) as session:
        invites = [
            mail.recipient
            for mail in session.exec(select(Mail))
            if mail.key.startswith("seat_invite:")
        ]
    assert invites == ["zoe@example.org"]


def test_an_import_with_a_policy_below_the_floors_is_refused(runtime, source, clock, monkeypatch):
    from pbem.games import service as service_mod
    from pbem.games.policy import DEFAULT_POLICY

    # A game from before the floors (created with the check switched off).
    monkeypatch.setattr(service_mod, "check_policy", lambda policy: {**DEFAULT_POLICY, **policy})
    game = new_game(source, seats=2, policy={"deadline_after_days": 0.0001}).game_id
    exported = source.service.export_game(game, full=True)
    with pytest.raises(BadInput) as refused:
        import_full(runtime.service, exported, runtime=runtime)
    assert "from 1 hour" in refused.value.message
    assert_nothing_written(runtime)


def test_an_import_whose_log_names_two_players_alike_is_refused(
    runtime, source, clock, monkeypatch
):
    from pbem.games import service as service_mod
    from pbem.games.service import SeatSpec

    # A game from before names were unique (created with the check switched off).
    monkeypatch.setattr(service_mod, "check_unique_names", lambda names: None)
    specs = [SeatSpec("Ann", "ann@example.org"), SeatSpec("ann ", "ann2@example.org")]
    game = source.service.create_game("pig", specs, {"target": 30}).game_id
    with pytest.raises(BadInput) as refused:
        import_full(runtime.service, source.service.export_game(game, full=True), runtime=runtime)
    assert "Two seats are called 'ann'" in refused.value.message
    assert_nothing_written(runtime)
