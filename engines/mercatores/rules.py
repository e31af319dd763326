"""Mercatores rules: setup, whose turn, legal moves, applying a move, the result.

Rules cited by section refer to the project's rules file for Mercatores.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from itertools import combinations
from typing import Any

from engines.api import Chance, IllegalMove, MalformedMove, Result
from engines.mercatores.data import (
    CAPTAIN_VALUE,
    CARDS,
    GOODS_KINDS,
    GOODS_NAMES,
    GOODS_OF,
    GOODS_TABLES,
    HAND_SIZE,
    INVESTMENT_END_CARDS,
    MARKET_SIZE,
    SEAT_NAMES,
)
from engines.mercatores.state import (
    CASH,
    END_BY_CARDS,
    END_BY_DECK,
    INVESTMENT,
    LOAD,
    OVER,
    PROFIT,
    TAX,
    TRADE,
    State,
    kinds_held,
    ordered,
    pile,
    replace_at,
    ships,
    without,
)

LOAD_WAYS = ("one_kind", "two_kinds", "special")


# ---------------------------------------------------------------- profit arithmetic


def pays(table: tuple[tuple[int, int], ...], count: int) -> int:
    """Coins of the highest threshold reached; 0 below the lowest."""
    coins = 0
    for threshold, value in table:
        if count >= threshold:
            coins = value
    return coins


def left_of(seat: int, seats: int) -> int:
    return (seat + 1) % seats


def right_of(seat: int, seats: int) -> int:
    return (seat - 1) % seats


def quay_ships(state: State, seat: int, arrows: tuple[str, ...]) -> int:
    """Ships a Quay counts: 'Special cards count' (two players: left + right doubles)."""
    n = state.seats
    if n == 2 and set(arrows) == {"left", "right"}:
        return 2 * (ships(state.resources[seat]) + ships(state.resources[1 - seat]))
    whose = {"self": seat, "left": left_of(seat, n), "right": right_of(seat, n)}
    return sum(ships(state.resources[whose[arrow]]) for arrow in arrows)


def special_count(state: State, seat: int, card: str, opponent: int | None) -> int:
    """What a special card counts at this moment (rules 'Special cards count')."""
    info = CARDS[card]
    own = state.resources[seat]
    if info["kind"] == "warehouse":
        return len(kinds_held(own))
    if info["kind"] == "quay":
        return quay_ships(state, seat, info["arrows"])
    kind = info["goods"]
    return len(pile(own, kind)) + len(pile(state.resources[opponent], kind))


def cash_value(state: State, seat: int, move: Mapping[str, Any]) -> tuple[int, int]:
    """(count, coins) of a well-formed, legal cash move."""
    if "pile" in move:
        count = len(pile(state.resources[seat], move["pile"]))
        return count, pays(GOODS_TABLES[move["pile"]], count)
    card = move["special"]
    count = special_count(state, seat, card, move.get("opponent"))
    return count, pays(CARDS[card]["table"], count)


# ---------------------------------------------------------------- setup and turns


def draw(deck: list[str], chance: Chance) -> str:
    """One card drawn at random from the canonically ordered deck."""
    return deck.pop(chance.below(len(deck)))


def setup(seats: int, options: Mapping[str, Any], chance: Chance) -> State:
    """Rules 'Setup': five secret cards per player, then a market of five."""
    end_cards = options.get("end_cards", INVESTMENT_END_CARDS)
    deck = list(CARDS)
    hands = tuple(ordered(draw(deck, chance) for _ in range(HAND_SIZE)) for _ in range(seats))
    market = ordered(draw(deck, chance) for _ in range(MARKET_SIZE))
    return State(
        seats=seats,
        end_cards=end_cards,
        phase=INVESTMENT,
        step=TRADE,
        turn=0,
        round=1,
        deck=tuple(deck),
        market=market,
        hands=hands,
        resources=((),) * seats,
        discard=(),
        coins=(0,) * seats,
        captain=None,
        unloading=None,
        end="",
        last_turn=None,
        round_start=0,
    )


def to_move(state: State) -> frozenset[int]:
    if state.phase == OVER:
        return frozenset()
    return frozenset((state.turn,))


def may_empty_hand(state: State, seat: int, resources_after: int) -> bool:
    """The hand minimum and its exceptions (rules 'Investment phase')."""
    return bool(state.end) or resources_after >= state.end_cards


def end_investment_turn(state: State, chance: Chance) -> State:
    """Refill the market, check both ends of the phase, pass the turn."""
    deck = list(state.deck)
    market = list(state.market)
    while len(market) < MARKET_SIZE and deck:
        market.append(draw(deck, chance))
    state = replace(state, deck=tuple(deck), market=ordered(market))
    seat, n = state.turn, state.seats
    if not state.end:
        if len(state.resources[seat]) >= state.end_cards:
            # 'End of the investment phase': Captain and Unloading, one more turn each.
            state = replace(
                state, end=END_BY_CARDS, captain=seat, unloading=seat, last_turn=(seat - 1) % n
            )
        elif len(market) < MARKET_SIZE:
            # The deck is empty: the phase ends with the last seat's turn of this round.
            state = replace(state, end=END_BY_DECK, last_turn=n - 1)
    if state.end and seat == state.last_turn:
        return start_profit(state)
    following = (seat + 1) % n
    return replace(
        state,
        turn=following,
        step=TRADE,
        round=state.round + 1 if following == 0 else state.round,
    )


def most_resources(state: State) -> int:
    """The seat with the most cards in resources; a tie goes to the earliest seat."""
    counts = [len(cards) for cards in state.resources]
    return counts.index(max(counts))


def start_profit(state: State) -> State:
    """Discard hands and market; the Captain's holder opens the profit phase."""
    captain = state.captain if state.captain is not None else most_resources(state)
    thrown = [card for hand in state.hands for card in hand] + list(state.market)
    state = replace(
        state,
        phase=PROFIT,
        hands=((),) * state.seats,
        market=(),
        discard=ordered(state.discard + tuple(thrown)),
        captain=captain,
        unloading=captain,
        round=1,
        round_start=captain,
        last_turn=None,
    )
    return begin_round(state)


