"""The engine protocol: what every game engine offers the server, the tests and the CLI.

An engine is pure rules: no I/O, no clock, no global random. All randomness comes
through a :class:`Chance` passed to ``setup`` and ``apply``; states are plain Python
objects that ``dump`` turns into JSON and ``load`` turns back.

Member names are fixed (see the project's design notes):

``slug, title, version, min_seats, max_seats, options, setup, to_move, legal_moves,
apply, view, result, dump, load, describe``; and, for the server's pages and bot
seats, ``move_label`` (a short readable label of a legal move) and ``bot_move``;
and, for versions, ``versions``, ``at_version`` and ``bot_levels``; and, optionally,
``resignation`` (what resigning means in this game, below), ``hash_form``
(``dump(state)`` without the copy, for the state hash: see :func:`state_json`) and
``phase_line`` (``phase_line(state) -> (phase, marks)``: ``view(state, None)["phase"]``
and each seat's mark as :func:`pbem.games.names.marks_of` reads it from that view,
without building the rest of the view; the server reads them after every move and for
every history line. Absent: the server builds the public view and reads them there) and
``turn_line`` (``turn_line(state) -> (turn, phase)``: the turn and the phase the history
page groups events by, as short texts that may hold placeholders, e.g. ``("Turn 3",
"trade")``; an event belongs to the turn and phase the event before it left. Absent:
the public view's ``round`` when it is a number, else one group of every event) and ``score_line`` (``score_line(state,
seat) -> list | None``: ``view(state, seat).get("scores")`` without the rest of the
view, for the score chart, read after every event. Absent: the view is built).

How engine versions coexist
---------------------------

A game plays to its end on the engine version it was created with (recorded in the
first event's payload as ``engine_version`` and in the read model); new games get the
newest. Older versions are kept as versioned rules inside each engine, not as frozen
copies of the code:

- ``version`` is the newest version the code plays; ``versions`` every version it still
  plays, oldest first; ``at_version(v)`` an engine object playing version ``v``'s rules
  (``self`` for the newest), ``KeyError`` for a version it does not play.
- ``setup`` stores the engine object's version in the state (for instance
  ``state.rules_version``) and the rules branch on it (``if state.rules_version >= 2``).
  ``dump`` omits the field while it is 1 and ``load`` defaults it to 1, so a version-1
  state dumps byte for byte as before versions existed and every recorded state hash
  still matches. A version-1 game replays identically: same draws, states, legal moves
  and ``describe`` lines. ``options`` of ``at_version(1)`` are the version-1 options.
- ``bot_levels`` names the bots offered for a seat, weakest first: ``"easy"`` is the
  first version's bot kept verbatim, ``"normal"`` (the default) the stronger one.
  ``bot_move(view, legal_moves, rng, level)`` plays from the seat's view only.
- ``engines.get_engine(slug, version)`` resolves a game's engine; ``REGISTRY`` maps each
  slug to its newest engine object.
- An operator may move a running game to a newer version (``pbem upgrade-engine``) only
  when its whole log replays identically there; an ``engine_upgraded`` event in the log
  records it, and replay uses the old version before that event and the new one after.
  The state is carried over by the new engine's ``upgrade_state(state)`` when it has one
  (to set the version it records), else by ``load(dump(state))``.

Resigning
---------

A player may resign from their own link; the engine decides what that means, by its
``resignation`` attribute (read through :func:`resignation_of`; an engine without one
gets :data:`DEFAULT_RESIGNATION`). The meanings the server knows are
:data:`RESIGNATIONS`:

- ``"bot_plays_on"``: a bot plays the seat to the end of the game. The seat stays in
  the game and in its result (shown as resigned); it is not offered to a newcomer and
  its player cannot take it back. The rules are untouched: no move is made for the
  resignation itself, so the log replays as before.

Mare Balticum, Mercatores and Mare Nostrum all use ``"bot_plays_on"``.

Optional members: what a title brings from its own folder
--------------------------------------------------------

Everything about one title lives in ``engines/<slug>/``; the registry finds the title
by scanning ``engines/`` for subpackages exposing ``ENGINE``. The server reads these
optional members of the engine object (with ``getattr``) and names no title itself:

``listed: bool``
    False hides the title from the lobby and the demo (a test fixture). Absent: listed.
``slow_bot_levels: tuple[str, ...]``
    The levels of ``bot_levels`` whose moves take long (a search: a second or more of
    CPU a move). The server never plays a bot at a slow level inside the request, the
    mail's receipt or the command that made it due: a background runner of the server
    process plays it right after (the page says the bot is thinking), and the
    scheduler's sweep is the backstop. Absent: no level is slow, and every bot moves
    at once.
``rules_reference() -> dict``
    The figures of the title's rules reference page at ``/rules/<slug>`` (JSON-safe,
    read from the game's data). Absent: the title has no rules page (404, no link).
``templates_folder: str``
    A folder of Jinja templates, loaded as ``<slug>/<file>``; they may use the shared
    templates (``_map.html``, ``rules_layout.html``, ``rules_macros.html``). The server
    asks for ``_board.html`` (the board on the turn, game and history pages; absent:
    the generic board, which lists the view's fields readably), ``_compose.html`` (forms
    that compose moves on the turn page; absent: the list of moves only) and
    ``rules.html`` (the rules page, given ``ref``; absent: a generic page listing
    ``rules_reference()``'s figures).
``translations_folder: str``
    The title's own catalogue folder (``engines/<slug>/translations``, gettext
    ``<language>/LC_MESSAGES/messages.po`` and ``.mo``; ``make i18n`` extracts, updates
    and compiles it): the words of its labels, history lines, refusals, phases and
    views, marked in its Python with ``T``/``Tn`` (:mod:`engines.text`), and of its
    templates' ``_()``. The engine still writes English :class:`engines.text.Text`
    strings; the server translates them where they are shown, in the reader's
    language. Absent: the title's words are shown in English.
``static_folder: str``
    Files served at ``/titles/<slug>/static/<path>`` (maps, the board's CSS); templates
    link them with ``title_static(slug, path)``. Absent: none.
``board_layout(view, players, changed) -> dict``
    The shapes the title's ``_board.html`` draws (``board_layout(slug, ...)`` in a
    template): ``players`` are the seats' marks (colour, letter), ``changed`` the
    places to highlight. Absent: an empty dict.
``changed_places(old_view, new_view) -> set[str]``
    The places (ids the board draws) whose contents differ between two views of one
    seat, highlighted as changed since that seat's last move. Absent: none highlighted.
``own_words(view) -> list[str]``
    What only the view's seat may see (a hand of cards), as sentences for the summary
    of the position in that seat's own mails. Only that seat's mail prints them; a
    spectator's view gives none. Absent: the summary has the board's public facts only.
``engines/<slug>/data.py`` (a module, not a member)
    The game's data; its ``NAMES`` (id -> name) and ``PROVINCE``, ``SEA`` and ``CARDS``
    (id -> mapping with a ``"name"``) name what a board's ``?pick=`` chooses, in the
    sentence shown when no move names it; templates read it as ``game_data(slug)``.
    Absent: "that place".
``kind_name(kind) -> str | None``
    What a player calls moves of ``kind`` (``move["type"]``): the heading of their group
    on the turn page and in a turn mail ("Give a title"). Absent, or None for a kind: the
    kind with its underscores as spaces.
``rule_anchor(kind) -> str | None``
    The id of the section of the title's rules page (``rules.html``) that explains moves
    of ``kind`` (``move["type"]``): the turn page links each kind's moves and each
    composing form there ("Rule: Trade"). Every kind the title can offer must name a
    section its page has. Absent, or None for a kind: no link.
``written_forms: Mapping[str, str]``
    For a kind of move (``move["type"]``) one can write out in a reply by mail, the
    sentence the turn mail prints to explain how. Absent: none printed.
``written_key(text) -> tuple | None``
    The title's grammar of moves written in a reply: the text reduced to what
    identifies a move, so that a player's wording and a legal move's label compare
    equal (a list in any order), or None when the text is no written form. Absent:
    replies name moves only by code, label or JSON.
``notation(move) -> str``
    The move in the title's own notation, for the game's readable record (``pbem export
    --format record``): one line, as a player would type it, e.g. ``fish cod in
    gotland_deep`` (:func:`engines.notation.written` writes it from a table of forms).
    A seat it names is the placeholder ``{name:N}``, no other braces. Reading a record
    back, the server replays the position and takes the one legal move whose notation
    is the line's; a move that is not the only one so written carries its JSON beside
    it. Absent: every move is recorded as its JSON.

Players by name
---------------

Engines know seats, not people. Wherever a label (``move_label``), a history line
(``describe``) or a refusal (:class:`IllegalMove`'s reason) names a player, the engine
writes a placeholder the server fills (:func:`pbem.games.names.fill`): ``{seat:N}``
reads as seat N's holder with the civilisation or colour the view gives the seat
("Ann (Rome)"), ``{name:N}`` as the holder's name alone; N counts from 0. Names are the
roster's as of the event a line tells of; marks are each view player's ``colour``, else
its ``name`` (not while its ``civ`` is still ``None``). No text a player reads says
"seat N". History text an engine keeps inside its state (Mare Nostrum's log) is hashed
and never changes: such an engine turns it into placeholders and mends its grammar when
``describe`` reads it, not where it is stored.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import orjson

__all__ = [
    "DEFAULT_RESIGNATION",
    "RESIGNATIONS",
    "Chance",
    "Engine",
    "IllegalMove",
    "MalformedMove",
    "Option",
    "Result",
    "ScoreTable",
    "ScriptedChance",
    "SeededChance",
    "article",
    "canonical_bytes",
    "canonical_json",
    "plain_canonical_bytes",
    "resignation_of",
    "resolve_options",
    "state_hash",
    "state_json",
]


class IllegalMove(Exception):
    """A move the rules do not allow now. ``reason`` is a sentence fit to show the player."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class MalformedMove(IllegalMove):
    """A move that is not a well-formed move of this game at all (wrong shape or type)."""


