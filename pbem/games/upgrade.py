"""Engine upgrades: whether a game's log replays identically on a newer engine version,
and moving it there (an ``engine_upgraded`` event in its chain)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engines import REGISTRY, at_version, get_engine, versions_of
from engines.api import IllegalMove
from pbem.errors import Conflict
from pbem.eventlog.chance import ChanceMismatch
from pbem.eventlog.log import (
    UPGRADE_KIND,
    ReplayError,
    apply_event,
    carry_over,
    keyed_state_hash,
    setup_state,
    timestamp,
)
from pbem.eventlog.store import game_engine
from pbem.eventlog.verify import verify_rows
from pbem.i18n import T
from pbem.models import Event

if TYPE_CHECKING:
    from pbem.games.service import GameService


@dataclass
class UpgradeCheck:
    """Whether a game can move to a newer engine version, and if not, where it diverges."""

    game_id: str
    engine: str
    from_version: int
    to_version: Any
    ok: bool = False
    message: str = ""
    first_bad_seq: int | None = None
    seq: int | None = None

    def refuse(self, message: str) -> UpgradeCheck:
        self.ok, self.message = False, message
        return self

    def diverge(self, seq: int, message: str) -> UpgradeCheck:
        self.first_bad_seq = seq
        return self.refuse(f"event {seq}: {message}")


def check_engines(service: GameService) -> list[dict[str, Any]]:
    """Replays every active game on the engine version it plays (its own).

    Returns one entry per game: ``ok`` when every state hash matches, otherwise
    the first event whose replay diverges (or why the game cannot be replayed).
    Nothing is changed.
    """
    report = []
    for game in service.games("active"):
        entry: dict[str, Any] = {
            "game_id": game.id,
            "engine": game.engine,
            "created_with": service._created_version(game.id),
            "running": game.engine_version,
            "newest": None,
        }
        engine = REGISTRY.get(game.engine)
        if engine is None:
            entry.update(ok=False, problem="this server has no such engine")
        else:
            entry["newest"] = engine.version
            with service.reading() as session:
                seed = service._seed(session, game.id)
            outcome = verify_rows(game.engine, service.events(game.id), seed=seed, game_id=game.id)
            entry["ok"] = outcome.ok
            if not outcome.ok:
                entry["problem"] = outcome.summary()
        report.append(entry)
    return report


def upgrade_check(service: GameService, game_id: str, to: int | None = None) -> UpgradeCheck:
    """Whether a game's whole log replays identically on a newer engine version.

    The log is replayed from its first event on version ``to`` (the newest when
    None) and each state is compared with the recorded one carried over to that
    version: the same state hash at every event, the same draws, no move refused.
    Nothing is changed.
    """

    with service.session() as session:
        game = service.store.game(session, game_id)
        rows = service.store.rows(session, game_id)
        seed = service._seed(session, game_id)
    current = game_engine(game)
    newest = get_engine(game.engine)
    target = newest.version if to is None else to
    check = UpgradeCheck(game_id, game.engine, current.version, target)
    if game.status != "active":
        return check.refuse("The game is over; there is nothing to upgrade.")
    if isinstance(target, bool) or not isinstance(target, int):
        return check.refuse("The version must be a whole number.")
    if target not in versions_of(newest):
        known = ", ".join(str(v) for v in versions_of(newest))
        return check.refuse(f"{newest.title} has no version {target} here (it plays {known}).")
    if target <= current.version:
        return check.refuse(
            f"The game plays version {current.version}; it can only move to a newer one."
        )
    recorded = verify_rows(game.engine, rows, seed=seed, game_id=game_id)
    if not recorded.ok:
        return check.refuse(f"Its log does not replay on its own version: {recorded.summary()}")
    engine = at_version(newest, target)
    earlier: dict[int, Any] = {}
    state = None
    for row, old_state, old_engine in zip(rows, recorded.states, recorded.engines, strict=True):
        seq = row["seq"]
        try:
            if seq == 0:
                state = setup_state(engine, row)
            elif row["kind"] != UPGRADE_KIND:
                state = apply_event(engine, state, row, earlier)
        except (
            ChanceMismatch,
            ReplayError,
            IllegalMove,
            KeyError,
            TypeError,
            ValueError,
        ) as error:
            reason = error.reason if isinstance(error, IllegalMove) else str(error)
            return check.diverge(seq, f"replaying it on version {target} fails: {reason}")
        except Exception as error:  # noqa: BLE001 - an engine bug is a divergence too
            return check.diverge(seq, f"replaying it on version {target} fails: {error!r}")
        earlier[seq] = state
        expected = keyed_state_hash(seed, engine, carry_over(old_engine, engine, old_state))
        if keyed_state_hash(seed, engine, state) != expected:
            return check.diverge(seq, f"the state on version {target} differs")
    check.ok = True
    check.message = (
        f"All {len(rows)} events replay identically on version {target} "
        f"(now on version {current.version})."
    )
    return check


def upgrade_engine(
    service: GameService, game_id: str, to: int | None = None, actor: str = "operator"
) -> UpgradeCheck:
    """Moves a game to a newer engine version if its log replays identically there.

    Recorded as an ``engine_upgraded`` event (from, to) in the hash chain; the read
    model's ``engine_version`` changes with it. Refused (nothing changed) otherwise.
    """
    check = service.upgrade_check(game_id, to)
    if not check.ok:
        return check
    with service.session() as session:
        head = service.store.head(session, game_id)
        if head.game.engine_version != check.from_version:
            raise Conflict(T("The game's engine version changed meanwhile."), head.seq)
        new_engine = get_engine(head.game.engine, check.to_version)
        state = carry_over(head.engine, new_engine, head.state)
        row = service.store.new_row(
            game_id=game_id,
            seq=head.seq + 1,
            prev_hash=head.hash,
            kind="engine_upgraded",
            seat=None,
            payload={"from": check.from_version, "to": check.to_version},
            chance=[],
            state_digest=service.store.digest(service._seed(session, game_id), new_engine, state),
            actor=actor,
            created_at=timestamp(service.clock()),
        )
        service.store.add_rows(session, new_engine, [row], [state])
        head.game.engine_version = check.to_version
        due = head.engine.to_move(head.state)
        service._finish_transition(session, head.game, new_engine, [row], head.state, state, due)
        service.store.commit(session, game_id, head.seq)
    check.seq = row["seq"]
    return check


def created_version(service: GameService, game_id: str) -> int | None:
    with service.session() as session:
        created = session.get(Event, (game_id, 0))
        return created.payload.get("engine_version") if created is not None else None
