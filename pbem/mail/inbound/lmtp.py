"""The LMTP listener (aiosmtpd): ``pbem inbound --lmtp HOST:PORT``, or inside
``pbem worker`` when ``mail.inbound_lmtp`` is set; for Postfix's or Exim's ``lmtp:``
transport.

Each recipient is checked at ``RCPT TO`` (an address that is not ours, or a reply tag
that does not verify, answers ``550 5.1.1``; a bounce address of :mod:`.bounces` is
taken, and its report checked after ``DATA``); after ``DATA`` the message is taken once per
recipient (:func:`pbem.mail.inbound.receive.take`) and LMTP's answer is one line per
recipient: ``250`` taken, ``550`` no such address, ``451`` try again later. Messages
over 1 MB are refused by the size limit (``552``, at ``MAIL FROM`` when the client
declares its ``SIZE``, else at ``DATA``), so they are never kept.
"""

from __future__ import annotations

import asyncio
import threading

from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP

from pbem.games.context import Runtime
from pbem.mail import outbox
from pbem.mail.inbound import bounces, receive, tags
from pbem.mail.inbound import message as msg

STATUS = {
    receive.EX_OK: "250 2.0.0 Ok",
    receive.EX_NOUSER: "550 5.1.1 No such address here",
    receive.EX_TEMPFAIL: "451 4.3.0 Try again later",
}


class Handler:
    """aiosmtpd handler taking every message through :func:`receive.take`."""

    def __init__(self, runtime: Runtime):
        self.runtime = runtime
        self.lock = threading.Lock()  # one message at a time: moves are sequential anyway

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if not _ours(self.runtime, address):
            return "550 5.1.1 No such address here"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 Ok"

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        loop = asyncio.get_running_loop()
        answers = []
        for recipient in envelope.rcpt_tos:
            taken = await loop.run_in_executor(None, self._take, raw, recipient, envelope.mail_from)
            answers.append(STATUS.get(taken.status, STATUS[receive.EX_TEMPFAIL]))
        # LMTP (RFC 2033): one reply per accepted recipient, in order.
        return "\r\n".join(answers) if answers else "503 5.5.1 No valid recipients"

    def _take(self, raw: bytes, recipient: str, mail_from: str | None) -> receive.Taken:
        with self.lock:
            try:
                return receive.take(self.runtime, raw, [recipient], mail_from or "")
            except Exception as error:  # noqa: BLE001 - the MTA keeps the mail and retries
                return receive.Taken(receive.EX_TEMPFAIL, "later", str(error)[:200])


def _ours(runtime: Runtime, address: str) -> bool:
    if bounces.is_bounce_address(runtime.config, address):
        return True  # a bounce address: its report is checked after DATA
    if tags.is_ours(runtime.config, address):
        local = address.rpartition("@")[0]
        if "+" not in local:
            return True  # the bare reply address: delivery reports and the like
        return tags.read_tag(runtime.config, outbox.secret(runtime), address) is not None
    return bool(receive._our_addresses(runtime, [address]))


def parse_hostport(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:24`` for IPv6); ValueError with a sentence otherwise."""
    host, sep, port = text.strip().rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{text!r} is not HOST:PORT (for instance 127.0.0.1:8024).")
    return host, int(port)


class LmtpController(Controller):
    def factory(self):
        return LMTP(self.handler, data_size_limit=msg.MAX_BYTES, enable_SMTPUTF8=True)


def start(runtime: Runtime, hostport: str) -> Controller:
    """Starts the listener in a background thread; ``.stop()`` ends it."""
    host, port = parse_hostport(hostport)
    controller = LmtpController(Handler(runtime), hostname=host, port=port)
    controller.start()
    return controller
