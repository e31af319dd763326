"""README's mail server lines tried with a real Postfix on loopback (issue 25).

A private Postfix (:mod:`tests.security.postfix_harness`) routes ``play@example.org``,
its ``+`` tags and ``pbem@example.org`` to pbem by README's two roads, the pipe (``pbem
receive``) and LMTP, on SQLite and PostgreSQL. Through each, smtplib sends what a
public mail server meets: an out-of-office with a null sender answering a game mail, a
null-sender note without any auto-reply header, delivery reports as Postfix, Exim,
Sendmail, Exchange and qmail write them (to the address the failed mail came from), a
forged report, and a real move from a player on the server's own domain. Each case
asserts what must hold (no answer ever goes to a null sender or a mail system's
mailbox; an auto-reply is never table talk; a report marks the address it is about, a
forged one marks nothing; the own-domain reply is applied and answered) and adds a row
to ``test-artifacts/postfix-cases.md``: what Postfix logged and what pbem recorded.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from sqlmodel import Session, col, func, select

from engines import REGISTRY
from pbem.db import make_engine
from pbem.games.service import SeatSpec
from pbem.mail.dispatch import dispatch
from pbem.mail.inbound import bounces, lmtp, records
from pbem.mail.inbound import message as msg
from pbem.mail.models import InboundMessage, Mail
from pbem.migrations import migrate
from pbem.models import Event
from tests.databases import reset_postgres
from tests.fixture_engine import PIG
from tests.mail.conftest import make_runtime
from tests.security import postfix_harness as harness
from tests.security.postfix_harness import (
    REPLY_ADDRESS,
    REPORT_STYLES,
    SECRET_KEY,
    SENDER,
    Delivery,
    Postfix,
    Sink,
    bounce_address,
    delivery_report,
    free_port,
    null_senders,
)

pytestmark = pytest.mark.postfix

ARTIFACT = Path(__file__).resolve().parents[2] / "test-artifacts" / "postfix-cases.md"
GAME = "postfix01"
ANN = "ann@example.org"  # a player on the server's own domain
BEN = "ben@players.test"
CASES: list[dict[str, str]] = []


@pytest.fixture(scope="module", autouse=True)
def case_table():
    """Writes (and prints, with ``pytest -s``) the table of what each case did."""
    yield CASES
    if not CASES:
        return
    columns = ["road", "db", "case", "postfix", "inbound", "answers", "bouncing"]
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(row.get(name, "") for name in columns) + " |" for row in CASES]
    ARTIFACT.parent.mkdir(parents=True, exist_ok=True)
    ARTIFACT.write_text("# What each mail did through a real Postfix\n\n" + "\n".join(lines) + "\n")
    print("\n" + "\n".join(lines))


@pytest.fixture(scope="module", params=harness.ROADS)
def postfix(request):
    instance = harness.start_postfix(request.param)
    yield instance
    if instance.lmtp is not None:
        instance.lmtp.stop()
    harness.stop_postfix(instance)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def shared_db(request, postfix: Postfix):
    """(engine, URL, "sqlite" or "postgres"): a database both this process and the
    pipe's user can write."""
    if request.param == "sqlite":
        path = harness.sqlite_home(postfix, f"db-{uuid.uuid4().hex[:8]}")
        url = f"sqlite:///{path}"
        engine = make_engine(url)
        migrate(engine)
    else:
        base, connect_args, schema = request.getfixturevalue("postgres_schema")
        engine = make_engine(base, connect_args=connect_args)
        reset_postgres(engine, schema)
        url = f"{base}?options=-csearch_path%3D{schema}"
    yield engine, url, request.param
    engine.dispose()


@pytest.fixture
def sink():
    handler = Sink()
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    yield handler, port
    controller.stop()


