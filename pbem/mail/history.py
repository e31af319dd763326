"""What happened since a seat's last move, as the lines a mail shows (as that seat may
see them, each move named by the roster of its time).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from sqlmodel import Session, select

from engines.api import Engine
from pbem.eventlog.log import MOVE_KINDS, Folded, fold
from pbem.eventlog.roster import Roster, mover
from pbem.eventlog.roster_log import or_seats, rosters
from pbem.games import names
from pbem.games.admin_lines import describe_admin
from pbem.games.context import Runtime
from pbem.models import Game, Seat

HISTORY_LIMIT = 40


def history_start(game: Game, seat: Seat) -> int:
    """The event after which a seat's "since your last move" lines begin."""
    return max((seat.last_move_seq or 1) - 1, game.head_seq - HISTORY_LIMIT, 0)


def since_last_move(
    session: Session, runtime: Runtime, game: Game, engine: Engine, seat: Seat
) -> list[str]:
    """The history lines from ``seat``'s last move on, as that seat may see them."""
    start = history_start(game, seat)
    return history(session, runtime, game, engine, seat.seat, start, zone=seat.timezone)[0]


def history(
    session: Session,
    runtime: Runtime,
    game: Game,
    engine: Engine,
    viewer: int,
    start: int,
    upto: int | None = None,
    zone: str | None = None,
) -> tuple[list[str], Any]:
    """The lines of the events after ``start`` up to ``upto`` (the head if None) as seat
    ``viewer`` may see them, and the state after the last of them. A move a bot made is
    marked with the seat's holder as of that move (the roster then; today's seats for a
    log without one); times in ``zone``, the reader's (UTC when None)."""
    store = runtime.service.store
    state = store.state_at(session, game, engine, start)
    lines: list[str] = []
    kept = rosters(session, game, game.head_seq if upto is None else upto)
    today: list[Roster] = []
    for row in store.rows(session, game.id, after=start, upto=upto):
        if row["kind"] == "take_back":
            after = store.state_at(session, game, engine, row["seq"])
        else:
            after = fold(engine, [row], Folded(state, row["seq"] - 1)).state
        if row["kind"] in MOVE_KINDS:
            roster = kept.at(row["seq"])
            if roster is None:
                if not today:
                    seats = session.exec(select(Seat).where(Seat.game_id == game.id)).all()
                    today.append(or_seats(None, seats, game))
                roster = today[0]
            described = names.fill_lines(
                engine.describe(state, row["seat"], row["payload"]["move"], after, viewer),
                roster.names,
                partial(marks_after, engine, after),
            )
            made_by = mover(roster, row)
            lines.extend(with_note(described, made_by.note if made_by is not None else ""))
        else:
            line = describe_admin(row, zone)
            if line:
                lines.append(line)
        state = after
    return lines, state


def with_note(described: list[str], note: str) -> list[str]:
    """A move's lines with who played it ("(played by a bot for Ann)") on the move's own
    first line, the line that names the seat, never a line of its own after them."""
    if not note:
        return described
    if not described:
        return [note]
    return [f"{described[0]} {note}", *described[1:]]


def marks_after(engine: Engine, state: Any) -> list[str]:
    """The seats' civilisations or colours as the public view of ``state`` names them."""
    return names.public_marks(engine, state)
