"""gunicorn believes ``X-Forwarded-Proto`` only from a proxy the configuration declares.

With ``server.proxies = 0`` (nobody in front) a client that sends
``X-Forwarded-Proto: https`` over plain http must not get HSTS nor a ``Secure`` cookie;
gunicorn's own default trusts 127.0.0.1, so the command says "nobody" explicitly."""

from __future__ import annotations

import os
import subprocess
import time
import urllib.request
from types import SimpleNamespace

import pytest

from pbem.cli import gunicorn_command
from pbem.db import make_engine
from pbem.migrations import migrate
from tests.web.conftest import free_port


def _allowed(proxies: int) -> str:
    runtime = SimpleNamespace(config={"server": {"workers": 1, "proxies": proxies}})
    command = gunicorn_command(runtime, "127.0.0.1", 8000, 1)
    return command[command.index("--forwarded-allow-ips") + 1]


def test_the_command_trusts_forwarded_headers_only_behind_a_declared_proxy():
    assert _allowed(0) == ""
    assert _allowed(1) == "127.0.0.1"
    assert _allowed(2) == "127.0.0.1"


@pytest.fixture
def gunicorn_without_proxy(tmp_path):
    """The production command (one worker) on a free port, ``server.proxies = 0``."""
    db_url = f"sqlite:///{tmp_path / 'g.sqlite3'}"
    engine = make_engine(db_url)
    migrate(engine)
    engine.dispose()
    port = free_port()
    runtime = SimpleNamespace(config={"server": {"workers": 1, "proxies": 0}})
    command = gunicorn_command(runtime, "127.0.0.1", port, 1)
    env = {
        **os.environ,
        "PBEM_DATABASE_URL": db_url,
        "PBEM_SECURITY_SECRET_KEY": "gunicorn-test",
        "PBEM_PATHS_VAR": str(tmp_path / "var"),
        "PBEM_SERVER_DEMO": "false",
        "PBEM_SERVER_PROXIES": "0",
        "PYTHONPATH": os.pathsep.join([str(os.getcwd()), os.environ.get("PYTHONPATH", "")]),
    }
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=os.getcwd()
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(f"{base}/healthz", timeout=2)  # noqa: S310 - loopback
                break
            except urllib.error.HTTPError:
                break  # answering (503: no worker heartbeat), which is enough
            except OSError:
                if process.poll() is not None:
                    pytest.fail(f"gunicorn stopped: {process.stderr.read().decode()[-2000:]}")
                time.sleep(0.1)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_a_forged_forwarded_proto_gets_no_hsts_nor_secure_cookie(gunicorn_without_proxy):
    request = urllib.request.Request(
        f"{gunicorn_without_proxy}/", headers={"X-Forwarded-Proto": "https"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:  # noqa: S310 - loopback
        assert answer.status == 200
        assert answer.headers.get("Strict-Transport-Security") is None
        cookies = answer.headers.get_all("Set-Cookie") or []
        assert cookies, "the lobby sets its session cookie (CSRF)"
        assert not any("secure" in cookie.lower() for cookie in cookies), cookies
