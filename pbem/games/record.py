"""A game's readable record: its log as plain text, one line per event.

``pbem export --format record`` writes it; ``pbem verify`` and ``pbem import`` read it;
a finished game's audit page offers it. It is the export file (:mod:`pbem.games.portable`)
in another form, the way email players keep a game's record (PGN and the like): a header
of ``[Tag "value"]`` lines, a blank line, then one line per event::

    [Format "pbem-record/1"]
    [Game "fafm2xtuxd"]
    [Title "..."]
    ...
    [Seed "2a8be728..."]
    [Result "Bot 2 wins: most coins (16). Scores: Bot 1 15, Bot 2 16"]

    0  2026-12-02T17:14:47.081912Z  game created  [draws: 74/82 45/81]  #e4e25f7fab2e  {...}
    1  2026-12-02T17:14:47.094418Z  Bot 1 (1, bot)  trade t3 for cocoa-09, coffee-08, q1  #8b5e24583a65
    2  2026-12-02T17:14:47.099281Z  Bot 1 (1, bot)  load one_kind cocoa-04, cocoa-09  [draws: 23/67 65/66]  #2a33fdf714d7

An event line is its seq, its time (UTC, as the log holds it), who made it (the player's
name and seat number, counted from 1, with ``bot`` or ``deadline`` when the server moved
for them), what happened, the draws made for it (value/bound), and the first
:data:`SHORT` hex digits of the event's hash, each two spaces apart. A move is written
in the title's own notation (the engine's ``notation``, see :mod:`engines.api`); where
the notation alone does not name exactly one legal move, or for any other event, a
PGN-style comment ``{...}`` at the end holds the exact JSON. Lines starting with ``;``
are comments.

Reading a whole game's record back replays it: each move is the one legal move of the
position whose notation is the line's, the draws are the line's, every hash and state
hash is computed again (the seed is in the record once revealed), and each event's hash
must begin with the line's, so a changed move, draw or time is named by its line. The
header is then written again from the events and must read as the file's does. What
comes out is the export file itself, byte for byte the one the record was made from:
:func:`pbem.eventlog.verify.verify_export` and :func:`pbem.games.portable.import_full`
take it as they take the JSON.

A running game's record is one seat's (``--seat``): it holds what that seat's export
holds and nothing more (the seat's own moves, the others' as that seat saw them, every
event's full hash as a receipt, no draws and no seed).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engines import REGISTRY
from engines.api import canonical_json
from pbem.bounds import loads as bounded_loads
from pbem.eventlog import roster as roster_mod
from pbem.eventlog.log import (
    GENESIS_HASH,
    MOVE_KINDS,
    apply_event,
    created_engine,
    engine_after,
    keyed_state_hash,
    row_hash,
    setup_state,
)
from pbem.eventlog.roster import Roster
from pbem.eventlog.verify import EXPORT_FORMAT, VerifyReport, verify_export

RECORD_FORMAT = "pbem-record/1"
SHORT = 12
MAX_CHARS = 64_000_000
PLACEHOLDER = re.compile(r"\{(?:seat|name):(\d{1,6})\}")
TAG = re.compile(r'^\[([A-Za-z][A-Za-z0-9_]*) (".*")\]$')
EVENT = re.compile(r"^(\d+)  (\S+)  (.*)$")
WHO = re.compile(r"^(.*) \((\d+)((?:, [^()]*)?)\)$")
HASH = re.compile(r"^#([0-9a-f]{12,64})$")
DRAWS = re.compile(r"^\[draws: ((?:\d+/\d+ ?)*)\]$")
# What the server does for a seat, as the who column says it (``auto_move`` events).
AUTO_ACTORS = ("bot", "deadline")
COLUMNS = "; seq  time  who  what  [draws: value/bound]  #hash  {exact JSON where needed}"
SEAT_COLUMNS = "; seq  time  who  what (as this seat saw it)  #hash  {exact JSON where needed}"


class RecordError(ValueError):
    """A record that cannot be read back; ``line`` is its line number (1 first)."""

    def __init__(self, line: int | None, message: str):
        super().__init__(message)
        self.line = line
        self.message = message

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else self.message


def is_record(text: str) -> bool:
    """Whether ``text`` is a readable record (rather than a JSON export)."""
    return text.lstrip("\ufeff \t\r\n").startswith('[Format "pbem-record/')


# Writing ---------------------------------------------------------------------------------


def write_record(data: Mapping[str, Any], server: str = "") -> str:
    """The readable record of an export file (a whole game's, or one seat's)."""
    if data.get("scope") == "seat":
        return _write_seat(data, server)
    return _write_full(data, server)


def _write_full(data: Mapping[str, Any], server: str) -> str:
    report = verify_export(data)
    if not report.ok:
        raise ValueError(f"the log does not verify: {report.summary()}")
    if not report.seed_revealed:
        raise ValueError("a whole game's record carries its revealed seed: the game must be over")
    rows = data["events"]
    lines, roster = [], None
    for index, row in enumerate(rows):
        roster = roster_mod.apply(roster, row)
        names = _names(roster, data["game"])
        before = report.states[index - 1] if index else None
        lines.append(_full_line(report.engines[index], row, before, names, roster))
    header = header_lines(data, rows, report.states[-1], report.engines[-1], roster, server)
    return "\n".join([*header, "", COLUMNS, *lines]) + "\n"


def _full_line(
    engine: Any, row: Mapping[str, Any], before: Any, names, roster, only: bool = False
) -> str:
    """The event's line (``only``: its move is known to be the one legal move its
    notation names, as when it was just read back from that notation)."""
    chance = row["chance"]
    parts = [str(row["seq"]), row["created_at"]]
    if row["kind"] in MOVE_KINDS:
        move = row["payload"]["move"]
        text = move_text(engine, move, names)
        exact = text is not None and (
            only or _only_move(engine, before, row["seat"], move, text, names)
        )
        parts += [_who(names, row["seat"], row["kind"], row["actor"]), text or _plain(move)]
        comment = None if exact else {"move": move}
    else:
        parts.append(event_words(row, names))
        comment = {name: row[name] for name in ("kind", "seat", "actor", "payload")}
    if chance:
        parts.append("[draws: " + " ".join(f"{value}/{bound}" for bound, value in chance) + "]")
    parts.append("#" + row["hash"][:SHORT])
    if comment is not None:
        parts.append(_comment(comment))
    return "  ".join(parts)


def move_text(engine: Any, move: Mapping[str, Any], names: Sequence[str]) -> str | None:
    """The move in the title's notation, players named; None when the title has none or
    its text could not stand on a record's line alone."""
    notation = getattr(engine, "notation", None)
    if notation is None:
        return None
    try:
        text = PLACEHOLDER.sub(lambda found: _name(names, int(found.group(1))), notation(move))
    except Exception:  # noqa: BLE001 - a move the notation cannot write is kept as JSON
        return None
    return text if _fits(text) else None


