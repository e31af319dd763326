"""Verification checks the roster like every other event: along the stored chain, in an
exported file, against the file's header, and on the audit page."""

from __future__ import annotations

import copy
import json
import random

import pytest

from pbem.cli import main
from pbem.eventlog.audit import audit_game
from pbem.eventlog.log import GENESIS_HASH, row_hash
from pbem.eventlog.verify import verify_export
from pbem.games.service import GameService, SeatSpec

POLICY = {"deadline_after_days": 3, "at_deadline": "bot_seat"}


@pytest.fixture
def service(sqlite_db):
    return GameService(sqlite_db)


def new_game(service, target: int = 15) -> str:
    specs = [
        SeatSpec("Ann", "ann@example.org", timezone="Asia/Tokyo"),
        SeatSpec("Hal", is_bot=True, bot_level="easy"),
    ]
    return service.create_game("pig", specs, {"target": target}, policy=POLICY).game_id


def play_to_end(service, game_id: str, rng: random.Random | None = None) -> None:
    rng = rng or random.Random(7)
    for _ in range(2000):
        head = service.head(game_id)
        if head.game.status != "active":
            return
        due = sorted(head.engine.to_move(head.state))
        move = {"type": rng.choice(["roll", "roll", "stop"])}
        service.submit_move(game_id, due[0], move, head.seq)
        service.play_bots(game_id)
    raise AssertionError("the game did not end")


def rehash(data: dict) -> dict:
    """The file with every hash recomputed, as someone who knows the format would."""
    prev = GENESIS_HASH
    for row in data["events"]:
        row["prev_hash"] = prev
        row["hash"] = prev = row_hash(row)
    data["game"]["head_hash"] = prev
    return data


@pytest.fixture
def finished(service) -> tuple[GameService, str, dict]:
    game_id = new_game(service)
    play_to_end(service, game_id)
    return service, game_id, service.export_game(game_id)


def test_a_finished_export_carries_the_folded_roster_and_verifies(finished):
    service, game_id, data = finished
    header = data["game"]
    assert header["seat_names"] == ["Ann", "Hal"]
    assert header["bots"] == [1] and header["bot_levels"] == {"1": "easy"}
    assert header["creator_seat"] == 0 and header["paused"] is False
    assert header["policy"]["at_deadline"] == "bot_seat"
    report = verify_export(data)
    assert report.ok, report.summary()
    assert report.roster_in_chain and report.roster.names == ["Ann", "Hal"]
    stored = service.verify_game(game_id)
    assert stored.ok and stored.roster_in_chain


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("seat_names", ["Mallory", "Hal"]),
        ("bots", []),
        ("bots", [0, 1]),
        ("bot_levels", {"1": "normal"}),
        ("creator_seat", 1),
        ("creator_seat", None),
        ("policy", {**POLICY, "at_deadline": "wait"}),
        ("paused", True),
    ],
)
def test_a_header_whose_roster_was_edited_no_longer_verifies(finished, field, value):
    _, _, data = finished
    edited = copy.deepcopy(data)
    edited["game"][field] = value
    report = verify_export(edited)
    assert not report.ok
    assert "the file's roster does not match its events" in report.message
    assert field in report.message


def test_a_header_without_its_roster_fields_does_not_verify(finished):
    _, _, data = finished
    edited = copy.deepcopy(data)
    del edited["game"]["seat_names"]
    assert "does not match its events" in verify_export(edited).message


def test_a_seat_export_with_an_edited_name_does_not_verify(service):
    game_id = new_game(service)
    play_to_end(service, game_id)
    data = service.export_game(game_id, seat=0)
    assert verify_export(data).ok and verify_export(data).roster_in_chain
    data["game"]["seat_names"][1] = "Mallory"
    assert "roster does not match" in verify_export(data).message


def test_a_running_game_exported_whole_checks_its_roster_too(service):
    game_id = new_game(service, target=10**6)
    data = service.export_game(game_id, full=True)
    assert verify_export(data).ok
    data["game"]["seat_names"][0] = "Bob"
    assert not verify_export(data).ok


