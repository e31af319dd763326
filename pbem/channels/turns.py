"""The channels' listener of the game service's transitions: each turn that begins and
each result, told to the game's webhooks, to the push subscriptions of the seats whose
turn began, and to the game's followers, in the transaction of the change.

Nothing is sent here. A webhook's or a push's notice is a row of ``notice_deliveries``
(the worker sends it: :mod:`pbem.channels.deliver`); a follower's is a mail of the
outbox. A turn's notice waits the quiet window of "your turn" mails
(``mail.quiet_minutes``) and replaces the same target's turn notice still waiting (as
turns that begin within one window make one mail); a push is dropped at sending time
when the player moved meanwhile. A result is never replaced.

What a notice says is public: the game's title, whose turn it is (the seats' names),
the result as the game's page shows it, and the game's public page. A push adds the
seat's own link when it is sent, read then for the subscription's holder only; no row
holds it.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from sqlalchemy import text
from sqlmodel import Session, col, select, update

from pbem import i18n, links
from pbem.games.clocks import turn_goes_on, turns_begun
from pbem.games.context import Runtime
from pbem.games.outcomes import Transition
from pbem.games.results import standings
from pbem.i18n import N_
from pbem.mail.listener import quiet_window
from pbem.models import NoticeDelivery, Seat
from pbem.words import join_names
from pbem.zones import utc


def install(runtime: Runtime) -> None:
    """Adds the listener to the runtime's game service (after mail's)."""
    runtime.service.listeners.append(partial(on_transition, runtime))


# One round trip, a plain statement (compiled once): most games have none of these, and
# the query runs in every move that begins a turn.
_LISTENERS = text(
    "SELECT 'webhook', id, -1 FROM game_webhooks WHERE game_id = :game "
    "UNION ALL SELECT 'push', id, seat FROM push_subscriptions WHERE game_id = :game "
    "UNION ALL SELECT 'follower', id, -1 FROM game_followers "
    "WHERE game_id = :game AND confirmed_at IS NOT NULL"
)


def _listeners(session: Session, game_id: str) -> dict[str, list[Any]]:
    """The game's webhooks, push subscriptions and confirmed followers, in one query."""
    found: dict[str, list[Any]] = {"webhook": [], "push": [], "follower": []}
    for kind, number, seat in session.connection().execute(_LISTENERS, {"game": game_id}):
        found[kind].append((number, seat))
    return found


def on_transition(runtime: Runtime, session: Session, transition: Transition) -> None:
    game = transition.game
    if transition.events[0]["kind"] == "created":
        return
    newly_due = turns_begun(transition)
    if turn_goes_on(transition, newly_due):
        return
    if not transition.finished and not newly_due:
        return
    if not getattr(game, "notice_channels", False):
        return  # never had a webhook, a push subscription or a follower: no query
    found = _listeners(session, game.id)
    if not any(found.values()):
        return
    loaded = transition.seats or session.exec(select(Seat).where(Seat.game_id == game.id))
    seats = {row.seat: row for row in loaded}
    names = [seats[number].name if number in seats else "" for number in range(len(seats))]
    now = utc(runtime.clock())
    page = links.game_url(runtime.config, game.id)
    if transition.finished:
        standing = standings(game.result, names) or {}
        said = standing.get("headline") or "The game is over."
        facts = {
            "event": "result",
            "game_id": game.id,
            "title": game.title,
            "text": f"{game.title}: the game is over. {said}",
            "result": said,
            "url": page,
            "seq": game.head_seq,
        }
        for number, _ in found["webhook"]:
            _deliver(
                session, "webhook", number, game.id, None, facts, now, f"result:{game.id}", now=now
            )
        from pbem.channels import follow

        follow.result_mails(session, runtime, game, [n for n, _ in found["follower"]], said)
        return
    due = [seats[number].name for number in sorted(transition.due_after) if number in seats]
    whose = join_names(due)
    facts = {
        "event": "turn",
        "game_id": game.id,
        "title": game.title,
        "text": f"{game.title}: it is {whose}'s turn." if due else f"{game.title} goes on.",
        "to_move": due,
        "url": page,
        "seq": game.head_seq,
    }
    at = now + quiet_window(runtime)
    key = f"turn:{game.id}:{game.head_seq}"
    for number, _ in found["webhook"]:
        _deliver(session, "webhook", number, game.id, None, facts, at, key, now=now, replaces=True)
    for number, seat in found["push"]:
        if seat in newly_due and seat in seats and not seats[seat].is_bot:
            with i18n.speaking(seats[seat].language):  # as the seat's turn mail says it
                push = {
                    "event": "your_turn",
                    "title": i18n.gettext(N_("{title}: your turn")).format(title=game.title),
                    "text": i18n.gettext(N_("It is your turn in %(title)s."), title=game.title),
                    "upto": game.head_seq,
                }
            _deliver(session, "push", number, game.id, seat, push, at, key, now=now, replaces=True)
    if found["follower"]:
        from pbem.channels import follow

        follow.turn_mails(session, runtime, game, [n for n, _ in found["follower"]], whose, at)


def _deliver(
    session: Session,
    channel: str,
    target: int,
    game_id: str,
    seat: int | None,
    payload: dict[str, Any],
    at: Any,
    key: str,
    *,
    now: Any,
    replaces: bool = False,
) -> None:
    """Adds one delivery; a turn's replaces the target's turn notice still waiting."""
    if replaces:
        session.exec(
            update(NoticeDelivery)
            .where(
                col(NoticeDelivery.channel) == channel,
                col(NoticeDelivery.target) == target,
                col(NoticeDelivery.status) == "pending",
                col(NoticeDelivery.attempts) == 0,
                col(NoticeDelivery.key).like("turn:%"),
            )
            .values(status="dropped", last_error="dropped: a later turn's notice replaces it")
            .execution_options(synchronize_session=False)
        )
    session.add(
        NoticeDelivery(
            key=f"{key}:{channel}:{target}"[:200],
            channel=channel,
            target=target,
            game_id=game_id,
            seat=seat,
            payload=payload,
            next_attempt_at=at,
            created_at=now,
        )
    )
