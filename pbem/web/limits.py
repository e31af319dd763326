"""Rate limits on the web, with Flask-Limiter: how many games one client may create.

One :class:`~flask_limiter.Limiter` per application, made in ``create_app`` by
:func:`init_app`. Its counters live where ``limits.storage_uri`` says (``memory://`` by
default: each web worker counts for itself; a shared store such as Redis makes the
workers agree). The rate is ``limits.create_game`` in Flask-Limiter's notation
(``"10 per hour; 30 per day"``), per client address (behind a proxy, the address the
proxy passes on, once the application trusts it).

Links are guessed by asking for them: ``limits.unknown_tokens`` (``"30 per hour"``)
counts, per client, the addresses with a secret in them (a seat's link, its rescue page,
a mail settings link, a "my games" link, their API equivalents: any route with a
``token`` or ``signature`` in it, as :func:`~pbem.web.hardening.token_page` says) that
answered 404. A client past the limit gets 429 on every such address until its window
ends, before the secret is looked up, so the answers tell a guesser nothing more. Links
that work are never counted, and the ones this browser has opened before (remembered in
its signed session cookie as short digests) keep working for it even then.

Invitations per recipient address are counted in the outbox instead, where every
worker sees them (:func:`pbem.mail.listener.check_invitations`). A refusal is a 429 with
a sentence (JSON under ``/api/``).
"""

from __future__ import annotations

import hashlib
import logging
from datetime import UTC, datetime

from flask import Flask, Response, request, session
from flask_babel import gettext, ngettext
from flask_limiter import Limiter, RateLimitExceeded
from flask_limiter.util import get_remote_address
from limits import RateLimitItem, parse_many

from pbem.web.hardening import error_answer, token_page

log = logging.getLogger(__name__)

# The session key of the links this browser opened (digests), and how many are kept.
KNOWN = "known_links"
KNOWN_MAX = 30

LIMITED = {
    "lobby.create": "create_game",
    "mygames.page": "my_games",
    "mygames.open_seat": "my_games",
    "mygames.revoke": "my_games",
    "open_pages.join": "open_join",
}


def second_step() -> bool:
    """A game's creation is counted once, at its first step: the second (the creator's
    contribution to the dice) names a first step, which is good for one game only."""
    return bool(request.form.get("pending"))


EXEMPT = {"lobby.create": second_step}


def init_app(app: Flask, config: dict) -> Limiter:
    """Makes the application's limiter and puts the configured limits on its views."""
    limits = config.get("limits", {})
    prefix = str(limits.get("key_prefix") or "pbem")
    limiter = Limiter(
        get_remote_address,
        app=app,
        storage_uri=limits.get("storage_uri") or "memory://",
        headers_enabled=True,
        key_prefix=prefix,
    )
    for endpoint, key in LIMITED.items():
        rate = limits.get(key)
        if rate and endpoint in app.view_functions:
            limit = limiter.limit(rate, exempt_when=EXEMPT.get(endpoint))
            app.view_functions[endpoint] = limit(app.view_functions[endpoint])
    app.register_error_handler(RateLimitExceeded, too_many)
    app.extensions["pbem_limiter"] = limiter
    rate = limits.get("unknown_tokens")
    if rate:
        guard = UnknownLinks(limiter, parse_many(str(rate)), prefix)
        app.before_request(guard.refuse)
        app.after_request(guard.count)
    return limiter


def link_digest() -> str | None:
    """A short digest of the secret in this request's address (None without one)."""
    args = request.view_args or {}
    secret = args.get("token") or args.get("signature")
    if not isinstance(secret, str):
        return None
    return hashlib.sha256(secret.encode()).hexdigest()[:16]


class UnknownLinks:
    """The per-client limit on addresses with an unknown secret (``limits.unknown_tokens``).

    Counts live in the limiter's store, so every worker on a shared store (Redis) sees
    every other's. A store that cannot be reached lets requests through (and says so in
    the log): the secrets stay as hard to guess as they are."""

    def __init__(self, limiter: Limiter, items: list[RateLimitItem], prefix: str):
        self.limiter = limiter
        self.items = items
        self.prefix = prefix

    def _key(self) -> tuple[str, str, str]:
        return (self.prefix, "unknown_links", get_remote_address())

    def refuse(self) -> tuple[Response, int] | None:
        """Before the secret is looked up: 429 for a client past the limit."""
        digest = link_digest()
        if digest is None or digest in session.get(KNOWN, ()):
            return None
        strategy, key = self.limiter.limiter, self._key()
        try:
            for item in self.items:
                if not strategy.test(item, *key):
                    until = strategy.get_window_stats(item, *key).reset_time
                    return unknown_links_refusal(until)
        except Exception:  # noqa: BLE001 - the store is down: do not lock players out
            log.warning("rate-limit store unreachable; unknown links not limited", exc_info=True)
        return None

    def count(self, response: Response) -> Response:
        """After the answer: a 404 counts against the client; a link that worked is
        remembered for this browser."""
        if not token_page():
            return response
        if response.status_code == 404:
            key = self._key()
            try:
                for item in self.items:
                    self.limiter.limiter.hit(item, *key)
            except Exception:  # noqa: BLE001 - see refuse()
                log.warning("rate-limit store unreachable; unknown link not counted")
        elif response.status_code < 400:
            digest = link_digest()
            known = list(session.get(KNOWN, ()))
            if digest is not None and digest not in known:
                session[KNOWN] = [*known, digest][-KNOWN_MAX:]
        return response


def unknown_links_refusal(until: float) -> tuple[Response, int]:
    """The 429 for a client that tried too many unknown links, saying until when."""
    moment = datetime.fromtimestamp(until, UTC)
    when = moment.strftime("%Y-%m-%d %H:%M UTC")
    message = gettext(
        "Too many links that do not exist were tried from your address. Links are not "
        "looked up for it until %(when)s; check the link in your mail and try again then.",
        when=when,
    )
    response, status = error_answer(429, message)
    if not isinstance(response, Response):
        response = Response(response, mimetype="text/html")
    seconds = max(1, int(until - datetime.now(UTC).timestamp()) + 1)
    response.headers["Retry-After"] = str(seconds)
    return response, status


def limit_words(error: RateLimitExceeded) -> str:
    """The limit a client went past, in the page's language ("10 per 1 hour");
    Flask-Limiter's own words for a limit not made of these units."""
    try:
        item = error.limit.limit
        amount, multiples, unit = item.amount, item.multiples, item.GRANULARITY.name
    except AttributeError:
        return str(error.description)
    periods = {
        "second": ngettext("%(num)s second", "%(num)s seconds", multiples),
        "minute": ngettext("%(num)s minute", "%(num)s minutes", multiples),
        "hour": ngettext("%(num)s hour", "%(num)s hours", multiples),
        "day": ngettext("%(num)s day", "%(num)s days", multiples),
    }
    if unit not in periods:
        return str(error.description)
    return gettext("%(count)s per %(period)s", count=amount, period=periods[unit])


def too_many(error: RateLimitExceeded):
    """The refusal: a sentence, as JSON under ``/api/`` (Retry-After comes with it)."""
    message = gettext(
        "Too many requests from your address (at most %(limit)s). "
        "Please wait a while and try again.",
        limit=limit_words(error),
    )
    return error_answer(429, message)
