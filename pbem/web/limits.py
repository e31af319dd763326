"""Rate limits on the web, with Flask-Limiter: how many games one client may create.

One :class:`~flask_limiter.Limiter` per application, made in ``create_app`` by
:func:`init_app`. Its counters live where ``limits.storage_uri`` says (``memory://`` by
default: each web worker counts for itself; a shared store such as Redis makes the
workers agree). The rate is ``limits.create_game`` in Flask-Limiter's notation
(``"10 per hour; 30 per day"``), per client address (behind a proxy, the address the
proxy passes on, once the application trusts it).

Invitations per recipient address are counted in the outbox instead, where every
worker sees them (:func:`pbem.mail.outbox.check_invitations`). A refusal is a 429 with
a sentence (JSON under ``/api/``).
"""

from __future__ import annotations

from flask import Flask
from flask_limiter import Limiter, RateLimitExceeded
from flask_limiter.util import get_remote_address

from pbem.web.hardening import error_answer

LIMITED = {
    "lobby.create": "create_game",
    "mygames.page": "my_games",
    "mygames.open_seat": "my_games",
    "mygames.revoke": "my_games",
}


def init_app(app: Flask, config: dict) -> Limiter:
    """Makes the application's limiter and puts the configured limits on its views."""
    limits = config.get("limits", {})
    limiter = Limiter(
        get_remote_address,
        app=app,
        storage_uri=limits.get("storage_uri") or "memory://",
        headers_enabled=True,
        key_prefix="pbem",
    )
    for endpoint, key in LIMITED.items():
        rate = limits.get(key)
        if rate and endpoint in app.view_functions:
            app.view_functions[endpoint] = limiter.limit(rate)(app.view_functions[endpoint])
    app.register_error_handler(RateLimitExceeded, too_many)
    app.extensions["pbem_limiter"] = limiter
    return limiter


def too_many(error: RateLimitExceeded):
    """The refusal: a sentence, as JSON under ``/api/`` (Retry-After comes with it)."""
    message = (
        f"Too many requests from your address (at most {error.description}). "
        "Please wait a while and try again."
    )
    return error_answer(429, message)
