"""The roster as of any event of a stored game, read from the log (see
:mod:`pbem.eventlog.roster` for the fold itself).

Only the events that change the roster are read (``created``, the seat changes, the
policy, the pause, a recorded roster), and each web worker keeps, per game, the rosters
they made up to the last event it looked at, with that event's hash: a page after a move
reads only the roster events after it (none, mostly). If the kept event's hash is no
longer the stored one, the rosters are read again from the start. Pages never fail on
a malformed roster event (it is skipped here): verification names it.
"""

from __future__ import annotations

import bisect
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, select

from pbem.eventlog import roster as roster_mod
from pbem.eventlog.roster import Roster
from pbem.models import Event, Game

KEPT = 1024
_LOCK = threading.Lock()
_KEPT: OrderedDict[str, Rosters] = OrderedDict()


@dataclass(frozen=True)
class Rosters:
    """A game's rosters up to event ``seq`` (whose hash is ``hash``): ``changes`` holds
    (seq, roster after it) for each event that changed the roster, in order."""

    seq: int = -1
    hash: str = ""
    changes: tuple[tuple[int, Roster | None], ...] = ()

    def at(self, seq: int) -> Roster | None:
        """The roster once event ``seq`` happened (None before the log carries one)."""
        index = bisect.bisect_right([changed for changed, _ in self.changes], seq)
        return self.changes[index - 1][1] if index else None

    @property
    def head(self) -> Roster | None:
        return self.changes[-1][1] if self.changes else None

    @property
    def in_chain(self) -> bool:
        return self.head is not None


def rosters(session: Session, game: Game, upto: int | None = None) -> Rosters:
    """The rosters of ``game`` up to event ``upto`` (its head when None)."""
    upto = game.head_seq if upto is None else upto
    kept = _KEPT.get(game.id)
    if kept is not None:
        stored = session.get(Event, (game.id, kept.seq))
        if stored is None or stored.hash != kept.hash:
            kept = None
    if kept is not None and kept.seq > upto:
        # Kept further than asked: the rosters up to ``upto`` are among them.
        earlier = tuple(change for change in kept.changes if change[0] <= upto)
        return Rosters(upto, "", earlier)
    kept = kept or Rosters()
    if kept.seq < upto:
        kept = _more(session, game.id, kept, upto)
        if upto == game.head_seq:
            with _LOCK:
                _KEPT[game.id] = kept
                _KEPT.move_to_end(game.id)
                while len(_KEPT) > KEPT:
                    _KEPT.popitem(last=False)
    return kept


def _more(session: Session, game_id: str, kept: Rosters, upto: int) -> Rosters:
    query = (
        select(Event.seq, Event.kind, Event.seat, Event.payload)
        .where(
            Event.game_id == game_id,
            Event.seq > kept.seq,
            Event.seq <= upto,
            col(Event.kind).in_(roster_mod.ROSTER_KINDS),
        )
        .order_by(col(Event.seq))
    )
    changes = list(kept.changes)
    current = kept.head
    for seq, kind, seat, payload in session.exec(query):
        try:
            current = roster_mod.apply(current, {"kind": kind, "seat": seat, "payload": payload})
        except roster_mod.RosterError:
            # A malformed roster event changes nothing here; verification and the audit
            # page name it.
            continue
        changes.append((seq, current))
    last = session.get(Event, (game_id, upto))
    return Rosters(upto, last.hash if last is not None else "", tuple(changes))


def or_seats(roster: Roster | None, seats: Sequence[Any], game: Game) -> Roster:
    """``roster``, or for a log without one the roster today's seat rows describe."""
    if roster is not None:
        return roster
    return roster_mod.from_seats(
        seats, game.creator_seat, game.policy or {}, paused=game.paused_at is not None
    )
