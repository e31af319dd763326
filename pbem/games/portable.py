"""Portable logs: a game's log exported as a file, and such a file verified and imported.

Exports are built once and extended: a 10,000-event export after a move
costs the new events, not the whole log.

Each web worker keeps, per game and scope (the full log, or one seat's view), the JSON
text of the entries up to the last head it exported, the hash of that head, and (for a
seat) the states of the last events: at most :data:`KEPT` exports and
:data:`KEPT_CHARS` characters in all, the least recently built dropped first. An export
after a move reads only the events from the kept head on; if the kept head's hash is no
longer the stored one, it is built again from the start. The file is streamed in pieces.

A *full* export (``pbem export --full GAME``, ``pbem export --all``; operator only, the
web never offers it) also carries the game's people, so that another server can take
the game over (:func:`import_game`). Its ``personal`` section (never in a seat's or the
public export) is, with times as ISO 8601 in UTC::

    "personal": {
      "format": "pbem-personal/1",
      "game": {"creator_seat": 0 | null, "policy": {...}, "paused_at": TIME | null},
      "seats": [{"seat": 0, "email": "ann@example.org", "timezone": "Europe/Berlin",
                 "mail_hour": 0-23 | null, "notify": "every_turn" | "digest" | "none",
                 "talk_mail": "at_once" | "digest" | "off" (optional: "at_once"),
                 "language": "de" | ... | null (optional: null, pbem.i18n.LANGUAGES),
                 "clock": {"turn_since": TIME | null, "remind_at": TIME | null,
                           "deadline_at": TIME | null, "reminders": 0,
                           "paused_until": TIME | null, "vacation_days_used": 0}}],
      "votes": [{"action": "to_bot:1:late@20260302090000:", "voter": 2, "created_at": TIME}],
      "offers": [{"seat": 1, "open": false, "name": "Zoe", "email": "zoe@example.org",
                  "former_email": "ben@example.org", "created_at": TIME}],
      "former_players": [{"seat": 1, "name": "Ben", "email": "ben@example.org",
                          "timezone": "America/New_York", "reason": "replaced",
                          "left_seq": 12, "left_at": TIME}]
    }

``seats`` has one entry per seat (``email`` is empty for a seat nobody holds: a bot's
from the start, or one waiting for a newcomer); ``offers`` are the seats waiting for a
newcomer (``open``: on the game's public page; otherwise named by a vote or the
operator), with the newcomer invited so far, if any. Links and invitation tokens never
leave the server (not even their hashes): an import gives each seat's person a fresh one.
"""

from __future__ import annotations

import json
import math
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlmodel import col, select

from engines.api import Engine
from pbem import i18n, links
from pbem.errors import BadInput, NotFound, Rejected
from pbem.eventlog import contributions as contrib
from pbem.eventlog import roster as roster_mod
from pbem.eventlog.log import (
    MOVE_KINDS,
    TAKE_BACK_WINDOW,
    apply_event,
    created_engine,
    engine_after,
    setup_state,
)
from pbem.eventlog.roster import Roster
from pbem.eventlog.roster_log import or_seats, rosters
from pbem.eventlog.seeds import seal_seed
from pbem.eventlog.store import game_engine
from pbem.eventlog.verify import verify_export, verify_rows
from pbem.games import invitations, seat_changes, talk
from pbem.games.context import Runtime
from pbem.games.names import fill_lines, marks_of
from pbem.games.notices import Notice
from pbem.games.policy import check_policy
from pbem.games.record import write_record
from pbem.games.tables import FormerPlayer, RescueVote, SeatClock, SeatOffer
from pbem.games.tokens import hash_token, new_token
from pbem.i18n import T
from pbem.models import Game, GameSecret, Seat
from pbem.validate import (
    canonical_address,
    check_name_free,
    check_unique_names,
    clean_email,
    clean_name,
    clean_title,
    same_person,
)
from pbem.zones import utc

if TYPE_CHECKING:
    from pbem.games.service import GameService

