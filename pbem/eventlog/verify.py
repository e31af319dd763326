"""Offline verification of a game's log: the chain, every state hash, every draw.

``pbem verify FILE`` runs :func:`verify_export` on an exported file. It needs no
database and no server: it replays the log through the engine, re-derives every draw
from the revealed seed, checks each row's hash and its link to the one before, and
names the first event where anything differs.

Any file gets an answer, never a traceback: "N events verified" or the first problem by
name. Beyond the events it checks the header against them (``head_seq`` and
``head_hash`` are the last event's, a finished game reveals its seed, the commitment is
the sha256 of the revealed seed, the ``options`` are the ones the first event records),
and :func:`check_receipt` checks a receipt from a mail.

The roster (who holds each seat, the creator, the deadline policy, the pause) is folded
along the chain like the state (:mod:`pbem.eventlog.roster`): a malformed roster event
fails at its seq, and when the log carries a roster the header's roster fields must be
the fold at the head, so a name changed in the header no longer verifies. A log from
before rosters were logged still verifies; its report says the roster is not in the
chain (``roster_in_chain``).

Table talk (``talk`` events, :mod:`pbem.games.talk`) never changes the state; a private
message's text and salt are outside the hash, and where a file carries them they must
match the commitment the chain holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engines import REGISTRY, at_version
from engines.api import IllegalMove, canonical_json
from engines.api import state_hash as engine_state_hash
from pbem.bounds import check_json, is_count
from pbem.eventlog import contributions as contrib
from pbem.eventlog import roster as roster_mod
from pbem.eventlog.chance import ChanceMismatch, commitment, verify_draws
from pbem.eventlog.log import (
    GENESIS_HASH,
    HASHED_FIELDS,
    MOVE_KINDS,
    TALK_KIND,
    ReplayError,
    apply_event,
    engine_after,
    keyed_state_hash,
    row_hash,
    same_game_at,
    setup_state,
)
from pbem.eventlog.roster import Roster, RosterError
from pbem.eventlog.talk_events import problem as talk_problem

EXPORT_FORMAT = "pbem-export/1"
# No game draws from more than 2^32 outcomes; a larger bound would make derive() spin.
DRAW_BOUND_MAX = 2**32
RECORDED_FORMAT = "pbem-recorded-game/1"


@dataclass
class VerifyReport:
    ok: bool
    message: str
    events: int = 0
    first_bad_seq: int | None = None
    head_hash: str = ""
    seed_revealed: bool = False
    seed_hex: str = ""
    draws_checked: int = 0
    roster_in_chain: bool = False
    # Scheme 2: whose contributions covered which events' draws (empty for scheme 1).
    coverage: str = ""
    roster: Roster | None = field(default=None, repr=False)
    states: list[Any] = field(default_factory=list, repr=False)
    engines: list[Any] = field(default_factory=list, repr=False)

    def summary(self) -> str:
        if not self.ok:
            if self.first_bad_seq is None:
                return f"FAILED: {self.message}"
            return f"FAILED at event {self.first_bad_seq}: {self.message}"
        return self.message

    @property
    def roster_line(self) -> str:
        """What the report says about the roster (for ``pbem verify`` and the audit)."""
        if self.roster_in_chain:
            return "the roster (who holds each seat) is in the hash chain and checked"
        return (
            "the roster is not in the chain: this log is from before rosters were logged, "
            "so its seat names and bots are not checked"
        )


def _bad(seq: int | None, message: str, count: int = 0) -> VerifyReport:
    return VerifyReport(False, message, events=count, first_bad_seq=seq)


def verify_export(data: Any, head: str | None = None) -> VerifyReport:
    """Verifies an exported file (already parsed from JSON); never raises.

    ``head`` is a receipt (a head hash from a mail): it must be the hash of one of the
    log's events, and the report says which."""
    try:
        check_json(data)
    except ValueError as error:
        return _bad(None, f"the file cannot be a log: {error}")
    try:
        report = _verify_export(data)
    except RecursionError:
        return _bad(None, "the file nests too deeply to be a log")
    except Exception as error:  # noqa: BLE001 - any file gets an answer, never a traceback
        return _bad(None, f"the file cannot be checked: {type(error).__name__}: {error}")
    if head is not None and report.ok:
        return check_receipt(report, data["events"], head)
    return report


