"""What came in: the kind of message (:func:`classify`) and a reply's own lines
(:func:`reply_lines`).

Never answered, never applied (:func:`classify` names why):

- ``too_big``: more than :data:`MAX_BYTES` (1 MB);
- ``malformed``: MIME parts nested deeper than :data:`MAX_DEPTH`, or too deep for the
  parser (:class:`Malformed`, raised by :func:`parse`);
- ``loop``: our own mail come back: a Message-ID this server sent (the outbox keeps
  each one; never judged by its domain, which a club may share with its members), or
  our ``List-Id``;
- ``bounce``: a delivery status report (RFC 3464: ``multipart/report;
  report-type=delivery-status``); :func:`failed_recipients` reads who failed;
- ``null_sender``: anything else from the null sender (:func:`is_null_sender`: the
  envelope's ``MAIL FROM:<>``, which Postfix's pipe writes ``MAILER-DAEMON``; without
  an envelope, a ``Return-Path: <>``; or a ``From`` of ``MAILER-DAEMON``);
- ``auto_reply``: ``Auto-Submitted`` other than ``no`` (RFC 3834), ``X-Autoreply``,
  ``X-Autorespond``, ``Precedence: bulk|junk|list|auto_reply``, a ``List-Id`` or
  ``List-Unsubscribe`` (mailing lists), an out-of-office or vacation subject.

:func:`is_robot` names the addresses no answer ever goes to.
"""

from __future__ import annotations

import email
import email.policy
import re
from collections.abc import Callable
from email.message import EmailMessage
from email.parser import BytesHeaderParser
from email.utils import getaddresses, parseaddr
from html.parser import HTMLParser

from email_reply_parser import EmailReplyParser

MAX_BYTES = 1024 * 1024
MAX_DEPTH = 50  # MIME parts within parts: real mail nests a few levels, forwards a few more

VACATION_SUBJECT = re.compile(
    r"^\s*(auto(matic)?[ -]?(reply|response|antwort)|out of (the )?office|"
    r"abwesenheitsnotiz|absence|absent|vacation|away from|on leave|r[ée]ponse automatique|"
    r"respuesta autom[áa]tica|risposta automatica|automatisch antwoord|auto:)",
    re.IGNORECASE,
)


class Malformed(ValueError):
    """A message this server does not read: its parts nest too deep."""


def parse(raw: bytes) -> EmailMessage:
    """The message; :class:`Malformed` when its parts nest deeper than :data:`MAX_DEPTH`
    (or too deep for the parser itself)."""
    try:
        message = email.message_from_bytes(raw, policy=email.policy.default)
    except RecursionError as error:
        raise Malformed("its MIME parts nest too deep to be read") from error
    if depth(message) > MAX_DEPTH:
        raise Malformed(f"its MIME parts nest more than {MAX_DEPTH} deep")
    return message  # type: ignore[return-value]


def parse_headers(raw: bytes) -> EmailMessage:
    """The message's headers alone (for a message :func:`parse` refuses)."""
    return BytesHeaderParser(policy=email.policy.default).parsebytes(raw)  # type: ignore[return-value]


def depth(message: EmailMessage) -> int:
    """How deep the message's parts nest (1: a single part), counted without recursion
    and no further than one past :data:`MAX_DEPTH`."""
    deepest = 0
    stack = [(message, 1)]
    while stack and deepest <= MAX_DEPTH:
        part, level = stack.pop()
        deepest = max(deepest, level)
        payload = part.get_payload() if part.is_multipart() else None
        if isinstance(payload, list):
            stack.extend((child, level + 1) for child in payload)
    return deepest


def header(message: EmailMessage, name: str) -> str:
    """A header's value as plain text ("" when missing or unreadable)."""
    try:
        value = message.get(name)
    except (ValueError, TypeError, IndexError):
        return ""
    return " ".join(str(value).split()) if value is not None else ""


def sender(message: EmailMessage) -> str:
    """The From address, lower-cased ("" when there is none)."""
    return parseaddr(header(message, "From"))[1].strip().lower()


def is_null_sender(address: str | None) -> bool:
    """Whether an envelope sender is the null sender: empty, ``<>``, or ``MAILER-DAEMON``
    in any case, with or without a domain (Postfix's pipe writes ``${sender}`` so for
    ``MAIL FROM:<>``). None (no envelope known) is not."""
    if address is None:
        return False
    text = address.strip().strip("<>").strip()
    return text == "" or text.rsplit("@", 1)[0].lower() == "mailer-daemon"


