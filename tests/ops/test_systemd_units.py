"""The example systemd units in ``config/systemd/`` pass ``systemd-analyze verify`` with
no warning, keep their hardening, and start real ``pbem`` commands.

``systemd-analyze`` comes with Debian's ``systemd`` package
(``scripts/install-system-deps.sh`` installs it); without it the check is skipped on a
developer's machine and fails under ``CI=true``."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from pbem.cli import build_parser
from pbem.config import ROOT

UNITS = ROOT / "config" / "systemd"
NAMES = ["pbem-web.service", "pbem-worker.service", "pbem-lmtp.service"]
INSTALLED = "/opt/pbem/bin/pbem"  # where the units expect pbem (README "Running it for real")


def settings(text: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        if "=" in line and not line.startswith(("#", "[")):
            key, value = line.split("=", 1)
            found.setdefault(key.strip(), []).append(value.strip())
    return found


def systemd_analyze() -> str:
    tool = shutil.which("systemd-analyze")
    if tool is None:
        message = "systemd-analyze is missing: scripts/install-system-deps.sh installs it"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return tool


def verify(tmp_path: Path, texts: dict[str, str]) -> str:
    """``systemd-analyze verify`` on the units with pbem where this test runs it; its
    output (warnings included: the tool exits 0 on an unknown key or a bad value)."""
    pbem = Path(sys.executable).parent / "pbem"
    assert pbem.is_file(), "pbem is installed beside this Python (pip install -e .)"
    for name, text in texts.items():
        (tmp_path / name).write_text(text.replace(INSTALLED, str(pbem)))
    done = subprocess.run(
        [systemd_analyze(), "verify", *(str(tmp_path / name) for name in texts)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = done.stdout + done.stderr
    return output if done.returncode == 0 or output else f"exit status {done.returncode}"


def test_the_units_pass_systemd_analyze_verify_without_a_warning(tmp_path):
    texts = {name: (UNITS / name).read_text() for name in NAMES}
    assert verify(tmp_path, texts) == ""


def test_verify_would_tell_a_misspelt_setting(tmp_path):
    # The check above can fail: a unit with a wrong key or value is reported.
    text = (UNITS / "pbem-web.service").read_text()
    broken = text.replace("NoNewPrivileges=yes", "NoNewPrivilege=yes")
    assert "Unknown key" in verify(tmp_path, {"pbem-web.service": broken})
    broken = text.replace("ProtectSystem=strict", "ProtectSystem=stric")
    assert "stric" in verify(tmp_path, {"pbem-web.service": broken})


@pytest.mark.parametrize("name", NAMES)
def test_each_unit_is_hardened_and_writes_only_var(name):
    found = settings((UNITS / name).read_text())
    for key, value in {
        "NoNewPrivileges": "yes",
        "ProtectSystem": "strict",
        "ProtectHome": "yes",
        "PrivateTmp": "yes",
        "ReadWritePaths": "/var/lib/pbem",
        "StateDirectory": "pbem",
        "WorkingDirectory": "/var/lib/pbem",
        "User": "pbem",
        "CapabilityBoundingSet": "",
        "RestartPreventExitStatus": "78",  # a configuration mistake (README)
    }.items():
        assert found.get(key) == [value], (name, key, found.get(key))
    # paths.var of the production example is the one folder the units may write.
    example = (ROOT / "config" / "production.example.toml").read_text()
    assert 'var = "/var/lib/pbem"' in example


@pytest.mark.parametrize(
    "name, command",
    [
        ("pbem-web.service", ["serve", "--production"]),
        ("pbem-worker.service", ["worker"]),
        ("pbem-lmtp.service", ["inbound", "--lmtp", "127.0.0.1:8024"]),
    ],
)
def test_each_unit_starts_a_real_pbem_command(name, command):
    found = settings((UNITS / name).read_text())
    (start,) = found["ExecStart"]
    argv = shlex.split(start)
    assert argv[0] == INSTALLED and argv[1 : 1 + len(command)] == command
    build_parser().parse_args(argv[1:])  # pbem accepts every option the unit passes


def test_the_worker_leaves_lmtp_to_its_own_unit():
    # Two listeners on one address would stop one of them: the worker opens none.
    worker = settings((UNITS / "pbem-worker.service").read_text())
    assert "PBEM_MAIL_INBOUND_LMTP=" in worker["Environment"]
    lmtp = settings((UNITS / "pbem-lmtp.service").read_text())
    example = (ROOT / "config" / "production.example.toml").read_text()
    address = shlex.split(lmtp["ExecStart"][0])[-1]
    assert f'inbound_lmtp = "{address}"' in example