EXPORT_FORMAT = "pbem-export/1"
PERSONAL_FORMAT = "pbem-personal/1"
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
        # Not listed in the lobby (only when so: older files have no such field).
        **({"private": True} if game.private else {}),
    }


def public_payload(row: Mapping[str, Any]) -> dict:
    """What any seat may see of an administrative event's payload (no addresses)."""
    return {key: value for key, value in row["payload"].items() if "email" not in key}


def seat_entry(
    engine: Engine,
    row: Mapping[str, Any],
    before: Any,
    after: Any,
    seat: int,
    names: Sequence[str] = (),
) -> dict:
    """One event as ``seat`` may know it: receipts (hash, prev_hash), the seat's own
    moves, and every move's lines as that seat saw them, players named as the roster
    had them at that event (``names``). State hashes are left out: they are keyed by the
    unrevealed seed and would only be checkable at the end."""
    entry = {name: row[name] for name in ("seq", "kind", "seat", "created_at", "prev_hash", "hash")}
    if row["kind"] in MOVE_KINDS:
        move = row["payload"]["move"]
        entry["lines"] = fill_lines(
            engine.describe(before, row["seat"], move, after, seat),
            names,
            lambda: marks_of(engine.view(after, seat)),
        )
        if row["seat"] == seat:
            entry["move"] = move
    elif row["kind"] == talk.KIND:
        entry["payload"] = talk.for_reader(row, seat)
    else:
        entry["payload"] = public_payload(row)
    return entry


def export_text(service: Any, game_id: str, seat: int | None = None, *, full: bool = False) -> str:
    """The export file as JSON text, extended from the one built for an earlier head."""
    return "".join(export_chunks(service, game_id, seat, full=full))


def export_chunks(
    service: Any, game_id: str, seat: int | None = None, *, full: bool = False
) -> Iterator[str]:
    """The export file's JSON text in pieces, to stream: read from the database at once,
    then handed out without holding a connection."""
    store = service.store
    with service.reading() as session:
        game = store.game(session, game_id)
        if seat is None and game.status != "finished" and not full:
            raise Rejected(T("The full log is published when the game ends."))
        if seat is not None and not 0 <= seat < game.seat_count:
            raise NotFound(T("There is no such seat in this game."))
        seats = session.exec(
            select(Seat).where(Seat.game_id == game_id).order_by(col(Seat.seat))
        ).all()
        engine = game_engine(game) if seat is not None else None
        # The public file and the operator's full one differ in private talk (kept apart).
        key = (game_id, seat, game.engine_version, bool(full) and seat is None)
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
            built = _more_rows(built, rows, full=full)
        else:
            kept = rosters(session, game)

            def names_at(at: int) -> list[str]:
                return or_seats(kept.at(at), seats, game).names

            built = _more_entries(
                built,
                rows,
                engine,
                seat,
                lambda at: store.state_at(session, game, engine, at),
                names_at,
            )
        seed = service._seed(session, game_id).hex() if full and game.status != "finished" else None
        personal = personal_section(session, game, seats) if full and seat is None else None
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
        if personal is not None:
            top["personal"] = personal
        tail = ""
    else:
        top.update(scope="seat", seat=seat)
        final = built.earlier.get(built.seq)
        tail = dumps({"final_view": engine.view(final, seat)}) if built.seq >= 0 else ""
    return built.pieces(dumps(top)[:-1] + ',"events":[', tail)


def _more_rows(built: Built, rows: Sequence[dict], *, full: bool = False) -> Built:
    """The public file's entries (private talk sealed away) or the operator's (all)."""
    if not rows:
        return built
    entries = [dumps(talk.redacted_row(row, None, full=full)) for row in rows]
    return built.extended(rows[-1]["seq"], rows[-1]["hash"], entries)


def _more_entries(
    built: Built, rows: Sequence[dict], engine: Engine, seat: int, state_at, names_at
) -> Built:
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
        entries.append(dumps(seat_entry(engine, row, before, state, seat, names_at(row["seq"]))))
        if row["kind"] not in MOVE_KINDS:
            engine = engine_after(engine, row)
    return built.extended(rows[-1]["seq"], rows[-1]["hash"], entries, earlier)


