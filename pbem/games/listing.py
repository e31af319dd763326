"""Game listings: one page at a time, newest activity first, paged by cursor."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, tuple_, union_all
from sqlmodel import col, select

from engines import REGISTRY
from pbem.bounds import is_count
from pbem.errors import BadInput
from pbem.i18n import T
from pbem.models import Game, GameCount
from pbem.validate import is_game_id

if TYPE_CHECKING:
    from pbem.games.service import GameService


LISTING_PAGE = 50
LISTING_PAGE_MAX = 200
LISTING_STATUSES = ("active", "finished")
# What a listing shows: never head_state, options or policy.
LISTING_COLUMNS = (
    col(Game.id),
    col(Game.engine),
    col(Game.title),
    col(Game.status),
    col(Game.head_seq),
    col(Game.phase),
    col(Game.to_move),
    col(Game.updated_at),
)


@dataclass
class GamePage:
    """One page of a game listing: its rows (id, engine, title, status, head_seq, phase,
    to_move, updated_at), the cursor of the next page (None on the last) and the number
    of games of each status under the same title filter."""

    games: list[Any]
    next: str | None
    counts: dict[str, int]
    status: str | None = None
    engine: str | None = None

    @property
    def total(self) -> int:
        return self.counts.get(self.status, 0) if self.status else sum(self.counts.values())


def check_listing_status(status: str | None) -> str | None:
    if status in (None, ""):
        return None
    if status not in LISTING_STATUSES:
        raise BadInput(T("The status is active or finished."))
    return status


def check_listing_engine(engine: str | None) -> str | None:
    if engine in (None, ""):
        return None
    if engine not in REGISTRY:
        raise BadInput(T("There is no game of that name here."))
    return engine


def make_cursor(updated_at: datetime, game_id: str) -> str:
    """The opaque cursor of the page after the game (updated_at, game_id)."""
    raw = f"{updated_at.isoformat()}|{game_id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def read_cursor(cursor: object) -> tuple[datetime, str]:
    """The (updated_at, game id) of a cursor; :class:`BadInput` for anything else."""
    refusal = BadInput(T("This page link is not valid: start again from the first page."))
    if not isinstance(cursor, str) or not 8 <= len(cursor) <= 200:
        raise refusal
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        stamp, _, game_id = raw.partition("|")
        at = datetime.fromisoformat(stamp)
    except ValueError:
        raise refusal from None
    if not is_game_id(game_id):
        raise refusal
    return at, game_id


def list_games(
    service: GameService,
    status: str | None = None,
    engine: str | None = None,
    after: str | None = None,
    limit: int = LISTING_PAGE,
) -> GamePage:
    """One page of the game list, newest activity first, paged in the database.

    ``after`` is the ``next`` cursor of the page before (keyset pagination on
    ``(updated_at, id)``): a game created while someone pages appears on the first
    page and shifts nothing; a game that moves goes to the top. Only the columns a
    listing shows are read (never ``head_state``), through one index per query
    (see :class:`pbem.models.Game`). Private games are left out, from the rows and the
    counts alike: only their link leads to them.
    """
    status = check_listing_status(status)
    engine = check_listing_engine(engine)
    if not is_count(limit, 1, LISTING_PAGE_MAX):
        raise BadInput(T("A page holds 1 to %(most)d games.", most=LISTING_PAGE_MAX))
    filters = [col(Game.private) == False]  # noqa: E712 - private games are never listed
    if engine:
        filters.append(col(Game.engine) == engine)
    if after:
        at, game_id = read_cursor(after)
        filters.append(tuple_(col(Game.updated_at), col(Game.id)) < tuple_(at, game_id))
    newest = (col(Game.updated_at).desc(), col(Game.id).desc())

    def in_status(name: str):
        return select(*LISTING_COLUMNS).where(*filters, col(Game.status) == name)

    if status:
        query = in_status(status).order_by(*newest).limit(limit + 1)
    else:
        # Each status's range of its index, newest first, then the newest of both: no
        # index over every status, which each move would have to update as well.
        parts = [
            select(in_status(name).order_by(*newest).limit(limit + 1).subquery())
            for name in LISTING_STATUSES
        ]
        merged = union_all(*parts).subquery()
        query = (
            select(*merged.c)
            .order_by(merged.c.updated_at.desc(), merged.c.id.desc())
            .limit(limit + 1)
        )
    # The counts come from game_counts (kept by triggers), never from a pass over games.
    counts_query = select(col(GameCount.status), func.sum(GameCount.games)).where(
        col(GameCount.private) == False  # noqa: E712 - private games are never counted
    )
    if engine:
        counts_query = counts_query.where(col(GameCount.engine) == engine)
    with service.session() as session:
        rows = list(session.exec(query))
        counts = dict(session.exec(counts_query.group_by(col(GameCount.status))).all())
    more = len(rows) > limit
    rows = rows[:limit]
    return GamePage(
        games=rows,
        next=make_cursor(rows[-1].updated_at, rows[-1].id) if more else None,
        counts={key: int(counts.get(key) or 0) for key in LISTING_STATUSES},
        status=status,
        engine=engine,
    )


def page_lines(
    service: GameService,
    status: str | None,
    game: str | None,
    after: str | None,
    limit: int | None,
) -> list[str]:
    """One page of :meth:`GameService.list_games` as the lines ``pbem games`` prints (and
    how to ask for the next)."""
    more = {} if limit is None else {"limit": limit}
    page = service.list_games(status, game, after, **more)
    counts = ", ".join(f"{count:,} {name}" for name, count in page.counts.items())
    lines = [f"Games: {counts}."]
    if not page.games:
        lines.append("No games on this page." if after else "No games yet.")
    for row in page.games:
        turn = ",".join(str(seat) for seat in row.to_move or []) or "-"
        lines.append(
            f"{row.id}  {row.engine:<14} {row.status:<9} seq {row.head_seq:<5} "
            f"to move: {turn:<6} {row.phase}"
        )
    if page.next:
        flags = "".join(
            f" --{name} {value}"
            for name, value in (("status", status), ("game", game), ("limit", limit))
            if value is not None
        )
        lines.append(f"More: pbem games{flags} --after {page.next}")
    return lines
