"""The web's edges, tried as an attacker: headers, proxies, absurd input, failing databases."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import event

from pbem.runtime import build_runtime
from pbem.web import create_app, hardening
from tests.web.conftest import csrf_of, overrides, pig_game

ROOT = Path(__file__).resolve().parents[2]


def shape_ok(answer) -> bool:
    """An error under /api/ is JSON: {"error": {"status": N, "message": "..."}}."""
    if not answer.is_json:
        return False
    error = answer.json.get("error")
    return (
        isinstance(error, dict)
        and error.get("status") == answer.status_code
        and isinstance(error.get("message"), str)
        and error["message"]
    )


# Headers ---------------------------------------------------------------------------


def test_every_answer_carries_the_security_headers(runtime, client):
    created = pig_game(runtime)
    for url in ("/", f"/games/{created.game_id}", "/static/style.css", "/nowhere", "/api/x"):
        answer = client.get(url)
        csp = answer.headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in csp, url
        script = re.search(r"script-src ([^;]*)", csp).group(1)
        assert "unsafe-inline" not in script and "unsafe-eval" not in script
        assert "default-src 'self'" in csp
        assert answer.headers["Referrer-Policy"] == "no-referrer"
        assert answer.headers["X-Content-Type-Options"] == "nosniff"
        assert "Strict-Transport-Security" not in answer.headers


def test_no_template_or_static_file_runs_inline_script():
    files = list((ROOT / "templates").rglob("*.html")) + list(
        (ROOT / "pbem").rglob("templates/*.html")
    )
    assert len(files) > 10
    for path in files:
        if "email" in path.parts:
            continue  # mails are read in mail clients, never served by the web
        text = path.read_text()
        for tag in re.findall(r"<script\b[^>]*>", text):
            assert "src=" in tag, f"{path.name}: inline <script>"
        assert not re.search(r"\son[a-z]+\s*=", text), f"{path.name}: an on*= handler"
        assert "javascript:" not in text.lower(), path.name


def test_hsts_only_over_https_and_forged_proxy_headers_are_ignored(runtime, client):
    forged = client.get("/", headers={"X-Forwarded-Proto": "https"})
    assert "Strict-Transport-Security" not in forged.headers
    secure = client.get("/", base_url="https://localhost")
    assert secure.headers["Strict-Transport-Security"].startswith("max-age=")


def proxied_client(db, tmp_path, proxies: int):
    settings = overrides(tmp_path)
    settings["server"]["proxies"] = proxies
    app = create_app(runtime=build_runtime(settings, db=db))
    app.config["TESTING"] = True
    return app.test_client(), app.extensions["pbem"]


def session_cookie(answer) -> str:
    cookies = [value for value in answer.headers.getlist("Set-Cookie") if "session=" in value]
    assert cookies, "no session cookie was set"
    return cookies[0]


def test_behind_a_configured_proxy_https_gives_hsts_and_a_secure_cookie(sqlite_db, tmp_path):
    client, runtime = proxied_client(sqlite_db, tmp_path, 1)
    token = pig_game(runtime).tokens[0]
    https = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "198.51.100.7"}
    answer = client.get(f"/play/{token}", headers=https)
    assert answer.headers["Strict-Transport-Security"].startswith("max-age=")
    assert "Secure" in session_cookie(answer)


def test_over_plain_http_the_cookie_is_not_secure_and_forging_the_proxy_changes_nothing(
    sqlite_db, tmp_path
):
    client, runtime = proxied_client(sqlite_db, tmp_path, 0)
    token = pig_game(runtime).tokens[0]
    answer = client.get(f"/play/{token}", headers={"X-Forwarded-Proto": "https"})
    assert "Secure" not in session_cookie(answer)
    secure = client.application.test_client().get(f"/play/{token}", base_url="https://localhost")
    assert "Secure" in session_cookie(secure)


def test_pages_reached_by_a_token_are_never_cached(runtime, client):
    created = pig_game(runtime)
    token = created.tokens[0]
    for url in (
        f"/play/{token}",
        f"/play/{token}/history",
        f"/play/{token}/export.json",
        f"/play/{token}/record.txt",
        f"/api/play/{token}",
        f"/rescue/{token}",
        "/play/" + "x" * 43,
    ):
        assert client.get(url).headers.get("Cache-Control") == "no-store", url
    url = settings_path(runtime, created.game_id, 0)
    assert client.get(url).status_code == 200
    assert client.get(url).headers.get("Cache-Control") == "no-store", url
    for url in ("/", f"/games/{created.game_id}"):
        assert client.get(url).headers.get("Cache-Control") != "no-store", url


def settings_path(runtime, game_id: str, seat: int) -> str:
    """The signed mail-settings address a seat's mails carry."""
    from pbem.mail import outbox, render
    from pbem.models import Seat

    with runtime.service.session() as session:
        token_hash = session.get(Seat, (game_id, seat)).token_hash
    signature = render.settings_signature(outbox.secret(runtime), game_id, seat, token_hash)
    return f"/mail/settings/{game_id}/{seat}/{signature}"