ROBOT_NAMES = frozenset({"postmaster", "abuse", "mailer-daemon"})
ROBOT_WORDS = re.compile(r"no[-_.]?reply|do[-_.]?not[-_.]?reply|bounces?|mailer-daemon", re.I)


def is_robot(address: str) -> bool:
    """Whether ``address`` is one no answer goes to: not an address at all (the null
    sender), ``MAILER-DAEMON``, ``postmaster``, ``abuse``, or a no-reply or bounce
    address (``noreply``, ``no-reply``, ``do-not-reply``, ``donotreply``, ``bounce``,
    ``bounces``, ``mailer-daemon`` anywhere in its local part)."""
    local, at, domain = address.strip().strip("<>").strip().rpartition("@")
    if not at or not local or not domain:
        return True
    return local.split("+", 1)[0].lower() in ROBOT_NAMES or bool(ROBOT_WORDS.search(local))


def from_null_sender(message: EmailMessage, envelope_sender: str | None) -> bool:
    """Whether the message came from the null sender (see the module's docstring)."""
    if is_null_sender(envelope_sender):
        return True
    if envelope_sender is None and message.get("Return-Path") is not None:
        if is_null_sender(header(message, "Return-Path")):
            return True
    written = sender(message)
    return bool(written) and is_null_sender(written)


def classify(
    raw: bytes,
    message: EmailMessage,
    our_domain: str,
    envelope_sender: str | None,
    sent_here: Callable[[str], bool] = lambda message_id: False,
) -> str:
    """``reply``, or why the message is ignored (see the module's docstring).
    ``sent_here`` tells whether a Message-ID (``<...>``) is one this server sent."""
    if len(raw) > MAX_BYTES:
        return "too_big"
    message_id = header(message, "Message-ID").strip("<> ")
    list_id = header(message, "List-Id").lower()
    if (message_id and sent_here(f"<{message_id}>")) or (
        our_domain and (f".games.{our_domain}>" in list_id or f"<pbem.{our_domain}>" in list_id)
    ):
        return "loop"
    if is_delivery_report(message):
        return "bounce"
    if from_null_sender(message, envelope_sender):
        return "null_sender"
    auto = header(message, "Auto-Submitted").lower()
    if auto and auto.split(";")[0].strip() != "no":
        return "auto_reply"
    if header(message, "X-Autoreply") or header(message, "X-Autorespond"):
        return "auto_reply"
    if header(message, "Precedence").lower() in ("bulk", "junk", "list", "auto_reply"):
        return "auto_reply"
    if list_id or header(message, "List-Unsubscribe"):
        return "auto_reply"
    if VACATION_SUBJECT.match(header(message, "Subject")):
        return "auto_reply"
    return "reply"


# qmail's bounces are plain text (QSBMF, cr.yp.to/proto/qsbmf.txt): a first line of its
# own, then a paragraph per failed recipient starting "<address>:", up to the copy.
QSBMF_START = re.compile(r"\A\s*Hi\. This is the qmail-send program at ", re.I)
QSBMF_RECIPIENT = re.compile(r"^<([^<>\s]+@[^<>\s]+)>:\s*$", re.M)
QSBMF_COPY = "--- Below this line is a copy of the message."


def is_delivery_report(message: EmailMessage) -> bool:
    """An RFC 3464 report, or qmail's plain-text bounce (QSBMF)."""
    if message.get_content_type() == "multipart/report":
        return str(message.get_param("report-type", "")).lower() == "delivery-status"
    return _qsbmf_text(message) is not None


def _qsbmf_text(message: EmailMessage) -> str | None:
    """The part of a qmail bounce before the copy of the message, or None."""
    if message.is_multipart() or message.get_content_type() != "text/plain":
        return None
    try:
        text = message.get_content()
    except (LookupError, ValueError, AssertionError):
        return None
    if not isinstance(text, str) or not QSBMF_START.match(text):
        return None
    return text.split(QSBMF_COPY, 1)[0]


