"""The weight of pages and the waiting page: compression, the favicon, long-lived static
files with a version in their address, and a head to poll instead of a meta refresh."""

from __future__ import annotations

import gzip
import hashlib
import re
import zlib
from pathlib import Path

import pytest

from pbem.web import create_app
from pbem.web.assets import accepted_encodings
from tests.fixture_engine import PIG
from tests.web.conftest import form_fields, pig_game

STATIC = Path(__file__).resolve().parents[2] / "pbem" / "web" / "static"


@pytest.fixture
def client(sqlite_runtime):
    app = create_app(runtime=sqlite_runtime)
    app.config["TESTING"] = True
    return app.test_client()


def test_pages_json_and_assets_are_compressed_when_the_browser_accepts_it(client, sqlite_runtime):
    created = pig_game(sqlite_runtime)
    for url in ("/", f"/play/{created.tokens[0]}", "/api/openapi.json"):
        plain = client.get(url)
        packed = client.get(url, headers={"Accept-Encoding": "gzip"})
        assert "Content-Encoding" not in plain.headers
        assert packed.headers["Content-Encoding"] == "gzip", url
        assert len(packed.data) < len(plain.data) / 2, url
    css = client.get("/static/style.css", headers={"Accept-Encoding": "br"})
    assert css.headers["Content-Encoding"] == "br"


def test_a_gzip_only_client_gets_gzip_for_static_files_pages_and_exports(client, sqlite_runtime):
    created = pig_game(sqlite_runtime)
    for _ in range(30):  # an export long enough to gain from compression
        head = sqlite_runtime.service.head(created.game_id)
        seat = min(PIG.to_move(head.state))
        sqlite_runtime.service.submit_move(created.game_id, seat, {"type": "roll"}, head.seq)
    urls = (
        "/static/style.css",
        f"/play/{created.tokens[0]}",
        f"/play/{created.tokens[0]}/export.json",
    )
    for url in urls:
        plain = client.get(url, headers={"Accept-Encoding": "identity"})
        assert "Content-Encoding" not in plain.headers, url
        for accept, chosen, unpack in (
            ("gzip", "gzip", gzip.decompress),
            ("deflate", "deflate", zlib.decompress),
            ("br;q=0.5, gzip;q=0.8, identity;q=0.1", "gzip", gzip.decompress),
        ):
            packed = client.get(url, headers={"Accept-Encoding": accept})
            assert packed.headers["Content-Encoding"] == chosen, (url, accept)
            assert "Accept-Encoding" in packed.headers["Vary"], url
            assert len(packed.data) < len(plain.data) / 2, (url, accept)
            assert unpack(packed.data) == plain.data, (url, accept)
        for refusing in ("gzip;q=0", "br;q=0, gzip;q=0", "identity", ""):
            same = client.get(url, headers={"Accept-Encoding": refusing})
            assert "Content-Encoding" not in same.headers, (url, refusing)
            assert same.data == plain.data, (url, refusing)


def test_accept_encoding_keeps_what_the_client_accepts_with_its_quality():
    assert accepted_encodings("gzip, deflate, br") == "gzip;q=1, deflate;q=1, br;q=1"
    assert accepted_encodings("br;q=0, GZIP; q=0.5, *;q=0") == "gzip;q=0.5"
    assert accepted_encodings("gzip;q=x, br;q=2, zstd;q=0.001") == "zstd;q=0.001"
    assert accepted_encodings("") == ""


def test_the_favicon_is_served_and_linked(client):
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.mimetype == "image/vnd.microsoft.icon"
    assert icon.data[:4] == b"\x00\x00\x01\x00" and b"PNG" in icon.data[:40]
    page = client.get("/").text
    link = re.search(r'<link rel="icon" href="([^"]+)" type="image/svg\+xml">', page)
    assert link and client.get(link.group(1)).mimetype == "image/svg+xml"


def test_static_files_carry_their_hash_and_are_cached_for_a_year(client):
    page = client.get("/").text
    digest = hashlib.sha256((STATIC / "style.css").read_bytes()).hexdigest()[:12]
    assert f'href="/static/style.css?v={digest}"' in page
    assert (
        f'src="/static/enhance.js?v={hashlib.sha256((STATIC / "enhance.js").read_bytes()).hexdigest()[:12]}"'
        in page
    )
    fresh = client.get(f"/static/style.css?v={digest}")
    assert fresh.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    for url in ("/static/style.css", "/static/style.css?v=000000000000"):
        assert client.get(url).headers["Cache-Control"] == "no-cache"
    assert "immutable" not in client.get("/static/nothing.css?v=1").headers.get("Cache-Control", "")


def test_a_waiting_page_offers_a_refresh_and_a_head_to_poll(client, sqlite_runtime):
    created = pig_game(sqlite_runtime)
    waiting = client.get(f"/play/{created.tokens[1]}").text
    assert 'http-equiv="refresh"' not in waiting
    assert f'<a class="button" href="/play/{created.tokens[1]}">Refresh</a>' in waiting
    assert 'role="status" aria-live="polite"' in waiting
    poll = re.search(r'data-poll="([^"]+)" data-head="([0-9a-f]+)"', waiting)
    before = client.get(poll.group(1))
    assert before.is_json and before.json["head"] == poll.group(2)
    assert before.json == {"seq": 0, "head": poll.group(2), "due": False, "status": "active"}
    assert before.headers["Cache-Control"] == "no-store"
    due_page = client.get(f"/play/{created.tokens[0]}").text
    assert "data-poll" not in due_page and 'href="#moves"' in due_page
    csrf, seq = form_fields(due_page)
    client.post(
        f"/play/{created.tokens[0]}/move",
        data={"csrf_token": csrf, "seq": seq, "move": '{"type": "stop"}', "confirmed": "1"},
    )
    after = client.get(poll.group(1)).json
    assert after["head"] != poll.group(2) and after["due"] is True and after["seq"] == 1
    assert client.get(f"/play/{'x' * 40}/head").status_code == 404
