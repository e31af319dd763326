"""werkzeug's request log (the tests' served app) masks seat links as
gunicorn's access log does: a shared or kept log opens no seat."""

from __future__ import annotations

import logging
import urllib.request

from pbem.runtime import build_runtime
from tests.web.conftest import overrides, pig_game, serving


def test_the_development_request_log_masks_links(sqlite_db, tmp_path, caplog):
    runtime = build_runtime(overrides(tmp_path), db=sqlite_db)
    created = pig_game(runtime)
    token = created.tokens[0]
    caplog.set_level(logging.INFO, logger="werkzeug")
    with serving(runtime) as base:
        for path in (f"/play/{token}", f"/api/play/{token}", f"/rescue/{token}?x=1"):
            with urllib.request.urlopen(f"{base}{path}", timeout=60) as answer:  # noqa: S310
                assert answer.status == 200
    lines = [record.getMessage() for record in caplog.records if record.name == "werkzeug"]
    requests = [line for line in lines if "GET /" in line]
    assert len(requests) == 3, lines
    assert all(token not in line for line in lines), requests
    assert any("/play/<masked>" in line for line in requests), requests
    assert any("/api/play/<masked>" in line for line in requests), requests