def check_receipt(report: VerifyReport, rows: Sequence[Any], head: str) -> VerifyReport:
    """The report, failed unless ``head`` is the hash of one of ``rows``."""
    wanted = head.strip().lower()
    hashes = [row.get("hash") for row in rows if isinstance(row, Mapping) and "hash" in row]
    if wanted not in hashes:
        return _bad(
            None,
            f"no event in this log has the hash {wanted}: the log is not the one the "
            "receipt was given for, or it was rewritten",
            report.events,
        )
    index = hashes.index(wanted)
    seq = rows[index].get("seq") if isinstance(rows[index], Mapping) else index
    if index == len(hashes) - 1:
        where = f"it is the hash of the last event ({seq}): the log is exactly the one receipted"
    else:
        where = (
            f"it is the hash of event {seq}; the {len(hashes) - 1 - index} events after it "
            "came later"
        )
    report.message += f". Receipt {wanted[:16]}...: {where}"
    return report


def _verify_export(data: Any) -> VerifyReport:
    if isinstance(data, Mapping) and data.get("format") == RECORDED_FORMAT:
        return verify_recorded(data)
    if not isinstance(data, Mapping) or data.get("format") != EXPORT_FORMAT:
        return _bad(None, f"this is not a {EXPORT_FORMAT} file")
    header = data.get("game")
    rows = data.get("events")
    if not isinstance(header, Mapping) or not isinstance(rows, list):
        return _bad(None, "the file has no game header or no event list")
    problem = _header_problem(header)
    if problem:
        return _bad(None, f"the header {problem}")
    if data.get("scope") == "seat":
        report = verify_receipts(rows)
        report = _check_head(header, rows, report) if report.ok else report
        report = _check_roster(header, report) if report.ok else report
        return _check_options(header, rows, report) if report.ok else report
    seed = None
    if data.get("seed") is not None:
        try:
            seed = bytes.fromhex(data["seed"])
        except (TypeError, ValueError):
            return _bad(None, "the seed in the file is not hexadecimal")
    report = verify_rows(header["engine"], rows, seed=seed, game_id=header["id"])
    if not report.ok:
        return report
    report = _check_head(header, rows, report)
    if not report.ok:
        return report
    report = _check_roster(header, report)
    if not report.ok:
        return report
    created = rows[0]["payload"]
    if header["commitment"] != created.get("commitment"):
        return _bad(0, "the header's commitment differs from the one made at the start", 0)
    report = _check_options(header, rows, report)
    if not report.ok:
        return report
    if header["status"] == "finished" and not report.seed_revealed:
        return _bad(
            len(rows) - 1,
            "the header says the game is finished, but no seed is revealed",
            report.events,
        )
    if header["status"] != "finished" and report.seed_revealed:
        return _bad(
            len(rows) - 1,
            "the log reveals the seed, but the header says the game runs",
            report.events,
        )
    if report.seed_revealed and commitment(bytes.fromhex(report.seed_hex)) != header["commitment"]:
        return _bad(None, "the revealed seed's sha256 is not the header's commitment")
    return report


def _check_options(
    header: Mapping[str, Any], rows: Sequence[Any], report: VerifyReport
) -> VerifyReport:
    """The header's ``options`` must be the ones the game's first event records (every
    option, resolved; in a full export the event's hash covers them)."""
    first = rows[0] if rows else None
    if not isinstance(first, Mapping) or not isinstance(first.get("payload"), Mapping):
        return report
    changed = _changed_options(header, first["payload"])
    if not changed:
        return report
    return _bad(
        0,
        "the header's options differ from the ones the game was created with "
        f"({', '.join(changed)})",
        0,
    )


def _changed_options(header: Mapping[str, Any], created: Mapping[str, Any]) -> list[str]:
    """The options the header states otherwise than the game's first event. A header
    without ``options`` states none."""
    if "options" not in header:
        return []
    stated, recorded = header["options"], created.get("options")
    if not isinstance(stated, Mapping) or not isinstance(recorded, Mapping):
        return [] if stated == recorded else ["options"]
    names = sorted(set(stated) | set(recorded), key=str)
    return [
        str(name)
        for name in names
        if name not in stated
        or name not in recorded
        or canonical_json(stated[name]) != canonical_json(recorded[name])
    ]