@runtime_checkable
class Chance(Protocol):
    """The only source of randomness an engine may use."""

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``; ``n`` must be at least 1."""
        ...


@dataclass(frozen=True)
class Option:
    """A game option declared by an engine, offered when a game is created."""

    name: str
    default: Any
    help: str
    choices: tuple[Any, ...] | None = None
    label: str = ""
    # What a player reads for each of ``choices`` (same order): the form, the rules
    # reference and the game's pages show these, never the values themselves.
    choice_labels: tuple[str, ...] | None = None

    @property
    def shown_label(self) -> str:
        """The option's name as a player reads it."""
        return self.label or self.name.replace("_", " ").capitalize()

    def choice_label(self, value: Any) -> str:
        """The words for one value of this option (the value itself when undeclared)."""
        if self.choices is not None and self.choice_labels is not None:
            for choice, words in zip(self.choices, self.choice_labels, strict=False):
                if str(choice) == str(value):
                    return words
        if isinstance(value, bool):
            return "on" if value else "off"
        return str(value)

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "label": self.shown_label,
            "default": self.default,
            "help": self.help,
            "choices": list(self.choices) if self.choices is not None else None,
            "type": type(self.default).__name__,
        }


@dataclass(frozen=True)
class ScoreTable:
    """A finished game's scoring as rows of labelled values, one row per seat (in seat
    order), so the server can draw it without knowing the game: ``columns`` are short
    labels ("Salmon", "Coins", "Heroes and wonders"); each row holds one value per column
    (a number, or a short text such as a civilisation's name). ``deciding`` is the index
    of the column that holds :attr:`Result.scores` (drawn as the score).
    """

    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    deciding: int = -1

    def __post_init__(self) -> None:
        if any(len(row) != len(self.columns) for row in self.rows):
            raise ValueError("every row of a score table has one value per column")

    def to_json(self) -> dict:
        return {
            "columns": list(self.columns),
            "rows": [list(row) for row in self.rows],
            "deciding": self.deciding if self.deciding >= 0 else len(self.columns) - 1,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ScoreTable:
        return cls(
            tuple(data["columns"]), tuple(tuple(row) for row in data["rows"]), data["deciding"]
        )


@dataclass(frozen=True)
class Result:
    """The outcome of a finished game. Ties stand: ``winners`` may hold several seats.

    The same meaning in every engine:

    - ``winners``: the seats that won; they rank first whatever their scores (a game can
      be won outright, as by Mare Nostrum's Pyramids).
    - ``scores``: per seat, the number the rules rank the others by, the higher the
      better (coins, points, heroes and wonders); ties on it are broken as ``reason``
      says.
    - ``reason``: why the winners won, as a phrase that names no seat (the server puts
      the players' names to it): "most points after the final scoring", "builds the
      Pyramids".
    - ``table``: the scoring's figures per seat, for the result table of pages and mails.
    - ``breakdown``: engine-specific detail (for the engine's own views and tests).
    """

    scores: tuple[float, ...]
    winners: tuple[int, ...]
    breakdown: Mapping[str, Any] = field(default_factory=dict)
    reason: str = ""
    table: ScoreTable | None = None

    def to_json(self) -> dict:
        data = {
            "scores": list(self.scores),
            "winners": list(self.winners),
            "breakdown": dict(self.breakdown),
            "reason": self.reason,
        }
        if self.table is not None:
            data["table"] = self.table.to_json()
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Result:
        table = data.get("table")
        return cls(
            scores=tuple(data["scores"]),
            winners=tuple(data["winners"]),
            breakdown=dict(data.get("breakdown") or {}),
            reason=data.get("reason", ""),
            table=ScoreTable.from_json(table) if table else None,
        )


@runtime_checkable
class Engine(Protocol):
    """The protocol every game engine implements (an object, registered in ``REGISTRY``)."""

    slug: str
    title: str
    version: int
    min_seats: int
    max_seats: int
    options: tuple[Option, ...]
    versions: tuple[int, ...]
    bot_levels: tuple[str, ...]

    def at_version(self, version: int) -> Engine:
        """An engine object playing ``version``'s rules (``self`` for the newest);
        ``KeyError`` for a version it does not play."""
        ...

    def setup(self, seats: int, options: Mapping[str, Any], chance: Chance) -> Any:
        """The initial state for ``seats`` players (seat 0 first); setup draws via ``chance``."""
        ...

    def to_move(self, state: Any) -> frozenset[int]:
        """The seats whose move is awaited now (several for simultaneous choices)."""
        ...

    def legal_moves(self, state: Any, seat: int) -> list[dict]:
        """The moves ``seat`` may make now; never empty for a seat in ``to_move``."""
        ...

    def apply(self, state: Any, seat: int, move: Mapping[str, Any], chance: Chance) -> Any:
        """The next state. Pure; raises :class:`IllegalMove` and then nothing happened.

        The next state may share the parts a move left alone with ``state`` (Mare
        Nostrum's does, rather than copy the whole state): every state is read-only
        once made, and whoever wants to change one changes ``load(dump(state))``."""
        ...

    def view(self, state: Any, seat: int | None) -> dict:
        """Everything ``seat`` may know (``None``: a spectator), as JSON-safe data."""
        ...

    def result(self, state: Any) -> Result | None:
        """The result once the game is over, else ``None``."""
        ...

    def dump(self, state: Any) -> dict:
        """A lossless JSON-safe form of ``state`` (string keys only)."""
        ...

    def load(self, data: Mapping[str, Any]) -> Any:
        """The state ``dump`` was made from."""
        ...

    def describe(
        self, before: Any, seat: int, move: Mapping[str, Any], after: Any, viewer: int | None
    ) -> list[str]:
        """Readable lines of what ``seat``'s ``move`` did, as ``viewer`` may see it."""
        ...

    def move_label(self, move: Mapping[str, Any], view: Mapping[str, Any] | None = None) -> str:
        """A short readable label of a legal move, e.g. "Sail from Gotland Deep to Åland Sea".
        Given the mover's ``view``, the label may add what the move gives or costs now
        ("Cash in the Corn pile: 6 Corn cards pay 2 coins"), from the view's own data."""
        ...

    def bot_move(
        self,
        view: Mapping[str, Any],
        legal_moves: Sequence[dict],
        rng: random.Random,
        level: str = "normal",
    ) -> dict:
        """A bot's choice for a seat, made from that seat's view and legal moves only;
        ``level`` is one of ``bot_levels`` ("easy" plays as the first version's bot)."""
        ...


RESIGNATIONS = ("bot_plays_on",)
DEFAULT_RESIGNATION = "bot_plays_on"


def resignation_of(engine: Any) -> str:
    """What resigning means in ``engine``'s game (one of :data:`RESIGNATIONS`): its
    ``resignation`` attribute, else :data:`DEFAULT_RESIGNATION`. An engine naming a
    meaning the server does not know is refused with ``ValueError``."""
    meaning = getattr(engine, "resignation", None) or DEFAULT_RESIGNATION
    if meaning not in RESIGNATIONS:
        raise ValueError(f"{getattr(engine, 'title', engine)!r} names an unknown resignation")
    return meaning


def article(word: str) -> str:
    """``word`` with "a" or "an" before it, by its first letter: "an end_turn move"."""
    return f"{'an' if word[:1].lower() in 'aeiou' else 'a'} {word}"


def canonical_json(data: Any) -> str:
    """The one JSON text of ``data`` used for hashing: sorted keys, no spaces, UTF-8."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# orjson writes what json.dumps writes for dicts with text keys (sorted alike: by code
# point), lists and tuples, text (escaped alike with ensure_ascii=False), integers, true,
# false and null. It refuses (so the slow path takes over) text keys' absence, integers
# past 64 bits, lone surrogates, nesting past 255 and, with these options, subclasses of
# built-in types, date-times and dataclasses.
_CANONICAL = (
    orjson.OPT_SORT_KEYS
    | orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
    | orjson.OPT_PASSTHROUGH_DATACLASS
)
# Floats it writes otherwise (1e-05 as 0.00001, 1e+16 as 1e16): any number written with
# a point or an exponent sends the data down the slow path. Digits are mapped to 0 and
# "e" and "E" to a point, so that one search for "0." finds a digit followed by any of
# the three (one search: each costs a pass over the text); text holding such a pair
# only costs time.
_ZERO_DIGITS = bytes.maketrans(b"123456789eE", b"000000000..")


def _fast_json(data: Any) -> bytes | None:
    """orjson's text of ``data`` unless it may differ from :func:`canonical_json`'s
    for a reason orjson cannot see (a float); None where it refuses or may differ."""
    try:
        text = orjson.dumps(data, option=_CANONICAL)
    except TypeError:  # orjson.JSONEncodeError
        return None
    if b"0." in text.translate(_ZERO_DIGITS):
        return None
    return text


def canonical_bytes(data: Any) -> bytes:
    """``canonical_json(data)`` encoded as UTF-8, several times faster where orjson writes
    the same bytes. What it would write otherwise goes through ``json.dumps``: floats,
    non-text keys, big integers, subclasses of built-in types, and what orjson writes but
    ``json.dumps`` refuses or writes otherwise (an enum, a UUID, NaN as null): the text
    is read back and must give ``data`` again."""
    text = _fast_json(data)
    if text is None or orjson.loads(text) != data:
        return canonical_json(data).encode("utf-8")
    return text


def plain_canonical_bytes(data: Any) -> bytes:
    """:func:`canonical_bytes` for plain data as an engine's ``hash_form`` gives it
    (dicts with text keys, lists, text, integers, booleans, None; never NaN or an
    infinity), without reading the text back: the cheap checks of :func:`_fast_json`
    still send anything else it can tell apart down the slow path."""
    text = _fast_json(data)
    return canonical_json(data).encode("utf-8") if text is None else text


def state_json(engine: Engine, state: Any) -> bytes:
    """The canonical JSON (UTF-8) of ``engine.dump(state)``: from the engine's
    ``hash_form`` when it has one (the same data, read in place without a copy)."""
    form = getattr(engine, "hash_form", None)
    if form is None:
        return canonical_bytes(engine.dump(state))
    return plain_canonical_bytes(form(state))


def state_hash(engine: Engine, state: Any) -> str:
    """sha256 (hex) of the canonical JSON of ``engine.dump(state)``."""
    return hashlib.sha256(state_json(engine, state)).hexdigest()


def resolve_options(engine: Engine, given: Mapping[str, Any] | None) -> dict[str, Any]:
    """The engine's options with defaults filled in; ``ValueError`` names a bad option."""
    given = dict(given or {})
    resolved: dict[str, Any] = {}
    declared = {option.name: option for option in engine.options}
    unknown = sorted(set(given) - set(declared))
    if unknown:
        raise ValueError(f"{engine.title} has no option {unknown[0]!r}.")
    for name, option in declared.items():
        value = given.get(name, option.default)
        if isinstance(option.default, bool):
            if isinstance(value, str):
                lowered = value.strip().lower()
                if lowered in ("1", "true", "yes", "on"):
                    value = True
                elif lowered in ("0", "false", "no", "off", ""):
                    value = False
            if not isinstance(value, bool):
                raise ValueError(f"Option {name!r} must be true or false.")
        elif isinstance(option.default, int) and not isinstance(option.default, bool):
            try:
                value = int(value)
            except (TypeError, ValueError):
                raise ValueError(f"Option {name!r} must be a whole number.") from None
        elif isinstance(option.default, str) and not isinstance(value, str):
            raise ValueError(f"Option {name!r} must be text.")
        if option.choices is not None and value not in option.choices:
            choices = ", ".join(str(choice) for choice in option.choices)
            raise ValueError(f"Option {name!r} must be one of: {choices}.")
        resolved[name] = value
    return resolved


class SeededChance:
    """A reproducible chance from an integer seed, for tests, self-play and benchmarks."""

    def __init__(self, seed: int = 0):
        self._rng = random.Random(seed)
        self.drawn: list[int] = []

    def below(self, n: int) -> int:
        if n < 1:
            raise ValueError(f"chance.below needs n >= 1, got {n}")
        value = self._rng.randrange(n)
        self.drawn.append(value)
        return value


class ScriptedChance:
    """Feeds a fixed list of outcomes, to force any draw in a rules test.

    Fails loudly when the script runs out or an outcome is out of range.
    """

    def __init__(self, outcomes: Sequence[int] = ()):
        self._outcomes = list(outcomes)
        self._next = 0

    def below(self, n: int) -> int:
        if self._next >= len(self._outcomes):
            raise AssertionError(f"ScriptedChance ran out of outcomes (asked below({n}))")
        value = self._outcomes[self._next]
        self._next += 1
        if not 0 <= value < n:
            raise AssertionError(f"scripted outcome {value} is not in [0, {n})")
        return value

    @property
    def remaining(self) -> int:
        return len(self._outcomes) - self._next
