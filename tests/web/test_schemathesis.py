"""A bounded Schemathesis run against /api/openapi.json, with the app in-process (WSGI).

Valid and invalid requests generated from the OpenAPI document (200 per database by
default, ``PBEM_SCHEMATHESIS_CASES`` for a longer run, on SQLite and on PostgreSQL) are sent to a test database holding two games; half of them
use a real game id or seat link, so the requests reach the rules and not only the 404
for an unknown link. Every answer must
follow the document (status, content type, body), none may be a 500, and every error is
JSON in the one shape ``{"error": {"status": N, "message": "..."}}``.
"""

from __future__ import annotations

import os

import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.generation import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from pbem.runtime import build_runtime
from pbem.web import create_app
from tests.web.conftest import overrides, pig_game

REAL: dict[str, list[str]] = {}
CHECKS = [status_code_conformance, content_type_conformance, response_schema_conformance]
CASES = int(os.environ.get("PBEM_SCHEMATHESIS_CASES", "200"))


def point_at_real_games(case) -> None:
    """Every other case names a real game or seat link instead of a random one."""
    for name, choices in REAL.items():
        value = (case.path_parameters or {}).get(name)
        if isinstance(value, str) and len(value) % 2 == 0:
            case.path_parameters[name] = choices[len(value) % len(choices)]


def test_the_api_answers_every_generated_request_as_documented(db, tmp_path):
    # Half the cases name unknown links: past limits.unknown_tokens they would all be
    # 429s, and the cases would stop reaching the rules (the limit has its own tests).
    config = {**overrides(tmp_path), "limits": {"unknown_tokens": f"{CASES * 10} per hour"}}
    runtime = build_runtime(config, db=db)
    app = create_app(runtime=runtime)
    app.config["TESTING"] = True
    games = [pig_game(runtime), pig_game(runtime, seats=3, bots=(2,))]
    REAL["game_id"] = [game.game_id for game in games]
    REAL["token"] = [token for game in games for token in game.tokens if token]
    schema = schemathesis.openapi.from_wsgi("/api/openapi.json", app)
    cases = st.one_of(
        schema.as_strategy(GenerationMode.POSITIVE), schema.as_strategy(GenerationMode.NEGATIVE)
    )
    seen: dict[int, int] = {}

    @settings(
        max_examples=CASES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
    )
    @given(case=cases)
    def answer_as_documented(case):
        point_at_real_games(case)
        # Uncompressed: the WSGI transport hands the body over as sent (tests/web/
        # test_weight.py covers compression).
        response = case.call(headers={"Accept-Encoding": "identity"})
        seen[response.status_code] = seen.get(response.status_code, 0) + 1
        assert response.status_code < 500, f"{case.method} {case.formatted_path}: {response.text}"
        if response.status_code >= 400:
            error = response.json()["error"]
            assert error["status"] == response.status_code
            assert isinstance(error["message"], str) and error["message"]
        case.validate_response(response, checks=CHECKS)

    answer_as_documented()
    print(f"schemathesis on {db.dialect.name}: {sum(seen.values())} cases, answers {seen}")
    assert sum(seen.values()) >= CASES * 3 // 4, seen
    assert seen.get(200, 0) > 0 and len(seen) >= 3, seen