HEADER_TYPES = {
    "id": (str, "text"),
    "engine": (str, "text"),
    "status": (str, "text"),
    "head_seq": (int, "a whole number"),
    "head_hash": (str, "text"),
    "commitment": (str, "text"),
}


def _header_problem(header: Mapping[str, Any]) -> str | None:
    for name, (kind, word) in HEADER_TYPES.items():
        if name not in header:
            return f"has no {name!r}"
        value = header[name]
        if isinstance(value, bool) or not isinstance(value, kind):
            return f"{name!r} is not {word}"
    if header["status"] not in ("active", "finished"):
        return f"status {header['status']!r} is neither 'active' nor 'finished'"
    return None


def _check_head(header: Mapping[str, Any], rows: Sequence[Any], report: VerifyReport):
    # A seat's export ends with the seat's final view, after the last event.
    events = [row for row in rows if not (isinstance(row, Mapping) and "final_view" in row)]
    last = events[-1] if events else None
    last_seq = last.get("seq") if isinstance(last, Mapping) else None
    if header["head_seq"] != last_seq:
        return _bad(
            last_seq,
            f"the header's head_seq {header['head_seq']} is not the last event's seq {last_seq}",
            report.events,
        )
    if header["head_hash"] != report.head_hash:
        return _bad(last_seq, "the header's head hash does not match the last event", report.events)
    return report


ROSTER_FIELDS = (
    "seat_names",
    "bots",
    "bot_levels",
    "creator_seat",
    "policy",
    "paused",
    "resigned",
)


def _check_roster(header: Mapping[str, Any], report: VerifyReport) -> VerifyReport:
    """When the log carries a roster, the header's roster fields must be its fold at the
    head (they are outside the hash chain; the events are not)."""
    if report.roster is None:
        return report
    expected = report.roster.header()
    differing = [name for name in ROSTER_FIELDS if header.get(name) != expected.get(name)]
    if differing:
        return _bad(
            None,
            "the file's roster does not match its events "
            f"(the header's {', '.join(differing)} differ from the log's)",
            report.events,
        )
    return report


ROW_TYPES = {
    "game_id": (str, "text"),
    "seq": (int, "a whole number"),
    "kind": (str, "text"),
    "payload": (Mapping, "an object"),
    "chance": (list, "a list"),
    "state_hash": (str, "text"),
    "prev_hash": (str, "text"),
    "hash": (str, "text"),
}


def _row_problem(row: Any) -> str | None:
    """What is wrong with an event's form (before its content is checked), if anything."""
    if not isinstance(row, Mapping):
        return "the event is not an object"
    missing = [name for name in (*HASHED_FIELDS, "hash") if name not in row]
    if missing:
        return f"the event is incomplete (no {', '.join(missing)})"
    for name, (kind, word) in ROW_TYPES.items():
        value = row[name]
        if isinstance(value, bool) or not isinstance(value, kind):
            return f"the event's {name} is not {word}"
    seat = row["seat"]
    if seat is not None and not is_count(seat):
        return "the event's seat is not a seat number"
    if not draws_well_formed(row["chance"]):
        return "the event's draws are not [bound, value] pairs of whole numbers"
    return None


def draws_well_formed(chance: Any) -> bool:
    return isinstance(chance, list) and all(
        isinstance(draw, list)
        and len(draw) == 2
        and is_count(draw[0], 1, DRAW_BOUND_MAX)
        and is_count(draw[1], 0, draw[0] - 1)
        for draw in chance
    )


def _created_problem(payload: Mapping[str, Any]) -> str | None:
    if not isinstance(payload.get("options"), Mapping):
        return "the game's options are not an object"
    if not is_count(payload.get("seats"), 1, 64):
        return "the number of seats is not a whole number from 1 to 64"
    if not isinstance(payload.get("commitment"), str):
        return "the commitment is not text"
    scheme = contrib.scheme(payload)
    if not scheme:
        return "the chance scheme is neither 1 nor 2"
    given = payload.get("contributions")
    if scheme == 2 and (not isinstance(given, list) or not given):
        return "the game draws with contributions, but the first event records none"
    if scheme == 1 and given is not None:
        return "the first event records contributions, but the game draws from the seed alone"
    return None


