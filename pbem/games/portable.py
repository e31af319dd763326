"""Portable logs: a game's log exported as a file, and such a file verified and imported.

Exports are built once and extended: a 10,000-event export after a move
costs the new events, not the whole log.

Each web worker keeps, per game and scope (the full log, or one seat's view), the JSON
text of the entries up to the last head it exported, the hash of that head, and (for a
seat) the states of the last events: at most :data:`KEPT` exports and
:data:`KEPT_CHARS` characters in all, the least recently built dropped first. An export
after a move reads only the events from the kept head on; if the kept head's hash is no
longer the stored one, it is built again from the start. The file is streamed in pieces.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlmodel import col, select

from engines.api import Engine
from pbem.errors import BadInput, NotFound, Rejected
from pbem.eventlog.log import (
    MOVE_KINDS,
    TAKE_BACK_WINDOW,
    apply_event,
    created_engine,
    engine_after,
    setup_state,
)
from pbem.eventlog.seeds import seal_seed
from pbem.eventlog.store import game_engine
from pbem.eventlog.verify import verify_export, verify_rows
from pbem.games.policy import check_policy
from pbem.games.roster import Roster
from pbem.games.roster_log import or_seats, rosters
from pbem.models import Game, GameSecret, Seat
from pbem.validate import clean_name, clean_title

if TYPE_CHECKING:
    from pbem.games.service import GameService

EXPORT_FORMAT = "pbem-export/1"
KEPT = 32
KEPT_CHARS = 64_000_000
CHUNK = 256
_LOCK = threading.Lock()
_KEPT: OrderedDict[tuple, Built] = OrderedDict()


@dataclass(frozen=True)
class Built:
    """The entries of an export up to event ``seq`` (hash ``hash``) as JSON text: whole
    blocks of :data:`CHUNK` entries joined once, and the entries after the last block."""

    seq: int = -1
    hash: str = ""
    blocks: tuple[str, ...] = ()
    rest: tuple[str, ...] = ()
    earlier: dict[int, Any] = field(default_factory=dict)

    def extended(self, seq: int, digest: str, entries: Sequence[str], earlier=None) -> Built:
        blocks, rest = list(self.blocks), [*self.rest, *entries]
        while len(rest) >= CHUNK:
            blocks.append(",".join(rest[:CHUNK]))
            rest = rest[CHUNK:]
        return Built(seq, digest, tuple(blocks), tuple(rest), earlier or {})

    @property
    def size(self) -> int:
        return sum(map(len, self.blocks)) + sum(map(len, self.rest))

    def pieces(self, opening: str, last: str) -> Iterator[str]:
        """The file in pieces: ``opening``, the entries (then ``last``, if any), "]}"."""
        yield opening
        parts = [*self.blocks, ",".join(self.rest), last]
        first = True
        for part in parts:
            if part:
                if not first:
                    yield ","
                yield part
                first = False
        yield "]}"


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def export_header(
    game: Game, seats: Sequence[Seat], roster: Roster | None = None
) -> dict[str, Any]:
    """The file's header. Its roster fields (names, bots, levels, creator, policy,
    pause) are ``roster``, the fold of the log at the head, which verification checks
    them against; the seat rows only for a log without a roster. No addresses, time
    zones or other personal data."""
    return {
        "id": game.id,
        "engine": game.engine,
        "engine_version": game.engine_version,
        "title": game.title,
        "options": game.options,
        "seats": game.seat_count,
        "commitment": game.commitment,
        "status": game.status,
        "head_seq": game.head_seq,
        "head_hash": game.head_hash,
        **or_seats(roster, seats, game).header(),
    }


def public_payload(row: Mapping[str, Any]) -> dict:
    """What any seat may see of an administrative event's payload (no addresses)."""
    return {key: value for key, value in row["payload"].items() if "email" not in key}


def seat_entry(engine: Engine, row: Mapping[str, Any], before: Any, after: Any, seat: int) -> dict:
    """One event as ``seat`` may know it: receipts (hash, prev_hash), the seat's own
    moves, and every move's lines as that seat saw them. State hashes are left out:
    they are keyed by the unrevealed seed and would only be checkable at the end."""
    entry = {name: row[name] for name in ("seq", "kind", "seat", "created_at", "prev_hash", "hash")}
    if row["kind"] in MOVE_KINDS:
        move = row["payload"]["move"]
        entry["lines"] = engine.describe(before, row["seat"], move, after, seat)
        if row["seat"] == seat:
            entry["move"] = move
    else:
        entry["payload"] = public_payload(row)
    return entry


def export_text(service: Any, game_id: str, seat: int | None = None, full: bool = False) -> str:
    """The export file as JSON text, extended from the one built for an earlier head."""
    return "".join(export_chunks(service, game_id, seat, full))


