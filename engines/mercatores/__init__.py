"""Mercatores: a card game of trading colonial goods, for 2 to 4 players.

There is chance (the deck is drawn one random card at a time) and hidden information
(each hand is secret; the deck's contents are unknown). In the investment phase players
trade with a face-up market and load goods and special cards into their resources; the
first to hold 15 cards there takes the Captain and Unloading cards and every other
player gets one more turn. In the profit phase players pay a tax and cash in one pile or
special card per turn for coins. Most coins (the Captain adds 2) wins; ties stand.

Cards are named by stable ids: goods ``corn-01`` .. ``coffee-08``, Warehouses ``w1`` ..
``w6``, Quays ``q1`` .. ``q6``, Trade Routes ``t1`` .. ``t10`` (see ``data.py``). Legal
move lists name one card of each class (same goods and ships, or same special), since
such cards are alike in every rule; ``apply`` accepts any card of the class.

Move types (JSON objects):

``{"type": "trade", "give": card, "take": [card, ...]}``
    Investment, first action: put ``give`` from the hand into the market and take
    ``take`` from the market: 2 cards after a goods card, 3 after a special card (all
    the market holds, if fewer). The card just given may not be taken back.
``{"type": "load", "way": "one_kind" | "two_kinds" | "special", "cards": [card, ...]}``
    Investment, second action: play cards from the hand to the resources, either one or
    more goods cards of a single kind, exactly two goods cards of two different kinds,
    or exactly one special card. The hand must keep a card, unless this turn brings the
    resources to the end count or the end of the phase was already triggered. The
    market is then refilled to 5 from the deck.
``{"type": "tax", "card": card}``
    Profit, first step: discard one goods card from one's resources (the Unloading
    card's holder and a player without goods skip this step).
``{"type": "cash", "pile": goods}`` or ``{"type": "cash", "special": card}`` or
``{"type": "cash", "special": trade_route, "opponent": seat}``
    Profit, second step: cash in a whole goods pile (``goods`` is ``corn``, ``cotton``,
    ``tobacco``, ``cocoa`` or ``coffee``) or one special card, counted now; a Trade Route
    names the opponent whose goods it counts. A thing that pays nothing is discarded
    for nothing.

Versions (see :mod:`engines.api`): a game plays to its end on the version it was made
with; the state records it (``rules_version``, left out of the dump while it is 1).

Version 2 settles three rule points by the rulebook's natural reading:

- A pile or special card that pays nothing may be cashed (discarded for nothing) only
  when nothing the player holds would pay ("Further Turn Rules").
- The first player to reach 15 cards takes the Captain and the Unloading card even after
  the deck ran out, and every other player then takes one more turn ("End of the
  Investment Phase").
- The players choose who starts (option ``first_player``: ``seat_order``, ``random``,
  drawn as the game's first draw, or a seat number from 1); turn order, rounds and the
  round cut short by the empty deck count from that player.

Points the rules leave open, settled here (version 1 as it always played):

- Version 1: a player may cash in any one pile or special card, even one that pays
  nothing while another would pay; it is then discarded for nothing.
- The phase's end is fixed by whichever comes first: 15 cards (every other player one
  more turn, even if the deck runs out meanwhile) or a refill cut short by the empty deck
  (the round is finished). After either, anyone may empty their hand. In version 1 only
  a player who reaches 15 cards before the deck runs out takes the Captain; otherwise the
  most cards take it at the end (in version 2, at the end of the deck-shortened phase).
- If the market is empty when a player with one card trades it away, there is nothing
  to load and the turn ends.
- The Unloading card passes to the left neighbour after every round even if that player
  has nothing left; the round then opens with the next player who has resources.
- A Trade Route may name any other player, even one without its goods.

Bots (``bot_levels``): ``easy`` is the first bot (:mod:`engines.mercatores.bot`),
``normal`` the stronger default (:mod:`engines.mercatores.bot_normal`), which judges each
trade by the best load it allows the same turn, counts a card kept in hand only as far as
its remaining loads can bring it in, plays its last investment turns out through the
profit phase, and looks ahead to the end in the profit phase (counting the Captain's
coins when it picks the leader to deny). One normal seat against easy seats, the normal
seat rotating (``bench/bench_hard.py mercatores 400 --players 3 --players 4 --strong
normal --weak easy``): 3 players, it wins 52.2% of games (baseline 33.3%; 45.4% before
the hand and last-turn fixes) and finishes above each easy seat in 66.1% of pairings; 4
players, 38.5% (baseline 25%) and 62.0%, within the noise of before on this seed set
(40.3%; +6.6 and +8.9 points on two other sets). The figures per idea tried are in the
bot's docstring. A move costs it about 15 ms of CPU at p99 (the easy bot well under
1 ms). ``hard`` searches over the rules (:mod:`engines.mercatores.bot_hard`)
and is slow (``slow_bot_levels``): the server plays it after the request that made it due.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from engines.api import Chance, Option, Result
from engines.mercatores import bot, bot_normal, changes, mail_grammar, rules, views
from engines.mercatores import notation as notation_mod
from engines.mercatores.data import INVESTMENT_END_CARDS, MAX_PLAYERS, MIN_PLAYERS
from engines.mercatores.state import State, dump_state, load_state
from engines.mercatores.words import T

FOLDER = Path(__file__).resolve().parent

FIRST_PLAYER = Option(
    name="first_player",
    default="seat_order",
    help=T(
        "Who starts: the first seat, a seat drawn at random when the game is set up, "
        "or the seat you name."
    ),
    choices=("seat_order", "1", "2", "3", "4", "random"),
    label=T("First player"),
    choice_labels=(
        T("The first seat"),
        T("Seat %(number)d", number=1),
        T("Seat %(number)d", number=2),
        T("Seat %(number)d", number=3),
        T("Seat %(number)d", number=4),
        T("Drawn at random"),
    ),
)


class Mercatores:
    slug = "mercatores"
    title = "Mercatores"
    templates_folder = str(FOLDER / "templates")  # _board.html, rules.html (engines.api)
    static_folder = str(FOLDER / "static")  # the board's CSS and map, at /titles/<slug>/static
    written_forms = mail_grammar.WRITTEN_FORMS  # moves written out in a reply by mail
    translations_folder = str(FOLDER / "translations")  # its own catalogue (engines.api)
    versions = (1, 2)
    # "hard" searches (bot_hard): one hard seat finished above a normal seat in 53.7% of
    # 3-player and 60.0% of 4-player pairings (75 games each). Its moves are slow: the server plays them after the
    # request that made the bot due, never inside.
    bot_levels = ("easy", "normal", "hard")
    slow_bot_levels = ("hard",)
    resignation = "bot_plays_on"  # a bot plays a resigned seat to the end
    min_seats = MIN_PLAYERS
    max_seats = MAX_PLAYERS

    def __init__(self, version: int = 2):
        self.version = version
        self.options = (
            Option(
                name="end_cards",
                default=INVESTMENT_END_CARDS,
                help=T(
                    "How many cards in one player's resources end the investment phase. "
                    "15 is the standard game; a lower count makes a shorter game, which "
                    "may suit four players."
                ),
                choices=(10, 11, 12, 13, 14, 15),
                label=T("Cards that end the investment phase"),
            ),
        ) + ((FIRST_PLAYER,) if version >= 2 else ())

    def at_version(self, version: int) -> Mercatores:
        if version == self.version:
            return self
        if version not in self.versions:
            raise KeyError(f"Mercatores has no version {version!r}.")
        return Mercatores(version)

    def upgrade_state(self, state: State) -> State:
        """A state of an earlier version, to be played on this version's rules."""
        return replace(state, rules_version=self.version)

    def setup(self, seats: int, options: Mapping[str, Any], chance: Chance) -> State:
        if not self.min_seats <= seats <= self.max_seats:
            raise ValueError(f"Mercatores is for 2 to 4 players, not {seats}.")
        return rules.setup(seats, options, chance, self.version)

    def to_move(self, state: State) -> frozenset[int]:
        return rules.to_move(state)

    def legal_moves(self, state: State, seat: int) -> list[dict]:
        return rules.legal_moves(state, seat)

    def apply(self, state: State, seat: int, move: Mapping[str, Any], chance: Chance) -> State:
        return rules.apply(state, seat, move, chance)

    def view(self, state: State, seat: int | None) -> dict:
        return views.view(state, seat)

    def own_words(self, view: Mapping[str, Any]) -> list[str]:
        """What only the view's seat sees, in words, for its own mail."""
        return views.own_words(view)

    def phase_line(self, state: State) -> tuple[str, list[str]]:
        return views.phase_line(state)

    def turn_line(self, state: State) -> tuple[str, str]:
        return views.turn_line(state)

    def score_line(self, state: State, seat: int | None) -> list[int] | None:
        return views.score_line(state, seat)

    def result(self, state: State) -> Result | None:
        return rules.result(state)

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

    def changed_places(self, old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> set[str]:
        """The parts of the table to mark: what changed between two views of one seat."""
        return changes.changed_places(old, new)

    def written_key(self, text: str) -> tuple | None:
        """A move written out in a reply, reduced to what identifies it (or None)."""
        return mail_grammar.written_key(text)

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
            from engines.mercatores import bot_hard  # loaded only by a game that uses it

            return bot_hard.choose_move(self, view, legal_moves, rng)
        return bot_normal.choose_move(view, legal_moves, rng)


ENGINE = Mercatores()

__all__ = ["ENGINE", "Mercatores"]