def _only_move(
    engine: Any, state: Any, seat: int, move: Mapping[str, Any], text: str, names
) -> bool:
    """Whether ``move`` is the one legal move of ``seat`` now that is written ``text``."""
    matches = [
        legal
        for legal in engine.legal_moves(state, seat)
        if move_text(engine, legal, names) == text
    ]
    return len(matches) == 1 and canonical_json(matches[0]) == canonical_json(dict(move))


def _fits(text: str) -> bool:
    return bool(text) and text == text.strip() and not any(bad in text for bad in BAD_TEXT)


BAD_TEXT = ("{", "}", "  ", "\n", "\r", "[", "]", "#")


def _plain(value: Any) -> str:
    """Readable words for a value written out in full in the line's comment."""
    text = str(value.get("type", "move")) if isinstance(value, Mapping) else str(value)
    return _clean(text.replace("_", " ")) or "-"


def _clean(text: str) -> str:
    for bad in BAD_TEXT:
        text = text.replace(bad, " " if bad in ("\n", "\r", "  ") else "")
    while "  " in text:
        text = text.replace("  ", " ")
    return text.strip()


def _comment(value: Any) -> str:
    return "{" + json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=False)[1:]


def _names(roster: Roster | None, header: Mapping[str, Any]) -> list[str]:
    if roster is not None:
        return roster.names
    names = header.get("seat_names")
    return [str(name) for name in names] if isinstance(names, list) else []


