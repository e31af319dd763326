"""The profit phase played on counts of card classes, for the normal bot's look-ahead.

The normal bot judges each tax and cash-in of its turn by playing the next turns out
greedily (:mod:`engines.mercatores.bot_normal`): in a four-player game that is thousands
of positions for one move, and on the game's own ``State`` each costs a dataclass copy,
sorted card tuples and lists of piles. In the profit phase hands and market are gone,
nothing is drawn, and cards of one class are alike in every rule (``moves.card_class``),
so a position is each seat's count of every class, the coins, the Unloading card and
whose turn and step it is. ``Search`` plays the profit phase's rules on such positions
(version 1's, which allow every cash-in, as the bot's table does): the tax, the cash-in
(rules 'Profit phase'), the next turn and round (``turns.end_profit_turn``), and lists
the moves in the rules' order, since the greedy players take the first of equally good
moves. What depends on one seat's holdings alone is worked out once per holdings, and
a greedy choice is remembered by what it depends on: the seat's holdings and coins and
what its special cards count of the others (their goods of its Trade Routes' kinds,
its neighbours' ships for its Quays).
"""

from __future__ import annotations

from collections.abc import Sequence

from engines.mercatores.data import CAPTAIN_VALUE, CARD_ORDER, CARDS, GOODS_KINDS, GOODS_TABLES
from engines.mercatores.moves import card_class
from engines.mercatores.scoring import pays
from engines.mercatores.state import CASH, OVER, PROFIT, TAX, State

# The classes in the canonical order of their first card, which is the order in which
# the rules list one card of each class (``moves.representatives``).
CLASS_KEYS: tuple[tuple, ...] = tuple(dict.fromkeys(card_class(card) for card in CARD_ORDER))
CLASS_OF: dict[str, int] = {card: CLASS_KEYS.index(card_class(card)) for card in CARD_ORDER}
CLASS_COUNT = len(CLASS_KEYS)
KIND_INDEX = {kind: index for index, kind in enumerate(GOODS_KINDS)}

# Per class: its kind ("goods", "warehouse", "quay", "trade_route"), the goods kind's
# index (goods and Trade Routes, else -1), its ships, a Quay's arrows, its profit table.
_FIRST = {CLASS_OF[card]: CARDS[card] for card in reversed(CARD_ORDER)}
CLASS_KIND = tuple(_FIRST[c]["kind"] for c in range(CLASS_COUNT))
CLASS_GOODS = tuple(KIND_INDEX.get(_FIRST[c]["goods"], -1) for c in range(CLASS_COUNT))
CLASS_SHIPS = tuple(_FIRST[c]["ships"] for c in range(CLASS_COUNT))
CLASS_ARROWS = tuple(_FIRST[c].get("arrows", ()) for c in range(CLASS_COUNT))
CLASS_TABLE = tuple(_FIRST[c]["table"] for c in range(CLASS_COUNT))
GOODS_CLASSES = tuple(
    tuple(c for c in range(CLASS_COUNT) if CLASS_KIND[c] == "goods" and CLASS_GOODS[c] == k)
    for k in range(len(GOODS_KINDS))
)
KIND_TABLES = tuple(GOODS_TABLES[kind] for kind in GOODS_KINDS)


class Holdings:
    """What the rules and the bot's yardstick read from one seat's counts."""

    __slots__ = (
        "counts",
        "piles",
        "ships",
        "held",
        "has_goods",
        "goods_pay",
        "kinds_held",
        "taxes",
        "specials",
        "tr_kinds",
        "quay_arrows",
    )

    def __init__(self, counts: tuple[int, ...]):
        self.counts = counts
        piles = [0] * len(GOODS_KINDS)
        ships = 0
        specials = []
        for c, count in enumerate(counts):
            if not count:
                continue
            if CLASS_KIND[c] == "goods":
                piles[CLASS_GOODS[c]] += count
                ships += count * CLASS_SHIPS[c]
            else:
                specials.append((c, count))
        self.piles = tuple(piles)
        self.ships = ships
        self.held = any(counts)
        self.has_goods = any(piles)
        self.goods_pay = sum(pays(KIND_TABLES[k], n) for k, n in enumerate(piles) if n)
        self.kinds_held = sum(1 for n in piles if n)
        # Tax: one goods card of each class held, in class order (``moves.tax_moves``).
        self.taxes = tuple(
            c for c, count in enumerate(counts) if count and CLASS_KIND[c] == "goods"
        )
        self.specials = tuple(specials)
        self.tr_kinds = tuple(
            sorted({CLASS_GOODS[c] for c, _ in specials if CLASS_KIND[c] == "trade_route"})
        )
        self.quay_arrows = frozenset(
            arrow for c, _ in specials if CLASS_KIND[c] == "quay" for arrow in CLASS_ARROWS[c]
        )

    def without(self, c: int) -> tuple[int, ...]:
        """The counts after one card of class ``c`` leaves."""
        counts = self.counts
        return counts[:c] + (counts[c] - 1,) + counts[c + 1 :]

    def without_pile(self, kind: int) -> tuple[int, ...]:
        """The counts after the whole pile of one goods kind is cashed."""
        counts = list(self.counts)
        for c in GOODS_CLASSES[kind]:
            counts[c] = 0
        return tuple(counts)


