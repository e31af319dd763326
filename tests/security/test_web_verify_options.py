"""``pbem verify`` covers the header's ``options``: an export whose options were changed
(a target lowered to claim a win, an option added or removed) fails verification naming
them; an export as the server wrote it still verifies."""

from __future__ import annotations

import copy
import json

import pytest

from pbem.cli import main
from pbem.eventlog.verify import verify_export
from pbem.games.service import GameService, SeatSpec


@pytest.fixture
def service(db):
    return GameService(db)


def _game(service) -> str:
    specs = [SeatSpec("Ann", "ann@example.org"), SeatSpec("Bob", "bob@example.org")]
    game_id = service.create_game("pig", specs, {"target": 15}).game_id
    for seq in range(4):
        head = service.head(game_id)
        (seat,) = head.engine.to_move(head.state)
        service.submit_move(game_id, seat, {"type": "roll" if seq % 2 else "stop"}, seq)
    return game_id


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda options: options.update(target=5), "target"),
        (lambda options: options.update(extra=1), "extra"),
        (lambda options: options.pop("target"), "target"),
    ],
)
@pytest.mark.parametrize("scope", ["full", "seat"])
def test_a_changed_option_in_the_header_fails_naming_it(service, change, named, scope):
    game_id = _game(service)
    data = service.export_game(game_id, full=True) if scope == "full" else None
    data = data or service.export_game(game_id, seat=0)
    assert verify_export(data).ok, verify_export(data).summary()
    forged = copy.deepcopy(data)
    change(forged["game"]["options"])
    report = verify_export(forged)
    assert not report.ok
    assert "options" in report.summary() and named in report.summary()


def test_pbem_verify_refuses_the_changed_file(service, tmp_path, capsys):
    game_id = _game(service)
    data = service.export_game(game_id, full=True)
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(data))
    data["game"]["options"]["target"] = 1
    bad.write_text(json.dumps(data))
    assert main(["verify", str(good)]) == 0
    assert main(["verify", str(bad)]) != 0
    assert "target" in capsys.readouterr().out
