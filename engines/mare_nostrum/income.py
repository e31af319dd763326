"""Income: what cities and caravans pay, who receives it, and what a pillage yields.

Rules 'Trade: a) income' and 'War' 6-7: a city pays 1 coin (2 with a temple in the
province), a caravan 1 card of its goods (2 with a market). In an occupied province each
occupying legion holds one building; held buildings pay the occupier, and a held temple
or market doubles only held cities or caravans (an unheld one only the owner's).
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

from engines.mare_nostrum.data import CARD_KINDS, PROVINCE_IDS, TITLES
from engines.mare_nostrum.state import State, add, civ_name, province_read, say, seat_of

TEMPLE = "temple"
MARKET = "market"


def buildings(province: dict[str, Any]) -> list[str]:
    """The province's buildings as keys: "city:<site>", "temple", "caravan:<goods>", "market"."""
    keys = [f"city:{site}" for site in province["cities"]]
    if province["temple"] is not None:
        keys.append(TEMPLE)
    keys += [f"caravan:{goods}" for goods in province["caravans"]]
    if province["market"] is not None:
        keys.append(MARKET)
    return keys


def _pay(province: dict[str, Any], keys: set[str]) -> dict[str, int]:
    """The cards the buildings ``keys`` pay together (doubling only among themselves)."""
    paid: dict[str, int] = {}
    coins = sum(1 for site in province["cities"] if f"city:{site}" in keys)
    if coins:
        add(paid, "coin", coins * (2 if TEMPLE in keys else 1))
    for goods in province["caravans"]:
        if f"caravan:{goods}" in keys:
            add(paid, goods, 2 if MARKET in keys else 1)
    return paid


def best_hold(province: dict[str, Any], legions: int) -> list[str]:
    """The buildings an occupier's legions hold: the most valuable set (rules 'War' 6).

    The engine chooses for the occupier: the set paying the most cards, ties going to the
    first set in building order.
    """
    keys = buildings(province)
    if legions >= len(keys):
        return keys
    best: list[str] = []
    best_value = -1
    for chosen in combinations(keys, legions):
        value = sum(_pay(province, set(chosen)).values())
        if value > best_value:
            best, best_value = list(chosen), value
    return best


def _best_with(province: dict[str, Any], fixed: list[str], legions: int) -> list[str]:
    """``fixed`` and the most valuable choice of the other buildings for the other legions."""
    rest = [key for key in buildings(province) if key not in fixed]
    best: list[str] = []
    best_value = -1
    for chosen in combinations(rest, legions - len(fixed)):
        value = sum(_pay(province, {*fixed, *chosen}).values())
        if value > best_value:
            best, best_value = list(chosen), value
    return [key for key in buildings(province) if key in fixed or key in best]


def held_buildings(province: dict[str, Any]) -> list[str]:
    """What the occupier's legions hold. Version 2 lets the occupier choose (``hold``,
    kept for as many legions as still stand there); otherwise the most valuable set."""
    occupier = province["occupier"]
    if occupier is None:
        return []
    legions = province["legions"].get(occupier, 0)
    chosen = province.get("hold")
    if chosen is None:
        return best_hold(province, legions)
    keys = buildings(province)
    if legions >= len(keys):
        return keys
    return _best_with(province, [key for key in chosen if key in keys][:legions], legions)


def hold_choices(province: dict[str, Any]) -> list[list[str]]:
    """The sets the occupier's legions could hold, when there is more than one."""
    occupier = province["occupier"]
    keys = buildings(province)
    legions = province["legions"].get(occupier, 0) if occupier else 0
    if not 0 < legions < len(keys):
        return []
    return [list(chosen) for chosen in combinations(keys, legions)]


def hold_pending(province: dict[str, Any]) -> bool:
    """Version 2: the occupier has a choice of buildings to hold and has not made it for
    the legions now there."""
    choices = hold_choices(province)
    if not choices:
        return False
    chosen = province.get("hold")
    keys = buildings(province)
    return chosen is None or len([key for key in chosen if key in keys]) != len(choices[0])


def province_income(province: dict[str, Any]) -> list[tuple[str, dict[str, int]]]:
    """(power, cards) pairs: what the owner and the occupier receive from the province."""
    owner = province["marker"]
    if owner is None:
        return []
    keys = set(buildings(province))
    held = set(held_buildings(province))
    paid = [(owner, _pay(province, keys - held))]
    if held:
        paid.append((province["occupier"], _pay(province, held)))
    return [(civ, cards) for civ, cards in paid if cards]


def full_income(province: dict[str, Any]) -> dict[str, int]:
    """What all the province's buildings pay together (what a pillage takes)."""
    return _pay(province, set(buildings(province)))


def take_from_bank(state: State, seat: int, cards: dict[str, int]) -> dict[str, int]:
    """Moves cards from the bank to a hand; what the bank lacks is not paid."""
    got: dict[str, int] = {}
    bank, hand = state["bank"], state["hands"][seat]
    for kind, amount in cards.items():
        paid = min(amount, bank[kind])
        if paid:
            bank[kind] -= paid
            hand[kind] += paid
            got[kind] = paid
    return got


def describe_cards(cards: dict[str, int]) -> str:
    """ "2 coins, 1 grain" in card order; "nothing" for no cards."""
    parts = []
    for kind in CARD_KINDS:
        n = cards.get(kind, 0)
        if n:
            parts.append(f"{n} {kind}{'s' if n > 1 and kind == 'coin' else ''}")
    return ", ".join(parts) if parts else "nothing"


def pay_income(state: State) -> None:
    """Every player's income, in seat order from the Navigator (rules 'Trade: a)')."""
    owed: dict[str, dict[str, int]] = {}
    for pid in PROVINCE_IDS:
        for civ, cards in province_income(province_read(state, pid)):
            if seat_of(state, civ) is None:
                continue  # neutrals never earn
            mine = owed.setdefault(civ, {})
            for kind, n in cards.items():
                add(mine, kind, n)
    navigator = state["titles"][TITLES[0]]
    for step in range(state["seats"]):
        seat = (navigator + step) % state["seats"]
        civ = state["civs"][seat]
        cards = dict(owed.get(civ, {}))
        if "solomon" in state["cards"][seat]:
            add(cards, "coin", 2)
        got = take_from_bank(state, seat, cards)
        say(state, f"Income: {civ_name(civ)} receives {describe_cards(got)}.")