def _name(names: Sequence[str], seat: int | None) -> str:
    if seat is None:
        return "-"
    name = names[seat] if 0 <= seat < len(names) and names[seat] else f"Player {seat + 1}"
    return _clean(str(name)).replace("(", "").replace(")", "") or f"Player {seat + 1}"


def _who(names: Sequence[str], seat: int, kind: str, actor: str) -> str:
    if kind == "auto_move":
        how = actor if actor in AUTO_ACTORS else (f"auto by {actor}" if actor else "auto")
    else:
        how = f"by {actor}" if actor else ""
    how = _clean(how).replace("(", "").replace(")", "")
    return f"{_name(names, seat)} ({seat + 1}{', ' + how if how else ''})"


def _read_who(text: str, line: int) -> tuple[int, str, str]:
    """(seat, kind, actor) from a who column."""
    found = WHO.match(text)
    if found is None:
        raise RecordError(line, "the line names no player as 'Name (seat)'")
    seat = int(found.group(2)) - 1
    how = found.group(3)[2:] if found.group(3) else ""
    if how in AUTO_ACTORS:
        return seat, "auto_move", how
    if how == "auto":
        return seat, "auto_move", ""
    if how.startswith("auto by "):
        return seat, "auto_move", how[len("auto by ") :]
    if how.startswith("by "):
        return seat, "move", how[len("by ") :]
    if how:
        raise RecordError(line, f"the line's player is moved by {how!r}, which a record never says")
    return seat, "move", ""


# A readable sentence for the kinds of event that are no move; ``{who}`` is the event's
# player. Any other kind reads as its name and its player ("some kind: Ann (1)").
EVENT_WORDS = {
    "created": "game created",
    "contribution": "{who} adds a contribution to the dice (by {by}), sha256 {sha256}",
    "seed_revealed": "seed revealed: {seed}",
    "engine_upgraded": "rules upgraded to version {to}",
    "take_back": "{who} takes a move back (the game is as after event {to_seq})",
    "talk": "{who} says: {text}",
    "vacation": "{who} is on vacation for {days} days",
    "seat_to_bot": "a bot ({level}) plays for {who}",
    "seat_left": "{who} leaves; a bot plays the seat",
    "seat_offered": "{who}'s seat is offered to a new player",
    "seat_taken": "{new_name} takes {who}'s seat",
    "seat_replaced": "{new_name} takes {who}'s seat",
    "seat_reclaimed": "{who} plays again",
    "seat_resigned": "{who} resigns; a bot ({level}) plays on",
    "policy_changed": "the deadline policy changes",
    "game_paused": "the game is paused",
    "game_resumed": "the game goes on",
}


def event_words(row: Mapping[str, Any], names: Sequence[str]) -> str:
    """A readable line for an event that is no move (the comment holds it exactly)."""
    kind, payload = row["kind"], row.get("payload") or {}
    seat = row.get("seat")
    who = f"{_name(names, seat)} ({seat + 1})" if isinstance(seat, int) else "the server"
    if kind == "talk" and payload.get("to") is not None:
        template = "{who} writes to one player (sealed)"
    else:
        template = EVENT_WORDS.get(kind, str(kind).replace("_", " ") + ": {who}")
    fields = {key: value for key, value in payload.items() if isinstance(key, str)}
    fields.setdefault("level", "normal")
    try:
        words = template.format_map({**fields, "who": who})
    except (KeyError, IndexError, ValueError, AttributeError):
        words = str(kind).replace("_", " ") + f": {who}"
    return _clean(words) or "-"