def failed_recipients(message: EmailMessage) -> list[tuple[str, str]]:
    """(address, detail) of each recipient a delivery report says failed for good
    (``Action: failed``; delayed or delivered ones are not bounces)."""
    failed = []
    for part in message.walk():
        if part.get_content_type() != "message/delivery-status":
            continue
        blocks = part.get_payload()
        if not isinstance(blocks, list):
            continue
        for block in blocks[1:]:  # the first block is about the message, then recipients
            action = str(block.get("Action", "")).strip().lower()
            recipient = str(block.get("Final-Recipient") or block.get("Original-Recipient") or "")
            address = recipient.split(";", 1)[-1].strip().strip("<>").lower()
            if action != "failed" or "@" not in address:
                continue
            status = str(block.get("Status", "")).strip()
            diagnostic = " ".join(str(block.get("Diagnostic-Code", "")).split())
            detail = "; ".join(part for part in (status, diagnostic) if part)
            failed.append((address, detail[:500]))
    qsbmf = _qsbmf_text(message)
    if qsbmf is not None and "permanent error" in qsbmf.lower():
        paragraphs = QSBMF_RECIPIENT.split(qsbmf)[1:]
        for address, detail in zip(paragraphs[::2], paragraphs[1::2], strict=True):
            failed.append((address.lower(), " ".join(detail.split())[:500]))
    return failed


def recipients(message: EmailMessage) -> list[str]:
    """The addresses a message was written to (To, Cc, Delivered-To, X-Original-To)."""
    values = []
    for name in ("X-Original-To", "Delivered-To", "To", "Cc"):
        try:
            values.extend(str(value) for value in message.get_all(name) or [])
        except (ValueError, TypeError, IndexError):
            continue
    return [address.strip() for _, address in getaddresses(values) if address]


# The reply's own text -------------------------------------------------------------