def _contribution_problem(row: Mapping[str, Any], fold: Any, roster: Any) -> str | None:
    """What is wrong with the contributions an event records, naming whose."""
    names = [holder.name for holder in roster.seats] if roster is not None else None
    if row["kind"] == "created":
        payload = row["payload"]
        if contrib.scheme(payload) != 2 or not isinstance(payload.get("contributions"), list):
            return None
        seats = payload.get("seats") if is_count(payload.get("seats"), 1, 64) else None
        names = (
            names
            or [
                holder.get("name", "") if isinstance(holder, Mapping) else ""
                for holder in (payload.get("roster") or {}).get("seats", [])
            ]
            or None
        )
        for index, entry in enumerate(payload["contributions"]):
            problem = contrib.problem(entry, seats)
            if problem:
                who = contrib.label(entry, names) if isinstance(entry, Mapping) else "?"
                return f"contribution {index + 1} of the set-up, by {who}: {problem}"
        return None
    if fold is None:
        return "a contribution event in a log that draws from the seed alone"
    entry = {**row["payload"], "seat": row["seat"]}
    problem = contrib.problem(entry, len(names) if names is not None else None)
    if problem:
        return f"the contribution of {contrib.label(entry, names)}: {problem}"
    if row["seat"] is None:
        return "a contribution event names no seat"
    if any(earlier.get("seat") == row["seat"] for earlier in fold.entries):
        return f"the contribution of {contrib.label(entry, names)} is its seat's second"
    return None


class NeedsFullCheck(Exception):
    """A resumed check met a take-back to a state it does not hold: check from the start."""


