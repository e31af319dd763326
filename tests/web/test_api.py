"""The JSON API: answers, errors, the OpenAPI description, and fuzzing for 500s."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.web import create_app
from tests.web.conftest import csrf_of, pig_game


def test_spectator_and_seat_answers(client, runtime):
    created = pig_game(runtime)
    spectator = client.get(f"/api/games/{created.game_id}").json
    assert spectator["seq"] == 0 and "my_bonus" not in spectator["view"]
    seat = client.get(f"/api/play/{created.tokens[0]}").json
    assert seat["seat"] == 0 and "my_bonus" in seat["view"]
    labels = [entry["label"] for entry in seat["legal_moves"]]
    assert "Roll the die" in labels and "Stop and bank" in labels
    other = client.get(f"/api/play/{created.tokens[1]}").json
    assert other["legal_moves"] == []


def test_moves_stale_and_illegal(client, runtime):
    created = pig_game(runtime)
    url = f"/api/play/{created.tokens[0]}/moves"
    made = client.post(url, json={"move": {"type": "stop"}, "expected_seq": 0})
    assert made.status_code == 200 and made.json["seq"] == 1
    again = client.post(url, json={"move": {"type": "stop"}, "expected_seq": 0})
    assert again.status_code == 200 and again.json["duplicate"]
    stale = client.post(url, json={"move": {"type": "roll"}, "expected_seq": 0})
    assert stale.status_code == 409 and stale.json["error"]["fresh_seq"] == 1
    illegal = client.post(url, json={"move": {"type": "roll"}, "expected_seq": 1})
    assert illegal.status_code == 422 and illegal.json["error"] == {
        "status": 422,
        "message": "It is not your turn.",
    }
    assert client.post(url, data="move=roll").status_code == 400
    assert client.post(url, json=[1, 2]).status_code == 400
    assert runtime.service.head(created.game_id).seq == 1


def test_openapi_description_names_every_route(client):
    spec = client.get("/api/openapi.json").json
    assert spec["openapi"].startswith("3.")
    assert set(spec["paths"]) == {
        "/api/games/{game_id}",
        "/api/play/{token}",
        "/api/play/{token}/moves",
        "/.well-known/pbem-keys.json",
    }


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
BODIES = st.one_of(
    JSON,
    st.fixed_dictionaries(
        {
            "move": st.one_of(
                JSON,
                st.fixed_dictionaries(
                    {"type": st.sampled_from(["roll", "stop", "x"])}, optional={"extra": JSON}
                ),
            ),
            "expected_seq": st.one_of(st.integers(-3, 5), JSON),
        }
    ),
)


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    body=BODIES,
    raw=st.booleans(),
    token_choice=st.sampled_from(["seat0", "seat1", "forged", "junk"]),
    form=st.dictionaries(st.sampled_from(["seq", "move", "csrf_token"]), st.text(max_size=30)),
)
def test_fuzzed_requests_never_fail_and_refusals_change_nothing(
    sqlite_runtime, body, raw, token_choice, form
):
    runtime = sqlite_runtime
    if "fuzz" not in runtime.extras:
        runtime.extras["fuzz"] = (create_app(runtime=runtime), pig_game(runtime))
    app, created = runtime.extras["fuzz"]
    client = app.test_client()
    token = {
        "seat0": created.tokens[0],
        "seat1": created.tokens[1],
        "forged": "B" * 43,
        "junk": "not-a-token!~",
    }[token_choice]
    before = runtime.service.head(created.game_id).seq
    if raw:
        answer = client.post(
            f"/api/play/{token}/moves",
            data=json.dumps(body)[:-1],
            content_type="application/json",
        )
    else:
        answer = client.post(f"/api/play/{token}/moves", json=body)
    assert answer.status_code < 500
    if answer.status_code != 200:
        assert runtime.service.head(created.game_id).seq == before
        assert answer.is_json and answer.json["error"]["status"] == answer.status_code
    page = client.post(f"/play/{token}/move", data=form)
    assert page.status_code in (400, 404)
    for url in (
        f"/play/{token}",
        f"/api/play/{token}",
        f"/play/{token}/history?at={form.get('seq', '')}",
    ):
        assert client.get(url).status_code < 500


FORM_KEYS = st.sampled_from(["move", "move_type", "f.give", "l.take", "lists", "seq", "f.type"])


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    form=st.dictionaries(
        FORM_KEYS,
        st.one_of(st.text(max_size=12), st.sampled_from(["0", "roll", '{"type": "stop"}', "take"])),
    )
)
def test_fuzzed_move_forms_with_a_valid_csrf_token_never_fail(sqlite_runtime, form):
    runtime = sqlite_runtime
    if "forms" not in runtime.extras:
        app = create_app(runtime=runtime)
        created = pig_game(runtime)
        client = app.test_client()
        csrf = csrf_of(client.get(f"/play/{created.tokens[0]}").text)
        runtime.extras["forms"] = (client, created, csrf)
    client, created, csrf = runtime.extras["forms"]
    before = runtime.service.head(created.game_id).seq
    answer = client.post(f"/play/{created.tokens[0]}/move", data={**form, "csrf_token": csrf})
    assert answer.status_code < 500
    if answer.status_code != 303:
        assert runtime.service.head(created.game_id).seq == before