# The personal section of a full export ------------------------------------------------

NOTIFY = ("every_turn", "digest", "none")
FORMER_REASONS = ("left", "offered", "replaced", "resigned")
CLOCK_TIMES = ("turn_since", "remind_at", "deadline_at", "paused_until")
SEAT_KEYS = {"seat", "email", "timezone", "mail_hour", "notify", "talk_mail", "language", "clock"}
TALK_MAIL = ("at_once", "digest", "off")  # as pbem.games.talk.PREFERENCES
CLOCK_KEYS = {*CLOCK_TIMES, "reminders", "vacation_days_used"}
VOTE_KEYS = {"action", "voter", "created_at"}
OFFER_KEYS = {"seat", "open", "name", "email", "former_email", "created_at"}
FORMER_KEYS = {"seat", "name", "email", "timezone", "reason", "left_seq", "left_at"}
MAX_ENTRIES = 10_000


def _iso(moment: datetime | None) -> str | None:
    return utc(moment).isoformat() if moment is not None else None


def personal_section(session: Any, game: Game, seats: Sequence[Seat]) -> dict[str, Any]:
    """The game's people as a full export carries them (see the module's docstring)."""
    game_id = game.id
    clocks = {
        clock.seat: clock
        for clock in session.exec(select(SeatClock).where(SeatClock.game_id == game_id))
    }
    entries = []
    for row in seats:
        clock = clocks.get(row.seat)
        entries.append(
            {
                "seat": row.seat,
                "email": row.email,
                "timezone": row.timezone,
                "mail_hour": row.mail_hour,
                "notify": row.notify,
                "talk_mail": row.talk_mail,
                "language": row.language,
                "clock": None
                if clock is None
                else {
                    **{name: _iso(getattr(clock, name)) for name in CLOCK_TIMES},
                    "reminders": clock.reminders,
                    "vacation_days_used": clock.vacation_days_used,
                },
            }
        )
    votes = session.exec(
        select(RescueVote)
        .where(RescueVote.game_id == game_id)
        .order_by(col(RescueVote.action), col(RescueVote.voter))
    )
    offers = session.exec(
        select(SeatOffer).where(SeatOffer.game_id == game_id).order_by(col(SeatOffer.seat))
    )
    formers = session.exec(
        select(FormerPlayer)
        .where(FormerPlayer.game_id == game_id)
        .order_by(col(FormerPlayer.left_at), col(FormerPlayer.id))
    )
    return {
        "format": PERSONAL_FORMAT,
        "game": {
            "creator_seat": game.creator_seat,
            "policy": dict(game.policy or {}),
            "paused_at": _iso(game.paused_at),
        },
        "seats": entries,
        "votes": [
            {"action": vote.action, "voter": vote.voter, "created_at": _iso(vote.created_at)}
            for vote in votes
        ],
        "offers": [
            {
                "seat": offer.seat,
                "open": offer.open,
                "name": offer.name,
                "email": offer.email,
                "former_email": offer.former_email,
                "created_at": _iso(offer.created_at),
            }
            for offer in offers
        ],
        "former_players": [
            {
                "seat": former.seat,
                "name": former.name,
                "email": former.email,
                "timezone": former.timezone,
                "reason": former.reason,
                "left_seq": former.left_seq,
                "left_at": _iso(former.left_at),
            }
            for former in formers
        ],
    }


@dataclass
class Personal:
    """A checked personal section: values ready for the tables."""

    creator_seat: int | None
    policy: dict[str, Any] | None
    paused_at: datetime | None
    seats: dict[int, dict[str, Any]]
    clocks: dict[int, dict[str, Any]]
    votes: list[dict[str, Any]]
    offers: dict[int, dict[str, Any]]
    formers: list[dict[str, Any]]


def _object(value: Any, where: str, keys: set[str]) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise BadInput(f"The personal section's {where} is not an object.")
    unknown = sorted(set(value) - keys)
    if unknown:
        raise BadInput(f"The personal section's {where} has an unknown field {unknown[0]!r}.")
    return value


