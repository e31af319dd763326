"""The mail budget: how much mail of one game one person may get, whatever the game's
settings and whoever named the address.

Per game and person (the address in its canonical form,
:func:`pbem.validate.canonical_address`), kept in ``mail_budgets`` and counted by the
dispatcher as it sends (:func:`charge`), so every worker keeps to it:

- until the address has *taken its seat* (opened the seat's link, its rescue or
  settings page, used it through the API, or replied by mail: :func:`mark_taken`), it
  gets its invitation and at most :data:`BEFORE_TAKEN` (2) more seat mails (reminders,
  turn and deadline mails...). The creator's seat is taken at creation: she got its
  link creating the game;
- any address gets at most ``limits.mails_per_address_per_game_per_day`` mails of one
  game per UTC day (default :data:`PER_DAY`, 24).

The result of a game (``game_over``) and the answer to a player's own reply by mail
(``answer``: one per reply, which only the seat's player can send) are never held and
not counted. Mail about no one game (the daily
digest, "my games" links) is not counted here. A mail over budget is not sent: its row
keeps the status ``held`` and ``last_error`` "over budget: <why>" (``/dev/mail`` and
``/metrics`` show it).

Each mail is counted with one conditional ``UPDATE ... WHERE <still within budget>``:
two dispatchers counting at once cannot both pass the last place.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import case, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from pbem.db import for_reads
from pbem.games.context import Runtime
from pbem.mail.models import Mail, MailBudget
from pbem.models import Game, Seat
from pbem.validate import canonical_address
from pbem.zones import utc

PER_DAY = 24
BEFORE_TAKEN = 2
EXEMPT = frozenset({"game_over", "answer", "follow_result"})
FIRST = frozenset({"invitation"})
KNOWN_MAX = 100_000  # (game, address) pairs a process remembers as taken  # the first mail of a seat, before it is taken

_TABLE = MailBudget.__table__


def per_day(config: dict) -> int:
    """The day's mails of one game to one address (``limits``)."""
    return int(config.get("limits", {}).get("mails_per_address_per_game_per_day", PER_DAY))


def _ensure(connection: Connection, game_id: str, address: str, now: datetime) -> None:
    """Adds the budget's row unless it exists (whoever adds it first)."""
    dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
    connection.execute(
        dialect.insert(_TABLE)
        .values(game_id=game_id, address=address, early=0, day="", today=0, updated_at=now)
        .on_conflict_do_nothing()
    )


def mark_taken(connection: Connection, game_id: str, address: str, now: datetime) -> None:
    """Records that ``address`` took its seat in ``game_id``: from now on only the day's
    budget holds its mail."""
    if not address:
        return
    person = canonical_address(address)
    dialect = postgresql if connection.dialect.name == "postgresql" else sqlite
    # One statement: the row is added taken, or an existing one marked (once).
    connection.execute(
        dialect.insert(_TABLE)
        .values(
            game_id=game_id,
            address=person,
            early=0,
            day="",
            today=0,
            taken_at=now,
            updated_at=now,
        )
        .on_conflict_do_update(
            index_elements=[_TABLE.c.game_id, _TABLE.c.address],
            set_={"taken_at": now, "updated_at": now},
            where=_TABLE.c.taken_at.is_(None),
        )
    )


def seat_taken(runtime: Runtime, game_id: str, address: str) -> None:
    """:func:`mark_taken` in a transaction of its own, at most once per process for one
    game and address (a page view calls it every time). It reads first: only the first
    view of a seat never taken writes, so a page waits for no writer once its seat is
    known to be taken."""
    person = canonical_address(address or "")
    known = runtime.extras.setdefault("budget_taken", set())
    if not person or (game_id, person) in known:
        return
    with for_reads(runtime.db).connect() as connection:
        taken = connection.execute(
            select(_TABLE.c.taken_at).where(_TABLE.c.game_id == game_id, _TABLE.c.address == person)
        ).first()
    if taken is None or taken.taken_at is None:
        with runtime.db.begin() as connection:
            mark_taken(connection, game_id, person, utc(runtime.clock()))
    _remember(known, game_id, person)


def seat_taken_in(connection: Connection, runtime: Runtime, game_id: str, address: str) -> None:
    """:func:`mark_taken` in the caller's transaction (one statement, no read first: a
    reply by mail writes anyway), at most once per process for one game and address."""
    person = canonical_address(address or "")
    known = runtime.extras.setdefault("budget_taken", set())
    if not person or (game_id, person) in known:
        return
    mark_taken(connection, game_id, person, utc(runtime.clock()))
    _remember(known, game_id, person)