# The header ------------------------------------------------------------------------------


def _tag(name: str, value: Any) -> str:
    return f"[{name} {json.dumps(str(value), ensure_ascii=False)}]"


def header_lines(
    data: Mapping[str, Any],
    rows: Sequence[Mapping[str, Any]],
    final: Any,
    engine: Any,
    roster: Roster | None,
    server: str = "",
) -> list[str]:
    """The record's header: who played what, how, and with which commitment and seed."""
    game = data["game"]
    created = rows[0]["payload"] if rows and isinstance(rows[0].get("payload"), Mapping) else {}
    lines = [_tag("Format", RECORD_FORMAT)]
    if server:
        lines.append(_tag("Server", server))
    lines += [_tag("Game", game["id"]), _tag("Title", game.get("title") or "")]
    newest = REGISTRY.get(game["engine"])
    lines += [
        _tag("Engine", game["engine"]),
        _tag("EngineName", getattr(newest, "title", game["engine"])),
        _tag("EngineVersion", game.get("engine_version")),
    ]
    for name, value in sorted((created.get("options") or {}).items()):
        shown = value if isinstance(value, str) else json.dumps(value)
        lines.append(_tag("Option", f"{name} = {shown}"))
    if data.get("scope") == "seat":
        lines.append(_tag("Scope", "seat"))
        lines.append(
            _tag("Viewer", f"{_name(_names(roster, game), data['seat'])} ({data['seat'] + 1})")
        )
    else:
        lines.append(_tag("Scope", "full"))
    names = _names(roster, game)
    seats = roster.seats if roster is not None else ()
    for number in range(int(created.get("seats") or game.get("seats") or 0)):
        lines.append(_tag(f"Seat{number + 1}", _seat_words(names, seats, number, game)))
    creator = roster.creator if roster is not None else game.get("creator_seat")
    lines.append(_tag("Creator", _name(names, creator) if creator is not None else "the operator"))
    policy = roster.policy if roster is not None else game.get("policy") or {}
    lines.append(_tag("Deadlines", ", ".join(f"{k} = {v}" for k, v in sorted(policy.items()))))
    if roster is None:
        # A log from before rosters were logged: its seats as the export's header has them.
        fields = {key: game.get(key) for key in roster_mod.Roster((), None).header()}
        lines.append(_tag("Roster", canonical_json(fields)))
    if game.get("private"):
        lines.append(_tag("Private", "yes"))
    if rows:
        lines.append(_tag("Created", rows[0]["created_at"]))
    lines.append(_tag("Commitment", game["commitment"]))
    seed = _revealed(rows)
    lines.append(_tag("Seed", seed or "not revealed"))
    lines += [
        _tag("HeadSeq", game["head_seq"]),
        _tag("HeadHash", game["head_hash"]),
        _tag("Status", game["status"]),
        _tag("Result", _result_words(engine, final, names) if final is not None else "*"),
    ]
    return lines


def _seat_words(names, seats, number: int, game: Mapping[str, Any]) -> str:
    words = _name(names, number)
    if number < len(seats):
        holder = seats[number]
        if holder.resigned:
            words += ", resigned"
        if holder.bot:
            words += f", bot ({holder.level})"
        if holder.open:
            words += ", waits for a new player"
    elif number in (game.get("bots") or []):
        words += ", bot"
    return words


def _result_words(engine: Any, state: Any, names: Sequence[str]) -> str:
    result = engine.result(state)
    if result is None:
        return "*"
    winners = " and ".join(_name(names, seat) for seat in result.winners)
    verb = "wins" if len(result.winners) == 1 else "win"
    scores = ", ".join(
        f"{_name(names, seat)} {score:g}" for seat, score in enumerate(result.scores)
    )
    reason = f": {_clean(result.reason)}" if result.reason else ""
    return f"{winners} {verb}{reason}. Scores: {scores}"