def export_chunks(
    service: Any, game_id: str, seat: int | None = None, full: bool = False
) -> Iterator[str]:
    """The export file's JSON text in pieces, to stream: read from the database at once,
    then handed out without holding a connection."""
    store = service.store
    with service.reading() as session:
        game = store.game(session, game_id)
        if seat is None and game.status != "finished" and not full:
            raise Rejected("The full log is published when the game ends.")
        if seat is not None and not 0 <= seat < game.seat_count:
            raise NotFound("There is no such seat in this game.")
        seats = session.exec(
            select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.seat))
        ).all()
        engine = game_engine(game) if seat is not None else None
        key = (game_id, seat, game.engine_version)
        built = _KEPT.get(key)
        rows: list[dict] = []
        if built is not None and built.seq <= game.head_seq:
            rows = store.rows(session, game_id, after=built.seq - 1, upto=game.head_seq)
        if not rows or rows[0]["hash"] != built.hash:
            built = Built()
            rows = store.rows(session, game_id, upto=game.head_seq)
        else:
            rows = rows[1:]
        if seat is None:
            built = _more_rows(built, rows)
        else:
            built = _more_entries(
                built, rows, engine, seat, lambda at: store.state_at(session, game, engine, at)
            )
        seed = service._seed(session, game_id).hex() if full and game.status != "finished" else None
        roster = rosters(session, game).head
    with _LOCK:
        _KEPT[key] = built
        _KEPT.move_to_end(key)
        while len(_KEPT) > 1 and (
            len(_KEPT) > KEPT or sum(kept.size for kept in _KEPT.values()) > KEPT_CHARS
        ):
            _KEPT.popitem(last=False)
    top = {"format": EXPORT_FORMAT, "game": export_header(game, seats, roster)}
    if seat is None:
        top["scope"] = "full"
        if seed is not None:
            top["seed"] = seed
        tail = ""
    else:
        top.update(scope="seat", seat=seat)
        final = built.earlier.get(built.seq)
        tail = dumps({"final_view": engine.view(final, seat)}) if built.seq >= 0 else ""
    return built.pieces(dumps(top)[:-1] + ',"events":[', tail)


def _more_rows(built: Built, rows: Sequence[dict]) -> Built:
    if not rows:
        return built
    return built.extended(rows[-1]["seq"], rows[-1]["hash"], [dumps(row) for row in rows])


def _more_entries(built: Built, rows: Sequence[dict], engine: Engine, seat: int, state_at) -> Built:
    if not rows:
        return built
    earlier = dict(built.earlier)
    entries = []
    state = earlier.get(built.seq)
    for row in rows:
        before = state
        target = row["payload"].get("to_seq") if row["kind"] == "take_back" else None
        if row["seq"] == 0:
            # A log replays on the version it was made with, and on a newer one only
            # after an ``engine_upgraded`` event (a kept export is keyed by the version).
            engine = created_engine(engine, row)
            state = setup_state(engine, row)
        elif target is not None and target not in earlier:
            state = state_at(target)
        else:
            state = apply_event(engine, state, row, earlier)
        earlier[row["seq"]] = state
        earlier.pop(row["seq"] - TAKE_BACK_WINDOW, None)
        entries.append(dumps(seat_entry(engine, row, before, state, seat)))
        if row["kind"] not in MOVE_KINDS:
            engine = engine_after(engine, row)
    return built.extended(rows[-1]["seq"], rows[-1]["hash"], entries, earlier)


# Export, import and verification through the game service -----------------------------


def export_game(
    service: GameService, game_id: str, seat: int | None = None, full: bool = False
) -> dict:
    """The game's log as a file.

    ``seat`` given: only what that seat may know (its own moves, what it saw of the
    others, every event's hashes as receipts). Otherwise the full log, which carries
    the seed once revealed; ``full=True`` includes it even while the game runs (for
    an operator moving a game to another server).
    """
    return json.loads(export_text(service, game_id, seat=seat, full=full))


def import_game(service: GameService, data: Any, actor: str = "import") -> str:
    """Imports a full exported log (verified first); the game carries on from there."""
    report = verify_export(data)
    if not report.ok:
        raise BadInput(f"The file does not verify: {report.message}")
    if "seed" not in data and not report.seed_revealed:
        raise BadInput("The file has no seed; only a full export can be imported.")
    game_id = data["game"]["id"]
    rows = data["events"]
    seed = data.get("seed") or report.seed_hex
    engine = report.engines[-1]
    title = clean_title(rows[0]["payload"].get("title"))
    names = data["game"].get("seat_names") or []
    if not isinstance(names, list):
        raise BadInput("The seat names in the file must be a list.")
    names = [clean_name(name, required=False) for name in names]
    with service.session() as session:
        if session.get(Game, game_id) is not None:
            raise BadInput(f"A game with the id {game_id} exists here already.")
        created = rows[0]["payload"]
        now = service.clock()
        game = Game(
            id=game_id,
            engine=engine.slug,
            engine_version=engine.version,
            title=title or engine.title,
            options=created["options"],
            seat_count=created["seats"],
            commitment=created["commitment"],
            head_seq=0,
            head_hash=rows[0]["hash"],
            policy=check_policy(None),
            created_at=now,
            updated_at=now,
        )
        session.add(game)
        session.add(
            GameSecret(
                game_id=game_id,
                seed=seal_seed(service.secret_key, game_id, bytes.fromhex(seed)),
            )
        )
        bots = set(data["game"].get("bots") or [])
        levels = data["game"].get("bot_levels")
        levels = levels if isinstance(levels, dict) else {}
        for index in range(game.seat_count):
            name = names[index] if index < len(names) else ""
            session.add(
                Seat(
                    game_id=game_id,
                    seat=index,
                    name=name or f"Player {index + 1}",
                    is_bot=index in bots,
                    bot_level="easy" if levels.get(str(index)) == "easy" else "normal",
                    created_at=now,
                )
            )
        session.flush()
        states = report.states
        service.store.add_rows(session, engine, rows, states, report.engines)
        service._finish_transition(session, game, engine, list(rows), None, states[-1], frozenset())
        service.store.commit(session, game_id, -1)
    return game_id


def verify_game(service: GameService, game_id: str):
    """Verifies the stored chain of a game: hashes, sequence, replayed state hashes."""
    with service.reading() as session:
        game = service.store.game(session, game_id)
        rows = service.store.rows(session, game_id)
        seed = service._seed(session, game_id)
    return verify_rows(game.engine, rows, seed=seed, game_id=game_id)