@dataclass
class Server:
    """pbem behind the private Postfix: its runtime (answers go to the sink), the
    instance, the sink, and the game the cases answer."""

    runtime: object
    postfix: Postfix
    sink: Sink
    db_name: str

    def send(self, case: str, raw: bytes, mail_from: str, rcpt_to: str) -> dict[str, str]:
        """Sends ``raw`` through Postfix, sends the answers it led to, and records both."""
        before = len(self.sink.rcpts)
        delivery = self.postfix.send(raw, mail_from, rcpt_to)
        dispatch(self.runtime)
        answers = self.sink.rcpts[before:]
        row = self.inbound(raw)
        with Session(self.runtime.db) as session:
            marked = bounces.bouncing(session, [ANN, BEN])
        record = {
            "road": self.postfix.road,
            "db": self.db_name,
            "case": case,
            "postfix": _status(delivery),
            "inbound": f"{row.outcome}: {row.detail}" if row else "(no row)",
            "answers": ", ".join(answers) or "none",
            "bouncing": ", ".join(sorted(marked)) or "none",
            "outcome": row.outcome if row else "",
            "status": delivery.status,
        }
        CASES.append(record)
        assert null_senders(self.sink.rcpts) == [], "an answer went to a null sender"
        return record

    def inbound(self, raw: bytes) -> InboundMessage | None:
        key = records.message_key(msg.parse(raw), raw)
        with Session(self.runtime.db) as session:
            return session.get(InboundMessage, key)

    def mail_to(self, address: str) -> Mail:
        with Session(self.runtime.db) as session:
            return session.exec(
                select(Mail).where(Mail.recipient == address, Mail.status == "sent").limit(1)
            ).one()

    def events(self, kind: str) -> int:
        with Session(self.runtime.db) as session:
            return session.exec(
                select(func.count()).where(Event.game_id == GAME, col(Event.kind) == kind)
            ).one()


def _status(delivery: Delivery) -> str:
    said = delivery.said.replace("|", "/")[:90]
    return f"{delivery.status} {delivery.dsn} ({said})"


@pytest.fixture
def server(postfix: Postfix, shared_db, sink, tmp_path) -> Server:
    """A game of Ann (own domain) and Ben, its first mails sent, and pbem behind Postfix
    on the same database and key."""
    engine, url, db_name = shared_db
    handler, sink_port = sink
    runtime = make_runtime(
        engine,
        tmp_path,
        lambda: datetime.now(UTC),
        sink_port,
        mail={"reply_address": REPLY_ADDRESS, "sender": SENDER, "quiet_minutes": 0},
        security={"secret_key": SECRET_KEY},
    )
    if postfix.road == "pipe":
        harness.write_pbem_config(postfix, url, sink_port)
    elif postfix.lmtp is None:
        postfix.lmtp = lmtp.start(runtime, f"127.0.0.1:{postfix.lmtp_port}")
    else:
        postfix.lmtp.handler.runtime = runtime  # one listener per instance, this test's pbem
    slug = sorted(slug for slug in REGISTRY if slug != PIG.slug)[0]
    specs = [SeatSpec("Ann", ANN), SeatSpec("Ben", BEN), SeatSpec("Bot", is_bot=True)]
    runtime.service.create_game(slug, specs, seed=b"postfix!" * 4, game_id=GAME)
    dispatch(runtime)
    assert handler.to(ANN) and handler.to(BEN), "the game's first mails went out"
    return Server(runtime, postfix, handler, db_name)


def reply_to_of(server: Server, address: str) -> str:
    raw = server.sink.to(address)[0]
    return str(msg.parse(raw)["Reply-To"])


def message(headers: dict[str, str], body: str) -> bytes:
    head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    return (head + "\r\n" + body.replace("\n", "\r\n")).encode()


def test_an_out_of_office_with_a_null_sender_is_not_talk(server: Server):
    """Ben's out-of-office answers his game mail from ``MAIL FROM:<>``: never applied,
    never table talk, never answered (the pipe sees the sender as MAILER-DAEMON)."""
    game_mail = server.mail_to(BEN)
    raw = message(
        {
            "From": f"Ben <{BEN}>",
            "To": reply_to_of(server, BEN),
            "Subject": f"Automatic reply: {game_mail.subject}",
            "Date": "Tue, 01 Dec 2026 10:00:00 +0000",
            "Message-ID": f"<{uuid.uuid4().hex}@players.test>",
            "In-Reply-To": game_mail.message_id,
            "Auto-Submitted": "auto-replied",
            "X-Auto-Response-Suppress": "All",
        },
        "I am out of the office until Monday and will read your mail then.\n",
    )
    record = server.send("out-of-office, MAIL FROM:<>", raw, "", reply_to_of(server, BEN))
    assert record["status"] == "sent", record["postfix"]
    assert record["outcome"] == "null_sender"
    assert server.events("talk") == 0
    assert record["answers"] == "none"