def _revealed(rows: Sequence[Mapping[str, Any]]) -> str | None:
    for row in rows:
        if row.get("kind") == "seed_revealed":
            seed = (row.get("payload") or {}).get("seed")
            return seed if isinstance(seed, str) else None
    return None


# One seat's record -----------------------------------------------------------------------


def _write_seat(data: Mapping[str, Any], server: str) -> str:
    entries = [entry for entry in data["events"] if "final_view" not in entry]
    engine = REGISTRY.get(data["game"]["engine"])
    viewer = data["seat"]
    lines, roster = [], None
    for entry in entries:
        roster = roster_mod.apply(roster, entry)
        names = _names(roster, data["game"])
        parts = [str(entry["seq"]), entry["created_at"]]
        if entry["kind"] in MOVE_KINDS:
            parts.append(_who(names, entry["seat"], entry["kind"], ""))
            said = [_clean(str(line)) for line in entry.get("lines") or []]
            if "move" in entry and entry["seat"] == viewer:
                text = move_text(engine, entry["move"], names) if engine else None
                parts.append(text or _plain(entry["move"]))
                comment = {"move": entry["move"], "lines": entry.get("lines") or []}
            else:
                text = " / ".join(said)
                readable = said == list(entry.get("lines") or []) and _fits_lines(said)
                parts.append(text if readable else text or "-")
                comment = None if readable else {"lines": entry.get("lines") or []}
        else:
            parts.append(event_words(entry, names))
            comment = {
                "kind": entry["kind"],
                "seat": entry["seat"],
                "payload": entry.get("payload") or {},
            }
        parts.append("#" + entry["hash"])
        if comment is not None:
            parts.append(_comment(comment))
        lines.append("  ".join(parts))
    header = header_lines(data, entries, None, engine, roster, server)
    return "\n".join([*header, "", SEAT_COLUMNS, *lines]) + "\n"


def _fits_lines(lines: Sequence[str]) -> bool:
    """Whether lines joined by " / " read back as themselves, on a record's line."""
    return bool(lines) and all(_fits(line) and " / " not in line for line in lines)


# Reading ---------------------------------------------------------------------------------


@dataclass
class Line:
    """An event line taken apart."""

    number: int
    seq: int
    time: str
    body: str
    draws: list[list[int]]
    hash: str
    comment: Any
    text: str = ""


def read_record(text: str) -> dict[str, Any]:
    """The export file a record was written from (see the module's docstring);
    :class:`RecordError` names the first line that does not read back."""
    try:
        return _read_record(text)
    except RecordError:
        raise
    except RecursionError:
        raise RecordError(None, "the record nests too deeply to be a log") from None
    except Exception as error:  # noqa: BLE001 - any file gets an answer, never a traceback
        raise RecordError(None, f"the record cannot be read: {type(error).__name__}") from None


def _read_record(text: str) -> dict[str, Any]:
    if len(text) > MAX_CHARS:
        raise RecordError(None, "the record is too long to be a game's")
    tags, events = _split(text)
    if tags.get("Format", (0, ""))[1] != RECORD_FORMAT:
        raise RecordError(1, f"this is not a {RECORD_FORMAT} record")
    for name in ("Game", "Engine", "Scope", "Title"):
        if name not in tags:
            raise RecordError(None, f"the header has no {name} line")
    if not events:
        raise RecordError(None, "the record has no events")
    if tags["Scope"][1] == "seat":
        return _read_seat(tags, events)
    if tags["Scope"][1] != "full":
        raise RecordError(tags["Scope"][0], "the scope is neither 'full' nor 'seat'")
    return _read_full(tags, events)


