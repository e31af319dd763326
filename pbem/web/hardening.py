"""The web's edges: security headers, proxies, bounded input and one shape for errors.

* Every response carries a Content-Security-Policy without inline script,
  ``frame-ancestors 'none'``, ``Referrer-Policy: no-referrer`` and ``nosniff``; HSTS
  only when the request came over https. Pages reached by a token (a seat's link, its
  rescue page, its mail settings, their API equivalents: any route with a ``token`` or
  ``signature`` in its address) are ``Cache-Control: no-store``.
* ``server.proxies`` (default 0) is the number of reverse proxies in front: with one or
  more, werkzeug's ProxyFix takes the client address and scheme from their
  ``X-Forwarded-*`` headers, and the session cookie is ``Secure`` whenever the request
  came over https.
* JSON bodies are parsed with a depth bound, without ``NaN``/``Infinity``; a NUL byte in
  the address, the query or a form field is refused before anything runs.
* Errors under ``/api/`` are always ``{"error": {"status": N, "message": "..."}}``;
  pages get the error page. A database that fails (disk full, connection lost) answers
  503 with a sentence; ``/healthz`` names the last such failure for a minute.

The headers are set by one after-request hook rather than flask-talisman: talisman
sends HSTS whenever an ``X-Forwarded-Proto: https`` header is present, whoever sent it,
and forces the session cookie ``Secure`` even on a plain-http development server.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from typing import Any

import psycopg
from flask import Flask, jsonify, render_template, request
from flask.json.provider import DefaultJSONProvider
from flask.sessions import SecureCookieSessionInterface
from flask_babel import gettext
from sqlalchemy.exc import DataError, DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from werkzeug.exceptions import HTTPException
from werkzeug.middleware.proxy_fix import ProxyFix

from pbem import bounds
from pbem.errors import PbemError
from pbem.i18n import N_, localize

CSP = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        # Seat colours and chart sizes are inline style attributes; no script can run.
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data:",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
)

MESSAGES = {
    400: N_("That request was not understood."),
    401: N_("This address needs a valid access token."),
    403: N_("This address is not open to you."),
    404: N_("There is nothing here."),
    405: N_("This address does not take that kind of request."),
    413: N_("That request is too large."),
    429: N_("Too many requests; wait a little and try again."),
    500: N_("Something went wrong on the server; nothing was changed. Try again later."),
    503: N_(
        "The server's database is not working just now; nothing was changed. "
        "Try again in a few minutes."
    ),
}

DATABASE_DOWN: tuple[type[BaseException], ...] = (
    OperationalError,
    InterfaceError,
    PoolTimeout,
    sqlite3.OperationalError,
    sqlite3.InterfaceError,
    psycopg.OperationalError,
    psycopg.InterfaceError,
)


class BoundedJSON(DefaultJSONProvider):
    """Flask's JSON provider, refusing deep nesting, NaN/Infinity and NUL characters.

    A refusal is a ``ValueError``, which Flask turns into a 400 (or ``None`` for
    ``get_json(silent=True)``)."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return bounds.loads(s, **kwargs)


