"""/metrics as an outsider tries it: without the token, from afar, looking for host:pid."""

from __future__ import annotations

import socket

import pytest
from sqlmodel import Session

from pbem.mail.models import Heartbeat
from pbem.runtime import build_runtime
from pbem.web import create_app
from pbem.zones import utc

FAR = {"REMOTE_ADDR": "203.0.113.9"}


def make_client(sqlite_db, tmp_path, token: str = ""):
    runtime = build_runtime(
        {
            "security": {"secret_key": "k"},
            "paths": {"var": str(tmp_path / "var")},
            "ops": {"metrics_token": token},
        },
        db=sqlite_db,
    )
    with Session(runtime.db) as session:
        now = utc(runtime.clock())
        name = f"{socket.gethostname()}:4242"
        session.merge(Heartbeat(name=name, pid=4242, started_at=now, beat_at=now))
        session.commit()
    app = create_app(runtime=runtime)
    app.config["TESTING"] = True
    return app.test_client()


def test_without_a_token_metrics_answer_only_loopback(sqlite_db, tmp_path):
    client = make_client(sqlite_db, tmp_path)
    assert client.get("/metrics", environ_base=FAR).status_code == 403
    assert client.get("/metrics", environ_base={"REMOTE_ADDR": "::1"}).status_code == 200
    local = client.get("/metrics", environ_base={"REMOTE_ADDR": "127.0.0.1"})
    assert local.status_code == 200 and "pbem_events_appended_total" in local.text


def test_a_forwarded_for_header_does_not_make_a_stranger_local(sqlite_db, tmp_path):
    client = make_client(sqlite_db, tmp_path)
    answer = client.get("/metrics", environ_base=FAR, headers={"X-Forwarded-For": "127.0.0.1"})
    assert answer.status_code == 403


@pytest.mark.parametrize(
    "header",
    [None, "Bearer wrong", "Bearer ", "Basic c2VjcmV0LXRva2Vu", "secret-token", "Bearer secret"],
)
def test_with_a_token_everyone_else_gets_401_even_on_loopback(sqlite_db, tmp_path, header):
    client = make_client(sqlite_db, tmp_path, token="secret-token")
    headers = {"Authorization": header} if header is not None else {}
    answer = client.get("/metrics", headers=headers)
    assert answer.status_code == 401
    assert answer.headers["WWW-Authenticate"].startswith("Bearer")
    assert "pbem_" not in answer.text


def test_the_right_token_reads_metrics_from_anywhere(sqlite_db, tmp_path):
    client = make_client(sqlite_db, tmp_path, token="secret-token")
    answer = client.get(
        "/metrics", environ_base=FAR, headers={"Authorization": "Bearer secret-token"}
    )
    assert answer.status_code == 200 and "pbem_mails" in answer.text


def test_metrics_never_show_host_or_pid(sqlite_db, tmp_path):
    client = make_client(sqlite_db, tmp_path)
    text = client.get("/metrics").text
    assert "pbem_worker_heartbeat_age_seconds{worker=" in text
    assert socket.gethostname() not in text and "4242" not in text
