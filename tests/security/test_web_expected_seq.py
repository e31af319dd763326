"""A move's ``expected_seq`` answers the same on SQLite and PostgreSQL: a stale or
future count is a 409 conflict naming the current seq, a value that is not a count in
range is a 400 with a sentence; nothing changes either way."""

from __future__ import annotations

import pytest

from pbem.bounds import INT_MAX
from pbem.runtime import build_runtime
from pbem.web import create_app
from tests.web.conftest import csrf_of, overrides, pig_game


@pytest.fixture
def runtime(db, tmp_path):
    return build_runtime(overrides(tmp_path), db=db)


@pytest.fixture
def client(runtime):
    app = create_app(runtime=runtime)
    app.config["TESTING"] = True
    return app.test_client()


@pytest.mark.parametrize("expected", [1, 7, INT_MAX - 1, INT_MAX])
def test_a_future_expected_seq_is_a_conflict_on_every_database(runtime, client, expected):
    created = pig_game(runtime)
    answer = client.post(
        f"/api/play/{created.tokens[0]}/moves",
        json={"move": {"type": "roll"}, "expected_seq": expected},
    )
    assert answer.status_code == 409, answer.json
    assert answer.json["error"]["fresh_seq"] == 0
    token = created.tokens[0]
    csrf = csrf_of(client.get(f"/play/{token}").text)
    form = {"csrf_token": csrf, "seq": str(expected), "move": '{"type": "roll"}', "confirmed": "1"}
    page = client.post(f"/play/{token}/move", data=form)
    assert page.status_code == 409, page.text[:300]
    assert runtime.service.head(created.game_id).seq == 0


@pytest.mark.parametrize("expected", [-1, INT_MAX + 1, 2**63, 1.5, "3", True, None])
def test_an_expected_seq_out_of_range_is_a_400_sentence(runtime, client, expected):
    created = pig_game(runtime)
    answer = client.post(
        f"/api/play/{created.tokens[0]}/moves",
        json={"move": {"type": "roll"}, "expected_seq": expected},
    )
    assert answer.status_code == 400
    assert "expected_seq must be a whole number" in answer.json["error"]["message"]
    assert runtime.service.head(created.game_id).seq == 0
