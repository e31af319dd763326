"""Following a public game by mail: a spectator gives an address on the game's page and
chooses the result only or every turn.

Double opt-in: :func:`ask` keeps the request unconfirmed and mails a link to the
address; nothing else goes there until that link's page is confirmed (a POST, so that
a mail scanner fetching the link confirms nothing). Confirming one request of
an address ends its other ones for the game (the last choice counts). Requests are
counted per person (the canonical address) and per client (network address) over 24
hours
(``notices.follow_requests_per_address_per_day``, ``..._per_client_per_day``), and an
unconfirmed request lapses after ``notices.follow_confirm_hours``.

Each follower has a random ``token_hash`` (a nonce kept in its row); its links carry an
HMAC of the follower's id and that nonce under the server's key (:func:`signature`),
so they cannot be made for another follower. The mails carry ``List-Unsubscribe`` with
``List-Unsubscribe-Post`` (RFC 8058): the same address stops them in one click, and
its page says so.

A follower's mails say what the game's public page says: whose turn it is, the result,
and the page's address; never a seat's link or anyone's address. They are counted in
the address's mail budget of the game, like every game mail.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, delete, select, update

from engines.text import Text
from pbem import channels, links
from pbem.errors import NotAllowed, NotFound, TooMany
from pbem.games.context import Runtime
from pbem.i18n import T
from pbem.mail import outbox
from pbem.mail.models import Mail
from pbem.models import Game, GameFollower
from pbem.validate import canonical_address, clean_email, is_game_id
from pbem.zones import utc

LIMITS = {
    "person": ("follow_requests_per_address_per_day", 3),
    "client": ("follow_requests_per_client_per_day", 10),
}


def _too_many(key: str, made: int, limit: int) -> Text:
    """The refusal of one follow too many from a person (``key`` "person") or a client."""
    if key == "person":
        return T(
            "Games were followed from this address %(made)d times in the last 24 hours, and "
            "at most %(most)d are allowed; please try again tomorrow.",
            made=made,
            most=limit,
        )
    return T(
        "Games were followed from your network address %(made)d times in the last 24 hours, "
        "and at most %(most)d are allowed; please try again tomorrow.",
        made=made,
        most=limit,
    )


def signature(secret_key: str, follower_id: int, nonce: str) -> str:
    message = f"follow:{follower_id}:{nonce}".encode()
    digest = hmac.new(secret_key.encode(), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode()


def link(runtime: Runtime, follower: GameFollower, action: str) -> str:
    """The follower's ``confirm`` or ``stop`` page."""
    sign = signature(outbox.secret(runtime), follower.id or 0, follower.token_hash)
    return f"{links.base_url(runtime.config)}/follow/{follower.id}/{sign}/{action}"


def _setting(runtime: Runtime, name: str, default: Any) -> Any:
    return runtime.config.get("notices", {}).get(name, default)


def ask(runtime: Runtime, game_id: Any, email: Any, every_turn: bool, client: str | None) -> str:
    """Records a request to follow ``game_id`` and mails its confirmation link to
    ``email``; the sentence to show. :class:`NotFound` for a game that is not public
    (or not there), :class:`NotAllowed` for a finished one, :class:`TooMany` past a
    day's limit (nothing is written then)."""
    if not is_game_id(game_id):
        raise NotFound(T("There is no such game."))
    email = clean_email(email)
    person = canonical_address(email)
    now = utc(runtime.clock())
    with runtime.service.session() as session:
        game = session.get(Game, game_id)
        if game is None or game.private:
            raise NotFound(T("There is no such game."))
        if game.status != "active":
            raise NotAllowed(T("This game is over: there is nothing more to follow."))
        since = now - timedelta(days=1)
        asking = {"person": person, "client": (client or "")[:64]}
        for key, (setting, default) in LIMITS.items():
            if not asking[key]:
                continue
            limit = int(_setting(runtime, setting, default))
            made = session.exec(
                select(func.count())
                .select_from(GameFollower)
                .where(
                    getattr(GameFollower, key) == asking[key],
                    col(GameFollower.created_at) >= since,
                )
            ).one()
            if made >= limit:
                raise TooMany(_too_many(key, made, limit))
        follower = GameFollower(
            game_id=game_id,
            email=email,
            person=person,
            every_turn=bool(every_turn),
            token_hash=secrets.token_hex(32),
            client=asking["client"],
            created_at=now,
        )
        session.add(follower)
        session.flush()
        hours = int(_setting(runtime, "follow_confirm_hours", 48))
        outbox.enqueue(
            session,
            runtime,
            "follow_confirm",
            key=f"follow_confirm:{follower.id}",
            recipient=email,
            context={
                "title": game.title,
                "game_page": links.game_url(runtime.config, game.id),
                "link": link(runtime, follower, "confirm"),
                "every_turn": follower.every_turn,
                "hours": hours,
            },
            game_id=game.id,
        )
        session.commit()
    return (
        f"A link to confirm is on its way to {email}. Nothing more is sent there until it "
        "is confirmed."
    )