class SessionCookies(SecureCookieSessionInterface):
    """The session cookie is ``Secure`` whenever the request came over https."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(app.config["SESSION_COOKIE_SECURE"]) or request.is_secure


def token_page() -> bool:
    """Whether this request was made with a secret in its address."""
    args = request.view_args or {}
    return "token" in args or "signature" in args


def security_headers(response):
    headers = response.headers
    headers.setdefault("Content-Security-Policy", CSP)
    headers["X-Content-Type-Options"] = "nosniff"
    headers["X-Frame-Options"] = "DENY"
    headers["Referrer-Policy"] = "no-referrer"
    if request.is_secure:
        headers["Strict-Transport-Security"] = "max-age=31536000; includeSubDomains"
    if token_page():
        headers["Cache-Control"] = "no-store"
        headers["Pragma"] = "no-cache"
    return response


def refuse_nul() -> None:
    """A NUL byte anywhere in the address, the query or the form is refused up front
    (PostgreSQL cannot store one in text, and no field has a use for it)."""
    if "\x00" in request.path or any(
        "\x00" in key or "\x00" in value for key, value in request.args.items(multi=True)
    ):
        raise BadRequestInput(gettext("The address may not contain NUL characters."))
    if request.method == "POST" and request.mimetype in (
        "application/x-www-form-urlencoded",
        "multipart/form-data",
    ):
        for key, value in request.form.items(multi=True):
            if "\x00" in key or "\x00" in value:
                raise BadRequestInput("A form field may not contain NUL characters.")


class BadRequestInput(PbemError):
    status = 400


# Database failures seen by this process, for /healthz.
_FAILURE_LOCK = threading.Lock()
_LAST_FAILURE: dict[str, Any] = {}
FAILURE_MEMORY_SECONDS = 60.0


def failure_kind(error: BaseException) -> str:
    """A database failure's kind (``OperationalError (disk full)``): never the driver's
    message, since /healthz is public and a message can name hosts and addresses."""
    original = getattr(error, "orig", None) or error
    text = str(original).lower()
    reason = type(original).__name__
    if "full" in text or "no space" in text:
        reason += " (disk full)"
    elif "read-only" in text or "readonly" in text:
        reason += " (read-only)"
    elif any(word in text for word in ("closed", "terminat", "connect", "lost", "timeout")):
        reason += " (connection lost)"
    return reason


def note_database_failure(error: BaseException) -> None:
    """Remembers the failure's kind for /healthz (``last_failure``)."""
    reason = failure_kind(error)
    with _FAILURE_LOCK:
        _LAST_FAILURE.update(at=time.monotonic(), reason=reason)


def recent_database_failure() -> str | None:
    """The last database failure of this process, if it was less than a minute ago."""
    with _FAILURE_LOCK:
        at = _LAST_FAILURE.get("at")
        if at is None or time.monotonic() - at > FAILURE_MEMORY_SECONDS:
            return None
        ago = time.monotonic() - at
        return f"{_LAST_FAILURE['reason']} ({ago:.0f} s ago)"


def forget_database_failures() -> None:
    with _FAILURE_LOCK:
        _LAST_FAILURE.clear()


def error_answer(status: int, message: str, **extra: Any):
    """The error in the shape of the request: JSON under ``/api/``, else the error page."""
    if request.path.startswith("/api/"):
        said = localize(message)  # a refusal in the page's language, as pages show it
        return jsonify({"error": {"status": status, "message": said, **extra}}), status
    return render_template("error.html", message=message, status=status), status


def is_database_down(error: BaseException) -> bool:
    if isinstance(error, DATABASE_DOWN):
        return True
    return isinstance(error, DBAPIError) and bool(error.connection_invalidated)


def init_app(app: Flask) -> None:
    runtime = app.extensions["pbem"]
    proxies = int(runtime.config["server"].get("proxies", 0) or 0)
    if proxies > 0:
        app.wsgi_app = ProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies, x_port=proxies
        )
    app.json = BoundedJSON(app)
    app.session_interface = SessionCookies()
    app.before_request(refuse_nul)
    app.after_request(security_headers)

    @app.errorhandler(PbemError)
    def pbem_error(error: PbemError):
        extra = {"fresh_seq": error.fresh_seq} if hasattr(error, "fresh_seq") else {}
        return error_answer(error.status, error.message, **extra)

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException):
        if error.code is None or error.code < 400:
            return error
        words = MESSAGES.get(error.code)
        message = gettext(words) if words else error.description or gettext("That did not work.")
        return error_answer(error.code, message)

    @app.errorhandler(OverflowError)
    @app.errorhandler(DataError)
    def out_of_range(error: Exception):
        return error_answer(
            400, gettext("A value in the request is out of range or cannot be stored.")
        )

    @app.errorhandler(Exception)
    def unexpected(error: Exception):
        if is_database_down(error):
            note_database_failure(error)
            app.logger.error("database failure: %s", error)
            return error_answer(503, gettext(MESSAGES[503]))
        app.logger.exception("unexpected error on %s %s", request.method, request.path)
        return error_answer(500, gettext(MESSAGES[500]))