def _split(text: str) -> tuple[dict[str, tuple[int, str]], list[Line]]:
    tags: dict[str, tuple[int, str]] = {}
    order: list[tuple[int, str, str]] = []
    events: list[Line] = []
    in_header = True
    for number, raw in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
        line = raw.rstrip()
        if not line or line.startswith(";"):
            if not line and order:
                in_header = False
            continue
        if in_header and line.startswith("["):
            found = TAG.match(line)
            if found is None:
                raise RecordError(number, 'a header line is not [Tag "value"]')
            try:
                value = json.loads(found.group(2))
            except ValueError:
                raise RecordError(number, "the header line's value is not a quoted text") from None
            name = found.group(1)
            if name.startswith("Seat") or name == "Option":
                name = f"{name}#{len(order)}" if name == "Option" else name
            if name in tags:
                raise RecordError(number, f"the header gives {found.group(1)} twice")
            tags[name] = (number, value)
            order.append((number, found.group(1), value))
            continue
        in_header = False
        events.append(_event_line(number, line))
    tags["__order__"] = (0, order)  # type: ignore[assignment]
    return tags, events


def _event_line(number: int, line: str) -> Line:
    found = EVENT.match(line)
    if found is None:
        raise RecordError(number, "an event line starts with its seq and time")
    rest = found.group(3)
    comment = None
    start = rest.find("  {")
    if start >= 0:
        try:
            comment = bounded_loads(rest[start + 2 :])
        except ValueError as error:
            raise RecordError(number, f"the line's {{...}} comment is not JSON: {error}") from None
        if not isinstance(comment, dict):
            raise RecordError(number, "the line's {...} comment is not an object")
        rest = rest[:start]
    fields = rest.split("  ")
    marked = HASH.match(fields[-1]) if fields else None
    if marked is None:
        raise RecordError(number, "the line does not end with its event's #hash")
    fields.pop()
    draws: list[list[int]] = []
    if fields and fields[-1].startswith("[draws:"):
        listed = DRAWS.match(fields.pop())
        if listed is None:
            raise RecordError(number, "the line's draws are not value/bound pairs")
        for pair in listed.group(1).split():
            value, bound = (int(part) for part in pair.split("/"))
            draws.append([bound, value])
    body = "  ".join(fields)
    return Line(
        number, int(found.group(1)), found.group(2), body, draws, marked.group(1), comment, line
    )