class ChainCheck:
    """Checks event rows one at a time, in order: the chain, and with the seed every draw
    and state hash. :func:`verify_rows` runs it over a whole log; :meth:`resume` carries
    on after a prefix verified earlier (its last hash, state and draw count kept).
    """

    def __init__(
        self,
        engine: Any,
        seed: bytes | None = None,
        game_id: str | None = None,
    ):
        self.engine = engine
        self.seed = seed
        self.game_id = game_id
        self.prev = GENESIS_HASH
        self.state: Any = None
        self.next_seq = 0
        self.commitment_hex: str | None = None
        self.draws = 0
        self.revealed = False
        self.resumed = False
        self.earlier: dict[int, Any] = {}
        self.states: list[Any] = []
        self.engines: list[Any] = []
        self.roster: Roster | None = None
        self.fold: contrib.MixFold | None = None

    @classmethod
    def resume(
        cls,
        engine: Any,
        seed: bytes | None,
        game_id: str,
        *,
        seq: int,
        head_hash: str,
        state: Any,
        commitment_hex: str,
        draws: int,
        revealed: bool = False,
        roster: Roster | None = None,
        fold: contrib.MixFold | None = None,
    ) -> ChainCheck:
        """A check that goes on after event ``seq``, verified before with this outcome
        (``roster``: the roster once event ``seq`` happened; ``fold``: the contributions
        recorded up to it, for a game that draws with them)."""
        check = cls(engine, seed, game_id)
        check.roster = roster
        check.fold = fold
        check.prev, check.state, check.next_seq = head_hash, state, seq + 1
        check.commitment_hex, check.draws, check.revealed = commitment_hex, draws, revealed
        check.earlier[seq] = state
        check.resumed = True
        return check

    def feed(self, row: Any) -> VerifyReport | None:
        """Checks the next row; a failed report names the problem, None means it holds."""
        index = self.next_seq
        engine, seed = self.engine, self.seed
        problem = _row_problem(row)
        if problem:
            return _bad(index, problem, index)
        seq = row["seq"]
        if seq != index:
            return _bad(
                index, f"expected event {index} here, found {seq!r} (missing or moved)", index
            )
        if self.game_id is not None and row["game_id"] != self.game_id:
            return _bad(seq, f"the event belongs to game {row['game_id']!r}", index)
        self.game_id = row["game_id"]
        if row["prev_hash"] != self.prev:
            return _bad(seq, "the link to the previous event is broken (prev_hash differs)", index)
        if row["kind"] == contrib.KIND or index == 0:
            problem = _contribution_problem(row, self.fold, self.roster)
            if problem is None and seed is not None:
                problem = _drawn_problem(row, seed, self.roster)
            if problem:
                return _bad(seq, problem, index)
        if row_hash(row) != row["hash"]:
            return _bad(seq, _changed_words(row, self.roster), index)
        self.prev = row["hash"]
        try:
            self.roster = roster_mod.apply(self.roster, row)
        except RosterError as error:
            return _bad(seq, f"the event's roster is malformed: {error}", index)
        if row["kind"] == TALK_KIND:
            size = len(self.roster.seats) if self.roster is not None else None
            problem = talk_problem(row, size)
            if problem:
                return _bad(seq, problem, index)
        if (
            self.resumed
            and row["kind"] == "take_back"
            and row["payload"].get("to_seq") not in self.earlier
        ):
            raise NeedsFullCheck(seq)
        try:
            if index == 0:
                if row["kind"] != "created":
                    return _bad(seq, "the log does not start with 'created'", index)
                if row["payload"].get("engine") != engine.slug:
                    return _bad(seq, "the log is for another game", index)
                problem = _created_problem(row["payload"])
                if problem:
                    return _bad(seq, problem, index)
                made_by = row["payload"].get("engine_version")
                try:
                    engine = self.engine = same_game_at(engine, made_by)
                except KeyError:
                    return _bad(
                        seq,
                        f"the log was made by version {made_by!r} of the engine, "
                        "which this program does not play",
                        index,
                    )
                self.commitment_hex = row["payload"].get("commitment")
                if contrib.scheme(row["payload"]) == 2:
                    self.fold = contrib.MixFold()
                    for entry in row["payload"]["contributions"]:
                        self.fold.add(entry, 0)
                if seed is not None and commitment(seed) != self.commitment_hex:
                    return _bad(
                        seq, "the seed does not match the commitment made at the start", index
                    )
                self.state = setup_state(engine, row)
            else:
                self.state = apply_event(engine, self.state, row, self.earlier)
                engine = self.engine = engine_after(engine, row)
        except (ChanceMismatch, ReplayError, IllegalMove, KeyError, TypeError, ValueError) as error:
            reason = error.reason if isinstance(error, IllegalMove) else str(error)
            return _bad(seq, f"replaying the event fails: {reason}", index)
        except Exception as error:  # noqa: BLE001 - an engine fed a crafted event
            return _bad(seq, f"replaying the event fails: {type(error).__name__}", index)
        self.earlier[seq] = self.state
        if row["kind"] == "seed_revealed":
            try:
                shown = bytes.fromhex(row["payload"].get("seed", ""))
            except (TypeError, ValueError):
                return _bad(seq, "the revealed seed is not hexadecimal", index)
            if commitment(shown) != self.commitment_hex:
                return _bad(seq, "the revealed seed does not match the commitment", index)
            self.revealed = True
        fold = self.fold
        if fold is not None:
            fold.drew(seq)
        if seed is not None and (row["kind"] in MOVE_KINDS or index == 0):
            mix = fold.mix if fold is not None else None
            problem = verify_draws(seed, self.game_id, seq, row["chance"], mix)
            if problem:
                if fold is None:
                    return _bad(seq, f"a draw does not follow from the seed: {problem}", index)
                return _bad(seq, _mixed_words(problem, fold, self.roster), index)
            self.draws += len(row["chance"])
        if fold is not None and row["kind"] == contrib.KIND:
            fold.add({**row["payload"], "seat": row["seat"]}, seq)
        if seed is not None and keyed_state_hash(seed, engine, self.state) != row["state_hash"]:
            return _bad(seq, "the recorded state hash differs from the replayed state", index)
        if not self.resumed:
            self.states.append(self.state)
            self.engines.append(engine)
        self.next_seq += 1
        return None

    def report(self) -> VerifyReport:
        """The outcome after every row fed so far held."""
        count = self.next_seq
        message = f"{_counted(count, 'event')} verified; head hash {self.prev}"
        names = [holder.name for holder in self.roster.seats] if self.roster else None
        coverage = self.fold.coverage(names) if self.fold is not None else ""
        if self.seed is not None:
            source = "the seed and the contributions" if self.fold is not None else "the seed"
            message += (
                f"; {_counted(self.draws, 'draw')} re-derived from {source};"
                " every state hash matches"
            )
        else:
            message += (
                "; the seed is not revealed yet, so draws and state hashes are checked when it is"
            )
        if coverage:
            message += f"; {coverage}"
        return VerifyReport(
            True,
            message,
            events=count,
            head_hash=self.prev,
            seed_revealed=self.revealed,
            seed_hex=self.seed.hex() if self.seed is not None else "",
            draws_checked=self.draws,
            roster_in_chain=self.roster is not None,
            coverage=coverage,
            roster=self.roster,
            states=self.states,
            engines=self.engines,
        )


