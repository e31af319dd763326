"""Build phase: paying with card sets and where every piece may go (rules 'Build').

The same placement rules serve the experienced set-up (rules 'Setup'), which pays with
build points instead of cards and has its own limits on where things may go.
"""

from __future__ import annotations

from engines.api import IllegalMove
from engines.mare_nostrum.data import (
    CARD_KINDS,
    COASTS,
    COSTS,
    GOODS_KINDS,
    GREAT_CARDS,
    GREEK_EXTRA_PROVINCES,
    HERO,
    LAND_NEIGHBOURS,
    PROVINCE,
    PROVINCE_IDS,
    WONDER,
    city_sites,
)
from engines.mare_nostrum.flow import (
    MAUSOLEUM_KEEP,
    begin_phase,
    finish,
    keep_cards,
    next_builder,
)
from engines.mare_nostrum.reach import linked
from engines.mare_nostrum.state import (
    State,
    at_war,
    capital_of,
    civ_name,
    civ_of,
    controlled,
    hand_size,
    province_read,
    reading,
    rules_version,
    say,
)
from engines.mare_nostrum.trade import counted, require_cards
from engines.mare_nostrum.war import update_occupation
from engines.mare_nostrum.words import ALL_ON_BOARD, NONE_IN_POOL, T, card_word, great_word

ITEM_NAMES = {
    "control_marker": "control marker",
    "city": "city",
    "temple": "temple",
    "caravan": "caravan",
    "market": "market",
    "legion": "legion",
    "fortress": "fortress",
    "trireme": "trireme",
}
POOL_ITEMS = ("city", "temple", "caravan", "market")
SUPPLY_ITEMS = ("control_marker", "legion", "fortress", "trireme")
VICTORY_CARDS = 4


def item_name(item: str) -> str:
    return GREAT_CARDS[item]["name"] if item in GREAT_CARDS else ITEM_NAMES[item]


def cost(state: State, seat: int, item: str) -> int:
    """Rules 'Build' 2 with the hero discounts (Julius Caesar, Pericles)."""
    if item in WONDER:
        return WONDER[item]["cost"]
    if item in HERO:
        return COSTS["hero"]
    cards = state["cards"][seat]
    if item in ("legion", "fortress") and "julius_caesar" in cards:
        return 2
    if item == "trireme" and "pericles" in cards:
        return 2
    return COSTS[item]


# --- Where things may go ---------------------------------------------------------------


def marker_targets(state: State, civ: str) -> list[str]:
    """Rules 'Build' 3: an unmarked province bordering one held at the start of the turn."""
    reach: set[str] = set()
    placed = reading(state, "placed")
    for pid in controlled(state, civ):
        if pid not in placed:
            reach |= linked(state, civ, pid)
    return [
        pid for pid in PROVINCE_IDS if pid in reach and province_read(state, pid)["marker"] is None
    ]


def setup_marker_targets(civ: str) -> tuple[str, ...]:
    extra = GREEK_EXTRA_PROVINCES if civ == "greece" else ()
    return LAND_NEIGHBOURS[capital_of(civ)] + extra