def begin_round(state: State) -> State:
    """The first seat from the Unloading card's holder with resources takes a turn."""
    n = state.seats
    for offset in range(n):
        seat = (state.round_start + offset) % n
        if state.resources[seat]:
            return begin_profit_turn(state, seat)
    return replace(state, phase=OVER, step="")


def begin_profit_turn(state: State, seat: int) -> State:
    """Tax first, unless the Unloading card's holder or a player without goods."""
    owes_tax = seat != state.unloading and any(card in GOODS_OF for card in state.resources[seat])
    return replace(state, turn=seat, step=TAX if owes_tax else CASH)


def end_profit_turn(state: State) -> State:
    """Next seat with resources in this round; after the round the Unloading card passes."""
    n = state.seats
    if not any(state.resources):
        return replace(state, phase=OVER, step="")
    seat = (state.turn + 1) % n
    while seat != state.round_start:
        if state.resources[seat]:
            return begin_profit_turn(state, seat)
        seat = (seat + 1) % n
    holder = left_of(state.unloading, n)
    return begin_round(replace(state, unloading=holder, round_start=holder, round=state.round + 1))


# ---------------------------------------------------------------- legal moves


def card_class(card: str) -> tuple:
    """Cards of one class are alike in every rule: legal moves list one of each."""
    info = CARDS[card]
    if info["kind"] == "goods":
        return (info["goods"], info["ships"])
    return (info["kind"], info["goods"], info["arrows"])


def representatives(cards: tuple[str, ...]) -> list[str]:
    seen: set[tuple] = set()
    chosen = []
    for card in cards:
        key = card_class(card)
        if key not in seen:
            seen.add(key)
            chosen.append(card)
    return chosen


def distinct_takes(market: tuple[str, ...], count: int) -> list[list[str]]:
    seen: set[tuple] = set()
    takes = []
    for chosen in combinations(market, count):
        key = tuple(sorted(card_class(card) for card in chosen))
        if key not in seen:
            seen.add(key)
            takes.append(list(chosen))
    return takes


def take_count(state: State, give: str) -> int:
    """Two cards for goods, three for a special card, or all the market holds."""
    wanted = 2 if give in GOODS_OF else 3
    return min(wanted, len(state.market))


def trade_moves(state: State, seat: int) -> list[dict]:
    moves = []
    for give in representatives(state.hands[seat]):
        for take in distinct_takes(state.market, take_count(state, give)):
            moves.append({"type": "trade", "give": give, "take": take})
    return moves