# Bounded input ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "expected_seq", [2**63, 2**63 - 1, 2**31, -1, -(2**63), 1e308, True, "0", None, 0.5]
)
def test_an_absurd_expected_seq_is_a_clear_400(runtime, client, expected_seq):
    created = pig_game(runtime)
    answer = client.post(
        f"/api/play/{created.tokens[0]}/moves",
        json={"move": {"type": "roll"}, "expected_seq": expected_seq},
    )
    assert answer.status_code == 400 and shape_ok(answer)
    assert runtime.service.head(created.game_id).seq == 0


@pytest.mark.parametrize("seq", [str(2**63), str(2**31), "-1", "9" * 5000, "1e308"])
def test_an_absurd_seq_in_a_form_is_a_clear_400(runtime, client, seq):
    created = pig_game(runtime)
    token = created.tokens[0]
    csrf = csrf_of(client.get(f"/play/{token}").text)
    answer = client.post(
        f"/play/{token}/move", data={"csrf_token": csrf, "seq": seq, "move": '{"type": "roll"}'}
    )
    assert answer.status_code == 400 and "reload the page" in answer.text
    assert runtime.service.head(created.game_id).seq == 0


@pytest.mark.parametrize(
    "body",
    [
        "[" * 5000 + "]" * 5000,
        '{"move": ' + '{"a": ' * 5000 + "1" + "}" * 5000 + ', "expected_seq": 0}',
        '{"move": {"type": "roll"}, "expected_seq": NaN}',
        '{"move": {"type": "roll"}, "expected_seq": Infinity}',
        '{"move": {"type": "roll"}, "expected_seq": 1e999}',
        '{"move": {"type": "roll\\u0000"}, "expected_seq": 0}',
        '{"move": {"type": "roll", "x\\u0000": 1}, "expected_seq": 0}',
        '{"move": {"type": "roll"}, "expected_seq": ' + "9" * 5000 + "}",
    ],
)
def test_hostile_json_is_a_clear_400(runtime, client, body):
    created = pig_game(runtime)
    answer = client.post(
        f"/api/play/{created.tokens[0]}/moves", data=body, content_type="application/json"
    )
    assert answer.status_code == 400 and shape_ok(answer)
    assert runtime.service.head(created.game_id).seq == 0


def test_an_oversized_body_is_a_json_413(runtime, client):
    created = pig_game(runtime)
    body = json.dumps({"move": {"type": "roll", "pad": "x" * 300_000}, "expected_seq": 0})
    answer = client.post(
        f"/api/play/{created.tokens[0]}/moves", data=body, content_type="application/json"
    )
    assert answer.status_code == 413 and shape_ok(answer)


