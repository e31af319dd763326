"""Cross-site request forgery protection: a random token per browser session.

Every form that changes something carries ``csrf_token()``; a POST from a form without
the matching token is refused before anything runs. The JSON API is exempt because it
accepts only ``application/json``, which a cross-site form cannot send.
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable

from flask import Flask, g, request, session

from pbem.errors import PbemError


class CsrfRefused(PbemError):
    status = 400


PLACEHOLDER = "__csrf_token__"

# Tests for the few POSTs that cannot carry a token and change only what a signed
# address allows (RFC 8058's one-click unsubscribe, see pbem.web.mail_pages.one_click).
EXEMPT: list[Callable[[], bool]] = []


def exempt_when(test: Callable[[], bool]) -> Callable[[], bool]:
    """Exempts the requests ``test`` accepts from the token check."""
    if test not in EXEMPT:
        EXEMPT.append(test)
    return test


def csrf_token() -> str:
    """This session's token (made on first use); a placeholder while rendering a page
    that is cached for every visitor of the same seat (see :func:`fill`)."""
    if g.get("csrf_deferred"):
        return PLACEHOLDER
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(32)
    return session["csrf"]


def fill(html: str) -> str:
    """A page rendered with the placeholder, with this session's token put in."""
    return html.replace(PLACEHOLDER, csrf_token())


def check_csrf() -> None:
    if request.method != "POST" or request.path.startswith("/api/"):
        return
    if any(test() for test in EXEMPT):
        return
    expected = session.get("csrf")
    given = request.form.get("csrf_token", "")
    if not expected or not hmac.compare_digest(str(expected), given):
        raise CsrfRefused(
            "This form has expired or did not come from this site. Reload the page and try again."
        )


def init_app(app: Flask) -> None:
    app.before_request(check_csrf)
    app.jinja_env.globals["csrf_token"] = csrf_token
