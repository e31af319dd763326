"""The colour theme: the device's (``prefers-color-scheme``), or light or dark as chosen.

Every page's header has a switch of three buttons (device, light, dark) in a GET form to
``/theme``, which keeps the choice in a ``theme`` cookie (a year, no account needed) and
sends the browser back to the page it came from. ``base.html`` writes the choice into
``<html data-theme>``, so the first paint already has the chosen colours; the palette
(``static/style.css``) follows the device unless that attribute says light or dark.

With script (``static/theme.js``) the buttons change the theme in place, and the choice
is also kept in the browser's storage, which puts the cookie back if it was cleared.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, Flask, Response, redirect, request

from pbem.errors import BadInput

bp = Blueprint("theme", __name__)

CHOICES = ("device", "light", "dark")
COOKIE = "theme"
KEPT_FOR = 365 * 24 * 3600  # seconds


def chosen() -> str:
    """This browser's theme: its cookie's choice, or ``"device"``."""
    value = request.cookies.get(COOKIE, "")
    return value if value in CHOICES else "device"


def back_to(address: str) -> str:
    """``address`` if it is a path on this site (``/...``), else the lobby: the switch
    never sends a browser elsewhere."""
    parts = urlsplit(address)
    if (
        not address.startswith("/")
        or address.startswith("//")
        or "\\" in address
        or parts.scheme
        or parts.netloc
        or any(ord(char) < 32 for char in address)
    ):
        return "/"
    return address


def here() -> str:
    """The address of this page, for the switch to come back to."""
    return request.full_path.rstrip("?")


@bp.get("/theme")
def choose():
    choice = request.args.get("theme", "")
    if choice not in CHOICES:
        raise BadInput("Choose the device's colours, light or dark.")
    return remembered(COOKIE, choice)


def remembered(cookie: str, value: str) -> Response:
    """Back to the page a footer switch was on (same-site only, see ``back_to``), with the
    choice kept in ``cookie`` for a year."""
    response = redirect(back_to(request.args.get("next", "")), code=303)
    response.set_cookie(cookie, value, max_age=KEPT_FOR, samesite="Lax", secure=request.is_secure)
    return response


def vary_on_cookie(response: Response) -> Response:
    """A page is drawn in the theme its cookie names: a cache must keep one per cookie."""
    if response.mimetype == "text/html":
        response.vary.add("Cookie")
    return response


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    app.after_request(vary_on_cookie)
    app.jinja_env.globals["theme"] = chosen
    app.jinja_env.globals["theme_here"] = here