def _drawn_problem(row: Mapping[str, Any], seed: bytes, roster: Any) -> str | None:
    """A contribution marked as drawn by the server must be the one the seed gives (so
    the server had no choice of it)."""
    names = [holder.name for holder in roster.seats] if roster is not None else None
    if row["kind"] == contrib.KIND:
        entries = [{**row["payload"], "seat": row["seat"]}]
    else:
        entries = row["payload"].get("contributions") or []
        names = (
            names
            or [
                holder.get("name", "") if isinstance(holder, Mapping) else ""
                for holder in (row["payload"].get("roster") or {}).get("seats", [])
            ]
            or None
        )
    for entry in entries:
        if entry.get("by") != "server":
            continue
        if contrib.server_drawn(seed, row["game_id"], entry)["contribution"] != entry.get(
            "contribution"
        ):
            return (
                f"the contribution of {contrib.label(entry, names)} is marked as drawn by "
                "the server, but it is not the one the seed gives"
            )
    return None


def _changed_words(row: Mapping[str, Any], roster: Any) -> str:
    """A row whose hash fails: said so, naming the contributions it records."""
    words = "the event's content does not match its hash (it was changed)"
    names = [holder.name for holder in roster.seats] if roster is not None else None
    if row["kind"] == contrib.KIND:
        entry = {**row["payload"], "seat": row["seat"]}
        return f"{words}: it is the contribution of {contrib.label(entry, names)}"
    given = row["payload"].get("contributions") if row["seq"] == 0 else None
    if isinstance(given, list) and given:
        labels = [contrib.label(entry, names) for entry in given if isinstance(entry, Mapping)]
        return f"{words}: it records the set-up's contributions, by {', '.join(labels)}"
    return words


def _mixed_words(problem: str, fold: contrib.MixFold, roster: Any) -> str:
    """A draw that does not follow from the seed and the contributions in force."""
    names = [holder.name for holder in roster.seats] if roster is not None else None
    latest = fold.entries[-1] if fold.entries else None
    words = f"a draw does not follow from the seed and the contributions: {problem}"
    if latest is not None:
        words += (
            f" (the latest contribution before it: {contrib.label(latest, names)}, "
            f"recorded at event {latest['at']})"
        )
    return words


def verify_rows(
    engine_slug: Any,
    rows: Sequence[Any],
    seed: bytes | None = None,
    game_id: str | None = None,
) -> VerifyReport:
    """Verifies full event rows in order; the seed may come along or from the log.

    Each event is replayed on the engine version the game was on: the one its first
    event names, and the newer one after an ``engine_upgraded`` event.
    """
    engine = REGISTRY.get(engine_slug) if isinstance(engine_slug, str) else None
    if engine is None:
        return _bad(None, f"unknown game {engine_slug!r}")
    if not rows:
        return _bad(0, "the log is empty")
    revealed = _revealed_seed(rows)
    if revealed is not None:
        seed = revealed
    check = ChainCheck(engine, seed, game_id)
    for row in rows:
        failed = check.feed(row)
        if failed is not None:
            return failed
    report = check.report()
    report.seed_revealed = revealed is not None
    return report


