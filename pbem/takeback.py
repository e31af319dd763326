"""Taking back a misclick: a seat may undo its own latest moves, but nothing seen or drawn.

The rule: a seat may take back its latest move while that seat has stayed the only seat
due since before it (so no one else has had a turn, a mail or a page to act on), the
move drew nothing at random (a drawn card or a die roll cannot be un-seen), and the
move lies within the log's take-back reach. Repeating the take-back walks further back
under the same rule. The take-back is an event of its own, shown in the history.
"""

from __future__ import annotations

from pbem.errors import Rejected
from pbem.log import TAKE_BACK_WINDOW
from pbem.service import GameService, MoveOutcome


def take_back_target(service: GameService, game_id: str, seat: int) -> int | None:
    """The event whose state a take-back by ``seat`` would restore now, or ``None``."""
    head = service.head(game_id)
    if head.game.status != "active" or head.engine.to_move(head.state) != frozenset({seat}):
        return None
    rows = service.events(game_id, after=max(head.seq - TAKE_BACK_WINDOW, 0))
    by_seq = {row["seq"]: row for row in rows}
    position = head.seq
    while position in by_seq:
        row = by_seq[position]
        if row["kind"] != "take_back":
            break
        position = row["payload"]["to_seq"]
    row = by_seq.get(position)
    if row is None or row["kind"] != "move" or row["seat"] != seat or row["chance"]:
        return None
    target = position - 1
    if head.seq + 1 - target >= TAKE_BACK_WINDOW:
        return None
    _, before, _ = service.state_at(game_id, target)
    if head.engine.to_move(before) != frozenset({seat}):
        return None
    return target


def take_back(service: GameService, game_id: str, seat: int, expected_seq: int) -> MoveOutcome:
    """Appends the take-back event for ``seat``'s latest move, if the rule allows it."""
    target = take_back_target(service, game_id, seat)
    if target is None:
        raise Rejected(
            "That move can no longer be taken back: another player has had a turn "
            "or something was drawn since."
        )
    return service.append_admin(
        game_id, "take_back", seat, {"to_seq": target}, actor="seat", expected_seq=expected_seq
    )
