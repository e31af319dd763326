"""What a player's resources will pay in the profit phase, played alone: the normal bot's
yardstick for loads near the end of the investment phase.

The profit phase is played out for one player's resources with the others' held fixed:
every turn a tax (one goods card, skipped while the player holds the Unloading card,
which reaches them every ``seats`` rounds) and one cash-in, the best order found by an
exhaustive search over piles counted by kind. What a special card counts is taken as
the rules count it: a Warehouse its kinds at the time it is cashed, a Trade Route one's
own cards of its kind then plus the most any one opponent holds now, a Quay the ships
it would count now. The search is memoised, so a position costs little once its smaller
positions are known.
"""

from __future__ import annotations

from functools import lru_cache

from engines.mercatores.data import CARDS, GOODS_KINDS, GOODS_TABLES
from engines.mercatores.scoring import pays

WAREHOUSE_TABLE = CARDS["w1"]["table"]
TABLES = tuple(GOODS_TABLES[kind] for kind in GOODS_KINDS)
ROUTE_TABLES = tuple(
    next(info["table"] for info in CARDS.values() if info["kind"] == "trade_route" and info["goods"] == kind)
    for kind in GOODS_KINDS
)


@lru_cache(maxsize=200_000)
def best(
    counts: tuple[int, ...],
    warehouses: int,
    quays: int,
    routes: tuple[int, ...],
    others: tuple[int, ...],
    turn: int,
    seats: int,
    free: int,
) -> int:
    """Most coins from here: ``counts`` goods per kind, ``routes`` Trade Routes per kind
    (``others``: the most of that kind an opponent holds), ``quays`` Quays still to be
    cashed (their coins counted outside), ``turn`` the next own turn's index; the tax is
    skipped on the turns whose index is ``free`` modulo ``seats``."""
    if not any(counts) and not warehouses and not quays and not any(routes):
        return 0
    taxed = turn % seats != free
    goods = any(counts)
    outcomes = []
    if taxed and goods:
        taxes = [index for index, count in enumerate(counts) if count]
    else:
        taxes = [None]
    for tax in taxes:
        after = counts
        if tax is not None:
            after = counts[:tax] + (counts[tax] - 1,) + counts[tax + 1 :]
            if not any(after) and not warehouses and not quays and not any(routes):
                outcomes.append(0)
                continue
        nxt = turn + 1
        for index, count in enumerate(after):
            if count:
                rest = after[:index] + (0,) + after[index + 1 :]
                coins = pays(TABLES[index], count)
                outcomes.append(coins + best(rest, warehouses, quays, routes, others, nxt, seats, free))
        if warehouses:
            coins = pays(WAREHOUSE_TABLE, sum(1 for count in after if count))
            outcomes.append(
                coins + best(after, warehouses - 1, quays, routes, others, nxt, seats, free)
            )
        if quays:
            outcomes.append(best(after, warehouses, quays - 1, routes, others, nxt, seats, free))
        for index, count in enumerate(routes):
            if count:
                rest = routes[:index] + (count - 1,) + routes[index + 1 :]
                coins = pays(ROUTE_TABLES[index], after[index] + others[index])
                outcomes.append(coins + best(after, warehouses, quays, rest, others, nxt, seats, free))
    return max(outcomes)


def plan_value(resources, table, free: int) -> float:
    """Coins ``resources`` (card ids) will pay in the profit phase, played alone: ``table``
    is the bot's reading of the view (:class:`engines.mercatores.bot.Table`), ``free``
    the index, modulo the seats, of one's own turns without tax (0 for the Captain)."""
    counts = [0] * len(GOODS_KINDS)
    routes = [0] * len(GOODS_KINDS)
    warehouses = 0
    quay_arrows = []
    own_ships = 0
    for card in resources:
        info = CARDS[card]
        if info["kind"] == "goods":
            counts[KIND_INDEX[info["goods"]]] += 1
            own_ships += info["ships"]
        elif info["kind"] == "warehouse":
            warehouses += 1
        elif info["kind"] == "quay":
            quay_arrows.append(info["arrows"])
        else:
            routes[KIND_INDEX[info["goods"]]] += 1
    others = tuple(
        table.best_opponent(kind) if routes[index] else 0 for index, kind in enumerate(GOODS_KINDS)
    )
    quay_coins = sum(
        pays(CARDS["q1"]["table"], int(table.quay_count(arrows, own_ships))) for arrows in quay_arrows
    )
    return quay_coins + best(
        tuple(counts), warehouses, len(quay_arrows), tuple(routes), others, 0, table.seats, free
    )


KIND_INDEX = {kind: index for index, kind in enumerate(GOODS_KINDS)}