def check_place(state: State, civ: str, item: str, move: dict, setup: bool) -> None:
    """Raises IllegalMove unless ``item`` may go where ``move`` says."""
    seat = state["civs"].index(civ)
    if item in GREAT_CARDS:
        check_great_card(state, seat, item, setup)
        return
    pid = move["province"]
    if pid not in PROVINCE:
        raise IllegalMove(T("There is no province called %(name)s.", name=repr(pid)))
    where = PROVINCE[pid]["name"]
    province = state["provinces"][pid]
    if item in SUPPLY_ITEMS and not state["supply"][civ][item]:
        raise IllegalMove(ALL_ON_BOARD[item])
    if item in POOL_ITEMS and not state["pool"][item]:
        raise IllegalMove(NONE_IN_POOL[item])
    if item == "control_marker":
        if province["marker"] is not None:
            raise IllegalMove(T("%(province)s already holds a control marker.", province=where))
        if setup and pid not in setup_marker_targets(civ):
            raise IllegalMove(
                T(
                    "At set-up your control markers go next to your capital, not %(province)s.",
                    province=where,
                )
            )
        if not setup and pid not in marker_targets(state, civ):
            raise IllegalMove(
                T(
                    "%(province)s does not border a province you held at the start of this "
                    "turn, by land or along a chain of your triremes.",
                    province=where,
                )
            )
        return
    if province["marker"] != civ:
        raise IllegalMove(
            T(
                "You may build only in provinces holding your control marker, not %(province)s.",
                province=where,
            )
        )
    if setup:
        if item in ("legion", "fortress", "trireme") and pid != capital_of(civ):
            raise IllegalMove(T("At set-up your military units go into your capital only."))
    else:
        if pid in state["placed"]:
            raise IllegalMove(
                T(
                    "You marked %(province)s this turn: you may build there from next turn on.",
                    province=where,
                )
            )
        if pid != capital_of(civ):
            if province["occupier"] is not None:
                raise IllegalMove(
                    T("%(province)s is occupied: you may not build there.", province=where)
                )
            if at_war(state, pid):
                raise IllegalMove(
                    T("%(province)s is at war: you may not build there.", province=where)
                )
    site = move.get("site")
    if item == "city":
        if site not in city_sites(rules_version(state), pid):
            raise IllegalMove(
                T("%(province)s has no city site called %(site)s.", province=where, site=repr(site))
            )
        if site in province["cities"]:
            raise IllegalMove(T("%(site)s is built already.", site=site))
    elif item == "temple":
        if site not in province["cities"]:
            raise IllegalMove(
                T(
                    "A temple goes on a city: %(province)s has no city %(site)s.",
                    province=where,
                    site=repr(site),
                )
            )
        if province["temple"] is not None:
            raise IllegalMove(
                T("%(province)s has a temple already: one temple per province.", province=where)
            )
    elif item == "caravan":
        if site not in PROVINCE[pid]["resources"]:
            raise IllegalMove(
                T("%(province)s has no %(site)s resource site.", province=where, site=repr(site))
            )
        if site in province["caravans"]:
            raise IllegalMove(
                T(
                    "The %(goods)s site of %(province)s has a caravan already.",
                    goods=card_word(site),
                    province=where,
                )
            )
    elif item == "market":
        if site not in province["caravans"]:
            raise IllegalMove(
                T(
                    "A market goes on a caravan: %(province)s has no %(site)s caravan.",
                    province=where,
                    site=repr(site),
                )
            )
        if province["market"] is not None:
            raise IllegalMove(
                T("%(province)s has a market already: one market per province.", province=where)
            )
    elif item == "fortress":
        if province["fortress"] is not None:
            raise IllegalMove(
                T(
                    "%(province)s has a fortress already: one fortress per province.",
                    province=where,
                )
            )
    elif item == "trireme":
        if not COASTS[pid]:
            raise IllegalMove(
                T(
                    "%(province)s has no coast: triremes are built in coastal provinces.",
                    province=where,
                )
            )


def check_great_card(state: State, seat: int, item: str, setup: bool) -> None:
    civ = civ_of(state, seat)
    card = GREAT_CARDS[item]
    if any(item in cards for cards in state["cards"]):
        raise IllegalMove(
            T("%(card)s is taken already: each card exists once.", card=great_word(item))
        )
    owner_civ = card.get("civ")
    if owner_civ is not None and owner_civ != civ:
        raise IllegalMove(
            T("%(card)s serves %(civ)s only.", card=card["name"], civ=civ_name(owner_civ))
        )
    if setup and owner_civ != civ:
        raise IllegalMove(T("At set-up the only card you may buy is your own civilisation's hero."))


def place(state: State, seat: int, item: str, move: dict, setup: bool) -> None:
    """Puts the piece on the board (or the card in front of the player)."""
    civ = civ_of(state, seat)
    if item in GREAT_CARDS:
        state["cards"][seat] = sorted([*state["cards"][seat], item])
        return
    pid = move["province"]
    province = state["provinces"][pid]
    if item in SUPPLY_ITEMS:
        state["supply"][civ][item] -= 1
    if item in POOL_ITEMS:
        state["pool"][item] -= 1
    if item == "control_marker":
        province["marker"] = civ
        if not setup:
            state["placed"] = sorted([*state["placed"], pid])
    elif item == "city":
        province["cities"] = [
            s
            for s in city_sites(rules_version(state), pid)
            if s in province["cities"] or s == move["site"]
        ]
    elif item == "temple":
        province["temple"] = move["site"]
    elif item == "caravan":
        province["caravans"] = [
            s for s in PROVINCE[pid]["resources"] if s in province["caravans"] or s == move["site"]
        ]
    elif item == "market":
        province["market"] = move["site"]
    elif item == "legion":
        province["legions"][civ] = province["legions"].get(civ, 0) + 1
    elif item == "fortress":
        province["fortress"] = civ
    elif item == "trireme":
        province["dock"][civ] = province["dock"].get(civ, 0) + 1
    update_occupation(state, pid)