def test_a_null_sender_without_auto_headers_is_not_talk(server: Server):
    """A note from ``MAIL FROM:<>`` with no auto-reply header at all (an old vacation
    program): the null envelope sender alone says it is automatic, on both roads."""
    game_mail = server.mail_to(BEN)
    raw = message(
        {
            "From": f"Ben <{BEN}>",
            "To": reply_to_of(server, BEN),
            "Subject": f"Re: {game_mail.subject}",
            "Date": "Tue, 01 Dec 2026 10:00:00 +0000",
            "Message-ID": f"<{uuid.uuid4().hex}@players.test>",
            "In-Reply-To": game_mail.message_id,
        },
        "Thanks for your mail. I am travelling and will answer next week.\n",
    )
    record = server.send("null sender, no auto headers", raw, "", reply_to_of(server, BEN))
    assert record["status"] == "sent", record["postfix"]
    assert record["outcome"] == "null_sender"
    assert server.events("talk") == 0
    assert record["answers"] == "none"


@pytest.mark.parametrize("style", REPORT_STYLES)
def test_a_delivery_report_marks_the_address_it_is_about(server: Server, style: str):
    """A report about Ben's mail, from ``MAIL FROM:<>`` to the address that mail came
    from: Ben is marked bouncing, nothing is answered, and Postfix sees it taken (never
    bounced back: that would be a double bounce)."""
    failed_mail = server.mail_to(BEN)
    to = bounce_address(server.runtime, failed_mail)
    original = {
        "From": SENDER,
        "To": BEN,
        "Subject": failed_mail.subject,
        "Message-ID": failed_mail.message_id,
    }
    raw = delivery_report(style, to, BEN, original, f"{uuid.uuid4().hex}@mx.players.test")
    record = server.send(f"{style} report", raw, "", to)
    assert record["status"] == "sent", record["postfix"]
    assert record["bouncing"] == BEN
    assert record["answers"] == "none"


def test_a_forged_report_marks_nobody(server: Server):
    """A stranger's report, to the plain sender address, naming Ann: it is not about a
    mail of ours that failed, so it marks nothing and Ann's mail still goes."""
    plain = harness.SENDER_ADDRESS
    original = {"From": SENDER, "To": ANN, "Subject": "Your turn", "Message-ID": "<x@example.org>"}
    raw = delivery_report("postfix", plain, ANN, original, f"{uuid.uuid4().hex}@forger.test")
    record = server.send("forged report to the plain address", raw, "", plain)
    assert record["status"] == "sent", record["postfix"]
    assert record["bouncing"] == "none"
    assert record["answers"] == "none"


def test_a_reply_from_the_servers_own_domain_is_applied(server: Server):
    """Ann plays from ``ann@example.org``, the server's own domain, and her mail program
    gives her reply a Message-ID on that domain: her move is applied and answered."""
    game_mail = server.mail_to(ANN)
    moves_before = server.events("move")
    raw = message(
        {
            "From": f"Ann <{ANN}>",
            "To": reply_to_of(server, ANN),
            "Subject": f"Re: {game_mail.subject}",
            "Date": "Tue, 01 Dec 2026 10:00:00 +0000",
            "Message-ID": f"<{uuid.uuid4().hex}@example.org>",
            "In-Reply-To": game_mail.message_id,
        },
        "1\n",
    )
    record = server.send("own-domain reply with a move", raw, ANN, reply_to_of(server, ANN))
    assert record["status"] == "sent", record["postfix"]
    assert record["outcome"] == "applied"
    assert server.events("move") > moves_before
    assert ANN in record["answers"]
