"""Trade phase b): the Navigator's number, secret offers, the picking chain, compensation.

Rules 'Trade: b) trading'. Income (part a) is in :mod:`income`.
"""

from __future__ import annotations

from engines.api import IllegalMove
from engines.mare_nostrum.data import CARD_KINDS, GOODS_KINDS
from engines.mare_nostrum.flow import begin_phase, start_trading
from engines.mare_nostrum.income import describe_cards, take_from_bank
from engines.mare_nostrum.state import (
    COMPENSATE,
    OFFER,
    TAKE,
    State,
    add,
    civ_name,
    civ_of,
    hand_size,
    players,
    say,
)
from engines.mare_nostrum.words import T, Tn, card_word

OFFER_LIST_LIMIT = 40


def name(state: State, seat: int) -> str:
    return civ_name(civ_of(state, seat))


def counted(cards: list[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for card in cards:
        if card not in CARD_KINDS:
            raise IllegalMove(T("There is no card called %(name)s.", name=repr(card)))
        add(found, card, 1)
    return found


def require_cards(hand: dict[str, int], cards: dict[str, int]) -> None:
    for kind, n in cards.items():
        if hand.get(kind, 0) < n:
            raise IllegalMove(
                Tn(
                    "You do not hold %(num)d %(kind)s card.",
                    "You do not hold %(num)d %(kind)s cards.",
                    n,
                    kind=card_word(kind),
                )
            )


# --- Temple of Artemis ---------------------------------------------------------------


def choose_good(state: State, seat: int, move: dict) -> None:
    good = move["good"]
    if good not in GOODS_KINDS:
        raise IllegalMove(T("The Temple of Artemis gives a goods card: name one of the goods."))
    if not state["bank"][good]:
        raise IllegalMove(
            T("The bank has no %(kind)s left: choose another goods card.", kind=card_word(good))
        )
    take_from_bank(state, seat, {good: 1})
    say(state, f"{name(state, seat)} takes {good} from the bank (Temple of Artemis).")
    state["artemis"].remove(seat)
    if not state["artemis"] or not any(state["bank"][kind] for kind in GOODS_KINDS):
        start_trading(state)


def artemis_moves(state: State) -> list[dict]:
    return [{"type": "choose_good", "good": g} for g in GOODS_KINDS if state["bank"][g]]


# --- The Navigator's number and the offers ---------------------------------------------


def set_trade(state: State, seat: int, move: dict) -> None:
    n = move["n"]
    most = hand_size(state["hands"][seat])
    if not 0 <= n <= most:
        raise IllegalMove(
            T("Name a number from 0 to %(most)d, the size of your own hand.", most=most)
        )
    say(state, f"{name(state, seat)} names {n} card{'s' if n != 1 else ''} for trading.")
    takers = [s for s in players(state) if hand_size(state["hands"][s]) >= n]
    if n == 0 or len(takers) < 2:
        if n:
            say(state, "No one else holds enough cards: there is no trading this turn.")
        begin_phase(state, "build")
        return
    state["trade"] = {
        "n": n,
        "offers": [None] * state["seats"],
        "in": takers,
        "taker": None,
        "history": [],
        "balance": [0] * state["seats"],
    }
    state["phase"] = OFFER


def offer(state: State, seat: int, move: dict) -> None:
    trade = state["trade"]
    if seat not in trade["in"] or trade["offers"][seat] is not None:
        raise IllegalMove(T("You have no offer to make now."))
    if len(move["cards"]) != trade["n"]:
        raise IllegalMove(T("Offer exactly %(num)d cards.", num=trade["n"]))
    cards = counted(move["cards"])
    hand = state["hands"][seat]
    require_cards(hand, cards)
    for kind, n in cards.items():
        hand[kind] -= n
    trade["offers"][seat] = cards
    say(state, f"{name(state, seat)} lays out an offer face down.")
    if all(trade["offers"][s] is not None for s in trade["in"]):
        for s in trade["in"]:
            say(state, f"{name(state, s)} offers {describe_cards(trade['offers'][s])}.")
        trade["taker"] = state["titles"]["navigator"]
        state["phase"] = TAKE
        continue_chain(state)


def offer_options(hand: dict[str, int], n: int) -> list[list[str]]:
    """A canonical list of offers of ``n`` cards: the spare cards first (duplicates, then
    coins), then every other combination in card order up to a limit."""
    spare = []
    for kind in GOODS_KINDS:
        spare += [kind] * max(0, hand[kind] - 1)
    spare += ["coin"] * hand["coin"]
    spare += [kind for kind in GOODS_KINDS if hand[kind]]
    options = [sorted(spare[:n], key=CARD_KINDS.index)]
    kinds = [kind for kind in CARD_KINDS if hand[kind]]

    def walk(start: int, left: int, chosen: list[str]) -> None:
        if len(options) >= OFFER_LIST_LIMIT:
            return
        if left == 0:
            if chosen != options[0]:
                options.append(list(chosen))
            return
        for index in range(start, len(kinds)):
            kind = kinds[index]
            if chosen.count(kind) < hand[kind]:
                walk(index, left - 1, [*chosen, kind])

    walk(0, n, [])
    return options


# --- The picking chain -----------------------------------------------------------------


def may_take(state: State, taker: int, victim: int) -> bool:
    """Not from oneself, not from an empty offer, and not a third exchange in a row
    (A takes from B, B takes from A: A may not now take from B)."""
    trade = state["trade"]
    if victim == taker or not trade["offers"][victim]:
        return False
    history = trade["history"]
    return not (history[-2:] == [[taker, victim], [victim, taker]])


def victims(state: State, taker: int) -> list[int]:
    return [s for s in state["trade"]["in"] if may_take(state, taker, s)]


def continue_chain(state: State) -> None:
    """Rules 'Trade: b)' 4: stop when one offer or none is left or the taker is stuck."""
    trade = state["trade"]
    left = [s for s in trade["in"] if trade["offers"][s]]
    if len(left) >= 2 and victims(state, trade["taker"]):
        return
    end_trading(state)


def take(state: State, seat: int, move: dict) -> None:
    trade = state["trade"]
    victim, card = move["from_seat"], move["card"]
    if victim not in trade["in"] or victim == seat:
        raise IllegalMove(T("Take a card from another player's offer."))
    if not trade["offers"][victim]:
        raise IllegalMove(T("%(who)s has no cards left on offer.", who=f"{{seat:{victim}}}"))
    if not may_take(state, seat, victim):
        raise IllegalMove(
            T(
                "You and %(who)s have just exchanged twice in a row: take from someone else.",
                who=f"{{seat:{victim}}}",
            )
        )
    if trade["offers"][victim].get(card, 0) < 1:
        raise IllegalMove(
            T("%(who)s offers no %(kind)s card.", who=f"{{seat:{victim}}}", kind=card_word(card))
        )
    add(trade["offers"][victim], card, -1)
    state["hands"][seat][card] += 1
    trade["balance"][seat] += 1
    trade["balance"][victim] -= 1
    trade["history"] = [*trade["history"][-1:], [seat, victim]]
    trade["taker"] = victim
    say(state, f"{name(state, seat)} takes {card} from {name(state, victim)}.")
    continue_chain(state)


def end_trading(state: State) -> None:
    trade = state["trade"]
    for s in trade["in"]:
        for kind, n in trade["offers"][s].items():
            state["hands"][s][kind] += n
        trade["offers"][s] = {}
    say(state, "Trading ends; untaken cards go back to their owners.")
    navigator = state["titles"]["navigator"]
    short = [s for s in trade["in"] if trade["balance"][s] < 0 and s != navigator]
    if short and hand_size(state["hands"][navigator]):
        trade["taker"] = None
        trade["short"] = short[0]
        state["phase"] = COMPENSATE
    else:
        begin_phase(state, "build")


def compensate(state: State, seat: int, move: dict) -> None:
    trade = state["trade"]
    if move["to_seat"] != trade["short"]:
        raise IllegalMove(
            T("The card goes to %(who)s, who lost one card.", who=f"{{seat:{trade['short']}}}")
        )
    card = move["card"]
    if card not in CARD_KINDS or not state["hands"][seat][card]:
        raise IllegalMove(T("You hold no %(kind)s card to give.", kind=card_word(card)))
    state["hands"][seat][card] -= 1
    state["hands"][trade["short"]][card] += 1
    short = trade["short"]
    say(state, f"{name(state, seat)} gives {name(state, short)} one card as compensation.")
    say(state, f"The compensation card is {card}.", [seat, short])
    begin_phase(state, "build")


def trade_moves(state: State, seat: int) -> list[dict]:
    phase = state["phase"]
    hand = state["hands"][seat]
    trade = state["trade"]
    if phase == OFFER:
        return [{"type": "offer", "cards": cards} for cards in offer_options(hand, trade["n"])]
    if phase == TAKE:
        return [
            {"type": "take", "from_seat": victim, "card": kind}
            for victim in victims(state, seat)
            for kind in CARD_KINDS
            if trade["offers"][victim].get(kind)
        ]
    if phase == COMPENSATE:
        return [
            {"type": "compensate", "to_seat": trade["short"], "card": kind}
            for kind in CARD_KINDS
            if hand[kind]
        ]
    return [{"type": "set_trade", "n": n} for n in range(hand_size(hand) + 1)]