def _remember(known: set, game_id: str, person: str) -> None:
    if len(known) >= KNOWN_MAX:
        known.clear()  # a bounded memo: forgetting costs one conditional update
    known.add((game_id, person))


def spent(
    connection: Connection, game_id: str, seat: int, address: str, config: dict, now: datetime
) -> bool:
    """Whether a seat mail of ``game_id`` to ``address`` would be held now: the address
    has not taken its seat and had its :data:`BEFORE_TAKEN` mails, or had the day's
    budget. A hint for the sweep (it writes no reminder that could not go); the
    dispatcher's :func:`charge` decides."""
    found = connection.execute(
        select(_TABLE.c.taken_at, _TABLE.c.early, _TABLE.c.day, _TABLE.c.today).where(
            _TABLE.c.game_id == game_id, _TABLE.c.address == canonical_address(address)
        )
    ).first()
    if found is None:
        return False
    if found.taken_at is None and found.early >= BEFORE_TAKEN:
        if not _creator(connection, game_id, seat, canonical_address(address)):
            return True
        mark_taken(connection, game_id, address, now)
    return found.day == f"{utc(now):%Y-%m-%d}" and found.today >= per_day(config)


def charge(runtime: Runtime, connection: Connection, mail: Mail, now: datetime) -> str:
    """Counts ``mail`` in its recipient's budget: "" when it may go, else why not (the
    budget is spent; nothing is counted then)."""
    if not mail.game_id or mail.kind in EXEMPT:
        return ""
    person = canonical_address(mail.recipient)
    day = f"{utc(now):%Y-%m-%d}"
    limit = per_day(runtime.config)
    early = mail.seat is not None and mail.kind not in FIRST
    with connection.begin():
        _ensure(connection, mail.game_id, person, now)
        counted = _count(mail.game_id, person, day, limit, early, now)
        if connection.execute(counted).rowcount == 1:
            return ""
        row = _row(connection, mail.game_id, person)
        if early and row.taken_at is None and _creator(connection, mail.game_id, mail.seat, person):
            mark_taken(connection, mail.game_id, person, now)
            if connection.execute(counted).rowcount == 1:
                return ""
            row = _row(connection, mail.game_id, person)
    if early and row.taken_at is None and row.early >= BEFORE_TAKEN:
        return (
            f"over budget: {person} has not taken its seat; it got its invitation and "
            f"{BEFORE_TAKEN} more mails of this game"
        )
    return f"over budget: {person} got {limit} mails of this game today (UTC)"


def _count(game_id: str, person: str, day: str, limit: int, early: bool, now: datetime) -> Any:
    """The conditional update that counts one mail, if the budget has room for it."""
    counted = (
        update(_TABLE)
        .where(
            _TABLE.c.game_id == game_id,
            _TABLE.c.address == person,
            or_(_TABLE.c.day != day, _TABLE.c.today < limit),
        )
        .values(
            day=day,
            today=case((_TABLE.c.day == day, _TABLE.c.today + 1), else_=1),
            updated_at=now,
        )
    )
    if not early:
        return counted
    return counted.where(or_(_TABLE.c.taken_at.is_not(None), _TABLE.c.early < BEFORE_TAKEN)).values(
        early=_TABLE.c.early + case((_TABLE.c.taken_at.is_(None), 1), else_=0)
    )


def _row(connection: Connection, game_id: str, person: str) -> Any:
    return connection.execute(
        select(_TABLE.c.taken_at, _TABLE.c.early).where(
            _TABLE.c.game_id == game_id, _TABLE.c.address == person
        )
    ).one()


def _creator(connection: Connection, game_id: str, seat: int | None, person: str) -> bool:
    """Whether ``seat`` is the game's creator's and holds this address (a game made
    before budgets were kept has no mark for her)."""
    seats, games = Seat.__table__, Game.__table__
    found = connection.execute(
        select(seats.c.email, games.c.creator_seat)
        .join(games, games.c.id == seats.c.game_id)
        .where(seats.c.game_id == game_id, seats.c.seat == seat)
    ).first()
    return (
        found is not None
        and found.creator_seat == seat
        and canonical_address(found.email) == person
    )
