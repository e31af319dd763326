"""The order of play: phases, title checks between them, and the end of the game.

A turn is Trade, Build, War (rules 'A turn'); titles are checked at the start of each
phase (rules 'Titles'); the game ends by a victory in the Build phase or by the optional
turn limit after a War phase.
"""

from __future__ import annotations

from engines.mare_nostrum.data import GOODS_KINDS, TITLE_NAMES, TITLES
from engines.mare_nostrum.income import pay_income
from engines.mare_nostrum.state import (
    ARTEMIS,
    BUILD,
    KEEP,
    NAME_BUILDER,
    NAME_WARRIOR,
    OVER,
    TITLE_CHOICE,
    TRADE_NUMBER,
    WAR,
    State,
    civ_name,
    civ_of,
    controlled,
    hand_size,
    players,
    say,
)
from engines.mare_nostrum.titles import challengers

MAUSOLEUM_KEEP = 4
COINS_KEPT = 2


def begin_phase(state: State, phase: str) -> None:
    """Checks the titles, then opens ``phase`` ("trade", "build" or "war")."""
    state["title_check"] = {"phase": phase, "left": list(TITLES)}
    continue_titles(state)


def continue_titles(state: State) -> None:
    check = state["title_check"]
    while check["left"]:
        title = check["left"][0]
        found = challengers(state, title)
        if len(found) > 1:
            # Tied challengers: the holder chooses among them (rules 'Titles').
            state["phase"] = TITLE_CHOICE
            check["candidates"] = found
            return
        check["left"].pop(0)
        check.pop("candidates", None)
        if found:
            hand_title(state, title, found[0])
    phase = check["phase"]
    state["title_check"] = None
    {"trade": enter_trade, "build": enter_build, "war": enter_war}[phase](state)


def hand_title(state: State, title: str, seat: int) -> None:
    old = state["titles"][title]
    state["titles"][title] = seat
    say(
        state,
        f"{civ_name(civ_of(state, seat))} takes the title of {TITLE_NAMES[title]} "
        f"from {civ_name(civ_of(state, old))}.",
    )


def enter_trade(state: State) -> None:
    pay_income(state)
    state["artemis"] = [
        seat
        for seat in players(state)
        if "temple_of_artemis" in state["cards"][seat]
        and any(state["bank"][kind] for kind in GOODS_KINDS)
    ]
    if state["artemis"]:
        state["phase"] = ARTEMIS
    else:
        start_trading(state)


def start_trading(state: State) -> None:
    state["artemis"] = []
    state["trade"] = None
    state["phase"] = TRADE_NUMBER


def enter_build(state: State) -> None:
    state["trade"] = None
    state["build"] = {"done": [], "current": None, "cleopatra": False, "hammurabi": False}
    next_builder(state)


def next_builder(state: State) -> None:
    build = state["build"]
    build["current"] = None
    left = [seat for seat in players(state) if seat not in build["done"]]
    if not left:
        end_build_phase(state)
    elif len(left) == 1:
        start_builder(state, left[0])
    else:
        state["phase"] = NAME_BUILDER


def start_builder(state: State, seat: int) -> None:
    build = state["build"]
    build.update(current=seat, cleopatra=False, hammurabi=False)
    state["phase"] = BUILD


def end_build_phase(state: State) -> None:
    """Rules 'Build' 5: goods are discarded, at most 2 coins kept (Mausoleum: 4 cards)."""
    state["placed"] = []
    keeper = None
    for seat in players(state):
        hand = state["hands"][seat]
        if "mausoleum" in state["cards"][seat]:
            if hand_size(hand) > MAUSOLEUM_KEEP:
                keeper = seat
            continue
        keep_cards(state, seat, {"coin": min(COINS_KEPT, hand["coin"])})
    say(state, "End of building: every player discards down to the cards they may keep.")
    if keeper is not None:
        state["phase"] = KEEP
        state["keeper"] = keeper
    else:
        begin_phase(state, "war")


def keep_cards(state: State, seat: int, kept: dict[str, int]) -> None:
    hand, bank = state["hands"][seat], state["bank"]
    for kind, n in hand.items():
        gone = n - kept.get(kind, 0)
        bank[kind] += gone
        hand[kind] = n - gone


def enter_war(state: State) -> None:
    state["build"] = None
    state["keeper"] = None
    state["war"] = {"done": [], "current": None, "moved": {}, "attacked": {}, "both": {}}
    next_warrior(state)


def next_warrior(state: State) -> None:
    war = state["war"]
    war.update(current=None, moved={}, attacked={}, both={})
    left = [seat for seat in players(state) if seat not in war["done"]]
    if not left:
        end_turn(state)
    elif len(left) == 1:
        start_warrior(state, left[0])
    else:
        state["phase"] = NAME_WARRIOR


def start_warrior(state: State, seat: int) -> None:
    state["war"]["current"] = seat
    state["war_serial"] += 1
    state["phase"] = WAR


def end_turn(state: State) -> None:
    state["war"] = None
    limit = state["options"]["turn_limit"]
    if limit and state["turn"] >= limit:
        finish_by_limit(state)
        return
    state["turn"] += 1
    begin_phase(state, "trade")


def great_cards(state: State, seat: int) -> int:
    return len(state["cards"][seat])


def finish(state: State, winners: list[int], reason: str) -> None:
    state["phase"] = OVER
    state["winners"] = sorted(winners)
    state["end_reason"] = reason
    for key in ("trade", "build", "war", "title_check", "keeper"):
        state[key] = None
    state["artemis"] = []
    say(state, reason)


def finish_by_limit(state: State) -> None:
    """Optional turn limit: most heroes and wonders, then most provinces; ties stand."""

    def rank(seat: int) -> tuple[int, int]:
        return great_cards(state, seat), len(controlled(state, civ_of(state, seat)))

    best = max(rank(seat) for seat in players(state))
    winners = [seat for seat in players(state) if rank(seat) == best]
    names = " and ".join(civ_name(civ_of(state, seat)) for seat in winners)
    verb = "wins" if len(winners) == 1 else "share the win"
    finish(state, winners, f"The turn limit is reached after turn {state['turn']}: {names} {verb}.")
