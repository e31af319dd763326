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
the moves in the rules' order, since a greedy player takes the first of equally good
moves.

Each seat's counts are held once per search (``Holdings``, compared by identity), with
what depends on them alone worked out once, and a greedy choice is remembered by what it
depends on: the seat's step, holdings and coins and what its special cards count of the
others (their goods of its Trade Routes' kinds, its neighbours' ships for its Quays).
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
# index (goods and Trade Routes, else -1), its ships, a Quay's arrows, and what its
# profit table pays for every count a position can reach (all the ships, doubled).
_FIRST = {CLASS_OF[card]: CARDS[card] for card in reversed(CARD_ORDER)}
_MOST = 2 * sum(CARDS[card]["ships"] for card in CARD_ORDER) + len(CARD_ORDER)
CLASS_KIND = tuple(_FIRST[c]["kind"] for c in range(CLASS_COUNT))
CLASS_GOODS = tuple(KIND_INDEX.get(_FIRST[c]["goods"], -1) for c in range(CLASS_COUNT))
CLASS_SHIPS = tuple(_FIRST[c]["ships"] for c in range(CLASS_COUNT))
CLASS_ARROWS = tuple(_FIRST[c].get("arrows", ()) for c in range(CLASS_COUNT))
CLASS_PAYS = tuple(
    tuple(pays(_FIRST[c]["table"], count) for count in range(_MOST + 1)) for c in range(CLASS_COUNT)
)
KIND_PAYS = tuple(
    tuple(pays(GOODS_TABLES[kind], count) for count in range(_MOST + 1)) for kind in GOODS_KINDS
)
GOODS_CLASSES = tuple(
    tuple(c for c in range(CLASS_COUNT) if CLASS_KIND[c] == "goods" and CLASS_GOODS[c] == k)
    for k in range(len(GOODS_KINDS))
)

# Moves: (TAX_MOVE, class), (PILE_MOVE, goods kind), (SPECIAL_MOVE, class, opponent or -1).
TAX_MOVE, PILE_MOVE, SPECIAL_MOVE = 0, 1, 2


def counts_of(cards: Sequence[str]) -> tuple[int, ...]:
    """Cards as their count in each class."""
    counts = [0] * CLASS_COUNT
    for card in cards:
        counts[CLASS_OF[card]] += 1
    return tuple(counts)


