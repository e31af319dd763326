"""Eviction by deadline: the creator may not shorten a running turn so that a present
player is overdue at the next sweep (and their seat opens); and every road that takes a
deadline policy holds the same floors."""

from __future__ import annotations

import math
import re

import pytest
from sqlmodel import Session

from pbem import cli
from pbem.errors import BadInput
from pbem.games import seat_rules
from pbem.games.policy import check_policy
from pbem.games.tables import SeatOffer
from pbem.scheduler import sweep
from tests.security.conftest import new_game, take_turn

SHORTEST = {"deadline_after_days": "0.0001", "at_deadline": "replace"}
# The shortest deadline the floors allow (1.2 hours), still far sooner than the running
# turn's week.
SHORT = {"deadline_after_days": "0.05", "at_deadline": "replace"}


def csrf_of(client, path: str) -> str:
    page = client.get(path)
    assert page.status_code == 200
    return re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)


def bens_turn(runtime, clock):
    """Anna created the game (a week per turn); Ben is to move and has been for 2 hours."""
    created = new_game(runtime, seats=2, policy={"deadline_after_days": 7})
    assert take_turn(runtime, created.game_id) == 0
    assert 1 in runtime.service.game(created.game_id).to_move
    clock.advance(hours=2)
    return created


def assert_ben_keeps_his_seat(runtime, app, created, clock) -> None:
    game_id = created.game_id
    for hours in (0, 2, 24):
        clock.advance(hours=hours)
        sweep(runtime)
    with Session(runtime.db) as session:
        assert session.get(SeatOffer, (game_id, 1)) is None
        game = runtime.service.game(game_id)
        ben = runtime.service.seats(game_id)[1]
        assert seat_rules.absence(session, game, ben, clock()) is None
    kinds = [event["kind"] for event in runtime.service.events(game_id)]
    assert "seat_offered" not in kinds and "seat_to_bot" not in kinds
    assert app.test_client().get(f"/play/{created.tokens[1]}").status_code == 200


def test_the_seats_page_cannot_shorten_a_running_turn(runtime, app, clock):
    created = bens_turn(runtime, clock)
    client = app.test_client()
    page = f"/rescue/{created.tokens[0]}"
    token = csrf_of(client, page)
    refused = client.post(page, data={"csrf_token": token, "action": "policy", **SHORTEST})
    assert refused.status_code == 400 and "1 hour" in refused.text
    answer = client.post(page, data={"csrf_token": token, "action": "policy", **SHORT})
    assert answer.status_code == 302
    assert runtime.service.game(created.game_id).policy["deadline_after_days"] == 0.05
    assert_ben_keeps_his_seat(runtime, app, created, clock)


def test_pbem_game_policy_cannot_shorten_a_running_turn(runtime, app, clock, monkeypatch, capsys):
    created = bens_turn(runtime, clock)
    game_id = created.game_id
    monkeypatch.setattr(cli, "_runtime", lambda args: runtime)
    args = ["game", "policy", game_id, "--at-deadline", "replace", "--deadline-days"]
    assert cli.main([*args, "0.0001"]) == 1
    assert "1 hour" in capsys.readouterr().err
    assert cli.main([*args, "0.05"]) == 0
    assert runtime.service.game(game_id).policy["deadline_after_days"] == 0.05
    assert_ben_keeps_his_seat(runtime, app, created, clock)


def test_the_shorter_deadline_applies_from_the_next_turn(runtime, app, clock):
    from pbem.games import control

    created = bens_turn(runtime, clock)
    control.change_policy(runtime, created.game_id, dict(SHORT), by=0)
    assert take_turn(runtime, created.game_id) == 1  # Ben moves; Anna's turn begins
    clock.advance(hours=2)
    sweep(runtime)
    kinds = [event["kind"] for event in runtime.service.events(created.game_id)]
    assert kinds[-1] == "seat_offered"  # Anna's own new turn ran past 1.2 hours


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("deadline_after_days", 0.0001),
        ("deadline_after_days", 0.04),
        ("deadline_after_days", 1e-308),
        ("reminder_after_hours", 0.5),
        ("reminder_after_hours", 5e-324),
        ("reminder_every_hours", 1),
        ("reminder_every_hours", 3.9),
    ],
)
def test_each_setting_has_a_floor(setting, value):
    with pytest.raises(BadInput) as refused:
        check_policy({setting: value})
    assert re.search(r"from (1|4) hour", refused.value.message), refused.value.message
    assert setting in refused.value.message


@pytest.mark.parametrize(
    "value", [math.nan, math.inf, -math.inf, "nan", "-1", 1e308, 10**400, True]
)
def test_absurd_values_are_refused_with_a_sentence(value):
    for setting in ("deadline_after_days", "reminder_after_hours", "reminder_every_hours"):
        with pytest.raises(BadInput) as refused:
            check_policy({setting: value})
        assert setting in refused.value.message


def test_the_floors_and_off_are_accepted():
    policy = check_policy(
        {"reminder_after_hours": 1, "reminder_every_hours": 4, "deadline_after_days": 1 / 24}
    )
    assert policy["deadline_after_days"] == pytest.approx(1 / 24)
    off = check_policy(
        {"reminder_after_hours": 0, "reminder_every_hours": 0, "deadline_after_days": 0}
    )
    assert off["deadline_after_days"] == 0 and off["reminder_after_hours"] == 0


def test_the_lobby_refuses_a_policy_below_the_floors(runtime, app):
    client = app.test_client()
    token = csrf_of(client, "/")
    form = {
        "csrf_token": token,
        "game": "pig",
        "let_server_draw": "on",
        "option_pig_target": "30",
        "seat_name_0": "Ann",
        "seat_email_0": "ann@example.org",
        "seat_email_1": "bot",
    }
    for setting, value, floor in (
        ("deadline_after_days", "0.0001", "from 1 hour"),
        ("reminder_after_hours", "0.01", "from 1 hour"),
        ("reminder_every_hours", "1", "from 4 hours"),
    ):
        answer = client.post("/games", data={**form, setting: value})
        assert answer.status_code == 400
        assert f"({setting}) must be" in answer.text and floor in answer.text
    assert runtime.service.games() == []
    created = client.post("/games", data={**form, "deadline_after_days": "1"})
    assert created.status_code == 303
