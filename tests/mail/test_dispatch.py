"""The dispatcher: retries while SMTP refuses, two dispatchers at once, a killed worker,
the file sender and the /dev/mail pages."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from sqlmodel import Session, select

from pbem.config import ROOT
from pbem.mail.dispatch import dispatch
from pbem.mail.models import Heartbeat, Mail
from pbem.mail.outbox import enqueue
from pbem.web import create_app
from pbem.web.mail_pages import bp as mail_bp
from tests.mail.conftest import make_runtime, new_game


def fill(runtime, count: int) -> list[str]:
    """Writes ``count`` notices to the outbox; returns their Message-IDs."""
    with Session(runtime.db) as session:
        rows = [
            enqueue(
                session,
                runtime,
                "notice",
                key=f"test:{index}",
                recipient=f"p{index}@example.org",
                context={
                    "name": f"P{index}",
                    "title": "T",
                    "headline": "Hi",
                    "lines": [],
                    "link": "",
                },
            )
            for index in range(count)
        ]
        session.commit()
        return [row.message_id for row in rows]


def statuses(runtime) -> Counter:
    with Session(runtime.db) as session:
        return Counter(session.exec(select(Mail.status)))


def test_smtp_refusing_for_an_hour_loses_nothing(runtime, mailbox, clock):
    ids = fill(runtime, 5)
    mailbox.refusing = True
    for _ in range(60):
        dispatch(runtime)
        clock.advance(minutes=1)
    assert mailbox.messages == []
    assert statuses(runtime) == Counter(pending=5)
    mailbox.refusing = False
    for _ in range(70):
        dispatch(runtime)
        clock.advance(minutes=1)
    assert sorted(m["Message-ID"] for m in mailbox.messages) == sorted(ids)
    assert statuses(runtime) == Counter(sent=5)
    with Session(runtime.db) as session:
        attempts = {mail.attempts for mail in session.exec(select(Mail))}
    assert max(attempts) <= 8  # backoff: 30 s, 1, 2, 4, 8, 16, 32 min, then hourly


def test_a_server_that_is_down_is_retried_later(runtime, clock, tmp_path):
    from tests.mail.conftest import free_port

    fill(runtime, 1)
    down = make_runtime(runtime.db, tmp_path, clock, free_port())
    report = dispatch(down)
    assert report.retried == 1 and statuses(down) == Counter(pending=1)


def test_two_dispatchers_send_each_mail_once(runtime, mailbox):
    ids = fill(runtime, 40)
    barrier = threading.Barrier(2)

    def run() -> None:
        barrier.wait(timeout=10)
        for _ in range(5):
            dispatch(runtime, limit=7)

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert Counter(m["Message-ID"] for m in mailbox.messages) == Counter(ids)


def _worker(tmp_path: Path, url: str, port: int) -> subprocess.Popen:
    env = {
        **os.environ,
        "PBEM_DATABASE_URL": url,
        "PBEM_PATHS_VAR": str(tmp_path / "worker-var"),
        "PBEM_SECURITY_SECRET_KEY": "test-key",
        "PBEM_SERVER_DEMO": "false",
        "PBEM_MAIL_HOST": "127.0.0.1",
        "PBEM_MAIL_PORT": str(port),
        "PBEM_MAIL_SECURITY": "none",
        "PBEM_MAIL_DISPATCH_EVERY_SECONDS": "1",
        "PYTHONPATH": str(ROOT),
    }
    return subprocess.Popen(
        [sys.executable, "-m", "pbem.cli", "worker"],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )


def test_killed_worker_loses_no_mail_and_resends_at_most_the_one_in_flight(
    sqlite_db, tmp_path, clock, smtp
):
    mailbox, port = smtp
    runtime = make_runtime(sqlite_db, tmp_path, clock, port)
    clock.now = clock.now.replace(year=2000)  # the rows are ready for the real clock
    ids = fill(runtime, 30)
    worker = _worker(tmp_path, str(sqlite_db.url), port)

    def kill_at_tenth(message) -> None:
        if len(mailbox.messages) == 10:
            worker.send_signal(signal.SIGKILL)
            worker.wait(timeout=10)

    mailbox.on_message = kill_at_tenth
    try:
        worker.wait(timeout=60)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    assert worker.returncode == -signal.SIGKILL
    assert len(mailbox.messages) == 10
    mailbox.on_message = None
    # The worker had leased its whole batch; each mail is marked sent right after the
    # server's "250 OK", and the tenth one's answer never reached it. Once the lease runs
    # out a new dispatcher sends the batch's rest, the tenth included.
    assert statuses(runtime) == Counter(sent=9, sending=21)
    clock.now = clock.now.replace(year=2100)
    while dispatch(runtime).claimed:
        pass
    received = Counter(m["Message-ID"] for m in mailbox.messages)
    assert set(received) == set(ids)
    assert [count for count in received.values() if count > 1] == [2]
    assert received[ids[9]] == 2
    assert statuses(runtime) == Counter(sent=30)


def test_worker_stops_cleanly_on_sigterm_and_beats(sqlite_db, tmp_path, clock, smtp):
    mailbox, port = smtp
    runtime = make_runtime(sqlite_db, tmp_path, clock, port)
    worker = _worker(tmp_path, str(sqlite_db.url), port)
    try:
        deadline = time.monotonic() + 30
        beat = None
        while beat is None and time.monotonic() < deadline:
            time.sleep(0.2)
            with Session(runtime.db) as session:
                beat = session.exec(select(Heartbeat)).first()
        assert beat is not None and beat.pid == worker.pid
        worker.send_signal(signal.SIGTERM)
        output, _ = worker.communicate(timeout=30)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    assert worker.returncode == 0, output
    assert b"pbem worker stopped." in output


@pytest.fixture
def file_runtime(sqlite_db, tmp_path, clock):
    return make_runtime(sqlite_db, tmp_path, clock)


def test_without_smtp_mail_goes_to_files_the_console_and_dev_mail(file_runtime, caplog):
    caplog.set_level("INFO", logger="pbem.mail.dispatch")
    runtime = file_runtime
    new_game(runtime, seats=2)
    assert dispatch(runtime).sent == 2
    files = sorted((Path(runtime.config["paths"]["var"]) / "mail").glob("*.eml"))
    assert [path.name for path in files] == ["0000001-invitation.eml", "0000002-invitation.eml"]
    assert b"List-Unsubscribe" in files[0].read_bytes()
    assert "Subject: Pig (test fixture): you are invited to play" in caplog.text
    app = create_app({"TESTING": True}, runtime=runtime)
    if "mail" not in app.blueprints:
        app.register_blueprint(mail_bp)
    client = app.test_client()
    listing = client.get("/dev/mail")
    assert listing.status_code == 200 and b"anna@example.org" in listing.data
    shown = client.get("/dev/mail/1")
    assert shown.status_code == 200 and b"you are invited to play" in shown.data
    assert client.get("/dev/mail/99").status_code == 404
    runtime.config["server"]["production"] = True
    assert client.get("/dev/mail").status_code == 404
    assert client.get("/dev/mail/1").status_code == 404