def counts_of(cards: Sequence[str]) -> tuple[int, ...]:
    counts = [0] * CLASS_COUNT
    for card in cards:
        counts[CLASS_OF[card]] += 1
    return tuple(counts)


# A position: (phase, step, turn, unloading, coins, holdings per seat). The round starts
# with the Unloading card's holder (``turns.begin_round``), so it needs no field.
Position = tuple
TAX_MOVE, PILE_MOVE, SPECIAL_MOVE = 0, 1, 2


class Search:
    """One look-ahead's positions for a table of ``seats`` with the Captain at ``captain``;
    ``later`` is what a coin the resources would still pay is worth now."""

    def __init__(self, seats: int, captain: int | None, later: float):
        self.seats = seats
        self.captain = captain
        self.later = later
        self._holdings: dict[tuple[int, ...], Holdings] = {}
        self._moves: dict[tuple, list[tuple]] = {}
        self._choices: dict[tuple, tuple] = {}
        self._turns: dict[Position, Position] = {}

    # ------------------------------------------------------------ positions

    def holdings(self, counts: tuple[int, ...]) -> Holdings:
        found = self._holdings.get(counts)
        if found is None:
            found = self._holdings[counts] = Holdings(counts)
        return found

    def position(self, state: State) -> Position:
        """A profit-phase ``State`` as a position."""
        return (
            state.phase,
            state.step,
            state.turn,
            state.unloading,
            state.coins,
            tuple(self.holdings(counts_of(cards)).counts for cards in state.resources),
        )

    # ------------------------------------------------------------ rules

    def legal(self, position: Position) -> list[tuple]:
        """The moves of the seat to move, in the order ``moves.legal_moves`` lists them."""
        _, step, seat, _, _, holdings = position
        key = (seat, step, holdings[seat])
        moves = self._moves.get(key)
        if moves is None:
            own = self.holdings(holdings[seat])
            if step == TAX:
                moves = [(TAX_MOVE, c) for c in own.taxes]
            else:
                moves = [(PILE_MOVE, k) for k, n in enumerate(own.piles) if n]
                for c, _ in own.specials:
                    if CLASS_KIND[c] == "trade_route":
                        moves.extend(
                            (SPECIAL_MOVE, c, other) for other in range(self.seats) if other != seat
                        )
                    else:
                        moves.append((SPECIAL_MOVE, c, -1))
            self._moves[key] = moves
        return moves

    def quay_ships(self, seat: int, arrows: tuple[str, ...], holdings: tuple) -> int:
        """Ships a Quay counts (``scoring.quay_ships``)."""
        n = self.seats
        ships = [self.holdings(counts).ships for counts in holdings]
        if n == 2 and set(arrows) == {"left", "right"}:
            return 2 * (ships[seat] + ships[1 - seat])
        whose = {"self": seat, "left": (seat + 1) % n, "right": (seat - 1) % n}
        return sum(ships[whose[arrow]] for arrow in arrows)

    def apply(self, position: Position, move: tuple) -> Position:
        """The position after the seat to move makes ``move`` (one of ``legal``)."""
        _, _, seat, unloading, coins, holdings = position
        own = self.holdings(holdings[seat])
        if move[0] == TAX_MOVE:
            left = own.without(move[1])
            holdings = holdings[:seat] + (left,) + holdings[seat + 1 :]
            if not any(left):
                return self.end_turn(seat, unloading, coins, holdings)
            return (PROFIT, CASH, seat, unloading, coins, holdings)
        if move[0] == PILE_MOVE:
            kind = move[1]
            gain = pays(KIND_TABLES[kind], own.piles[kind])
            left = own.without_pile(kind)
        else:
            c, other = move[1], move[2]
            kind = CLASS_KIND[c]
            if kind == "warehouse":
                count = own.kinds_held
            elif kind == "quay":
                count = self.quay_ships(seat, CLASS_ARROWS[c], holdings)
            else:
                goods = CLASS_GOODS[c]
                count = own.piles[goods] + self.holdings(holdings[other]).piles[goods]
            gain = pays(CLASS_TABLE[c], count)
            left = own.without(c)
        coins = coins[:seat] + (coins[seat] + gain,) + coins[seat + 1 :]
        holdings = holdings[:seat] + (left,) + holdings[seat + 1 :]
        return self.end_turn(seat, unloading, coins, holdings)

    def end_turn(self, seat: int, unloading: int, coins: tuple, holdings: tuple) -> Position:
        """The next seat with resources in this round; after the round the Unloading card
        passes to the left (``turns.end_profit_turn``, ``begin_round``)."""
        n = self.seats
        held = [any(counts) for counts in holdings]
        if not any(held):
            return (OVER, "", seat, unloading, coins, holdings)
        following = (seat + 1) % n
        while following != unloading:
            if held[following]:
                return self.begin_turn(following, unloading, coins, holdings)
            following = (following + 1) % n
        holder = (unloading + 1) % n
        for offset in range(n):
            following = (holder + offset) % n
            if held[following]:
                return self.begin_turn(following, holder, coins, holdings)
        return (OVER, "", seat, holder, coins, holdings)

    def begin_turn(self, seat: int, unloading: int, coins: tuple, holdings: tuple) -> Position:
        """Tax first, unless the Unloading card's holder or a seat without goods."""
        owes_tax = seat != unloading and self.holdings(holdings[seat]).has_goods
        return (PROFIT, TAX if owes_tax else CASH, seat, unloading, coins, holdings)

    # ------------------------------------------------------------ the bot's yardstick

    def sight(self, seat: int, holdings: tuple) -> tuple:
        """What ``seat``'s special cards count of the others: their goods of its Trade
        Routes' kinds (seat by seat) and its neighbours' ships (its Quays)."""
        own = self.holdings(holdings[seat])
        n = self.seats
        others = [self.holdings(holdings[other]) for other in range(n) if other != seat]
        piles = tuple(other.piles[kind] for kind in own.tr_kinds for other in others)
        arrows = own.quay_arrows
        left = self.holdings(holdings[(seat + 1) % n]).ships if "left" in arrows else -1
        right = self.holdings(holdings[(seat - 1) % n]).ships if "right" in arrows else -1
        return piles, left, right

    def standing(self, position: Position, seat: int) -> float:
        """Coins (the Captain's 2 among them), plus what the resources would pay now
        (discounted), for one seat (``bot_normal.standing``)."""
        _, _, _, _, coins, holdings = position
        own = self.holdings(holdings[seat])
        total = float(coins[seat] + (CAPTAIN_VALUE if self.captain == seat else 0))
        prospects = own.goods_pay
        for c, count in own.specials:
            kind = CLASS_KIND[c]
            if kind == "warehouse":
                prospects += count * pays(CLASS_TABLE[c], own.kinds_held)
            elif kind == "quay":
                prospects += count * pays(
                    CLASS_TABLE[c], self.quay_ships(seat, CLASS_ARROWS[c], holdings)
                )
            else:
                goods, best = CLASS_GOODS[c], 0
                for other in range(self.seats):
                    if other != seat:
                        theirs = self.holdings(holdings[other]).piles[goods]
                        best = max(best, pays(CLASS_TABLE[c], own.piles[goods] + theirs))
                prospects += count * best
        return total + self.later * prospects

    def margin(self, position: Position, seat: int) -> float:
        """One's standing against the best other player's (``bot_normal.margin``)."""
        mine = self.standing(position, seat)
        return mine - max(
            self.standing(position, other) for other in range(self.seats) if other != seat
        )

    def greedy_step(self, position: Position) -> Position:
        """The seat to move takes the move that leaves it best placed (the first of
        equally good ones). Remembered by the seat's step, holdings, coins and sight:
        nothing else of the position changes what it takes."""
        _, step, seat, _, coins, holdings = position
        key = (seat, step, holdings[seat], coins[seat], self.sight(seat, holdings))
        move = self._choices.get(key)
        if move is None:
            move = max(
                self.legal(position),
                key=lambda move: self.standing(self.apply(position, move), seat),
            )
            self._choices[key] = move
        return self.apply(position, move)

    def greedy_turn(self, position: Position) -> Position:
        """The player to move plays a whole profit turn (tax, then cash) greedily."""
        for _ in range(2):
            if position[0] != PROFIT:
                return position
            seat = position[2]
            position = self.greedy_step(position)
            if position[2] != seat:
                return position
        return position

    def replies(self, position: Position, turns: int) -> Position:
        """``turns`` greedy turns (the others', then one's own, ...)."""
        for _ in range(turns):
            if position[0] != PROFIT:
                break
            found = self._turns.get(position)
            if found is None:
                found = self._turns[position] = self.greedy_turn(position)
            position = found
        return position


__all__ = ["Search", "counts_of"]