def where_text(move: dict) -> str:
    if "province" not in move:
        return ""
    text = f" in {PROVINCE[move['province']]['name']}"
    if move.get("site") and move["item"] in ("city", "temple"):
        text += f" ({move['site']})"
    elif move.get("site"):
        text += f" (on the {move['site']} site)"
    return text


# --- Paying ----------------------------------------------------------------------------


def check_payment(hand: dict[str, int], pay: list[str], price: int) -> dict[str, int]:
    """Rules 'Build' 2: exactly ``price`` cards, coins only or goods all different."""
    if len(pay) != price:
        raise IllegalMove(
            T(
                "This costs a set of exactly %(price)d cards, not %(paid)d.",
                price=price,
                paid=len(pay),
            )
        )
    cards = counted(pay)
    if "coin" in cards and len(cards) > 1:
        raise IllegalMove(T("A set is coins only or goods only, never a mix of both."))
    if "coin" not in cards:
        twice = [kind for kind, n in cards.items() if n > 1]
        if twice:
            raise IllegalMove(
                T(
                    "A set of goods must be all different kinds: %(goods)s is there twice.",
                    goods=card_word(twice[0]),
                )
            )
    require_cards(hand, cards)
    return cards


def payments(hand: dict[str, int], price: int) -> list[list[str]]:
    """Canonical sets for a price: coins, and the goods the hand holds most of."""
    sets = []
    if price == 0:
        return [[]]
    if hand["coin"] >= price:
        sets.append(["coin"] * price)
    kinds = [kind for kind in GOODS_KINDS if hand[kind]]
    if len(kinds) >= price:
        kinds.sort(key=lambda kind: -hand[kind])
        chosen = set(kinds[:price])
        sets.append([kind for kind in GOODS_KINDS if kind in chosen])
    return sets


def build(state: State, seat: int, move: dict) -> None:
    civ = civ_of(state, seat)
    item = move["item"]
    check_place(state, civ, item, move, setup=False)
    hand = state["hands"][seat]
    free = (
        item == "control_marker"
        and not move["pay"]
        and "hammurabi" in state["cards"][seat]
        and not state["build"]["hammurabi"]
    )
    if free:
        state["build"]["hammurabi"] = True
        paid = "free of charge (Hammurabi)"
    else:
        cards = check_payment(hand, move["pay"], cost(state, seat, item))
        for kind, n in cards.items():
            hand[kind] -= n
            state["bank"][kind] += n
        paid = f"paying {', '.join(move['pay'])}"
    place(state, seat, item, move, setup=False)
    say(state, f"{civ_name(civ)} builds a {item_name(item)}{where_text(move)}, {paid}.")
    # Rules 'Build' 4: victory is checked after every purchase.
    if item == "pyramids":
        finish(state, [seat], f"{civ_name(civ)} builds the Pyramids and wins the game.")
    elif len(state["cards"][seat]) >= VICTORY_CARDS:
        finish(state, [seat], f"{civ_name(civ)} owns four heroes and wonders and wins the game.")


def exchange(state: State, seat: int, move: dict) -> None:
    """Cleopatra: once each Build phase, one goods card for one coin with the bank, or back."""
    if "cleopatra" not in state["cards"][seat]:
        raise IllegalMove(T("Only Cleopatra's owner may exchange cards with the bank."))
    if state["build"]["cleopatra"]:
        raise IllegalMove(T("Cleopatra's exchange is used already this Build phase."))
    give, get = move["give"], move["get"]
    kinds = {give, get}
    if "coin" not in kinds or not kinds - {"coin"} <= set(GOODS_KINDS) or len(kinds) != 2:
        raise IllegalMove(
            T("Cleopatra swaps one goods card for one coin, or one coin for a goods card.")
        )
    hand, bank = state["hands"][seat], state["bank"]
    if not hand[give]:
        raise IllegalMove(T("You hold no %(kind)s card to give.", kind=card_word(give)))
    if not bank[get]:
        raise IllegalMove(T("The bank has no %(kind)s left.", kind=card_word(get)))
    hand[give] -= 1
    bank[give] += 1
    bank[get] -= 1
    hand[get] += 1
    state["build"]["cleopatra"] = True
    say(state, f"{civ_name(civ_of(state, seat))} swaps {give} for {get} with the bank (Cleopatra).")