def _list(value: Any, where: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > MAX_ENTRIES:
        raise BadInput(f"The personal section's {where} must be a list (of at most 10,000).")
    return value


def _whole(value: Any, where: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadInput(
            f"The personal section's {where} must be a whole number from {low} to {high}."
        )
    return value


def _seat_number(value: Any, where: str, seat_count: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < seat_count:
        raise BadInput(f"The personal section's {where} names no seat of this game.")
    return value


def _time(value: Any, where: str, *, required: bool = False) -> datetime | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or len(value) > 40:
        raise BadInput(f"The personal section's {where} must be an ISO 8601 time.")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise BadInput(
            f"The personal section's {where} is not an ISO 8601 time: {value!r}."
        ) from None
    return utc(moment)


def _address(value: Any, where: str) -> str:
    if value in (None, ""):
        return ""
    try:
        return clean_email(value)
    except BadInput as error:
        raise BadInput(f"The personal section's {where}: {error.message}") from None


def _zone(value: Any, where: str) -> str:
    if value in (None, ""):
        return "UTC"
    if isinstance(value, str) and len(value) <= 64:
        try:
            ZoneInfo(value)
            return value
        except (ZoneInfoNotFoundError, ValueError):
            pass
    raise BadInput(f"The personal section's {where} is not a time zone: {str(value)[:80]!r}.")


def _text(value: Any, where: str) -> str:
    try:
        return clean_name(value if value is not None else "", required=False)
    except BadInput as error:
        raise BadInput(f"The personal section's {where}: {error.message}") from None


def check_personal(data: Any, seat_count: int, head_seq: int) -> Personal:
    """The personal section of a full export, every field checked; :class:`BadInput`
    naming the first bad one."""
    top = _object(data, "top", {"format", "game", "seats", "votes", "offers", "former_players"})
    if top.get("format") != PERSONAL_FORMAT:
        raise BadInput(f"The personal section is not of the format {PERSONAL_FORMAT}.")
    settings = _object(top.get("game") or {}, "game", {"creator_seat", "policy", "paused_at"})
    creator = settings.get("creator_seat")
    if creator is not None:
        creator = _seat_number(creator, "creator seat", seat_count)
    policy = settings.get("policy")
    if policy is not None:
        if not isinstance(policy, Mapping):
            raise BadInput("The personal section's policy is not an object.")
        try:
            policy = check_policy(policy)
        except BadInput as error:
            raise BadInput(f"The personal section's policy: {error.message}") from None
    paused_at = _time(settings.get("paused_at"), "pause time")
    seats: dict[int, dict[str, Any]] = {}
    clocks: dict[int, dict[str, Any]] = {}
    for entry in _list(top.get("seats"), "seats"):
        entry = _object(entry, "seat entry", SEAT_KEYS)
        number = _seat_number(entry.get("seat"), "seat entry", seat_count)
        where = f"seat {number}"
        if number in seats:
            raise BadInput(f"The personal section names {where} twice.")
        hour = entry.get("mail_hour")
        notify = entry.get("notify", "every_turn")
        if notify not in NOTIFY:
            raise BadInput(
                f"The personal section's {where} has an unknown kind of mail: {str(notify)[:40]!r}."
            )
        talk_mail = entry.get("talk_mail", "at_once")
        if talk_mail not in TALK_MAIL:
            raise BadInput(
                f"The personal section's {where} has an unknown way to send table talk: "
                f"{str(talk_mail)[:40]!r}."
            )
        language = entry.get("language")
        if language is not None and i18n.known(language) is None:
            raise BadInput(
                f"The personal section's {where} has an unknown language: {str(language)[:40]!r}."
            )
        seats[number] = {
            "email": _address(entry.get("email"), f"{where}'s address"),
            "timezone": _zone(entry.get("timezone"), f"{where}'s time zone"),
            "mail_hour": None if hour is None else _whole(hour, f"{where}'s mail hour", 0, 23),
            "notify": notify,
            "talk_mail": talk_mail,
            "language": language,
        }
        clock = entry.get("clock")
        if clock is not None:
            clock = _object(clock, f"{where}'s clock", CLOCK_KEYS)
            used = clock.get("vacation_days_used", 0)
            if (
                isinstance(used, bool)
                or not isinstance(used, int | float)
                or not math.isfinite(used)
                or not 0 <= used <= 100_000
            ):
                raise BadInput(
                    f"The personal section's {where} has a malformed count of vacation days."
                )
            clocks[number] = {
                **{
                    name: _time(clock.get(name), f"{where}'s {name.replace('_', ' ')}")
                    for name in CLOCK_TIMES
                },
                "reminders": _whole(clock.get("reminders", 0), f"{where}'s reminders", 0, 10**6),
                "vacation_days_used": float(used),
            }
    votes = []
    seen_votes = set()
    for entry in _list(top.get("votes"), "votes"):
        entry = _object(entry, "vote", VOTE_KEYS)
        action = entry.get("action")
        parts = action.split(":") if isinstance(action, str) else []
        if (
            not isinstance(action, str)
            or not 0 < len(action) <= 400
            or len(parts) < 2
            or not parts[0].isidentifier()
            or not parts[1].isdigit()
            or not int(parts[1]) < seat_count
        ):
            raise BadInput("The personal section has a vote about no seat of this game.")
        voter = _seat_number(entry.get("voter"), "vote's voter", seat_count)
        if (action, voter) in seen_votes:
            raise BadInput("The personal section has the same vote twice.")
        seen_votes.add((action, voter))
        votes.append(
            {
                "action": action,
                "voter": voter,
                "created_at": _time(entry.get("created_at"), "vote's time", required=True),
            }
        )
    offers: dict[int, dict[str, Any]] = {}
    for entry in _list(top.get("offers"), "offers"):
        entry = _object(entry, "offer", OFFER_KEYS)
        number = _seat_number(entry.get("seat"), "offer", seat_count)
        if number in offers:
            raise BadInput(f"The personal section offers seat {number} twice.")
        open_ = entry.get("open", True)
        if not isinstance(open_, bool):
            raise BadInput(f"The personal section's offer of seat {number} has a malformed flag.")
        offers[number] = {
            "open": open_,
            "name": _text(entry.get("name"), f"newcomer's name for seat {number}"),
            "email": _address(entry.get("email"), f"newcomer's address for seat {number}"),
            "former_email": _address(entry.get("former_email"), f"former address of seat {number}"),
            "created_at": _time(
                entry.get("created_at"), f"offer time of seat {number}", required=True
            ),
        }
        if offers[number]["email"] and not offers[number]["name"]:
            raise BadInput(
                f"The personal section invites a newcomer to seat {number} without a name."
            )
    formers = []
    for entry in _list(top.get("former_players"), "former players"):
        entry = _object(entry, "former player", FORMER_KEYS)
        number = _seat_number(entry.get("seat"), "former player", seat_count)
        where = f"former player of seat {number}"
        reason = entry.get("reason", "")
        if reason not in (*FORMER_REASONS, ""):
            raise BadInput(f"The personal section's {where} left for an unknown reason.")
        left_seq = entry.get("left_seq")
        formers.append(
            {
                "seat": number,
                "name": _text(entry.get("name"), f"{where}'s name"),
                "email": _address(entry.get("email"), f"{where}'s address"),
                "timezone": _zone(entry.get("timezone"), f"{where}'s time zone"),
                "reason": reason,
                "left_seq": None
                if left_seq is None
                else _whole(left_seq, f"{where}'s event", 0, head_seq),
                "left_at": _time(entry.get("left_at"), f"{where}'s time", required=True),
            }
        )
    return Personal(creator, policy, paused_at, seats, clocks, votes, offers, formers)


def check_people(personal: Personal, names: Sequence[str], waiting: set[int]) -> None:
    """The personal section fits the log's seats: only the seats that wait for a new
    player are offered, none of them has an address, and no invitation goes to a
    player of the game, to one person twice, or under another seat's player's name;
    :class:`BadInput` otherwise (nothing is written)."""
    for number in sorted(waiting):
        if personal.seats.get(number, {}).get("email"):
            raise BadInput(
                f"The personal section gives seat {number} an address, but the seat "
                "waits for a new player."
            )
    invited: dict[str, int] = {}
    for number, offer in sorted(personal.offers.items()):
        if number not in waiting:
            raise BadInput(
                f"The personal section offers seat {number} to a new player, but the log "
                "says a player holds it."
            )
        if not offer["email"]:
            continue
        for seat, values in sorted(personal.seats.items()):
            if same_person(values["email"], offer["email"]):
                raise BadInput(
                    f"The personal section invites the player of seat {seat} to seat "
                    f"{number}; a seat's link never goes to another player of the game."
                )
        earlier = invited.setdefault(canonical_address(offer["email"]), number)
        if earlier != number:
            raise BadInput(
                f"The personal section invites one person to seats {earlier} and {number}."
            )
        others = [name for seat, name in enumerate(names) if seat != number]
        try:
            check_name_free(offer["name"], others)
        except BadInput as error:
            raise BadInput(
                f"The personal section's newcomer for seat {number}: {error.message}"
            ) from None


# Export, import and verification through the game service -----------------------------


def export_game(
    service: GameService, game_id: str, seat: int | None = None, *, full: bool = False
) -> dict:
    """The game's log as a file.

    ``seat`` given: only what that seat may know (its own moves, what it saw of the
    others, every event's hashes as receipts). Otherwise the full log, which carries
    the seed once revealed; ``full=True`` includes it even while the game runs (for
    an operator moving a game to another server).
    """
    return json.loads(export_text(service, game_id, seat=seat, full=full))


def export_record(
    service: GameService, game_id: str, seat: int | None = None, *, server: str = ""
) -> str:
    """The game's readable record (:mod:`pbem.games.record`): the whole game once it is
    over, else ``seat``'s (what that seat's export holds). The last few are kept by
    head: a finished game's record is written once, however often it is downloaded."""
    data = export_game(service, game_id, seat=seat)
    key = (id(service), game_id, data["game"]["head_hash"], seat, server)
    with _LOCK:
        text = _RECORDS.get(key)
        if text is not None:
            _RECORDS.move_to_end(key)
            return text
    text = write_record(data, server=server)
    with _LOCK:
        _RECORDS[key] = text
        while len(_RECORDS) > RECORDS_KEPT:
            _RECORDS.popitem(last=False)
    return text


RECORDS_KEPT = 16
_RECORDS: OrderedDict[tuple, str] = OrderedDict()


@dataclass
class Imported:
    """What an import did: the game, each seat's fresh link token and each re-sent
    invitation's token (by seat), and the addresses mailed."""

    game_id: str
    links: dict[int, str] = field(default_factory=dict, repr=False)
    invitations: dict[int, str] = field(default_factory=dict, repr=False)
    mailed: list[str] = field(default_factory=list)


def import_game(
    service: GameService,
    data: Any,
    actor: str = "import",
    *,
    runtime: Runtime = None,
    mail: bool = True,
) -> str:
    """Imports a full exported log (verified first); the game carries on from there
    (see :func:`import_full`)."""
    return import_full(service, data, actor, runtime=runtime, mail=mail).game_id


def import_full(
    service: GameService,
    data: Any,
    actor: str = "import",
    *,
    runtime: Runtime = None,
    mail: bool = True,
) -> Imported:
    """Imports a full exported log, verified first, and the game's people from its
    ``personal`` section; the game carries on from where it stopped. No event is
    appended: the log stays exactly as exported.

    Names, bots and their levels, the creator, the deadline policy and the pause come
    from the log's roster (:func:`pbem.eventlog.roster.fold`); a log from before rosters
    were logged takes them from the personal section and the header. Addresses, kinds
    of mail, time zones, mail hours, clocks, open votes, seat offers and former players
    come from the personal section, every field checked first: a bad one is a
    :class:`BadInput` and nothing is written.

    With ``runtime`` (and the game still running) every seat held by a person gets a
    fresh link (a seat a bot plays for its player too, so that they can take it back),
    stored sealed for later mails; unless ``mail`` is false each is mailed to its
    address ("this game now lives at ..."), and each pending invitation goes again to
    its newcomer with a fresh token, all in the import's transaction."""
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
    created = rows[0]["payload"]
    seat_count = created["seats"]
    header = data["game"]
    try:
        roster = roster_mod.fold(rows)
    except roster_mod.RosterError as error:
        raise BadInput(f"The log's roster is malformed: {error}.") from None
    personal = (
        check_personal(data["personal"], seat_count, rows[-1]["seq"])
        if data.get("personal") is not None
        else None
    )
    if roster is not None:
        names = roster.names
        bots, levels = set(roster.bots), roster.bot_levels
        waiting = {number for number, holder in enumerate(roster.seats) if holder.open}
        creator, policy, paused = roster.creator, roster.policy, roster.paused
    else:
        names = header.get("seat_names") or []
        if not isinstance(names, list):
            raise BadInput("The seat names in the file must be a list.")
        bots = set(header.get("bots") or [])
        levels = header.get("bot_levels")
        waiting = set(personal.offers) if personal is not None else set()
        if personal is not None:
            creator, policy = personal.creator_seat, personal.policy
            paused = personal.paused_at is not None
        else:
            creator, policy = header.get("creator_seat"), header.get("policy")
            paused = header.get("paused") is True
        if isinstance(creator, bool) or not isinstance(creator, int):
            creator = None
        elif not 0 <= creator < seat_count:
            creator = None
    levels = levels if isinstance(levels, dict) else {}
    names = [clean_name(name, required=False) for name in names]
    names = [
        (names[index] if index < len(names) else "") or f"Player {index + 1}"
        for index in range(seat_count)
    ]
    try:
        check_unique_names(names)
        policy = check_policy(policy if isinstance(policy, Mapping) else None)
    except BadInput as error:
        raise BadInput(f"The file cannot be imported: {error.message}") from None
    if personal is not None:
        check_people(personal, names, waiting)
    with service.session() as session:
        if session.get(Game, game_id) is not None:
            raise BadInput(f"A game with the id {game_id} exists here already.")
        now = service.clock()
        game = Game(
            id=game_id,
            engine=engine.slug,
            engine_version=engine.version,
            title=title or engine.title,
            options=created["options"],
            seat_count=seat_count,
            commitment=created["commitment"],
            head_seq=0,
            head_hash=rows[0]["hash"],
            policy=policy,
            creator_seat=creator,
            paused_at=((personal.paused_at if personal else None) or utc(now)) if paused else None,
            private=header.get("private") is True,
            created_at=now,
            updated_at=now,
        )
        session.add(game)
        # The contributions carry on with the game: its mix, and who gave one.
        fold = contrib.fold_rows(rows)
        given = {entry.get("seat") for entry in fold.entries} if fold is not None else set()
        session.add(
            GameSecret(
                game_id=game_id,
                seed=seal_seed(service.secret_key, game_id, bytes.fromhex(seed)),
                mix=fold.mix if fold is not None else None,
            )
        )
        for index in range(seat_count):
            session.add(
                Seat(
                    game_id=game_id,
                    seat=index,
                    name=names[index],
                    is_bot=index in bots,
                    bot_level=level_of(levels.get(str(index))),
                    contributed=index in given,
                    created_at=now,
                )
            )
        session.flush()
        states = report.states
        service.store.add_rows(session, engine, rows, states, report.engines)
        # The listeners see seats without addresses: an import mails nothing on its own
        # account (no turn or game-over mail); the people are restored after.
        service._finish_transition(session, game, engine, list(rows), None, states[-1], frozenset())
        imported = _restore_people(session, service, runtime, game, personal, waiting, mail)
        service.store.commit(session, game_id, -1)
    service.bots_now(game_id)  # the game carries on: a bot due at its head moves now
    return imported


def _restore_people(
    session: Any,
    service: GameService,
    runtime: Runtime,
    game: Game,
    personal: Personal | None,
    waiting: set[int],
    mail: bool,
) -> Imported:
    """The seats' people, clocks, votes, offers and former players of an imported game,
    fresh links and the mails that hand them out (see :func:`import_full`)."""
    imported = Imported(game.id)
    now = utc(service.clock())
    rows = {row.seat: row for row in session.exec(select(Seat).where(Seat.game_id == game.id))}
    clocks = {
        clock.seat: clock
        for clock in session.exec(select(SeatClock).where(SeatClock.game_id == game.id))
    }
    offers = dict(personal.offers) if personal is not None else {}
    for number in waiting - set(offers):
        offers[number] = {"open": True, "name": "", "email": "", "former_email": ""}
    if personal is not None:
        for number, values in personal.seats.items():
            row = rows[number]
            row.email, row.timezone = values["email"], values["timezone"]
            row.mail_hour, row.notify = values["mail_hour"], values["notify"]
            row.talk_mail, row.language = values["talk_mail"], values["language"]
            session.add(row)
        for number, values in personal.clocks.items():
            clock = clocks.get(number) or SeatClock(game_id=game.id, seat=number)
            for name, value in values.items():
                setattr(clock, name, value)
            clocks[number] = clock
            session.add(clock)
        for vote in personal.votes:
            session.add(RescueVote(game_id=game.id, **vote))
        for former in personal.formers:
            session.add(FormerPlayer(game_id=game.id, **former))
    running = game.status == "active"
    for number, values in sorted(offers.items()):
        offer = SeatOffer(
            game_id=game.id,
            seat=number,
            open=values["open"],
            name=values["name"],
            email=values["email"],
            former_email=values["former_email"],
            created_at=values.get("created_at") or now,
        )
        if values["email"] and running and runtime is not None:
            token = new_token()
            offer.token_hash, offer.invited_at = hash_token(token), now
            imported.invitations[number] = token
        session.add(offer)
    if not running or runtime is None:
        return imported
    for number, row in sorted(rows.items()):
        if number in offers or (row.is_bot and not row.email):
            continue
        token = new_token()
        row.token_hash = hash_token(token)
        session.add(row)
        seat_changes.issue_link(session, runtime, game.id, number, token)
        imported.links[number] = token
    session.flush()
    if not mail:
        return imported
    moved = (
        f"{game.title} now lives at {links.base_url(runtime.config)}: it moved to another "
        "server and carries on from where it stopped. Your old link no longer works; here "
        "is your new one."
    )
    for number in sorted(imported.links):
        row = rows[number]
        clock = clocks.get(number)
        message = moved
        if row.is_bot:
            message += (
                " A bot plays your seat for now; to play it again, open the link and choose "
                '"Take my seat back" under "Seats and deadlines".'
            )
        if not row.email:
            continue
        runtime.service.tell(
            session,
            Notice(
                kind="link_given",
                key=f"moved:{game.id}:{number}:{row.token_hash[:24]}",
                game_id=game.id,
                seat=number,
                facts={
                    "message": message,
                    "deadline": clock.deadline_at if clock is not None and not row.is_bot else None,
                    "even_a_bot": True,
                },
            ),
        )
        imported.mailed.append(row.email)
    for number, token in sorted(imported.invitations.items()):
        offer = session.get(SeatOffer, (game.id, number))
        invitations.invite(session, runtime, game, rows[number], offer, token)
        imported.mailed.append(offer.email)
    return imported


def verify_game(service: GameService, game_id: str):
    """Verifies the stored chain of a game: hashes, sequence, replayed state hashes."""
    with service.reading() as session:
        game = service.store.game(session, game_id)
        rows = service.store.rows(session, game_id)
        seed = service._seed(session, game_id)
    return verify_rows(game.engine, rows, seed=seed, game_id=game_id)


def level_of(level: object) -> str:
    """A seat's bot level from an import's header: a level the server knows, else normal."""
    return level if isinstance(level, str) and level in roster_mod.BOT_LEVELS else "normal"