def test_a_malformed_roster_fails_at_the_event_that_carries_it(finished):
    _, _, data = finished
    first = rehash(copy.deepcopy(data))
    first["events"][0]["payload"]["roster"]["seats"].append({"name": "Ghost", "bot": False})
    report = verify_export(rehash(first))
    assert not report.ok and report.first_bad_seq == 0
    assert "roster is malformed" in report.message and "3 seats" in report.message
    creator = copy.deepcopy(data)
    creator["events"][0]["payload"]["roster"]["creator"] = 5
    report = verify_export(rehash(creator))
    assert not report.ok and report.first_bad_seq == 0 and "creator" in report.message


def unchecked(monkeypatch):
    """Lets the service write a malformed roster event, as a faulty or hostile writer of
    the database could, so that verification has one to find."""
    monkeypatch.setattr("pbem.games.service.check_roster_change", lambda *args: None)


def test_a_malformed_seat_event_fails_at_its_seq_in_the_stored_chain(service, monkeypatch):
    unchecked(monkeypatch)
    game_id = new_game(service, target=10**6)
    service.submit_move(game_id, 0, {"type": "roll"}, 0)
    seq = service.append_admin(game_id, "seat_to_bot", 0, {"name": "Ann", "level": "godlike"}).seq
    report = service.verify_game(game_id)
    assert not report.ok and report.first_bad_seq == seq
    assert "unknown level" in report.message
    audit = audit_game(service, game_id).report
    assert not audit.ok and audit.first_bad_seq == seq


def test_the_audit_resumed_after_its_mark_still_folds_the_roster(service, monkeypatch):
    unchecked(monkeypatch)
    game_id = new_game(service, target=10**6)
    service.submit_move(game_id, 0, {"type": "roll"}, 0)
    assert audit_game(service, game_id).report.roster_in_chain
    service.append_admin(game_id, "seat_to_bot", 0, {"name": "Ann", "level": "easy"})
    checked = audit_game(service, game_id)
    assert checked.report.ok and not checked.whole
    seq = service.append_admin(game_id, "seat_taken", 0, {"name": "Ann", "new_name": " "}).seq
    report = audit_game(service, game_id).report
    assert not report.ok and report.first_bad_seq == seq and "names nobody" in report.message


def old_form(data: dict) -> dict:
    """The file as a game from before rosters were logged would have it."""
    old = copy.deepcopy(data)
    del old["events"][0]["payload"]["roster"]
    return rehash(old)


def test_a_log_without_a_roster_still_verifies_and_says_so(finished, tmp_path, capsys, database):
    _, _, data = finished
    old = old_form(data)
    report = verify_export(old)
    assert report.ok and not report.roster_in_chain
    # Its header's names are outside the chain, as they always were.
    old["game"]["seat_names"] = ["Someone", "Else"]
    assert verify_export(old).ok
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old))
    assert main(["--database", database, "verify", str(path)]) == 0
    assert "Roster: the roster is not in the chain" in capsys.readouterr().out
    path.write_text(json.dumps(data))
    assert main(["--database", database, "verify", str(path)]) == 0
    assert "Roster: the roster (who holds each seat) is in the hash chain" in (
        capsys.readouterr().out
    )
    data["game"]["seat_names"][0] = "Mallory"
    path.write_text(json.dumps(data))
    assert main(["--database", database, "verify", str(path)]) == 1
    assert "the file's roster does not match its events" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("kind", "seat", "payload"),
    [
        ("seat_to_bot", 7, {"level": "normal"}),
        ("seat_to_bot", 0, {"level": "godlike"}),
        ("seat_taken", 0, {"new_name": ""}),
        ("policy_changed", None, {"policy": "wait"}),
        ("roster", None, {"roster": {"seats": [{"name": "Ann"}]}}),
    ],
)
def test_the_service_refuses_to_log_a_roster_event_verification_would_reject(
    service, kind, seat, payload
):
    from pbem.errors import BadInput

    game_id = service.create_game("pig", [SeatSpec("Ann"), SeatSpec("Bo")], {"target": 50}).game_id
    head = service.head(game_id).seq
    with pytest.raises(BadInput):
        service.append_admin(game_id, kind, seat, payload)
    assert service.head(game_id).seq == head
    assert service.verify_game(game_id).ok
