"""Fixtures shared by the command-line tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def database(tmp_path, monkeypatch):
    monkeypatch.setenv("PBEM_PATHS_VAR", str(tmp_path / "var"))
    return f"sqlite:///{tmp_path / 'cli.sqlite3'}"
