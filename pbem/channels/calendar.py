"""An address's calendar of deadlines (ICS, RFC 5545, made with ``icalendar``), behind a
link shown on its "my games" page.

The link's token is an HMAC of the address and its ``generation`` under the server's
key; the server keeps only its hash (``calendar_links``) to find the address again.
"A new calendar link" raises the generation: the old link opens nothing from then on.
Calendar apps fetch the link from their own servers, so it is made to be safe there:
the calendar holds no address and no seat's link, only each running deadline of the
address's seats (one event each, at the deadline in the seat's own time zone), the
game's title and its public page.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

from icalendar import Calendar, Event
from sqlalchemy import func
from sqlmodel import Session, col, select

from pbem import links, zones
from pbem.errors import NotFound
from pbem.games.context import Runtime
from pbem.games.tables import SeatClock
from pbem.i18n import T
from pbem.mail import outbox
from pbem.models import CalendarLink, Game, Seat
from pbem.zones import utc

EVENT_LENGTH = timedelta(minutes=30)


def _token(secret_key: str, address: str, generation: int) -> str:
    message = f"calendar:{address}:{generation}".encode()
    digest = hmac.new(secret_key.encode(), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:24]).decode()


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _url(runtime: Runtime, token: str) -> str:
    return f"{links.base_url(runtime.config)}/calendar/{token}.ics"


def link_for(runtime: Runtime, session: Session, address: str, *, rotate: bool = False) -> str:
    """The address's calendar link (kept from now on); ``rotate``: a new one, the old
    one revoked. The caller commits."""
    person = address.strip().lower()
    key = outbox.secret(runtime)
    row = session.get(CalendarLink, person)
    if row is None:
        row = CalendarLink(address=person, generation=0, token_hash="")
    elif rotate:
        row.generation += 1
    token = _token(key, person, row.generation)
    if row.token_hash != _hash(token):
        row.token_hash = _hash(token)
        session.add(row)
    return _url(runtime, token)


def address_for(runtime: Runtime, token: Any) -> str:
    """The address a calendar link belongs to; :class:`NotFound` for any other token."""
    if not isinstance(token, str) or not 16 <= len(token) <= 64:
        raise NotFound(T("There is no such calendar."))
    with runtime.service.reading() as session:
        row = session.exec(
            select(CalendarLink).where(CalendarLink.token_hash == _hash(token))
        ).first()
    if row is None or not hmac.compare_digest(
        _token(outbox.secret(runtime), row.address, row.generation), token
    ):
        raise NotFound(T("There is no such calendar."))
    return row.address


def deadlines(runtime: Runtime, address: str) -> list[dict[str, Any]]:
    """Each running deadline of the address's seats: game, title, seat's zone, when."""
    person = address.strip().lower()
    with runtime.service.reading() as session:
        found = session.exec(
            select(Seat, Game, SeatClock)
            .join(Game, col(Game.id) == col(Seat.game_id))
            .join(
                SeatClock,
                (col(SeatClock.game_id) == col(Seat.game_id))
                & (col(SeatClock.seat) == col(Seat.seat)),
            )
            .where(
                func.lower(Seat.email) == person,
                Game.status == "active",
                col(Game.paused_at).is_(None),
                col(SeatClock.deadline_at).is_not(None),
                Seat.due == True,  # noqa: E712 - SQL
                Seat.is_bot == False,  # noqa: E712 - SQL
            )
            .order_by(col(SeatClock.deadline_at))
            .limit(500)
        ).all()
    return [
        {
            "game_id": game.id,
            "seat": seat.seat,
            "title": game.title,
            "zone": seat.timezone if seat.timezone in zones.zone_names() else "UTC",
            "at": utc(clock.deadline_at),
            "since": utc(clock.turn_since) if clock.turn_since else None,
        }
        for seat, game, clock in found
    ]


def ics(runtime: Runtime, address: str) -> bytes:
    """The calendar of ``address``'s running deadlines."""
    host = links.base_url(runtime.config).split("://", 1)[-1].split("/", 1)[0]
    calendar = Calendar()
    calendar.add("prodid", "-//pbem//deadlines//EN")
    calendar.add("version", "2.0")
    calendar.add("x-wr-calname", "Deadlines of my games")
    stamp = utc(runtime.clock())
    for item in deadlines(runtime, address):
        zone = ZoneInfo(item["zone"])
        at = item["at"].astimezone(zone)
        event = Event()
        turn = item["since"].strftime("%Y%m%dT%H%M%S") if item["since"] else "0"
        event.add("uid", f"{item['game_id']}-{item['seat']}-{turn}@{host}")
        event.add("dtstamp", stamp)
        event.add("dtstart", at)
        event.add("dtend", at + EVENT_LENGTH)
        event.add("summary", f"{item['title']}: your turn's deadline")
        page = links.game_url(runtime.config, item["game_id"])
        event.add(
            "description",
            f"Your turn in {item['title']} ends at this time. Play it from your link "
            f"(in your mail or on your games page). The game: {page}",
        )
        event.add("url", page)
        calendar.add_component(event)
    return calendar.to_ical()
