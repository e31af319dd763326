"""Links that do not open a seat (yet, or any more), and the seats open to newcomers.

A pending invitation's link (a :class:`SeatOffer`) opens only the "take this seat"
form until it is accepted, and lapses (:func:`lapses_at`); a replaced player's old link
(a :class:`RetiredLink`) shows a page that says what happened. :func:`holder_seat` is
the seat a link opens, or the refusal that says why it opens none.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlmodel import select

from engines.text import Text
from pbem import zones
from pbem.errors import Gone, NotFound, NotTaken
from pbem.games.context import Runtime
from pbem.games.seat_changes import game_url
from pbem.games.tables import RetiredLink, SeatOffer
from pbem.games.tokens import hash_token
from pbem.i18n import T, current_language
from pbem.models import Seat
from pbem.zones import utc


def offer_for_token(runtime: Runtime, token: Any) -> SeatOffer | None:
    """The pending invitation a link token belongs to, if any."""
    if not isinstance(token, str) or not 20 <= len(token) <= 100:
        return None
    with runtime.service.reading() as session:
        return session.exec(
            select(SeatOffer).where(SeatOffer.token_hash == hash_token(token))
        ).first()


def lapses_at(runtime: Runtime, offer: SeatOffer) -> datetime:
    """When ``offer``'s pending link stops working: a request for an open seat
    ``limits.seat_request_hours`` after it was mailed, a named newcomer's invitation
    ``limits.invitation_days`` after (links from before the offers were dated count from
    the offer's creation)."""
    limits = runtime.config.get("limits", {})
    since = utc(offer.invited_at or offer.created_at)
    if offer.open:
        return since + timedelta(hours=float(limits.get("seat_request_hours", 48)))
    return since + timedelta(days=float(limits.get("invitation_days", 30)))


def is_lapsed(runtime: Runtime, offer: SeatOffer) -> bool:
    """Whether ``offer``'s pending link no longer takes the seat."""
    return lapses_at(runtime, offer) <= utc(runtime.clock())


def lapsed_message(runtime: Runtime, offer: SeatOffer) -> Text:
    """What a lapsed link says: since when, why, and who can send a fresh one (the time
    in the language of the page or mail being written)."""
    limits = runtime.config.get("limits", {})
    moment = zones.when(lapses_at(runtime, offer), "UTC", language=current_language())
    page = game_url(runtime, offer.game_id)
    if offer.open:
        hours = float(limits.get("seat_request_hours", 48))
        return T(
            "This link lapsed on %(moment)s: a link to take an open seat works for %(hours)s "
            "hours after it is asked for. If the seat is still open on the game's page, "
            "%(page)s, you can ask for it again there.",
            moment=moment,
            hours=format(hours, "g"),
            page=page,
        )
    days = float(limits.get("invitation_days", 30))
    game = runtime.service.game(offer.game_id)
    if game.creator_seat is not None:
        return T(
            "This invitation expired on %(moment)s: an invitation works for %(days)s days. "
            'The game\'s creator can send it again from their "Seats and deadlines" page, and '
            "so can the server's operator: ask them for a fresh link.",
            moment=moment,
            days=format(days, "g"),
        )
    return T(
        "This invitation expired on %(moment)s: an invitation works for %(days)s days. "
        "The server's operator can send it again, and the other players can invite you "
        "again by a vote: ask them for a fresh link.",
        moment=moment,
        days=format(days, "g"),
    )


def retired_for_token(runtime: Runtime, token: Any) -> RetiredLink | None:
    if not isinstance(token, str) or not 20 <= len(token) <= 100:
        return None
    with runtime.service.reading() as session:
        return session.get(RetiredLink, hash_token(token))


def holder_seat(runtime: Runtime, token: str) -> Seat:
    """The seat a link opens; an invitation not yet accepted is refused with
    :class:`NotTaken`, a replaced player's link with :class:`Gone` (its sentence)."""
    try:
        return runtime.service.seat_for_token(token)
    except NotFound:
        offer = offer_for_token(runtime, token)
        if offer is not None and is_lapsed(runtime, offer):
            raise Gone(lapsed_message(runtime, offer)) from None
        if offer is not None:
            raise NotTaken(
                T(
                    "This seat is not yours until you take it: open the link and accept the "
                    "seat first. Nothing was done."
                )
            ) from None
        retired = retired_for_token(runtime, token)
        if retired is not None:
            raise Gone(retired.message) from None
        raise


def open_seats(runtime: Runtime, game_id: str) -> list[Seat]:
    """The seats of a game that anyone outside it may ask for."""
    with runtime.service.reading() as session:
        numbers = {
            offer.seat
            for offer in session.exec(
                select(SeatOffer).where(SeatOffer.game_id == game_id, SeatOffer.open == True)  # noqa: E712
            )
        }
        return [
            row
            for row in session.exec(select(Seat).where(Seat.game_id == game_id))
            if row.seat in numbers
        ]