def load_choices(hand: tuple[str, ...]) -> list[tuple[str, list[str]]]:
    """Every distinct load of a hand, as (way, cards)."""
    choices: list[tuple[str, list[str]]] = []
    by_kind: dict[str, list[list[str]]] = {}
    for card in hand:
        if card in GOODS_OF:
            by_ships = by_kind.setdefault(GOODS_OF[card], [[], [], []])
            by_ships[CARDS[card]["ships"]].append(card)
    for kind in GOODS_KINDS:
        if kind not in by_kind:
            continue
        none, one, two = by_kind[kind]
        for a in range(len(none) + 1):
            for b in range(len(one) + 1):
                for c in range(len(two) + 1):
                    if a + b + c:
                        choices.append(("one_kind", ordered(none[:a] + one[:b] + two[:c])))
    kinds = [kind for kind in GOODS_KINDS if kind in by_kind]
    for first, second in combinations(kinds, 2):
        for x in representatives(tuple(card for group in by_kind[first] for card in group)):
            for y in representatives(tuple(card for group in by_kind[second] for card in group)):
                choices.append(("two_kinds", ordered((x, y))))
    for card in representatives(tuple(card for card in hand if card not in GOODS_OF)):
        choices.append(("special", [card]))
    return [(way, list(cards)) for way, cards in choices]


def load_moves(state: State, seat: int) -> list[dict]:
    hand = state.hands[seat]
    held = len(state.resources[seat])
    return [
        {"type": "load", "way": way, "cards": cards}
        for way, cards in load_choices(hand)
        if len(cards) < len(hand) or may_empty_hand(state, seat, held + len(cards))
    ]


def tax_moves(state: State, seat: int) -> list[dict]:
    goods = tuple(card for card in state.resources[seat] if card in GOODS_OF)
    return [{"type": "tax", "card": card} for card in representatives(goods)]


def cash_moves(state: State, seat: int) -> list[dict]:
    own = state.resources[seat]
    moves: list[dict] = [{"type": "cash", "pile": kind} for kind in kinds_held(own)]
    specials = tuple(card for card in own if card not in GOODS_OF)
    for card in representatives(specials):
        if CARDS[card]["kind"] == "trade_route":
            for opponent in range(state.seats):
                if opponent != seat:
                    moves.append({"type": "cash", "special": card, "opponent": opponent})
        else:
            moves.append({"type": "cash", "special": card})
    return moves


def legal_moves(state: State, seat: int) -> list[dict]:
    if seat not in to_move(state):
        return []
    return {TRADE: trade_moves, LOAD: load_moves, TAX: tax_moves, CASH: cash_moves}[state.step](
        state, seat
    )


# ---------------------------------------------------------------- move shapes

SHAPES: dict[str, dict[str, type]] = {
    "trade": {"give": str, "take": list},
    "load": {"way": str, "cards": list},
    "tax": {"card": str},
}
CASH_FIELDS = {"type", "pile", "special", "opponent"}


def check_field(move: Mapping[str, Any], name: str, kind: type) -> None:
    value = move[name]
    if kind is int:
        ok = type(value) is int
    elif kind is list:
        ok = isinstance(value, list) and all(isinstance(item, str) for item in value)
    else:
        ok = isinstance(value, kind)
    if not ok:
        wanted = {str: "a card id", list: "a list of card ids", int: "a seat number"}[kind]
        raise MalformedMove(f"The field {name!r} of a {move['type']} move must be {wanted}.")


def check_shape(move: Any) -> None:
    """Rejects anything that is not a well-formed move of this game."""
    if not isinstance(move, Mapping):
        raise MalformedMove("A move must be a JSON object with a 'type'.")
    kind = move.get("type")
    if kind not in ("trade", "load", "tax", "cash"):
        raise MalformedMove(f"Mercatores has no move of type {kind!r}.")
    if kind == "cash":
        extra = sorted(set(move) - CASH_FIELDS)
        if extra:
            raise MalformedMove(f"A cash move has no field {extra[0]!r}.")
        if ("pile" in move) == ("special" in move):
            raise MalformedMove("Cash in exactly one thing: name a 'pile' or a 'special' card.")
        if "pile" in move:
            if "opponent" in move:
                raise MalformedMove("Only a Trade Route names an opponent.")
            if move["pile"] not in GOODS_NAMES:
                raise MalformedMove(f"There are no goods called {move['pile']!r}.")
            return
        check_field(move, "special", str)
        if "opponent" in move:
            check_field(move, "opponent", int)
        check_cards(move, [move["special"]])
        return
    fields = SHAPES[kind]
    extra = sorted(set(move) - set(fields) - {"type"})
    if extra:
        raise MalformedMove(f"A {kind} move has no field {extra[0]!r}.")
    for name, field_type in fields.items():
        if name not in move:
            raise MalformedMove(f"A {kind} move needs the field {name!r}.")
        check_field(move, name, field_type)
    named = {"trade": lambda: [move["give"], *move["take"]], "load": lambda: move["cards"]}
    check_cards(move, named.get(kind, lambda: [move["card"]])())
    if kind == "load" and move["way"] not in LOAD_WAYS:
        raise MalformedMove("The way of loading must be one_kind, two_kinds or special.")