def verify_recorded(record: Mapping[str, Any]) -> VerifyReport:
    """A recorded game (``seeds/``): every draw from the seed, the final state and result."""
    from engines.api import Result

    slug = record.get("engine")
    engine = REGISTRY.get(slug) if isinstance(slug, str) else None
    if engine is None:
        return _bad(None, f"unknown game {record.get('engine')!r}")
    try:
        seed = bytes.fromhex(record["seed"])
        game_id = record["game_id"]
        if commitment(seed) != record["commitment"]:
            return _bad(0, "the seed does not match the commitment")
        try:
            engine = at_version(engine, record["engine_version"])
        except KeyError:
            return _bad(0, f"recorded with version {record['engine_version']!r} of the engine")
        moves = record["moves"]
        if not isinstance(game_id, str) or not isinstance(moves, list):
            return _bad(None, "the record has no game id or no move list")
        chances = [record["setup_chance"], *(entry["chance"] for entry in moves)]
        if not all(draws_well_formed(chance) for chance in chances):
            return _bad(None, "the record's draws are not [bound, value] pairs of whole numbers")
        problem = verify_draws(seed, game_id, 0, record["setup_chance"])
        if problem:
            return _bad(0, f"a setup draw does not follow from the seed: {problem}")
        created = {"payload": record, "chance": record["setup_chance"]}
        state = setup_state(engine, created)
        draws = len(record["setup_chance"])
        for seq, entry in enumerate(record["moves"], start=1):
            problem = verify_draws(seed, game_id, seq, entry["chance"])
            if problem:
                return _bad(seq, f"a draw does not follow from the seed: {problem}", seq)
            row = {
                "kind": "move",
                "seq": seq,
                "seat": entry["seat"],
                "chance": entry["chance"],
                "payload": {"move": entry["move"]},
            }
            state = apply_event(engine, state, row, {})
            draws += len(entry["chance"])
    except (ChanceMismatch, ReplayError, IllegalMove, KeyError, TypeError, ValueError) as error:
        reason = error.reason if isinstance(error, IllegalMove) else str(error)
        return _bad(None, f"replaying the recorded game fails: {reason}")
    moves = len(record["moves"])
    if engine_state_hash(engine, state) != record.get("final_state_hash"):
        return _bad(moves, "the final state differs from the recorded one", moves)
    result = engine.result(state)
    # The outcome must be the recorded one: scores, winners and the scoring's detail.
    # How a result is worded and tabled may change between releases; those are left out.
    if result is None or _outcome(result) != _outcome(Result.from_json(record["result"])):
        return _bad(moves, "the result differs from the recorded one", moves)
    return VerifyReport(
        True,
        f"{_counted(moves, 'move')} replayed; {_counted(draws, 'draw')} re-derived from the seed; "
        f"final state and result as recorded",
        events=moves + 1,
        seed_revealed=True,
        seed_hex=seed.hex(),
        draws_checked=draws,
    )


def _outcome(result: Any) -> tuple:
    return tuple(result.scores), tuple(result.winners), dict(result.breakdown)


def verify_receipts(entries: Sequence[Any]) -> VerifyReport:
    """A per-seat export: checks that its hashes form one unbroken chain."""
    prev = GENESIS_HASH
    count = 0
    roster = None
    for index, entry in enumerate(entries):
        if isinstance(entry, Mapping) and "final_view" in entry:
            continue
        if not isinstance(entry, Mapping) or entry.get("seq") != index:
            return _bad(index, "an event is missing or out of order", index)
        if entry.get("prev_hash") != prev:
            return _bad(index, "the link to the previous event is broken", index)
        if not isinstance(entry.get("payload", {}), Mapping):
            return _bad(index, "the event's payload is not an object", index)
        try:
            roster = roster_mod.apply(roster, entry)
        except RosterError as error:
            return _bad(index, f"the event's roster is malformed: {error}", index)
        if entry.get("kind") == TALK_KIND:
            problem = talk_problem(entry, len(roster.seats) if roster is not None else None)
            if problem:
                return _bad(index, problem, index)
        prev = entry.get("hash", "")
        count += 1
    return VerifyReport(
        True,
        f"{count} event receipts form an unbroken chain; head hash {prev}. "
        "The full log, published when the game ends, can be checked against them.",
        events=count,
        head_hash=prev,
        roster_in_chain=roster is not None,
        roster=roster,
    )


def _revealed_seed(rows: Sequence[Any]) -> bytes | None:
    for row in rows:
        if isinstance(row, Mapping) and row.get("kind") == "seed_revealed":
            try:
                return bytes.fromhex(row["payload"]["seed"])
            except (KeyError, TypeError, ValueError):
                return None
    return None


def _counted(count: int, noun: str) -> str:
    """ "1 draw", "3 draws": a count and its noun, as a sentence reads."""
    return f"{count} {noun}{'' if count == 1 else 's'}"