def _read_full(tags, events: list[Line]) -> dict[str, Any]:
    game_id, slug = tags["Game"][1], tags["Engine"][1]
    engine = REGISTRY.get(slug)
    if engine is None:
        raise RecordError(tags["Engine"][0], f"this program does not play {slug!r}")
    seed_hex = None
    for line in events:
        if isinstance(line.comment, dict) and line.comment.get("kind") == "seed_revealed":
            seed_hex = (line.comment.get("payload") or {}).get("seed")
    if not isinstance(seed_hex, str):
        raise RecordError(None, "a whole game's record needs the seed revealed at its end")
    if "Seed" in tags and tags["Seed"][1] != seed_hex:
        raise RecordError(tags["Seed"][0], "the header's seed is not the one the log reveals")
    try:
        seed = bytes.fromhex(seed_hex)
    except ValueError:
        raise RecordError(None, "the revealed seed is not hexadecimal") from None
    # A log from before rosters were logged names its players in the Roster line only.
    older = _old_roster(tags) if "Roster" in tags else {}
    rows: list[dict[str, Any]] = []
    states: list[Any] = []
    earlier: dict[int, Any] = {}
    roster: Roster | None = None
    state, prev = None, GENESIS_HASH
    for line in events:
        if line.seq != len(rows):
            raise RecordError(line.number, f"expected event {len(rows)} here, found {line.seq}")
        names = _names(roster, older)
        comment = line.comment or {}
        if "kind" in comment:
            kind, seat = comment.get("kind"), comment.get("seat")
            actor, payload = comment.get("actor", ""), comment.get("payload")
        else:
            who, _, text = line.body.partition("  ")
            seat, kind, actor = _read_who(who, line.number)
            if not rows or not 0 <= seat < rows[0]["payload"].get("seats", 0):
                raise RecordError(line.number, "the line names no seat of the game")
            if "move" in comment:
                move = comment["move"]
            else:
                move = _rebuild_move(engine, state, seat, text, names, line.number)
            payload = {"move": move}
        row = {
            "game_id": game_id,
            "seq": line.seq,
            "kind": kind,
            "seat": seat,
            "payload": payload,
            "chance": line.draws,
            "state_hash": "",
            "prev_hash": prev,
            "actor": actor,
            "created_at": line.time,
        }
        before = state
        try:
            if line.seq == 0:
                engine = created_engine(engine, row)
                state = setup_state(engine, row)
            else:
                state = apply_event(engine, state, row, earlier)
            row["state_hash"] = keyed_state_hash(seed, engine, state)
            roster = roster_mod.apply(roster, row)
            row["hash"] = row_hash(row)
        except Exception as error:  # noqa: BLE001 - any line gets an answer, never a traceback
            reason = getattr(error, "reason", None) or str(error) or type(error).__name__
            raise RecordError(line.number, f"event {line.seq} does not replay: {reason}") from None
        if not row["hash"].startswith(line.hash):
            raise RecordError(
                line.number,
                f"event {line.seq} as this line writes it does not have the hash #{line.hash}: "
                "its move, draws, time or player differ from the game's",
            )
        rebuilt = kind in MOVE_KINDS and "move" not in comment
        written = _full_line(engine, row, before, _names(roster, older), roster, rebuilt)
        if written != line.text:
            raise RecordError(
                line.number, f"the line does not read as event {line.seq} is written: {written}"
            )
        if kind not in MOVE_KINDS:
            try:
                engine = engine_after(engine, row)
            except Exception:  # noqa: BLE001
                raise RecordError(line.number, "the rules version it names is unknown") from None
        earlier[line.seq] = state
        states.append(state)
        prev = row["hash"]
        rows.append(row)
    created = rows[0]["payload"] if isinstance(rows[0]["payload"], Mapping) else {}
    game: dict[str, Any] = {
        "id": game_id,
        "engine": slug,
        "engine_version": engine.version,
        "title": tags["Title"][1],
        "options": created.get("options"),
        "seats": created.get("seats"),
        "commitment": created.get("commitment"),
        "status": "finished",
        "head_seq": rows[-1]["seq"],
        "head_hash": rows[-1]["hash"],
    }
    if roster is not None:
        game.update(roster.header())
    else:
        game.update(_old_roster(tags))
    if "Private" in tags:
        game["private"] = True
    data = {"format": EXPORT_FORMAT, "game": _ordered(game), "scope": "full", "events": rows}
    _check_header(tags, header_lines(data, rows, state, engine, roster, ""))
    return data


def _rebuild_move(engine, state, seat, text: str, names, number: int) -> dict:
    if state is None or not isinstance(seat, int):
        raise RecordError(number, "a move before the game was created")
    try:
        legal = engine.legal_moves(state, seat)
    except Exception:  # noqa: BLE001
        raise RecordError(number, "the player named has no moves here") from None
    matches = [move for move in legal if move_text(engine, move, names) == text]
    if not matches:
        raise RecordError(number, f"{text!r} is no legal move of {_name(names, seat)} here")
    if len(matches) > 1:
        raise RecordError(number, f"{text!r} names several legal moves; the line needs its JSON")
    return matches[0]


def _old_roster(tags) -> dict[str, Any]:
    if "Roster" not in tags:
        raise RecordError(None, "the log has no roster and the header no Roster line")
    try:
        fields = json.loads(tags["Roster"][1])
    except ValueError:
        raise RecordError(tags["Roster"][0], "the Roster line is not JSON") from None
    if not isinstance(fields, dict):
        raise RecordError(tags["Roster"][0], "the Roster line is not an object")
    return fields


def _ordered(game: Mapping[str, Any]) -> dict[str, Any]:
    return dict(sorted(game.items()))