def check_cards(move: Mapping[str, Any], cards: list[str]) -> None:
    for card in cards:
        if card not in CARDS:
            raise MalformedMove(f"There is no card called {card!r}.")


# ---------------------------------------------------------------- applying moves


def apply(state: State, seat: int, move: Mapping[str, Any], chance: Chance) -> State:
    check_shape(move)
    if state.phase == OVER:
        raise IllegalMove("The game is over: no more moves.")
    if seat not in to_move(state):
        raise IllegalMove(f"It is not your turn: {SEAT_NAMES[state.turn]} is to move.")
    if move["type"] != state.step:
        raise IllegalMove(wrong_step(state, seat, move["type"]))
    if state.step == TRADE:
        return apply_trade(state, seat, move, chance)
    if state.step == LOAD:
        return apply_load(state, seat, move, chance)
    if state.step == TAX:
        return apply_tax(state, seat, move)
    return apply_cash(state, seat, move)


WRONG_STEP = {
    TRADE: "First trade: put one card from your hand into the market and take cards from it.",
    LOAD: "Now load: play cards from your hand to your resources.",
    TAX: "First pay the tax: discard one goods card from your resources.",
    CASH: "Now cash in one goods pile or one special card.",
}


def wrong_step(state: State, seat: int, kind: str) -> str:
    """Why a move of this type is not the one expected now."""
    if kind == TAX and state.step == CASH:
        if seat == state.unloading:
            return "You hold the Unloading card, so you pay no tax: " + WRONG_STEP[CASH].lower()
        return "You owe no more tax this turn: " + WRONG_STEP[CASH].lower()
    if kind in (TAX, CASH) and state.phase == INVESTMENT:
        return "Taxes and cash-ins belong to the profit phase. " + WRONG_STEP[state.step]
    if kind in (TRADE, LOAD) and state.phase == PROFIT:
        return "The investment phase is over. " + WRONG_STEP[state.step]
    return WRONG_STEP[state.step]


def apply_trade(state: State, seat: int, move: Mapping[str, Any], chance: Chance) -> State:
    """Rules 'Trade': give one card, take 2 (goods given) or 3 (special given)."""
    hand = state.hands[seat]
    give, take = move["give"], move["take"]
    if give not in hand:
        raise IllegalMove(f"You do not hold {describe_card(give)} in your hand.")
    if give in take:
        raise IllegalMove("You may not take back the card you have just put into the market.")
    if len(set(take)) != len(take):
        raise IllegalMove("You cannot take the same card twice.")
    for card in take:
        if card not in state.market:
            raise IllegalMove(f"{describe_card(card)} is not in the market.")
    wanted = take_count(state, give)
    if len(take) != wanted:
        given = "a goods card" if give in GOODS_OF else "a special card"
        if wanted < (2 if give in GOODS_OF else 3):
            raise IllegalMove(f"The market holds only {wanted} other cards: take all of them.")
        raise IllegalMove(f"After giving {given} you take exactly {wanted} cards from the market.")
    new_hand = ordered(without(hand, [give]) + tuple(take))
    state = replace(
        state,
        hands=replace_at(state.hands, seat, new_hand),
        market=ordered(without(state.market, take) + (give,)),
        step=LOAD,
    )
    if not new_hand:
        # Nothing left to load (possible only when the deck has run out): the turn ends.
        return end_investment_turn(state, chance)
    return state