@pytest.mark.parametrize(
    "url",
    [
        "/api/games/ab%00cd",
        "/games/ab%00cd",
        "/games/ab%00cd/history",
        "/play/" + "x" * 30 + "%00" + "y" * 12,
        "/api/play/" + "x" * 30 + "%00" + "y" * 12,
        "/rescue/" + "x" * 30 + "%00" + "y" * 12,
        "/?q=%00",
        "/mail/settings/ab%00cd/0/sig",
    ],
)
def test_a_nul_byte_in_an_address_is_a_clear_400(client, url):
    answer = client.get(url)
    assert answer.status_code == 400
    if url.startswith("/api/"):
        assert shape_ok(answer)


@pytest.mark.parametrize(
    "field", ["title", "seat_name_0", "seat_email_0", "reminder_after_hours", "game"]
)
def test_a_nul_byte_in_a_form_field_changes_nothing(runtime, client, field):
    csrf = csrf_of(client.get("/").text)
    form = {
        "csrf_token": csrf,
        "game": "mercatores",
        "let_server_draw": "on",
        "title": "A game",
        "seat_name_0": "Ann",
        "seat_email_0": "ann@example.org",
        "seat_name_1": "Bob",
        "seat_email_1": "bob@example.org",
    }
    form[field] = form.get(field, "1") + "\x00"
    answer = client.post("/games", data=form)
    assert answer.status_code == 400
    assert runtime.service.games() == []


@pytest.mark.parametrize("hours", ["inf", "-inf", "nan", "1e308", "1e20", "-1", "9" * 400])
@pytest.mark.parametrize(
    "field", ["reminder_after_hours", "reminder_every_hours", "deadline_after_days"]
)
def test_absurd_deadline_numbers_in_the_lobby_are_refused(runtime, client, hours, field):
    csrf = csrf_of(client.get("/").text)
    form = {
        "csrf_token": csrf,
        "game": "mercatores",
        "let_server_draw": "on",
        "seat_name_0": "Ann",
        "seat_email_0": "ann@example.org",
        "seat_name_1": "Bob",
        "seat_email_1": "bob@example.org",
        field: hours,
    }
    answer = client.post("/games", data=form)
    assert answer.status_code == 400, answer.text
    assert runtime.service.games() == []


@pytest.mark.parametrize("seat", [str(2**70), str(2**63), str(2**31), "-1", "-" + str(2**70)])
@pytest.mark.parametrize("action", ["to_bot", "reclaim", "replace"])
def test_an_absurd_seat_in_a_rescue_request_is_refused(runtime, client, seat, action):
    created = pig_game(runtime)
    token = created.tokens[0]
    page = client.get(f"/rescue/{token}")
    form = {
        "csrf_token": csrf_of(page.text),
        "action": action,
        "seat": seat,
        "name": "Mallory",
        "email": "mallory@example.org",
    }
    answer = client.post(f"/rescue/{token}", data=form)
    assert 400 <= answer.status_code < 500
    assert runtime.service.head(created.game_id).seq == 0


# Errors in one shape ---------------------------------------------------------------


def test_flask_errors_under_the_api_are_json_in_the_stable_shape(runtime, client):
    created = pig_game(runtime)
    answers = {
        404: client.get("/api/nothing/here"),
        405: client.delete(f"/api/games/{created.game_id}"),
    }
    missing = client.get("/api/games/nosuchgame")
    assert missing.status_code == 404 and shape_ok(missing)
    for status, answer in answers.items():
        assert answer.status_code == status and shape_ok(answer)
    page = client.get("/nothing/here")
    assert page.status_code == 404 and page.mimetype == "text/html"


def test_a_server_error_is_json_under_the_api_and_a_page_elsewhere(runtime, client, monkeypatch):
    created = pig_game(runtime)

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(runtime.service, "head", broken)
    api = client.get(f"/api/games/{created.game_id}")
    assert api.status_code == 500 and shape_ok(api) and "a bug" not in api.text
    page = client.get(f"/play/{created.tokens[0]}/history")
    monkeypatch.setattr(runtime.service, "game", broken)
    page = client.get(f"/play/{created.tokens[0]}/history")
    assert page.status_code == 500 and page.mimetype == "text/html"
    assert "a bug" not in page.text