class Holdings:
    """One seat's resources as counts, with what the rules and the bot's yardstick read
    from them alone. One object per counts within a search, so identity is equality."""

    __slots__ = (
        "counts",
        "piles",
        "ships",
        "held",
        "has_goods",
        "kinds_held",
        "own_pay",
        "taxes",
        "specials",
        "counting",
        "tr_kinds",
        "quay_arrows",
        "after",
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
        self.kinds_held = sum(1 for n in piles if n)
        self.specials = tuple(specials)
        # What the piles and Warehouses would pay now; Quays and Trade Routes (the cards
        # that count other players' things) are ``counting``.
        own_pay = sum(KIND_PAYS[k][n] for k, n in enumerate(piles) if n)
        counting = []
        for c, count in specials:
            if CLASS_KIND[c] == "warehouse":
                own_pay += count * CLASS_PAYS[c][self.kinds_held]
            else:
                counting.append((c, count))
        self.own_pay = own_pay
        self.counting = tuple(counting)
        # Tax: one goods card of each class held, in class order (``moves.tax_moves``).
        self.taxes = tuple(
            c for c, count in enumerate(counts) if count and CLASS_KIND[c] == "goods"
        )
        self.tr_kinds = tuple(
            sorted({CLASS_GOODS[c] for c, _ in specials if CLASS_KIND[c] == "trade_route"})
        )
        self.quay_arrows = frozenset(
            arrow for c, _ in specials if CLASS_KIND[c] == "quay" for arrow in CLASS_ARROWS[c]
        )
        self.after: dict[tuple, Holdings] = {}


# A position: (phase, step, turn, unloading, coins, Holdings per seat). The round starts
# with the Unloading card's holder (``turns.begin_round``), so it needs no field.
Position = tuple


class Search:
    """One look-ahead's positions for a table of ``seats`` with the Captain at ``captain``;
    ``later`` is what a coin the resources would still pay is worth now."""

    def __init__(self, seats: int, captain: int | None, later: float):
        self.seats = seats
        self.captain = captain
        self.later = later
        self.others = tuple(
            tuple(other for other in range(seats) if other != seat) for seat in range(seats)
        )
        # A Quay's ships per seat: (own ships' factor, the seats whose ships count, and
        # their factor); with two players "left + right" counts both seats twice
        # (``scoring.quay_ships``).
        self.quays: dict[tuple[int, int], tuple[int, tuple[int, ...], int]] = {}
        for c in range(CLASS_COUNT):
            if CLASS_KIND[c] != "quay":
                continue
            arrows = CLASS_ARROWS[c]
            for seat in range(seats):
                if seats == 2 and set(arrows) == {"left", "right"}:
                    self.quays[c, seat] = (2, (1 - seat,), 2)
                    continue
                whose = {"left": (seat + 1) % seats, "right": (seat - 1) % seats}
                counted = tuple(whose[arrow] for arrow in arrows if arrow != "self")
                self.quays[c, seat] = (1 if "self" in arrows else 0, counted, 1)
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
            tuple(self.holdings(counts_of(cards)) for cards in state.resources),
        )

    # ------------------------------------------------------------ rules

    def legal(self, position: Position) -> list[tuple]:
        """The moves of the seat to move, in the order ``moves.legal_moves`` lists them."""
        _, step, seat, _, _, holdings = position
        own = holdings[seat]
        key = (seat, step, own)
        moves = self._moves.get(key)
        if moves is None:
            if step == TAX:
                moves = [(TAX_MOVE, c) for c in own.taxes]
            else:
                moves = [(PILE_MOVE, k) for k, n in enumerate(own.piles) if n]
                for c, _ in own.specials:
                    if CLASS_KIND[c] == "trade_route":
                        moves.extend((SPECIAL_MOVE, c, other) for other in self.others[seat])
                    else:
                        moves.append((SPECIAL_MOVE, c, -1))
            self._moves[key] = moves
        return moves

    def quay_ships(self, c: int, seat: int, own: Holdings, holdings: tuple) -> int:
        """Ships Quay class ``c`` counts for ``seat`` holding ``own``."""
        factor, counted, their_factor = self.quays[c, seat]
        return factor * own.ships + their_factor * sum(holdings[other].ships for other in counted)

    def outcome(self, seat: int, holdings: tuple, move: tuple) -> tuple[int, Holdings]:
        """The coins ``move`` pays the seat to move and the holdings it leaves."""
        own = holdings[seat]
        left = own.after.get(move[:2])
        if left is None:
            counts = list(own.counts)
            if move[0] == PILE_MOVE:
                for c in GOODS_CLASSES[move[1]]:
                    counts[c] = 0
            else:
                counts[move[1]] -= 1
            left = own.after[move[:2]] = self.holdings(tuple(counts))
        if move[0] == TAX_MOVE:
            return 0, left
        if move[0] == PILE_MOVE:
            return KIND_PAYS[move[1]][own.piles[move[1]]], left
        c = move[1]
        kind = CLASS_KIND[c]
        if kind == "warehouse":
            count = own.kinds_held
        elif kind == "quay":
            count = self.quay_ships(c, seat, own, holdings)
        else:
            goods = CLASS_GOODS[c]
            count = own.piles[goods] + holdings[move[2]].piles[goods]
        return CLASS_PAYS[c][count], left

    def apply(self, position: Position, move: tuple) -> Position:
        """The position after the seat to move makes ``move`` (one of ``legal``)."""
        _, _, seat, unloading, coins, holdings = position
        gain, left = self.outcome(seat, holdings, move)
        holdings = holdings[:seat] + (left,) + holdings[seat + 1 :]
        if move[0] == TAX_MOVE:
            if not left.held:
                return self.end_turn(seat, unloading, coins, holdings)
            return (PROFIT, CASH, seat, unloading, coins, holdings)
        coins = coins[:seat] + (coins[seat] + gain,) + coins[seat + 1 :]
        return self.end_turn(seat, unloading, coins, holdings)

    def end_turn(self, seat: int, unloading: int, coins: tuple, holdings: tuple) -> Position:
        """The next seat with resources in this round; after the round the Unloading card
        passes to the left (``turns.end_profit_turn``, ``begin_round``)."""
        n = self.seats
        if not any(own.held for own in holdings):
            return (OVER, "", seat, unloading, coins, holdings)
        following = (seat + 1) % n
        while following != unloading:
            if holdings[following].held:
                return self.begin_turn(following, unloading, coins, holdings)
            following = (following + 1) % n
        holder = (unloading + 1) % n
        for offset in range(n):
            following = (holder + offset) % n
            if holdings[following].held:
                return self.begin_turn(following, holder, coins, holdings)
        return (OVER, "", seat, holder, coins, holdings)

    def begin_turn(self, seat: int, unloading: int, coins: tuple, holdings: tuple) -> Position:
        """Tax first, unless the Unloading card's holder or a seat without goods."""
        owes_tax = seat != unloading and holdings[seat].has_goods
        return (PROFIT, TAX if owes_tax else CASH, seat, unloading, coins, holdings)

    # ------------------------------------------------------------ the bot's yardstick

    def prospects(self, seat: int, own: Holdings, holdings: tuple) -> int:
        """What ``own`` would pay now, cashed card by card, the others holding
        ``holdings`` (a Trade Route against the opponent it pays most against)."""
        total = own.own_pay
        for c, count in own.counting:
            if CLASS_KIND[c] == "quay":
                total += count * CLASS_PAYS[c][self.quay_ships(c, seat, own, holdings)]
                continue
            goods, table = CLASS_GOODS[c], CLASS_PAYS[c]
            mine, best = own.piles[goods], 0
            for other in self.others[seat]:
                best = max(best, table[mine + holdings[other].piles[goods]])
            total += count * best
        return total

    def standing(self, position: Position, seat: int) -> float:
        """Coins (the Captain's 2 among them), plus what the resources would pay now
        (discounted), for one seat (``bot_normal``'s yardstick)."""
        coins, holdings = position[4], position[5]
        captain = CAPTAIN_VALUE if self.captain == seat else 0
        return float(coins[seat] + captain) + self.later * self.prospects(
            seat, holdings[seat], holdings
        )

    def margin(self, position: Position, seat: int) -> float:
        """One's standing against the best other player's."""
        mine = self.standing(position, seat)
        return mine - max(self.standing(position, other) for other in self.others[seat])

    def sight(self, seat: int, own: Holdings, holdings: tuple) -> tuple:
        """What ``own``'s special cards count of the others: their goods of its Trade
        Routes' kinds (seat by seat) and their ships its Quays count."""
        if not own.counting:
            return ()
        piles = tuple(
            holdings[other].piles[goods] for goods in own.tr_kinds for other in self.others[seat]
        )
        n, arrows = self.seats, own.quay_arrows
        left = holdings[(seat + 1) % n].ships if "left" in arrows else -1
        right = holdings[(seat - 1) % n].ships if "right" in arrows else -1
        return piles, left, right

    def greedy_step(self, position: Position) -> Position:
        """The seat to move takes the move that leaves it best placed (the first of
        equally good ones)."""
        _, step, seat, _, coins, holdings = position
        own = holdings[seat]
        key = (seat, step, own, coins[seat], self.sight(seat, own, holdings))
        chosen = self._choices.get(key)
        if chosen is None:
            captain = CAPTAIN_VALUE if self.captain == seat else 0
            best = None
            for move in self.legal(position):
                gain, left = self.outcome(seat, holdings, move)
                value = float(coins[seat] + gain + captain) + self.later * self.prospects(
                    seat, left, holdings
                )
                if best is None or value > best:
                    chosen, best = move, value
            if chosen is None:
                raise ValueError("The seat to move has no move.")
            self._choices[key] = chosen
        return self.apply(position, chosen)

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
