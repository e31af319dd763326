"""``pbem serve --production`` runs the gunicorn command the README shows."""

from __future__ import annotations

import re
import shlex
from types import SimpleNamespace

from pbem.cli import gunicorn_command
from pbem.config import ROOT


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
