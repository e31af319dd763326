"""A seat's player gives another address when mail to theirs bounces.

The seat's page (its own link) says that mail to the seat's address bounces and offers
a form: :func:`change_address` makes the new address the seat's (no other seat of the
game may belong to the same person, :func:`pbem.validate.same_person`), mails it a
notice saying so (with the seat's link), and from then on the seat's mail goes there:
the old address's bouncing mark no longer holds it. At most :data:`PER_DAY` changes a
seat per day; only while the seat's address bounces.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import func
from sqlmodel import col, select

from pbem import i18n
from pbem.errors import BadInput, NotFound, Rejected, TooMany
from pbem.games.context import Runtime
from pbem.games.tables import SeatRequest
from pbem.i18n import N_, T
from pbem.mail import seat_mails
from pbem.mail.inbound.bounces import bouncing
from pbem.models import Game, Seat
from pbem.validate import clean_email, same_person
from pbem.zones import utc

PER_DAY = 3
KIND = "address"


def address_bounces(runtime: Runtime, seat: Seat) -> bool:
    """Whether mail to the seat's address bounces."""
    if not seat.email:
        return False
    with runtime.service.reading() as session:
        return bool(bouncing(session, [seat.email]))


def change_address(runtime: Runtime, game_id: str, seat_number: int, value: Any) -> str:
    """Makes ``value`` the seat's address (see the module's docstring); returns it.
    :class:`BadInput`, :class:`Rejected` or :class:`TooMany` with a sentence, and
    nothing changed, when it cannot."""
    address = clean_email(value)
    now = utc(runtime.clock())
    with runtime.service.session() as session:
        seat = session.get(Seat, (game_id, seat_number))
        game = session.get(Game, game_id)
        if seat is None or game is None or not seat.email or seat.is_bot:
            raise NotFound(T("This seat has no player whose address could change."))
        if not bouncing(session, [seat.email]):
            raise Rejected(T("Mail to your address works, so there is nothing to change here."))
        if address.strip().lower() == seat.email.strip().lower():
            raise BadInput(T("That is the address whose mail bounces; give another one."))
        others = session.exec(
            select(Seat.email).where(Seat.game_id == game_id, Seat.seat != seat_number)
        ).all()
        if any(same_person(address, other) for other in others):
            raise Rejected(T("That address belongs to another player of this game."))
        made = session.exec(
            select(func.count(col(SeatRequest.id))).where(
                SeatRequest.game_id == game_id,
                SeatRequest.seat == seat_number,
                SeatRequest.kind == KIND,
                col(SeatRequest.created_at) > now - timedelta(days=1),
            )
        ).one()
        if made >= PER_DAY:
            raise TooMany(
                T(
                    "A seat's address may change at most %(most)d times a day; try again tomorrow.",
                    most=PER_DAY,
                )
            )
        session.add(SeatRequest(game_id=game_id, seat=seat_number, kind=KIND, created_at=now))
        seat.email = address
        session.add(seat)
        with i18n.speaking(seat.language):  # the notice's lines in the seat's language
            lines = [
                i18n.gettext(
                    "Mail to your former address bounced, so you gave %(address)s on your "
                    "seat's page: mail about this game comes here from now on.",
                    address=address,
                ),
                i18n.gettext("If you did not ask for this, you can ignore this mail."),
            ]
        seat_mails.mail_seat(
            session,
            runtime,
            game,
            seat,
            "notice",
            f"address:{game_id}:{seat_number}:{now:%Y%m%d%H%M%S%f}",
            headline=N_("Your address for this game changed"),
            lines=lines,
        )
        session.commit()
    return address
