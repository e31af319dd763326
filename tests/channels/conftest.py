"""Fixtures for the notices beyond mail: a runtime that may post to loopback (the one
test switch, ``notices.allow_loopback``), a local HTTP server that records what it is
sent (a webhook's or a push service's stand-in), and the mail fixtures."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.mail.conftest import clock, make_runtime, smtp  # noqa: F401 - fixtures
from tests.web.conftest import sqlite_runtime  # noqa: F401 - a fixture


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self):
        return json.loads(self.body)


@dataclass
class Receiver:
    """What the local server was sent; ``answers`` are the statuses it gives, in turn
    (the last one repeats)."""

    url: str
    received: list[Received] = field(default_factory=list)
    answers: list[int] = field(default_factory=lambda: [204])

    def next_status(self) -> int:
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    box = Receiver(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's name
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            box.received.append(Received(self.path, dict(self.headers.items()), body))
            status = box.next_status()
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    box.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield box
    server.shutdown()
    thread.join(timeout=5)


@pytest.fixture
def runtime(db, tmp_path, clock, smtp):  # noqa: F811 - the mail fixtures' names
    return make_runtime(db, tmp_path, clock, smtp[1], notices={"allow_loopback": True})


@pytest.fixture
def app(runtime):
    from pbem.web import create_app

    return create_app({"TESTING": True}, runtime=runtime)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def mailbox(smtp):  # noqa: F811
    return smtp[0]