def test_the_openapi_document_describes_the_error_shape(client):
    schema = client.get("/api/openapi.json").json
    error = schema["components"]["schemas"]["Error"]
    assert error["required"] == ["error"]
    assert set(error["properties"]["error"]["required"]) == {"status", "message"}
    for path in schema["paths"].values():
        for operation in path.values():
            for status, response in operation["responses"].items():
                if status.startswith(("4", "5")):
                    ref = response["content"]["application/json"]["schema"]["$ref"]
                    assert ref.endswith("/Error")


# A failing database ----------------------------------------------------------------


class Failing:
    """Makes every statement (or only writes) fail as a full disk or a lost link does."""

    def __init__(self, engine, error: Exception, writes_only: bool = False):
        self.engine, self.error, self.writes_only = engine, error, writes_only

    def __enter__(self):
        event.listen(self.engine, "before_cursor_execute", self.fail)
        return self

    def __exit__(self, *exc):
        event.remove(self.engine, "before_cursor_execute", self.fail)
        hardening.forget_database_failures()

    def fail(self, conn, cursor, statement, *args):
        writing = statement.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))
        if self.writes_only and not writing:
            return
        raise self.error


@pytest.fixture
def healthy_worker(runtime):
    from sqlmodel import Session

    from pbem.mail.models import Heartbeat
    from pbem.zones import utc

    with Session(runtime.db) as session:
        now = utc(runtime.clock())
        session.merge(Heartbeat(name="w", pid=1, started_at=now, beat_at=now))
        session.commit()
    hardening.forget_database_failures()
    yield
    hardening.forget_database_failures()


def test_a_full_disk_gives_a_503_sentence_and_healthz_reports_it(
    sqlite_runtime, tmp_path, monkeypatch
):
    runtime = sqlite_runtime
    app = create_app(runtime=runtime)
    app.config["TESTING"] = True
    client = app.test_client()
    from sqlmodel import Session

    from pbem.mail.models import Heartbeat
    from pbem.zones import utc

    with Session(runtime.db) as session:
        now = utc(runtime.clock())
        session.merge(Heartbeat(name="w", pid=1, started_at=now, beat_at=now))
        session.commit()
    hardening.forget_database_failures()
    created = pig_game(runtime)
    assert client.get("/healthz").status_code == 200
    token = created.tokens[0]
    csrf = csrf_of(client.get(f"/play/{token}").text)
    full = sqlite3.OperationalError("database or disk is full")
    with Failing(runtime.db, full, writes_only=True):
        api = client.post(
            f"/api/play/{created.tokens[0]}/moves",
            json={"move": {"type": "roll"}, "expected_seq": 0},
        )
        assert api.status_code == 503 and shape_ok(api)
        assert "database" in api.json["error"]["message"]
        move = {"csrf_token": csrf, "seq": "0", "move": '{"type": "roll"}', "confirmed": "1"}
        page = client.post(f"/play/{token}/move", data=move)
        assert page.status_code == 503 and page.mimetype == "text/html"
        assert "database" in page.text
        health = client.get("/healthz")
        assert health.status_code == 503
        assert "disk full" in health.json["database"]
    assert runtime.service.head(created.game_id).seq == 0


def test_a_lost_connection_gives_a_503_on_pages_and_api(runtime, client, healthy_worker):
    created = pig_game(runtime)
    dbapi = runtime.db.dialect.loaded_dbapi
    lost = dbapi.OperationalError("server closed the connection unexpectedly")
    with Failing(runtime.db, lost):
        api = client.get(f"/api/games/{created.game_id}")
        assert api.status_code == 503 and shape_ok(api)
        page = client.get(f"/games/{created.game_id}")
        assert page.status_code == 503 and "database" in page.text
        lobby = client.get("/")
        assert lobby.status_code == 503
        health = client.get("/healthz")
        assert health.status_code == 503 and health.json["status"] == "unhealthy"
        assert "127.0.0.1" not in health.text and "server closed" not in health.text
    assert client.get("/healthz").status_code == 200


