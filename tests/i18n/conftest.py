"""What the language tests share: a server over a fresh SQLite database and its pages."""

from __future__ import annotations

import pytest

from pbem.web import create_app
from tests.mail.conftest import Clock, make_runtime


@pytest.fixture
def runtime(sqlite_db, tmp_path):
    return make_runtime(sqlite_db, tmp_path, Clock())


@pytest.fixture
def client(runtime):
    return create_app({"TESTING": True}, runtime=runtime).test_client()