def _check_header(tags, expected: Sequence[str]) -> None:
    """The file's header must read as the one its events give (a Server line aside)."""
    given = [(number, name, value) for number, name, value in tags["__order__"][1]]
    given = [item for item in given if item[1] != "Server"]
    wanted = []
    for line in expected:
        found = TAG.match(line)
        if found and found.group(1) != "Server":
            wanted.append((found.group(1), json.loads(found.group(2))))
    for index, (name, value) in enumerate(wanted):
        if index >= len(given):
            raise RecordError(None, f"the header has no {name} line")
        number, got_name, got = given[index]
        if (got_name, got) != (name, value):
            raise RecordError(
                number,
                f"the header's {got_name} line says {got!r}, but the events give {name} {value!r}",
            )
    if len(given) > len(wanted):
        raise RecordError(
            given[len(wanted)][0], f"the header's {given[len(wanted)][1]} line is unknown"
        )


def _read_seat(tags, events: list[Line]) -> dict[str, Any]:
    viewer = WHO.match(str(tags.get("Viewer", (0, ""))[1]))
    if viewer is None:
        raise RecordError(tags.get("Viewer", (None,))[0], "the header names no viewer")
    seat_of_viewer = int(viewer.group(2)) - 1
    entries: list[dict[str, Any]] = []
    for line in events:
        if len(line.hash) != 64:
            raise RecordError(line.number, "a seat's record gives each event's whole hash")
        comment = line.comment or {}
        entry: dict[str, Any] = {
            "seq": line.seq,
            "created_at": line.time,
            "prev_hash": entries[-1]["hash"] if entries else GENESIS_HASH,
            "hash": line.hash,
        }
        if "kind" in comment:
            entry.update(kind=comment.get("kind"), seat=comment.get("seat"))
            entry["payload"] = comment.get("payload") or {}
        else:
            who, _, text = line.body.partition("  ")
            seat, kind, _actor = _read_who(who, line.number)
            said = comment["lines"] if "lines" in comment else text.split(" / ")
            entry.update(kind=kind, seat=seat, lines=said)
            if "move" in comment:
                entry["move"] = comment["move"]
        entries.append(dict(sorted(entry.items())))
    roster = roster_mod.fold(entries) if entries and entries[0]["kind"] == "created" else None
    created = entries[0].get("payload") or {}
    game: dict[str, Any] = {
        "id": tags["Game"][1],
        "engine": tags["Engine"][1],
        "engine_version": _whole(tags.get("EngineVersion")),
        "title": tags["Title"][1],
        "options": created.get("options"),
        "seats": created.get("seats"),
        "commitment": created.get("commitment"),
        "status": tags.get("Status", (0, "active"))[1],
        "head_seq": entries[-1]["seq"],
        "head_hash": entries[-1]["hash"],
    }
    game.update(roster.header() if roster is not None else _old_roster(tags))
    if "Private" in tags:
        game["private"] = True
    data = {
        "format": EXPORT_FORMAT,
        "game": _ordered(game),
        "scope": "seat",
        "seat": seat_of_viewer,
        "events": entries,
    }
    engine = REGISTRY.get(game["engine"])
    _check_header(tags, header_lines(data, entries, None, engine, roster, ""))
    return data


def _whole(tag) -> int | None:
    try:
        return int(tag[1]) if tag else None
    except (TypeError, ValueError):
        return None


# Verifying -------------------------------------------------------------------------------


def verify_record(text: str, head: str | None = None) -> VerifyReport:
    """``pbem verify`` on a record: read back, then verified as the export it gives;
    a problem is named by the record's line. Never raises."""
    try:
        data = read_record(text)
    except RecordError as error:
        return VerifyReport(False, str(error))
    except RecursionError:
        return VerifyReport(False, "the record nests too deeply to be a log")
    except Exception as error:  # noqa: BLE001 - any file gets an answer, never a traceback
        return VerifyReport(False, f"the record cannot be read: {type(error).__name__}")
    report = verify_export(data, head=head)
    if not report.ok and report.first_bad_seq is not None:
        number = _line_of(text, report.first_bad_seq)
        if number is not None:
            report.message = f"line {number}: {report.message}"
    return report


def _line_of(text: str, seq: int) -> int | None:
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(f"{seq}  "):
            return number
    return None
