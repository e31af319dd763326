"""The built package stands alone: a wheel installed into a fresh virtualenv, run from a
folder outside the checkout, migrates, plays and serves pages from its own files."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.request
from pathlib import Path

import pytest

from pbem.config import ROOT

pytestmark = pytest.mark.package

# What the wheel is built from: the source tree, without the checkout's var/, build/, .git.
SOURCES = ("pyproject.toml", "setup.py", "README.md", "pbem", "engines", "templates", "config")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _files(folder: Path) -> set[str]:
    return {
        str(path.relative_to(folder))
        for path in folder.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict:
    """A fresh virtualenv with the wheel built from this checkout installed in it; the
    dependencies come from the test run's own environment (a path file), not the index."""
    top = tmp_path_factory.mktemp("package")
    # Nothing of the checkout or of the test run's settings reaches the installed server.
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("PBEM_") and name not in ("PYTHONPATH", "VIRTUAL_ENV")
    }
    source = top / "source"
    for name in SOURCES:
        found = ROOT / name
        if found.is_dir():
            shutil.copytree(found, source / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            source.mkdir(exist_ok=True)
            shutil.copy2(found, source / name)
    wheels = top / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(source)],
        check=True,
        cwd=top,
        env=env,
    )
    venv = top / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env)
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
            env=env,
        ).stdout.strip()
    )
    (wheel,) = wheels.glob("pbem-*.whl")
    subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-deps", str(wheel)], check=True, env=env
    )
    # Only now: pip would take the test environment's own pbem for the one to install.
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return {
        "top": top,
        "pbem": str(venv / "bin" / "pbem"),
        "python": python,
        "site": site,
        "env": env,
    }


def _run(installed: dict, cwd: Path, *args: str, status: int = 0) -> str:
    done = subprocess.run(
        [installed["pbem"], *args], cwd=cwd, env=installed["env"], capture_output=True, text=True
    )
    assert done.returncode == status, done.stdout + done.stderr
    return done.stdout + done.stderr


def _python(installed: dict, cwd: Path, code: str, *args: str, **env: str) -> str:
    """What ``code`` prints, run by the virtualenv's interpreter."""
    done = subprocess.run(
        [installed["python"], "-c", code, *args],
        cwd=cwd,
        env={**installed["env"], **env},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_wheel_runs_outside_the_checkout(installed):
    site, top = installed["site"], installed["top"]
    assert (site / "pbem" / "_data" / "templates" / "error.html").is_file()
    assert not (site / "pbem" / "_data" / "templates").is_relative_to(ROOT)
    for language in ("de", "pl", "fr"):  # the compiled catalogues, pages in other languages
        assert (site / "pbem" / "translations" / language / "LC_MESSAGES" / "messages.mo").is_file()
        for title in sorted((ROOT / "engines").glob("*/translations")):  # each title's words
            folder = site / "engines" / title.parent.name / "translations" / language
            assert (folder / "LC_MESSAGES" / "messages.mo").is_file(), folder
    before = _files(site)
    work = top / "work"
    work.mkdir()
    state = top / "state"
    settings = work / "site.toml"
    settings.write_text(f'[paths]\nvar = "{state}"\n[server]\ndemo = false\n')
    pbem = ("--config", str(settings))

    # The module pbem runs is the installed one, not this checkout's.
    where = _python(installed, work, "import pbem, engines; print(pbem.__file__, engines.__file__)")
    assert str(ROOT) not in where and str(site) in where

    assert "Created the schema" in _run(installed, work, *pbem, "migrate")
    # The title with the fewest seats among those the installed package plays.
    slug, fewest = _python(
        installed,
        work,
        "from engines import REGISTRY\n"
        "engine = min(REGISTRY.values(), key=lambda engine: engine.min_seats)\n"
        "print(engine.slug, engine.min_seats)",
    ).split()
    seats = ["--seat", "A:a@example.org"] + ["--seat", "bot"] * (int(fewest) - 1)
    created = _run(installed, work, *pbem, "new", slug, *seats)
    game = created.split("Game ", 1)[1].split(" ", 1)[0]
    link = next(word for word in created.split() if "/play/" in word)
    view = json.loads(_run(installed, work, *pbem, "show", game, "--seat", "0"))
    assert 0 in view["to_move"]
    legal = _python(
        installed,
        work,
        "import json, sys\nfrom pbem.runtime import build_runtime\n"
        "engine, state, _ = build_runtime().service.state_at(sys.argv[1])\n"
        "print(json.dumps(engine.legal_moves(state, 0)[0]))",
        game,
        PBEM_CONFIG=str(settings),
    ).strip()
    assert "Move accepted" in _run(installed, work, *pbem, "move", game, "0", legal)
    # The board a turn mail carries, drawn with the fonts the wheel ships.
    drawn = _python(
        installed,
        work,
        "import sys\nfrom pbem.runtime import build_runtime\n"
        "from pbem.web.board_picture import FONTS, Pictures\n"
        "runtime = build_runtime()\n"
        "seq = runtime.service.head(sys.argv[1]).seq\n"
        "picture = Pictures(runtime)(sys.argv[1], 0, seq)\n"
        "print(FONTS, len(picture.png or b''), picture.width, len(picture.words))",
        game,
        PBEM_CONFIG=str(settings),
    ).split()
    assert Path(drawn[0]).is_relative_to(site) and not Path(drawn[0]).is_relative_to(ROOT)
    assert int(drawn[1]) > 1000 and int(drawn[2]) > 0 and int(drawn[3]) > 0

    port = _free_port()
    server = subprocess.Popen(
        [installed["pbem"], *pbem, "serve", "--no-demo", "--port", str(port)],
        cwd=work,
        env=installed["env"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(150):
            try:
                urllib.request.urlopen(f"{base}/healthz", timeout=2)
                break
            except OSError:
                if server.poll() is not None:
                    pytest.fail(server.stdout.read())
                time.sleep(0.2)
        for path in ("/", "/healthz", "/play/" + link.split("/play/", 1)[1]):
            with urllib.request.urlopen(base + path, timeout=10) as answer:
                assert answer.status == 200, path
                assert answer.headers["X-Request-Id"]
                page = answer.read().decode()
        assert "<form" in page  # the turn page, from the installed templates
        german = urllib.request.Request(base + "/", headers={"Accept-Language": "de"})
        with urllib.request.urlopen(german, timeout=10) as answer:
            assert "langsame Brettspiele per Mail" in answer.read().decode()
    finally:
        server.terminate()
        server.wait(timeout=20)

    # var/ is where the setting says, the working folder holds only the settings file,
    # and nothing was written into site-packages.
    assert (state / "pbem.sqlite3").is_file() and (state / "secret_key").is_file()
    assert sorted(path.name for path in work.iterdir()) == ["site.toml"]
    assert _files(site) == before

    # Without a setting, var/ is the working folder's.
    elsewhere = top / "elsewhere"
    elsewhere.mkdir()
    _run(installed, elsewhere, "migrate")
    assert (elsewhere / "var" / "pbem.sqlite3").is_file()
    assert _files(site) == before

    # A typo in the configuration: one sentence and status 78, from the installed command.
    settings.write_text("[mail]\nquiet_minuts = 5\n")
    refused = _run(installed, work, *pbem, "games", status=78)
    assert "unknown key 'quiet_minuts'" in refused and "Traceback" not in refused
