"""A game's webhooks, set by its creator from the seat's rescue page (the same right as
the game's deadline policy: :func:`pbem.games.control.change_policy`), or the operator.

A webhook is ``discord``, ``slack`` or ``json`` and an https address, checked when it
is saved (:func:`pbem.channels.safehttp.check_url`: the name must resolve to public
addresses only) and again at every post. At most ``notices.webhooks_per_game`` per
game. Pages show only the address's host: the rest is the creator's secret (a Discord
or Slack webhook's path is its key).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import func
from sqlmodel import col, select

from pbem import channels
from pbem.channels import safehttp
from pbem.errors import BadInput, NotAllowed, NotFound, TooMany
from pbem.games.context import Runtime
from pbem.i18n import T
from pbem.models import Game, GameWebhook
from pbem.zones import utc

KINDS = {
    "discord": "Discord",
    "slack": "Slack",
    "json": "Plain JSON",
}


def _creator(game: Game | None, by: int | None) -> Game:
    if game is None:
        raise NotFound(T("There is no such game."))
    if by is not None and (isinstance(by, bool) or by != game.creator_seat):
        raise NotAllowed(T("Only the game's creator or the server's operator can do that."))
    if game.status != "active":
        raise NotAllowed(T("This game is over."))
    return game


def add(runtime: Runtime, game_id: str, kind: Any, url: Any, *, by: int | None) -> GameWebhook:
    """Adds a webhook to ``game_id`` (``by``: the creator's seat, None for the operator)."""
    if kind not in KINDS:
        raise BadInput(T("Choose Discord, Slack or plain JSON."))
    allow = bool(runtime.config.get("notices", {}).get("allow_loopback", False))
    target = safehttp.check_url(url, allow_loopback=allow)
    safehttp.resolve(target, allow_loopback=allow)
    most = int(runtime.config.get("notices", {}).get("webhooks_per_game", 3))
    with runtime.service.session() as session:
        _creator(session.get(Game, game_id), by)
        count = session.exec(
            select(func.count()).select_from(GameWebhook).where(GameWebhook.game_id == game_id)
        ).one()
        if count >= most:
            raise TooMany(T("A game has at most %(most)d webhooks; remove one first.", most=most))
        hook = GameWebhook(
            game_id=game_id, kind=kind, url=url.strip(), created_at=utc(runtime.clock())
        )
        session.add(hook)
        channels.mark(session, game_id)
        session.commit()
        session.refresh(hook)
        return hook


def remove(runtime: Runtime, game_id: str, hook_id: Any, *, by: int | None) -> None:
    number = int(hook_id) if str(hook_id).isdigit() and len(str(hook_id)) < 12 else -1
    with runtime.service.session() as session:
        _creator(session.get(Game, game_id), by)
        hook = session.get(GameWebhook, number)
        if hook is None or hook.game_id != game_id:
            raise NotFound(T("There is no such webhook in this game."))
        session.delete(hook)
        session.commit()


def shown(runtime: Runtime, game_id: str) -> list[dict[str, Any]]:
    """The game's webhooks as a page shows them: kind and host, never the whole address."""
    with runtime.service.reading() as session:
        hooks = session.exec(
            select(GameWebhook).where(GameWebhook.game_id == game_id).order_by(col(GameWebhook.id))
        ).all()
    return [
        {
            "id": hook.id,
            "kind": KINDS.get(hook.kind, hook.kind),
            "host": urlsplit(hook.url).hostname,
        }
        for hook in hooks
    ]
