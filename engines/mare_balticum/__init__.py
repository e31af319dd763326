"""Mare Balticum: fishing fleets on the Baltic Sea, for 3 to 5 players.

Players sail connected fleets, fish salmon, flatfish, herring, cod and amber, unload fish
in ports that demand them, and choose in secret, at each passage of time, the multiplier
each kind of fish will score. Chance: tokens are drawn from a bag (setup, refills; passage
of time tokens hide among them). Hidden information: which number token lies on which
market space, until the game ends. Optional module 1 (demand management) lets players set
the ports' demand; optional module 2 (trade contracts) adds the contract action. The rules
implemented are the project's rules file for the game.

Versions (see :mod:`engines.api`): a game plays to its end on the version it was made
with; the state records it (``rules_version``, left out of the dump while it is 1).
Version 2 follows the table: a face-down production token lies on a visible market
space, so every view shows which spaces of each market hold a token (``covered``), as
the rulebook's "placed face down on one of the market spaces" implies; which number went
where stays hidden, so other players see played number tokens only as "number" (their
numbers, with the spaces, would give every multiplier away). Version 1 shows only a
count of face-down tokens and the numbers played.

Moves (JSON objects; every field is required unless marked optional):

``{"type": "place_start", "port": port}``
    At the start, in playing order: the player's first vessel starts in that port.
``{"type": "sail", "to": location}``
    An action, while vessels are still off the board: a new vessel goes to a sea area or
    port next to one of the player's vessels.
``{"type": "sail", "from": location, "to": location}``
    An action, once all vessels are out: the vessel in ``from`` moves to any location
    without one of the player's vessels; the fleet must stay connected afterwards.
``{"type": "fish", "area": area, "kind": kind}``
    An action: take one token of ``kind`` (salmon, flatfish, herring, cod or amber) from an
    area holding one of the player's vessels. Amber goes to the warehouse, fish to the hold
    (at most 5 fish in the hold).
``{"type": "unload", "port": port, "fish": {kind: count}, "demand"?: {kind: circle}}``
    An action in a port holding one of the player's vessels: the given fish go from the
    hold to the warehouse (at least one fish; only kinds the port buys). Module 1: for each
    unloaded kind the port does not show yet, ``demand`` names the free circle (index into
    the port's circles) where that kind's demand token goes; a -1 circle costs one fish of
    that kind at every unloading and needs at least 2 fish when the demand is placed.
``{"type": "take_contract", "contract": id}``
    An action, module 2 only: take a contract no one holds (c1..c6), returning one's own.
``{"type": "overboard", "kind": fish, "count": n}``
    Free during one's turn: throw ``n`` fish of that kind from the hold out of the game.
``{"type": "end_turn"}``
    End the turn before the third action (the third action ends it by itself).
``{"type": "produce", "token": 0..3, "kind": fish}``
    At a passage of time, in secret: the number token goes face down on that empty
    market space.
``{"type": "produce", "token": "tax", "discard": {"hold"?: {fish: n}, "warehouse"?: {kind: n}}}``
    At a passage of time: the tax, discarding exactly 2 goods (all one has, 0 or 1, when
    the tax is the last token; with fewer than 2 goods it is only allowed as the last).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from engines.api import Chance, Option, Result

from . import bot, bot_normal, legal, rules, scoring, views
from . import notation as notation_mod
from .state import State, dump_state, load_state
from .words import T

FOLDER = Path(__file__).resolve().parent


class MareBalticum:
    slug = "mare_balticum"
    # The title's own catalogue of its words in German, Polish and French (engines.api)
    translations_folder = str(FOLDER / "translations")
    title = "Mare Balticum"
    templates_folder = str(FOLDER / "templates")  # _board.html, rules.html (engines.api)
    static_folder = str(FOLDER / "static")  # the board's CSS and map, at /titles/<slug>/static
    versions = (1, 2)
    # "hard" is the search bot (bot_hard): one hard seat won 75% of 3-player games
    # against two normal ones. A move costs up to about a second and a half of CPU, so
    # it is slow: the server plays it after the request that made it due, never inside.
    bot_levels = ("easy", "normal", "hard")
    slow_bot_levels = ("hard",)
    resignation = "bot_plays_on"  # a bot plays a resigned seat to the end
    min_seats = 3
    max_seats = 5
    options = (
        Option(
            name="demand_management",
            default=False,
            label=T("Module 1: demand management"),
            help=T(
                "Ports start without demand. The first time a kind of fish is unloaded in a "
                "port, the player puts that kind's demand token on one of the port's circles; "
                "a -1 circle loses one fish of that kind at every unloading."
            ),
        ),
        Option(
            name="trade_contracts",
            default=False,
            label=T("Module 2: trade contracts"),
            help=T(
                "Adds a fourth action: take one of six contracts (two kinds of fish and two "
                "amber). At the end, each complete set of four tokens for your contract "
                "scores 7 points; the engine picks the best use of your warehouse."
            ),
        ),
        Option(
            name="seat_order",
            default="as_listed",
            choices=("as_listed", "random"),
            choice_labels=(T("In the order listed"), T("Drawn at random")),
            label=T("Seat order"),
            help=T("Play in the order the players were listed, or in an order drawn by chance."),
        ),
    )

    def __init__(self, version: int = 2):
        self.version = version

    def at_version(self, version: int) -> MareBalticum:
        if version == self.version:
            return self
        if version not in self.versions:
            raise KeyError(f"Mare Balticum has no version {version!r}.")
        return MareBalticum(version)

    def upgrade_state(self, state: State) -> State:
        """A state of an earlier version, to be played on this version's rules."""
        new = state.copy()
        new.rules_version = self.version
        return new

    def setup(self, seats: int, options: Mapping[str, Any], chance: Chance) -> State:
        return rules.setup(seats, options, chance, self.version)

    def to_move(self, state: State) -> frozenset[int]:
        return rules.to_move(state)

    def legal_moves(self, state: State, seat: int) -> list[dict]:
        return legal.legal_moves(state, seat)

    def apply(self, state: State, seat: int, move: Mapping[str, Any], chance: Chance) -> State:
        return rules.apply(state, seat, move, chance)

    def view(self, state: State, seat: int | None) -> dict:
        return views.view(state, seat)

    def phase_line(self, state: State) -> tuple[str, list[str]]:
        return views.phase_line(state)

    def turn_line(self, state: State) -> tuple[str, str]:
        return views.turn_line(state)

    def score_line(self, state: State, seat: int | None) -> list[int] | None:
        return views.score_line(state, seat)

    def result(self, state: State) -> Result | None:
        return scoring.result(state)

    def dump(self, state: State) -> dict:
        return dump_state(state)

    def hash_form(self, state: State) -> dict:
        """``dump(state)`` for the state hash: plain data built afresh (text keys, lists,
        text, integers, booleans, None), written without being read back."""
        return dump_state(state)

    def load(self, data: Mapping[str, Any]) -> State:
        return load_state(data)

    def describe(
        self, before: State, seat: int, move: Mapping[str, Any], after: State, viewer: int | None
    ) -> list[str]:
        return views.describe(before, seat, move, after, viewer)

    def move_label(self, move: Mapping[str, Any], view: Mapping[str, Any] | None = None) -> str:
        return views.move_label(move, view)

    def notation(self, move: Mapping[str, Any]) -> str:
        """The move as the game's record writes it (its own notation)."""
        return notation_mod.notation(move)

    def rules_reference(self) -> dict:
        """The numbers of the game's rules reference page, built from its data."""
        return views.rules_reference()

    def kind_name(self, kind: str) -> str | None:
        """What a player calls moves of ``kind``."""
        return views.kind_name(kind)

    def rule_anchor(self, kind: str) -> str | None:
        """The section of the rules reference page that explains moves of ``kind``."""
        return views.rule_anchor(kind)

    def board_layout(
        self,
        view: Mapping[str, Any],
        players: Sequence[Mapping[str, Any]],
        changed: Iterable[str] = (),
    ) -> dict:
        """The shapes of the map for this view (for ``templates/_board.html``)."""
        from engines.mare_balticum import board  # the server's drawing machinery, only when drawn

        return board.layout(view, players, changed)

    def changed_places(self, old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> set[str]:
        """The places to highlight: what changed between two views of one seat."""
        from engines.mare_balticum import board

        return board.changed_places(old, new)

    def bot_move(
        self,
        view: Mapping[str, Any],
        legal_moves: Sequence[dict],
        rng: random.Random,
        level: str = "normal",
    ) -> dict:
        if level == "easy":
            return bot.choose_move(view, legal_moves, rng)
        if level == "hard":
            from . import bot_hard  # the search: loaded only by a game that uses it

            return bot_hard.choose_move(view, legal_moves, rng)
        return bot_normal.choose_move(view, legal_moves, rng)


ENGINE = MareBalticum()

__all__ = ["ENGINE", "MareBalticum"]