def apply_load(state: State, seat: int, move: Mapping[str, Any], chance: Chance) -> State:
    """Rules 'Load': one kind, two different kinds, or one special card."""
    hand = state.hands[seat]
    cards, way = move["cards"], move["way"]
    if not cards:
        raise IllegalMove("Load at least one card from your hand.")
    if len(set(cards)) != len(cards):
        raise IllegalMove("You cannot load the same card twice.")
    for card in cards:
        if card not in hand:
            raise IllegalMove(f"You do not hold {describe_card(card)} in your hand.")
    kinds = [GOODS_OF.get(card) for card in cards]
    if way == "one_kind" and (None in kinds or len(set(kinds)) != 1):
        raise IllegalMove("Loading one kind of goods means goods cards of a single kind only.")
    if way == "two_kinds" and (len(cards) != 2 or None in kinds or kinds[0] == kinds[1]):
        raise IllegalMove("Loading two different goods means exactly two goods cards of two kinds.")
    if way == "special" and (len(cards) != 1 or kinds[0] is not None):
        raise IllegalMove("Loading a special card means exactly one special card.")
    new_hand = without(hand, cards)
    resources = ordered(state.resources[seat] + tuple(cards))
    if not new_hand and not may_empty_hand(state, seat, len(resources)):
        raise IllegalMove(
            "Keep at least one card in your hand: only the turn that brings your resources "
            f"to {state.end_cards} cards, or a turn after the end was triggered, may empty it."
        )
    state = replace(
        state,
        hands=replace_at(state.hands, seat, new_hand),
        resources=replace_at(state.resources, seat, resources),
    )
    return end_investment_turn(state, chance)


def apply_tax(state: State, seat: int, move: Mapping[str, Any]) -> State:
    """Rules 'Profit phase', tax: one goods card from resources, not a pile."""
    card = move["card"]
    if card not in state.resources[seat]:
        raise IllegalMove(f"{describe_card(card)} is not in your resources.")
    if card not in GOODS_OF:
        raise IllegalMove("The tax is paid with a goods card, not a special card.")
    resources = without(state.resources[seat], [card])
    state = replace(
        state,
        resources=replace_at(state.resources, seat, resources),
        discard=ordered(state.discard + (card,)),
        step=CASH,
    )
    if not resources:
        return end_profit_turn(state)
    return state


def apply_cash(state: State, seat: int, move: Mapping[str, Any]) -> State:
    """Rules 'Profit phase', cash in: a whole pile or one special card."""
    own = state.resources[seat]
    if "pile" in move:
        gone = pile(own, move["pile"])
        if not gone:
            raise IllegalMove(f"You have no {GOODS_NAMES[move['pile']]} in your resources.")
    else:
        card = move["special"]
        if card not in own:
            raise IllegalMove(f"{describe_card(card)} is not in your resources.")
        if card in GOODS_OF:
            raise IllegalMove("Cash in goods as a whole pile: name the pile, not one card.")
        if CARDS[card]["kind"] == "trade_route":
            opponent = move.get("opponent")
            if opponent is None:
                raise IllegalMove("Name the opponent whose goods your Trade Route counts.")
            if not 0 <= opponent < state.seats or opponent == seat:
                raise IllegalMove("The opponent must be one of the other players.")
        elif "opponent" in move:
            raise IllegalMove("Only a Trade Route names an opponent.")
        gone = [card]
    _, coins = cash_value(state, seat, move)
    state = replace(
        state,
        resources=replace_at(state.resources, seat, without(own, gone)),
        discard=ordered(state.discard + tuple(gone)),
        coins=replace_at(state.coins, seat, state.coins[seat] + coins),
    )
    return end_profit_turn(state)


def describe_card(card: str) -> str:
    return f"{CARDS[card]['name']} ({card})"


# ---------------------------------------------------------------- result


def scores(state: State) -> list[int]:
    return [
        coins + (CAPTAIN_VALUE if seat == state.captain else 0)
        for seat, coins in enumerate(state.coins)
    ]


def result(state: State) -> Result | None:
    """Rules 'Scoring': coins, plus 2 for the Captain; ties stand."""
    if state.phase != OVER:
        return None
    totals = scores(state)
    best = max(totals)
    winners = tuple(seat for seat, total in enumerate(totals) if total == best)
    names = " and ".join(SEAT_NAMES[seat] for seat in winners)
    if len(winners) == 1:
        reason = f"{names} wins with {best} coins."
    else:
        reason = f"{names} share the win with {best} coins each."
    breakdown = {
        "seats": [
            {
                "coins": state.coins[seat],
                "captain": CAPTAIN_VALUE if seat == state.captain else 0,
                "total": totals[seat],
            }
            for seat in range(state.seats)
        ]
    }
    return Result(scores=tuple(totals), winners=winners, breakdown=breakdown, reason=reason)
