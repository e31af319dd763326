"""A move is lean: few statements in its transaction, the mail listener included.

Counted with a ``before_cursor_execute`` listener. The transaction's own begin is left
out of the limits, so that both databases are held to the same count: PostgreSQL begins
implicitly, SQLite's ``BEGIN IMMEDIATE`` (which takes the write lock and touches no table)
is a statement of its own; neither database's COMMIT passes the listener."""

from __future__ import annotations

import pytest
from sqlalchemy import event

from tests.mail.conftest import make_runtime, new_game

# One SELECT (the game, its seed, its seats and their clocks), the event, the game's head,
# the seat that moved.
KEEPS_THE_TURN = 4
# And the seats' clocks (one batched UPDATE) and the your-turn mail recorded (not rendered).
PASSES_THE_TURN = 6


def next_move(state: dict) -> dict:
    return {"type": "stop"} if state["pot"] >= 6 else {"type": "roll"}


@pytest.fixture(params=[0, 10], ids=["at-once", "quiet-window"])
def counted_runtime(request, db, tmp_path, clock):
    """Mail at once, and with the default quiet window (the move only records the mail:
    the window is the dispatcher's business)."""
    return make_runtime(db, tmp_path, clock, mail={"quiet_minutes": request.param})


def test_a_move_issues_few_statements(counted_runtime):
    runtime = counted_runtime
    created = new_game(runtime, seats=2, target=10**6)
    service = runtime.service
    statements: list[str] = []

    def count(_conn, _cursor, statement, *_):
        statements.append(statement.split()[0].upper())

    counted = {"keeps": [], "passes": []}
    event.listen(runtime.db, "before_cursor_execute", count)
    try:
        for _ in range(16):
            head = service.head(created.game_id)
            seat = min(head.engine.to_move(head.state))
            statements.clear()
            outcome = service.submit_move(created.game_id, seat, next_move(head.state), head.seq)
            mine = [word for word in statements if word != "BEGIN"]
            kept = seat in head.engine.to_move(outcome.state)
            counted["keeps" if kept else "passes"].append((len(mine), mine))
    finally:
        event.remove(runtime.db, "before_cursor_execute", count)
    assert counted["keeps"] and counted["passes"]
    assert max(n for n, _ in counted["keeps"]) <= KEEPS_THE_TURN, counted["keeps"]
    assert max(n for n, _ in counted["passes"]) <= PASSES_THE_TURN, counted["passes"]
    # Rendering the mail (history replay, templates) happens later: no event is read back.
    for _, mine in counted["keeps"] + counted["passes"]:
        assert mine.count("SELECT") == 1, mine
