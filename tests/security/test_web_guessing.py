"""Guessing links: unknown secrets in an address are counted per client and, past
``limits.unknown_tokens``, every tokened address answers 429 to that client with a
sentence saying until when. Links that work are never counted, and a link this browser
opened before keeps working for it. With Redis as the store, web workers share counts."""

from __future__ import annotations

import os
import secrets
from dataclasses import replace

import pytest

from pbem.runtime import build_runtime
from pbem.web import create_app
from tests.web.conftest import overrides, pig_game

GUESSER = {"REMOTE_ADDR": "203.0.113.9"}
NEIGHBOUR = {"REMOTE_ADDR": "198.51.100.7"}
REDIS = "redis://127.0.0.1:6379"


def _app(runtime, **limits):
    config = dict(runtime.config)
    config["limits"] = {**runtime.config.get("limits", {}), **limits}
    app = create_app(runtime=replace(runtime, config=config))
    app.config["TESTING"] = True
    return app


@pytest.fixture
def runtime(db, tmp_path):
    return build_runtime(overrides(tmp_path), db=db)


def _unknown_addresses(created) -> list[str]:
    fake = secrets.token_urlsafe(32)
    return [
        f"/play/{fake}",
        f"/api/play/{fake}",
        f"/rescue/{fake}",
        f"/mail/settings/{created.game_id}/0/{secrets.token_urlsafe(18)}",
        f"/my-games/{fake}",
    ]


def test_unknown_links_are_limited_per_client_and_working_ones_never(runtime):
    app = _app(runtime, unknown_tokens="5 per hour", key_prefix=secrets.token_hex(6))
    created = pig_game(runtime)
    mine = f"/play/{created.tokens[0]}"
    guesser = app.test_client()
    # A player's own link, however often, counts for nothing.
    for _ in range(8):
        assert guesser.get(mine, environ_base=GUESSER).status_code == 200
    for address in _unknown_addresses(created):
        assert guesser.get(address, environ_base=GUESSER).status_code == 404, address
    for address in [*_unknown_addresses(created), f"/play/{created.tokens[1]}"]:
        refused = guesser.get(address, environ_base=GUESSER)
        assert refused.status_code == 429, address
        assert "Too many links that do not exist" in refused.text
        assert " UTC" in refused.text and int(refused.headers["Retry-After"]) > 0
    api = guesser.get(f"/api/play/{secrets.token_urlsafe(32)}", environ_base=GUESSER)
    assert api.status_code == 429 and "until" in api.json["error"]["message"]
    # The link this browser opened before still works for it.
    assert guesser.get(mine, environ_base=GUESSER).status_code == 200
    # Another client is not affected; pages without a secret are not either.
    other = app.test_client()
    assert other.get(f"/play/{created.tokens[1]}", environ_base=NEIGHBOUR).status_code == 200
    assert (
        other.get(f"/play/{secrets.token_urlsafe(32)}", environ_base=NEIGHBOUR).status_code == 404
    )
    assert guesser.get(f"/games/{created.game_id}", environ_base=GUESSER).status_code == 200
    assert runtime.service.head(created.game_id).seq == 0


def _redis_or_fail() -> None:
    try:
        import redis

        redis.Redis.from_url(REDIS, socket_connect_timeout=2).ping()
    except Exception as error:  # noqa: BLE001 - any failure means "no Redis here"
        if os.environ.get("CI") == "true":
            pytest.fail(f"Redis is required under CI=true but unreachable: {error}")
        pytest.skip(f"Redis not reachable: {error}")


def test_two_workers_on_redis_share_the_count(sqlite_db, tmp_path):
    _redis_or_fail()
    runtime = build_runtime(overrides(tmp_path), db=sqlite_db)
    limits = {"storage_uri": REDIS, "unknown_tokens": "4 per hour"}
    prefix = f"pbem-test-{secrets.token_hex(6)}"
    first = _app(runtime, key_prefix=prefix, **limits).test_client()
    second = _app(runtime, key_prefix=prefix, **limits).test_client()
    for _ in range(4):
        guess = f"/play/{secrets.token_urlsafe(32)}"
        assert first.get(guess, environ_base=GUESSER).status_code == 404
    refused = second.get(f"/play/{secrets.token_urlsafe(32)}", environ_base=GUESSER)
    assert refused.status_code == 429 and "Too many links" in refused.text
    # A server with its own prefix on the same store counts apart.
    apart = _app(runtime, key_prefix=f"{prefix}-other", **limits).test_client()
    assert apart.get(f"/play/{secrets.token_urlsafe(32)}", environ_base=GUESSER).status_code == 404