def end_build(state: State, seat: int, move: dict) -> None:
    state["build"]["done"].append(seat)
    say(state, f"{civ_name(civ_of(state, seat))} ends building.")
    next_builder(state)


def keep(state: State, seat: int, move: dict) -> None:
    """Mausoleum: keep up to 4 cards of any kind at the end of the Build phase."""
    if len(move["cards"]) != MAUSOLEUM_KEEP:
        raise IllegalMove(
            T("Choose the %(num)d cards the Mausoleum lets you keep.", num=MAUSOLEUM_KEEP)
        )
    cards = counted(move["cards"])
    require_cards(state["hands"][seat], cards)
    keep_cards(state, seat, cards)
    state["keeper"] = None
    say(state, f"{civ_name(civ_of(state, seat))} keeps {len(move['cards'])} cards (Mausoleum).")
    begin_phase(state, "war")


def keep_options(hand: dict[str, int]) -> list[list[str]]:
    by_count = sorted(GOODS_KINDS, key=lambda kind: -hand[kind])
    orders = [["coin", *by_count], [*by_count, "coin"], by_count]
    options = []
    for order in orders:
        chosen = [kind for kind in order for _ in range(hand[kind])][:MAUSOLEUM_KEEP]
        chosen.sort(key=CARD_KINDS.index)
        if len(chosen) == MAUSOLEUM_KEEP and chosen not in options:
            options.append(chosen)
    return options


def targets(state: State, seat: int, setup: bool) -> list[dict]:
    """Every place an item could go now, as move fields (payment aside)."""
    civ = civ_of(state, seat)
    found: list[dict] = []
    marker_places = setup_marker_targets(civ) if setup else marker_targets(state, civ)
    for pid in marker_places:
        found.append({"item": "control_marker", "province": pid})
    for pid in controlled(state, civ):
        data = PROVINCE[pid]
        province = state["provinces"][pid]
        for site in city_sites(rules_version(state), pid):
            found.append({"item": "city", "province": pid, "site": site})
        for site in province["cities"]:
            found.append({"item": "temple", "province": pid, "site": site})
        for site in data["resources"]:
            found.append({"item": "caravan", "province": pid, "site": site})
        for site in province["caravans"]:
            found.append({"item": "market", "province": pid, "site": site})
        for item in ("legion", "fortress", "trireme"):
            found.append({"item": item, "province": pid})
    for item in GREAT_CARDS:
        found.append({"item": item})
    legal = []
    for fields in found:
        try:
            check_place(state, civ, fields["item"], fields, setup)
        except IllegalMove:
            continue
        legal.append(fields)
    return legal


def build_moves(state: State, seat: int) -> list[dict]:
    hand = state["hands"][seat]
    moves = []
    size = hand_size(hand)
    hammurabi = "hammurabi" in state["cards"][seat] and not state["build"]["hammurabi"]
    for fields in targets(state, seat, setup=False):
        price = cost(state, seat, fields["item"])
        if hammurabi and fields["item"] == "control_marker":
            moves.append({"type": "build", **fields, "pay": []})
        if price > size:
            continue
        for pay in payments(hand, price):
            moves.append({"type": "build", **fields, "pay": pay})
    if "cleopatra" in state["cards"][seat] and not state["build"]["cleopatra"]:
        bank = state["bank"]
        for kind in GOODS_KINDS:
            if hand[kind] and bank["coin"]:
                moves.append({"type": "exchange", "give": kind, "get": "coin"})
            if hand["coin"] and bank[kind]:
                moves.append({"type": "exchange", "give": "coin", "get": kind})
    moves.append({"type": "end_build"})
    return moves
