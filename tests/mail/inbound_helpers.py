"""Helpers for the replies-by-mail tests: a runtime with a reply address, the LMTP
listener, replies written the way mail programs write them, and reading the moves a
mail lists."""

from __future__ import annotations

import re
import smtplib
import uuid
from email.message import EmailMessage
from email.utils import format_datetime

from pbem.mail.inbound import lmtp
from tests.databases import sqlite_copy
from tests.mail.conftest import START, free_port, make_runtime

REPLY = "play@pbem.test"
SENDER = "pbem <games@pbem.test>"
LISTED = re.compile(r"^\s*(\d+)  (.+)$", re.MULTILINE)


def reply_runtime(db, tmp_path, clock, port):
    return make_runtime(db, tmp_path, clock, port, mail={"reply_address": REPLY, "sender": SENDER})


def start_lmtp(runtime):
    port = free_port()
    controller = lmtp.start(runtime, f"127.0.0.1:{port}")
    return controller, port


def text_of(message) -> str:
    body = message.get_body(preferencelist=("plain",))
    return body.get_content() if body is not None else ""


def listed_moves(message) -> dict[str, int]:
    """label -> code of the moves a mail lists."""
    text = text_of(message)
    if "Your moves." not in text:
        return {}
    return {label.strip(): int(code) for code, label in LISTED.findall(text)}


def tag_seq(message) -> int:
    local = str(message["Reply-To"]).rpartition("@")[0]
    return int(local.split("+", 1)[1].split(".")[2])


def reply_to(message, lines: list[str], sender: str, style: int = 0) -> bytes:
    """A reply to ``message`` from ``sender`` with ``lines`` on top, in one of a few mail
    programs' styles (top-posted with the quoted mail, with a signature)."""
    quoted = "\n".join("> " + line for line in text_of(message).splitlines())
    body = "\n".join(lines)
    date = format_datetime(START)
    if style % 3 == 0:  # Gmail
        text = f"{body}\n\nOn {date}, pbem <games@pbem.test> wrote:\n{quoted}\n"
    elif style % 3 == 1:  # Apple Mail, with a signature
        text = f"{body}\n\nSent from my iPhone\n\n> On {date}, pbem wrote:\n>\n{quoted}\n"
    else:  # mutt, signature after the quote header line
        text = f"{body}\n\n-- \nAnna Example\n"
    reply = EmailMessage()
    reply["From"] = f"Anna <{sender}>"
    reply["To"] = str(message["Reply-To"])
    reply["Subject"] = "Re: " + str(message["Subject"])
    reply["Date"] = date
    reply["Message-ID"] = f"<{uuid.uuid4().hex}@mail.example.org>"
    reply["In-Reply-To"] = str(message["Message-ID"])
    reply.set_content(text)
    return bytes(reply)


def reply_with_move(runtime, game_id: str, message, word: str, sender: str) -> dict:
    """Replies to ``message`` with the code of the listed move whose label holds ``word``,
    checks that the reply was taken, and returns the first event after the mail's tag
    (the move; bots may follow it; a seat's first move by mail comes after the
    contribution to the dice the server draws for it)."""
    from pbem.mail.inbound.receive import take

    code = next(n for label, n in listed_moves(message).items() if word in label.lower())
    taken = take(runtime, reply_to(message, [str(code)], sender))
    assert taken.outcome == "applied", taken
    after = runtime.service.events(game_id, after=tag_seq(message))
    return next(row for row in after if row["kind"] != "contribution")


def send_lmtp(port: int, raw: bytes, recipient: str, sender: str = "anna@example.org"):
    """Delivers over LMTP; returns smtplib's refused recipients (empty: all taken)."""
    raw = re.sub(rb"\r?\n", b"\r\n", raw)  # on the wire lines end in CRLF
    with smtplib.LMTP("127.0.0.1", port) as client:
        return client.sendmail(sender, [recipient], raw)


def reply_env(monkeypatch, tmp_path, key: str) -> dict[str, str]:
    """Configuration in the environment, so that `pbem receive` (a process of its own)
    builds the same runtime as the test: a database file (migrated: a copy of the tests'
    template), the server key, replies on."""
    env = {
        "PBEM_DATABASE_URL": sqlite_copy(tmp_path / "pbem.sqlite3"),
        "PBEM_SECURITY_SECRET_KEY": key,
        "PBEM_MAIL_REPLY_ADDRESS": REPLY,
        "PBEM_MAIL_SENDER": "pbem <games@pbem.test>",
        "PBEM_MAIL_HOST": "",
        "PBEM_PATHS_VAR": str(tmp_path / "var"),
        "PBEM_SERVER_DEMO": "false",
        "PBEM_SERVER_BASE_URL": "http://pbem.test",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env
