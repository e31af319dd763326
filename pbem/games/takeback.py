"""Taking back a misclick: a seat may undo its own latest moves, but nothing seen or drawn.

The rule: a seat may take back its latest move while that seat has stayed the only seat
due since before it (so no one else has had a turn, a mail or a page to act on), the
move drew nothing at random (a drawn card or a die roll cannot be un-seen), and the
move lies within the log's take-back reach. Repeating the take-back walks further back
under the same rule. The take-back is an event of its own, shown in the history.
Table talk (``talk`` events) changes no state and hands no turn over: a note posted
after a move does not stop that move from being taken back (the note stays).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engines.api import Engine
from pbem.errors import Rejected
from pbem.eventlog.log import TAKE_BACK_WINDOW
from pbem.eventlog.store import game_engine
from pbem.games.outcomes import MoveOutcome
from pbem.games.service import GameService
from pbem.i18n import T


def target_in(
    engine: Engine,
    status: str,
    head_seq: int,
    rows: Mapping[int, Mapping[str, Any]],
    state_at: Callable[[int], Any],
    seat: int,
) -> int | None:
    """The rule over a game's last events (``rows`` by seq, reaching the take-back window)
    and the state after any of them (``state_at``): the event a take-back would restore."""
    if status != "active" or engine.to_move(state_at(head_seq)) != frozenset({seat}):
        return None
    position = head_seq
    while position in rows and rows[position]["kind"] in ("take_back", "talk"):
        if rows[position]["kind"] == "talk":
            position -= 1
        else:
            position = rows[position]["payload"]["to_seq"]
    row = rows.get(position)
    if row is None or row["kind"] != "move" or row["seat"] != seat or row["chance"]:
        return None
    target = position - 1
    if head_seq + 1 - target >= TAKE_BACK_WINDOW:
        return None
    if engine.to_move(state_at(target)) != frozenset({seat}):
        return None
    return target


def take_back_target(service: GameService, game_id: str, seat: int) -> int | None:
    """The event whose state a take-back by ``seat`` would restore now, or ``None``."""
    game = service.game(game_id)
    rows = service.events(game_id, after=max(game.head_seq - TAKE_BACK_WINDOW, 0))
    by_seq = {row["seq"]: row for row in rows}
    engine = game_engine(game)

    def state_at(seq: int) -> Any:
        return service.state_at(game_id, seq)[1]

    return target_in(engine, game.status, game.head_seq, by_seq, state_at, seat)


def take_back(service: GameService, game_id: str, seat: int, expected_seq: int) -> MoveOutcome:
    """Appends the take-back event for ``seat``'s latest move, if the rule allows it."""
    target = take_back_target(service, game_id, seat)
    if target is None:
        raise Rejected(
            T(
                "That move can no longer be taken back: another player has had a turn "
                "or something was drawn since."
            )
        )
    return service.append_admin(
        game_id, "take_back", seat, {"to_seq": target}, actor="seat", expected_seq=expected_seq
    )