def follower_for(runtime: Runtime, follower_id: int, sign: str) -> GameFollower:
    """The follower a link names, if its signature holds (else :class:`NotFound`, the
    same for every way of being wrong)."""
    with runtime.service.reading() as session:
        found = session.get(GameFollower, follower_id)
    if found is None or not hmac.compare_digest(
        signature(outbox.secret(runtime), follower_id, found.token_hash), sign
    ):
        raise NotFound(T("This link is not valid (it may have been used to stop already)."))
    return found


def lapsed(runtime: Runtime, follower: GameFollower) -> bool:
    hours = float(_setting(runtime, "follow_confirm_hours", 48))
    return follower.confirmed_at is None and utc(follower.created_at) + timedelta(
        hours=hours
    ) < utc(runtime.clock())


def confirm(runtime: Runtime, follower_id: int, sign: str) -> GameFollower:
    follower = follower_for(runtime, follower_id, sign)
    if lapsed(runtime, follower):
        raise NotFound(T("This link has lapsed; ask again on the game's page."))
    with runtime.service.session() as session:
        session.exec(
            update(GameFollower)
            .where(col(GameFollower.id) == follower_id, col(GameFollower.confirmed_at).is_(None))
            .values(confirmed_at=utc(runtime.clock()))
        )
        channels.mark(session, follower.game_id)
        # One follower per address and game: its other requests end here (only the
        # address's owner can confirm, so nobody else can lower its request count).
        session.exec(
            delete(GameFollower).where(
                col(GameFollower.game_id) == follower.game_id,
                col(GameFollower.person) == follower.person,
                col(GameFollower.id) != follower_id,
            )
        )
        session.commit()
    return follower


def stop(runtime: Runtime, follower_id: int, sign: str) -> GameFollower:
    """Stops a follower's mails: the row goes (its links then open nothing)."""
    follower = follower_for(runtime, follower_id, sign)
    with runtime.service.session() as session:
        row = session.get(GameFollower, follower_id)
        if row is not None:
            session.delete(row)
        session.commit()
    return follower


# The mails of turns and results (from pbem.channels.turns, in the move's transaction) ----


def _followers(session: Session, numbers: list[int]) -> list[GameFollower]:
    if not numbers:
        return []
    return list(session.exec(select(GameFollower).where(col(GameFollower.id).in_(numbers))))


def _mail(
    session: Session,
    runtime: Runtime,
    game: Any,
    follower: GameFollower,
    kind: str,
    key: str,
    context: dict[str, Any],
    wait: timedelta = timedelta(0),
) -> None:
    stop_link = link(runtime, follower, "stop")
    mail = outbox.enqueue(
        session,
        runtime,
        kind,
        key=key,
        recipient=follower.email,
        context={
            "title": game.title,
            "game_page": links.game_url(runtime.config, game.id),
            "stop": stop_link,
            **context,
        },
        game_id=game.id,
        unsubscribe=stop_link,
    )
    if wait > timedelta(0):
        mail.next_attempt_at = utc(mail.next_attempt_at) + wait


def turn_mails(
    session: Session,
    runtime: Runtime,
    game: Any,
    numbers: list[int],
    whose: str,
    at: datetime,
) -> None:
    """A ``follow_turn`` mail to each follower of every turn; it waits the quiet window
    and replaces the follower's turn mail of this game still waiting."""
    wait = utc(at) - utc(runtime.clock())
    for follower in _followers(session, numbers):
        if not follower.every_turn:
            continue
        session.exec(
            update(Mail)
            .where(
                col(Mail.kind) == "follow_turn",
                col(Mail.game_id) == game.id,
                col(Mail.recipient) == follower.email,
                col(Mail.status) == "pending",
                col(Mail.attempts) == 0,
            )
            .values(status="dropped", last_error="dropped: a later turn's mail replaces it")
            .execution_options(synchronize_session=False)
        )
        _mail(
            session,
            runtime,
            game,
            follower,
            "follow_turn",
            f"follow_turn:{follower.id}:{game.head_seq}",
            {"whose": whose},
            wait,
        )


def result_mails(
    session: Session, runtime: Runtime, game: Any, numbers: list[int], said: str
) -> None:
    """A ``follow_result`` mail to every follower when the game ends."""
    for follower in _followers(session, numbers):
        _mail(
            session,
            runtime,
            game,
            follower,
            "follow_result",
            f"follow_result:{follower.id}",
            {"result": said},
        )
