"""Logging, configured in one place: the ``pbem`` command and ``create_app`` call
:func:`configure`.

Every record goes through the standard library to one handler on the root logger
(standard error), as plain lines by default or as JSON lines (``logging.format =
"json"``). Every line passes through :func:`mask_tokens`, so no seat
link or signed link reaches a log, whichever logger wrote it (werkzeug's request log
too). Lines written while a web request is handled carry its request id, which the
response also sends as ``X-Request-Id``.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import sys
from collections.abc import Mapping
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from pbem.config import ConfigError

FORMATS = ("plain", "json")
REQUEST_ID: ContextVar[str | None] = ContextVar("pbem_request_id", default=None)
PLAIN = "%(asctime)s %(levelname)s %(name)s%(request_tag)s: %(message)s"
MASK = "<masked>"

# A seat's link and its rescue page: the path segment after the prefix is the secret.
_PREFIXED = re.compile(r"(/(?:api/)?(?:play|rescue)/)[^/?#\s\"]+")
# The mail settings link: /mail/settings/<game>/<seat>/<signature>.
_SETTINGS = re.compile(r"(/mail/settings/[^/?#\s\"]+/[^/?#\s\"]+/)[^/?#\s\"]+")
# Anything else that looks like a token (links are 43 url-safe characters, signatures 24).
_TOKEN_LIKE = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{20,}(?![A-Za-z0-9_-])")


def mask_tokens(text: str) -> str:
    """``text`` with every token-bearing part of a path, query or URL masked."""
    text = _PREFIXED.sub(lambda match: match.group(1) + MASK, text)
    text = _SETTINGS.sub(lambda match: match.group(1) + MASK, text)
    return _TOKEN_LIKE.sub(MASK, text)


def new_request_id() -> str:
    """A fresh request id: 16 hexadecimal digits."""
    return secrets.token_hex(8)


class ContextFilter(logging.Filter):
    """Masks tokens in the record's text and adds the current request id."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = mask_tokens(record.getMessage())
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = mask_tokens(record.exc_text)
        record.msg, record.args = message, None
        request_id = REQUEST_ID.get()
        record.request_id = request_id
        record.request_tag = f" [{request_id}]" if request_id else ""
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object a line: time, level, logger, message, request id, exception."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if getattr(record, "request_id", None):
            line["request_id"] = record.request_id
        if record.exc_text:
            line["exception"] = record.exc_text
        return json.dumps(line, ensure_ascii=False)


class _Handler(logging.StreamHandler):
    """The handler :func:`configure` installs (found again and replaced on a new call);
    without a stream of its own it writes to whatever ``sys.stderr`` is at the time."""

    def __init__(self, stream: Any = None):
        self._own = stream
        super().__init__(stream)

    @property
    def stream(self) -> Any:
        return self._own if self._own is not None else sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        self._own = value if value is not sys.stderr else self._own


def configure(config: Mapping[str, Mapping[str, Any]], stream: Any = None) -> logging.Handler:
    """Sends every log record to ``stream`` (standard error) in the configured format and
    level; replaces the handler an earlier call installed."""
    settings = config.get("logging", {})
    chosen = settings.get("format", "plain")
    if chosen not in FORMATS:
        raise ConfigError(
            f"The setting logging.format must be one of {', '.join(FORMATS)}, not {chosen!r}."
        )
    level = str(settings.get("level", "INFO")).upper()
    if not isinstance(logging.getLevelName(level), int):
        raise ConfigError(
            f"The setting logging.level must be DEBUG, INFO, WARNING or ERROR, not {level!r}."
        )
    handler = _Handler(stream)
    handler.addFilter(ContextFilter())
    handler.setFormatter(JsonFormatter() if chosen == "json" else logging.Formatter(PLAIN))
    root = logging.getLogger()
    for found in [found for found in root.handlers if isinstance(found, _Handler)]:
        root.removeHandler(found)
    root.addHandler(handler)
    root.setLevel(level)
    # Alembic narrates every revision and aiosmtpd (the LMTP listener, logger "mail.log")
    # every connection at INFO; ``pbem migrate`` and the inbound log say what matters.
    for chatty in ("alembic", "mail.log"):
        logging.getLogger(chatty).setLevel(max(logging.getLevelName(level), logging.WARNING))
    return handler


def init_app(app: Any) -> None:
    """Gives each request of ``app`` a request id: on every log line written while it is
    handled (the server's request line too, written as the answer goes out) and as the
    ``X-Request-Id`` response header."""
    from flask import request
    from werkzeug.wsgi import ClosingIterator

    inner = app.wsgi_app

    def wsgi_app(environ: dict, start_response: Any) -> Any:
        request_id = new_request_id()
        environ["pbem.request_id"] = request_id
        token = REQUEST_ID.set(request_id)

        def done() -> None:
            try:
                REQUEST_ID.reset(token)
            except ValueError:  # closed in another context than it began in
                REQUEST_ID.set(None)

        try:
            body = inner(environ, start_response)
        except BaseException:
            done()
            raise
        return ClosingIterator(body, [done])

    app.wsgi_app = wsgi_app

    @app.after_request
    def _tag(response: Any) -> Any:
        request_id = request.environ.get("pbem.request_id")
        if request_id:
            response.headers["X-Request-Id"] = request_id
        return response
