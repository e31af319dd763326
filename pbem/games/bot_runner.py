"""The background runner of slow bots: games whose due bot plays a slow level.

A slow level (an engine's ``slow_bot_levels``, see :mod:`engines.api`) takes a second or
more of CPU a move, and a game with several such bots could chain many moves. So
:meth:`pbem.games.service.GameService.bots_now` never plays one inside the request, the
mail's receipt or the command that made it due: it hands the game to this runner, which
plays that game's due bots on a thread of its own (with its own database sessions, as
every service call opens them) right after the caller returns.

One thread plays the games in the order they were handed over; a game already waiting
is not queued twice. A game plays at most :data:`TURN` bot moves at a time and then
goes to the back of the queue, so a table of three slow bots does not hold up the
others. Nothing here decides a race: every bot move is appended at the seq it was
computed for, so a runner of another process (or the scheduler's sweep, the backstop
for a crash or a process without a runner) that plays the same game loses on the seq
(:class:`pbem.errors.Conflict`) and tries again from the new head.

``pbem serve`` and ``pbem worker`` start one with the scheduler
(:func:`pbem.scheduler.start_background`); a short-lived command (``pbem move``,
``pbem receive``) has none, and leaves slow bots to the sweep of the running server.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pbem.games.service import GameService

log = logging.getLogger(__name__)

# Bot moves one game plays before the next waiting game has its turn.
TURN = 8
# A game whose bots failed is not taken again for this long (then the next sweep or
# quick bots job hands it over again): a failing bot is not retried every few seconds.
RETRY_AFTER = 60.0


class BotRunner:
    """Plays, on a background thread, the due bots of the games handed to it."""

    def __init__(self, service: GameService, name: str = "pbem-bots"):
        self.service = service
        self.name = name
        self._waiting: deque[str] = deque()
        self._lock = threading.Condition()
        self._busy: str | None = None
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._failed: dict[str, float] = {}  # game -> when it may be taken again
        self.moves = 0  # bot moves played, for tests and the log

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive() and not self._stopping

    def start(self) -> BotRunner:
        """Starts the thread (once); returns the runner."""
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._stopping = False
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._thread.start()
        return self

    def stop(self, timeout: float | None = 5.0) -> None:
        """Stops after the move under way (games still waiting are left to the sweep)."""
        with self._lock:
            self._stopping = True
            self._waiting.clear()
            self._lock.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def submit(self, game_id: str) -> bool:
        """Queues ``game_id`` for its due bots to move; False when it waits already, its
        bots failed less than :data:`RETRY_AFTER` seconds ago, or the runner is stopped
        (the sweep will play them)."""
        with self._lock:
            if not self.running or game_id in self._waiting:
                return False
            if self._failed.get(game_id, 0.0) > time.monotonic():
                return False
            self._failed.pop(game_id, None)
            self._waiting.append(game_id)
            self._lock.notify_all()
            return True

    def has(self, game_id: str) -> bool:
        """Whether ``game_id`` waits in the queue or is being played now."""
        with self._lock:
            return game_id == self._busy or game_id in self._waiting

    def wait_idle(self, timeout: float = 10.0) -> bool:
        """Waits until no game waits or plays (True), or ``timeout`` seconds (False)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._waiting or self._busy is not None:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)
            return True

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._waiting and not self._stopping:
                    self._lock.wait()
                if self._stopping:
                    self._busy = None
                    self._lock.notify_all()
                    return
                game_id = self._busy = self._waiting.popleft()
            again = False
            try:
                moved = self.service.play_bots(game_id, max_moves=TURN)
                self.moves += moved
                again = moved >= TURN
            except Exception:  # noqa: BLE001 - one game's failure must not stop the runner
                log.exception("the bots of %s did not move; the sweep will retry", game_id)
                with self._lock:
                    self._failed[game_id] = time.monotonic() + RETRY_AFTER
            with self._lock:
                self._busy = None
                if again and not self._stopping and game_id not in self._waiting:
                    self._waiting.append(game_id)
                self._lock.notify_all()


__all__ = ["RETRY_AFTER", "TURN", "BotRunner"]
