"""``pbem serve`` runs gunicorn: one threaded worker beside the scheduler, or with
``--production`` the gunicorn command the README shows."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import urllib.request
from types import SimpleNamespace

import pytest

from pbem.cli import gunicorn_command
from pbem.config import ROOT
from tests.web.conftest import free_port


def readme_command() -> list[str]:
    text = (ROOT / "README.md").read_text()
    found = re.search(r"`pbem serve --production` runs `(gunicorn [^`]+)`", text)
    assert found, "the README names the production command"
    return shlex.split(" ".join(found.group(1).split()))


def test_the_production_command_is_the_one_the_readme_shows():
    # The README shows the command behind one proxy, as its production example has it.
    runtime = SimpleNamespace(config={"server": {"workers": 4, "proxies": 1}})
    command = gunicorn_command(runtime, "HOST", 0, 7)
    command = [part.replace("HOST:0", "HOST:PORT") for part in command]
    command[command.index("--workers") + 1] = "N"
    assert command[0].endswith("gunicorn")
    assert ["gunicorn", *command[1:]] == readme_command()
    assert command[command.index("--threads") + 1] == "4"  # threaded, not sync, workers


# The embedded server ---------------------------------------------------------------


def _get(url: str, **kwargs) -> tuple[int, str]:
    with urllib.request.urlopen(urllib.request.Request(url, **kwargs), timeout=60) as answer:  # noqa: S310 - loopback
        return answer.status, answer.read().decode()


@pytest.fixture
def served(tmp_path):
    """``pbem serve`` (demo games on) in a process of its own, on a free port; yields the
    base address, a seat's token from the printed demo links and the process."""
    port = free_port()
    env = {
        **os.environ,
        "PBEM_DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite3'}",
        "PBEM_PATHS_VAR": str(tmp_path / "var"),
        "PBEM_SECURITY_SECRET_KEY": "serve-test",
        "PBEM_SERVER_DEMO": "true",
        "PBEM_SERVER_PRODUCTION": "false",
        "PYTHONUNBUFFERED": "1",
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    with out.open("w") as stdout, err.open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "pbem.cli", "serve", "--port", str(port)],
            env=env,
            stdout=stdout,
            stderr=stderr,
            cwd=tmp_path,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                _get(f"{base}/")
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"pbem serve did not answer: {err.read_text()[-3000:]}")
                time.sleep(0.2)
        token = re.search(r"Mercatores: \S+/play/(\S+)", out.read_text()).group(1)
        yield SimpleNamespace(base=base, token=token, process=process, out=out, err=err)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)  # Ctrl-C
            process.wait(timeout=30)


def test_pbem_serve_runs_a_production_server_that_serves_a_page_and_a_move(served):
    status, page = _get(f"{served.base}/play/{served.token}")
    assert status == 200 and "It is your turn" in page
    _, seat = _get(f"{served.base}/api/play/{served.token}")
    seat = json.loads(seat)
    move = seat["legal_moves"][0]["move"]
    body = json.dumps({"move": move, "expected_seq": seat["seq"]}).encode()
    status, answer = _get(
        f"{served.base}/api/play/{served.token}/moves",
        data=body,
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    assert status == 200 and json.loads(answer)["seq"] == seat["seq"] + 1
    _, after = _get(f"{served.base}/api/play/{served.token}")
    assert json.loads(after)["seq"] > seat["seq"]  # the move was kept (and bots answered)
    served.process.send_signal(signal.SIGINT)  # Ctrl-C stops it cleanly
    assert served.process.wait(timeout=30) == 0
    output = served.out.read_text() + served.err.read_text()
    assert "development server" not in output.lower()
    assert "Using worker: gthread" in output  # gunicorn's threaded worker
    assert "Scheduler started" in output  # the scheduler beside it, in the worker
    # gunicorn's access log masks every seat link, as under --production.
    requests = [line for line in output.splitlines() if '"POST /api/play/' in line]
    assert len(requests) == 1 and "/api/play/<masked>/moves" in requests[0], requests
    assert "Traceback" not in output