def test_a_rate_limit_refusal_under_the_api_is_json_in_the_stable_shape(runtime):
    from flask import abort

    app = create_app(runtime=runtime)
    app.add_url_rule("/api/limited", "limited", lambda: abort(429))
    app.add_url_rule("/limited", "limited_page", lambda: abort(429))
    client = app.test_client()
    answer = client.get("/api/limited")
    assert answer.status_code == 429 and shape_ok(answer)
    page = client.get("/limited")
    assert page.status_code == 429 and page.mimetype == "text/html"


def test_behind_a_proxy_metrics_see_the_real_client(sqlite_db, tmp_path):
    client, _ = proxied_client(sqlite_db, tmp_path, 1)
    far = {"X-Forwarded-For": "203.0.113.9"}
    assert client.get("/metrics", headers=far).status_code == 403
    near = {"X-Forwarded-For": "127.0.0.1"}
    assert client.get("/metrics", headers=near).status_code == 200


WEIRD = ["", "a" * 3000, "%ff%fe", "..", "%2e%2e", "x" * 43, "%C0%AE", "1e308", "-1"]
WEIRD += [str(2**70), "%0d%0aX-Injected:1", "nan", "{}", "[[[[", "%u0000"]


def test_no_address_or_form_value_anywhere_gives_a_500(runtime, client):
    created = pig_game(runtime)
    token, game_id = created.tokens[0], created.game_id
    # The real links first: past limits.unknown_tokens the weird ones below answer 429,
    # and links this browser opened before keep working for the forms after them.
    assert client.get(f"/play/{token}").status_code == 200
    assert client.get(settings_path(runtime, game_id, 0)).status_code == 200
    pages = [
        "/games/{}",
        "/games/{}/history",
        "/games/{}/audit",
        "/games/{}/export.json",
        "/games/{}/record.txt",
        "/api/games/{}",
        "/play/{}",
        "/play/{}/history",
        "/play/{}/export.json",
        "/play/{}/record.txt",
        "/api/play/{}",
        "/rescue/{}",
        "/mail/settings/{}/0/signature",
        f"/mail/settings/{game_id}/{{}}/signature",
        "/dev/mail/{}",
        f"/play/{token}?pick={{}}",
        f"/play/{token}/history?at={{}}",
        f"/games/{game_id}/history?at={{}}",
    ]
    failures = []
    for template in pages:
        for value in WEIRD:
            answer = client.get(template.format(value))
            if answer.status_code >= 500:
                failures.append((template, value[:20], answer.status_code))
    csrf = csrf_of(client.get(f"/play/{token}").text)
    forms = [f"/play/{token}/move", f"/play/{token}/take-back", f"/rescue/{token}", "/games"]
    forms.append(settings_path(runtime, game_id, 0))
    fields = ("seq", "move", "move_type", "action", "seat", "days", "notify", "game", "title")
    for path in forms:
        for value in WEIRD:
            form = {"csrf_token": csrf, **{name: value for name in fields}}
            answer = client.post(path, data=form)
            if answer.status_code >= 500:
                failures.append((path, value[:20], answer.status_code))
    assert runtime.service.head(game_id).seq == 0
    # Rescue requests with absurd names, addresses and days (whether the rescue rules
    # grant the action is theirs to say; no value may break the server).
    for value in WEIRD + ["N" * 300 + "@example.org", "\r\nBcc: x@example.org"]:
        for action in ("replace", "vacation", "to_bot"):
            form = {"csrf_token": csrf, "action": action, "seat": "1", "days": value}
            answer = client.post(f"/rescue/{token}", data={**form, "name": value, "email": value})
            if answer.status_code >= 500:
                failures.append(("rescue", action, value[:20], answer.status_code))
    assert not failures, failures
