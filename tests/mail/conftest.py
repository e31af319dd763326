"""Fixtures for mail: a controllable clock, a real SMTP server on loopback (aiosmtpd),
a runtime wired to both, and helpers to read what was delivered."""

from __future__ import annotations

import email
import email.policy
import socket
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage

import pytest
from aiosmtpd.controller import Controller

from pbem.games.service import SeatSpec
from pbem.mail import outbox  # noqa: F401 - registers the mail tables before the schema
from pbem.runtime import build_runtime

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, now: datetime = START):
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now += timedelta(**delta)
        return self.now


class Mailbox:
    """An aiosmtpd handler that keeps every message; it can refuse or hold mail."""

    def __init__(self):
        self.messages: list[EmailMessage] = []
        self.raw: list[bytes] = []  # the DATA bytes exactly as they crossed the wire
        self.envelopes: list[tuple[str, list[str]]] = []  # (MAIL FROM, RCPT TOs) of each
        self.refusing = False
        self.lock = threading.Lock()
        self.on_message = None

    async def handle_DATA(self, server, session, envelope):
        if self.refusing:
            return "451 Try again later"
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        with self.lock:
            self.messages.append(message)
            self.raw.append(envelope.original_content or envelope.content)
            self.envelopes.append((envelope.mail_from, list(envelope.rcpt_tos)))
        if self.on_message is not None:
            self.on_message(message)
        return "250 OK"

    def to(self, address: str, kind: str | None = None) -> list[EmailMessage]:
        """Messages to ``address`` (of the subject ``kind`` contains, if given)."""
        with self.lock:
            found = [m for m in self.messages if m["To"] == address]
        return [m for m in found if kind is None or kind in m["Subject"]]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def smtp() -> Iterator[tuple[Mailbox, int]]:
    mailbox = Mailbox()
    port = free_port()
    controller = Controller(mailbox, hostname="127.0.0.1", port=port)
    controller.start()
    yield mailbox, port
    controller.stop()


@pytest.fixture
def clock() -> Clock:
    return Clock()


def make_runtime(db, tmp_path, clock, port: int | None = None, **sections):
    mail = {"host": "", "security": "none"}
    if port is not None:
        mail.update(host="127.0.0.1", port=port)
    mail.update(sections.pop("mail", {}))
    overrides = {
        "server": {"base_url": "http://pbem.test", "demo": False},
        "security": {"secret_key": "test-key"},
        "paths": {"var": str(tmp_path / "var")},
        "mail": mail,
        **sections,
    }
    return build_runtime(overrides, clock=clock, db=db, create_schema=False)


@pytest.fixture
def runtime(db, tmp_path, clock, smtp):
    return make_runtime(db, tmp_path, clock, smtp[1])


@pytest.fixture
def app(runtime):
    """The web application with the mail and rescue pages."""
    from pbem.web import create_app, mail_pages, rescue_pages

    app = create_app({"TESTING": True}, runtime=runtime)
    for blueprint in (mail_pages.bp, rescue_pages.bp):
        if blueprint.name not in app.blueprints:
            app.register_blueprint(blueprint)
    return app


@pytest.fixture
def mailbox(smtp) -> Mailbox:
    return smtp[0]


def new_game(runtime, seats: int = 3, policy: dict | None = None, **options):
    specs = [
        SeatSpec(name, f"{name.lower()}@example.org", timezone=zone)
        for name, zone in [
            ("Anna", "Europe/Berlin"),
            ("Ben", "America/New_York"),
            ("Cleo", "UTC"),
            ("Dan", "Asia/Tokyo"),
        ][:seats]
    ]
    return runtime.service.create_game(
        "pig", specs, {"target": options.get("target", 30)}, policy=policy
    )


def part(message: EmailMessage, subtype: str) -> str:
    return message.get_body(preferencelist=(subtype,)).get_content()


def take_turn(runtime, game_id: str, rolls: int = 1) -> int:
    """The seat to move rolls (while it keeps the turn) and then stops; returns that seat."""
    service = runtime.service
    head = service.head(game_id)
    seat = sorted(head.engine.to_move(head.state))[0]
    moves = [{"type": "roll"}] * rolls + [{"type": "stop"}]
    for move in moves:
        head = service.head(game_id)
        if head.game.status != "active" or seat not in head.engine.to_move(head.state):
            break
        service.submit_move(game_id, seat, move, head.seq)
    return seat


def as_sent(runtime, rows: list) -> list:
    """Outbox rows with their bodies as sent (the stored ones keep their links sealed)."""
    from pbem.mail.deferred import opened

    for row in rows:
        row.body_text, row.body_html, row.unsubscribe = opened(runtime, row)
    return rows