class _Text(HTMLParser):
    """An HTML body as text: blocks on their own lines; quoted mail (blockquote, Gmail's
    and Outlook's quote containers) and invisible parts left out."""

    BLOCKS = {"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "table"}
    SKIP = {"style", "script", "head", "title", "blockquote"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping: list[str] = []
        self.stopped = False

    def handle_starttag(self, tag, attrs):
        if self.stopped:
            return
        attributes = dict(attrs)
        classes = (attributes.get("class") or "").split()
        ident = attributes.get("id") or ""
        if ident in ("divRplyFwdMsg", "appendonsend") or "gmail_quote" in classes:
            self.stopped = True  # Outlook's and Gmail's quoted original follows
            return
        if tag in self.SKIP and tag != "br":
            self.skipping.append(tag)
        if tag in self.BLOCKS:
            self.parts.append("\n")

    def handle_endtag(self, tag):
        if self.skipping and self.skipping[-1] == tag:
            self.skipping.pop()
        if tag in self.BLOCKS and not self.stopped:
            self.parts.append("\n")

    def handle_data(self, data):
        if not self.stopped and not self.skipping:
            self.parts.append(data.replace("\xa0", " "))


def html_to_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    parser.close()
    lines = [" ".join(line.split()) for line in "".join(parser.parts).split("\n")]
    text = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def body_text(message: EmailMessage) -> str:
    """The reply's text: its text/plain part, else its HTML part read as text."""
    try:
        plain = message.get_body(preferencelist=("plain",))
        if plain is not None:
            return str(plain.get_content())
        html = message.get_body(preferencelist=("html",))
        if html is not None:
            return html_to_text(str(html.get_content()))
    except (LookupError, ValueError, TypeError, AttributeError):
        return ""
    return ""


QUOTE_HEADER = re.compile(
    r"^(-+\s*original message\s*-+|from:\s.+|_{5,}|\*\s.+\[.+\]:)\s*$",
    re.IGNORECASE,
)
# The line a mail program writes above the quoted original ("On <date>, <name> wrote:"),
# in the forms of Gmail, Outlook, Apple Mail and Thunderbird in the common languages;
# any line naming an address in angle brackets and ending in a colon is one too.
ATTRIBUTION = re.compile(
    r"^(?:"
    r"on\s.+\swrote\s?:"  # English
    r"|am\s.+\sschrieb.*:"  # German
    r"|le\s.+\sa\s[ée]crit\s?:"  # French
    r"|el\s.+\sescribi[óo]\s?:"  # Spanish
    r"|il\s.+\sha\sscritto\s?:"  # Italian
    r"|em\s.+\sescreveu\s?:"  # Portuguese
    r"|op\s.+\sschreef.*:"  # Dutch
    r"|.+\s(?:написал|написала|написал\(а\)|написав|написала\(в\)|пишет)\s?:"  # Russian
    r"|.+\s(?:napisał|napisała|napisał\(a\))\s?:"  # Polish
    r"|.+\s(?:skrev|kirjoitti|yazdı)(?:\s.*)?:"  # Nordic, Finnish, Turkish
    r"|.+(?:のメッセージ|は書きました|が書きました)\s?[:：]"  # Japanese
    r"|.+写道\s?[:：]"  # Chinese
    r"|.*<[^<>\s@]+@[^<>\s]+>.*[:：]"  # any language: an address, then a colon
    r")\s*$",
    re.IGNORECASE,
)
# What the first line of an attribution wrapped over two or three lines shows: an
# address or its opening bracket, a time, a year, or an English or Romance opener.
ATTRIBUTION_START = re.compile(
    r"[<@]|\d{1,2}[:.]\d{2}|\b(?:19|20)\d{2}\b|^(?:on|am|le|el|il|em|op)\s", re.IGNORECASE
)

# A line that goes on with an address, as the second line of a wrapped attribution.
WRAPPED_ADDRESS = re.compile(r"^<?[^\s<>@]+@[^\s<>]+>")


def header_span(rows: list[str], index: int) -> int:
    """How many lines, from ``rows[index]``, make a quote header (0 when none): a quote
    header line, an attribution line, or one wrapped over up to three lines (Gmail breaks
    a long one after the sender's "<")."""
    line = rows[index].strip()
    if QUOTE_HEADER.match(line) or ATTRIBUTION.match(line):
        return 1
    if not line or not ATTRIBUTION_START.search(line):
        return 0
    for span in (2, 3):
        part = [row.strip() for row in rows[index : index + span]]
        if len(part) < span or not part[-1]:
            return 0
        if ATTRIBUTION.match(part[1]) and not WRAPPED_ADDRESS.match(part[1]):
            return 0  # the next line is an attribution of its own: this one is not
        if ATTRIBUTION.match(" ".join(part)):
            return span
    return 0


def first_paragraph(text: str) -> list[str]:
    """The first paragraph of the text's own lines: quoted lines (``>``), quote
    headers ("On ... wrote:" and its forms in other languages, even wrapped; Outlook's
    "From: ..." block; mutt's "* X [date]:"; an attribution line ending in ":" just above
    a quote) are passed over; a signature separator or a quote after the paragraph
    ends it."""
    rows = [row.rstrip() for row in text.replace("\r\n", "\n").split("\n")]
    lines: list[str] = []
    index = 0
    while index < len(rows):
        raw = rows[index]
        line = raw.strip()
        following = next((row.strip() for row in rows[index + 1 :] if row.strip()), "")
        quoted = line.startswith(">")
        span = header_span(rows, index)
        if not span and line.endswith(":") and following.startswith(">"):
            span = 1
        if line in ("--", "__") or raw == "-- " or line.startswith("Sent from my"):
            break
        if quoted or span:
            if lines:
                break
            if span and QUOTE_HEADER.match(line) and line.lower().startswith(("from:", "-", "_")):
                break  # Outlook: everything after its header block is the original
            index += max(span, 1)
            continue
        index += 1
        if not line:
            if lines:
                break
            continue
        lines.append(line)
    return lines


def reply_lines(message: EmailMessage) -> list[str]:
    """The first paragraph of the reply's own text (see :func:`first_paragraph`), after
    ``email-reply-parser`` took off quoted text and signatures; when that leaves
    nothing (an answer written inline, under a quote header), the whole text is read
    the same way."""
    text = body_text(message).replace("\r\n", "\n")
    return first_paragraph(EmailReplyParser.parse_reply(text)) or first_paragraph(text)


def own_text(message: EmailMessage) -> str:
    """The whole of the reply's own text (for table talk): every paragraph above the
    quote or the signature, quoted lines and quote headers left out."""
    text = body_text(message).replace("\r\n", "\n")
    kept: list[str] = []
    for source in (EmailReplyParser.parse_reply(text), text):
        rows = source.split("\n")
        kept = []
        for index, raw in enumerate(rows):
            line = raw.strip()
            following = next((row.strip() for row in rows[index + 1 :] if row.strip()), "")
            if line in ("--", "__") or raw == "-- " or line.startswith("Sent from my"):
                break
            quote = (
                line.startswith(">")
                or bool(header_span(rows, index))
                or (line.endswith(":") and following.startswith(">"))
            )
            if quote:
                if any(kept):
                    break
                continue
            kept.append(raw.rstrip())
        if any(row.strip() for row in kept):
            break
    return "\n".join(kept).strip()
