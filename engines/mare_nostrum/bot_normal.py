"""The "normal" Mare Nostrum bot: sees only its seat's view and its legal moves.

It plays for nine-card sets. Cards are burned at the end of each Build phase (two coins
kept), so every turn it asks how close its hand is to a hero or wonder: nine coins, or
nine goods of different kinds (twelve for the Pyramids). It values each card by how much
it brings the hand nearer to such a set, and so:

- trades away duplicates and the cards off its route, never coins while it builds a coin
  set, takes the cards worth most to it (a new goods kind, a coin) and, since whoever
  loses a card picks next, rather from the weakest player than from the leader; it keeps
  out of its offers what the leader lacks (goods kinds it does not produce, and coins
  when its income makes coin sets); as Navigator it names as many cards as it can spare;
- uses its civilisation's hero: Cleopatra's swap when it completes a set (or saves a
  coin from the discard), Hammurabi's free marker every turn;
- buys the hero or wonder worth most to it whenever it can (the fourth wins at once; the
  Mausoleum, Solomon and the Temple of Artemis first, for the cards they bring), then
  spends the rest, which would be burned anyway, on what raises its income most per
  card: a caravan of a kind it lacks, cities and temples, markers on provinces with
  sites; legions and fortresses where it is threatened; and before the phase ends it
  spends the cards that would be burned on whatever build is worth anything, the two
  coins it would keep counted against the build;
- names itself first as Lawgiver and as General, so it buys and strikes first;
- contests the leader: it gathers legions on the border of whoever is closest to
  winning, the more the further that player leads (a hero or wonder ahead puts a legion
  there before a city), marches on the leader's provinces, attacks when the dice favour
  it (at even odds against the leader or a neutral) and pillages the leader's
  provinces; it marches back into its own provinces that a rival occupies, before
  they are assimilated; it also takes weakly held neutral provinces with sites. Neutral legions
  never attack, so they are no threat to guard against.

It adds a little noise to close choices, so that no two games are alike.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engines.mare_nostrum.data import (
    GOODS_KINDS,
    HERO,
    LAND_NEIGHBOURS,
    PROVINCE,
    city_sites,
)

View = Mapping[str, Any]

SET = 9
NOISE = 0.1
LEADER_FEED = 2.5  # what handing the leader a goods kind it lacks costs an offer
PYRAMIDS = 12
LEFTOVER = 0.5  # what a build is worth beyond its income when its cards would be burned
# A legion on the leader's border is worth 0.8 more, and LEAD_WEIGHT more per point of
# standing the leader has over the bot (up to LEAD_CAP): a runaway leader is contested.
LEAD_WEIGHT = 0.2
LEAD_CAP = 2.0
RECOVER = 4  # what marching on one's own occupied province adds to its worth
# What owning a hero or wonder is worth beyond counting towards victory.
CARD_BONUS = {
    "mausoleum": 3,
    "solomon": 8,
    "temple_of_artemis": 6,
    "julius_caesar": 3,
    "pericles": 2,
    "hannibal": 3,
    "hammurabi": 4,
    "cleopatra": 4,
    "agamemnon": 2,
    "archimedes": 1,
    "statue_of_zeus": 1,
    "colossus": 1,
    "hanging_gardens": 1,
    "helen_of_troy": 3,
    "nebuchadnezzar": 2,
    "ulysses": 1,
    "lighthouse": 1,
}


def choose_move(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    chooser = CHOOSERS.get(view["phase_id"])
    move = chooser(view, legal, rng) if chooser else None
    return move if move is not None else legal[0]


# --- What the bot knows about itself ---------------------------------------------------


def _me(view: View) -> dict:
    return view["players"][view["seat"]]


def _civ(view: View) -> str:
    return _me(view)["civ"]


def _version(view: View) -> int:
    return view.get("rules_version", 1)


def _sites(view: View, pid: str) -> int:
    return len(city_sites(_version(view), pid)) + len(PROVINCE[pid]["resources"])


def _income(view: View, civ: str) -> tuple[int, dict[str, int]]:
    """Coins and goods ``civ``'s provinces pay (ignoring occupations)."""
    coins, goods = 0, {}
    for province in view["provinces"].values():
        if province["marker"] != civ:
            continue
        coins += len(province["cities"]) * (2 if province["temple"] else 1)
        for kind in province["caravans"]:
            goods[kind] = goods.get(kind, 0) + (2 if province["market"] else 1)
    return coins, goods


def _set_progress(hand: Mapping[str, int]) -> int:
    """The size of the best set the hand makes: coins alone or distinct goods."""
    return max(hand["coin"], sum(1 for kind in GOODS_KINDS if hand[kind]))


def _card_value(hand: Mapping[str, int], card: str) -> float:
    """What one more card of ``card`` is worth to this hand: much when it grows the set
    the hand is building (coins, or goods of different kinds), little otherwise."""
    distinct = sum(1 for kind in GOODS_KINDS if hand[kind])
    coins = hand["coin"]
    if card == "coin":
        on_route = coins >= distinct
        value = 4.0 if on_route else 1.5
        return value + (1.0 if on_route and coins + 1 in (SET, PYRAMIDS) else 0.0)
    if hand[card]:
        return 0.3
    on_route = distinct >= coins
    value = 4.0 if on_route else 1.0
    return value + (1.0 if on_route and distinct + 1 in (SET, PYRAMIDS) else 0.0)


def _standing(view: View, player: Mapping[str, Any]) -> float:
    """How close a player is to winning: heroes and wonders, and the size of the sets its
    income makes each turn."""
    coins, goods = _income(view, player["civ"])
    sets = max(coins + 2 + 2 * ("solomon" in player["cards"]), len(goods))
    return 9 * player["heroes_and_wonders"] + sets + 0.3 * player["provinces"]


def _leader(view: View) -> dict | None:
    """The rival closest to winning, when it is ahead of the bot."""
    rivals = [p for p in view["players"] if p["seat"] != view["seat"]]
    best = max(rivals, key=lambda p: (_standing(view, p), p["seat"]))
    return best if _standing(view, best) > _standing(view, _me(view)) else None


# --- Titles, trade ---------------------------------------------------------------------


def choose_civ(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    return rng.choice(list(legal))


def choose_title(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    players = view["players"]
    return min(legal, key=lambda move: (players[move["seat"]]["heroes_and_wonders"], move["seat"]))


def choose_good(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    hand = view["hand"]
    return max(legal, key=lambda move: (_card_value(hand, move["good"]), -hand[move["good"]]))


def set_trade(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    """As many cards as the hand can spare: duplicates, and the cards off its route."""
    hand = view["hand"]
    spare = 0
    left = dict(hand)
    for card in sorted(hand, key=lambda kind: -hand[kind]):
        while left[card] > 0:
            left[card] -= 1
            if _card_value(left, card) > 1.5:
                left[card] += 1
                break
            spare += 1
    others = sorted(
        (p["hand_size"] for p in view["players"] if p["seat"] != view["seat"]), reverse=True
    )
    # No more than the second-largest other hand, so that at least two others can trade.
    reach = others[1] if len(others) > 2 else others[0]
    wanted = min(len(legal) - 1, spare, reach)

    return next(move for move in legal if move["n"] == wanted)


def _offer_cost(hand: Mapping[str, int], cards: list[str]) -> float:
    left = dict(hand)
    cost = 0.0
    for card in cards:
        left[card] -= 1
        cost += _card_value(left, card)
    return cost


def offer(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    """The offer that costs the hand least; goods the leader does not produce count as
    dear, for the leader would take them to complete its set."""
    hand = view["hand"]
    leader = _leader(view)
    wanted: set[str] = set()
    if leader is not None and leader["seat"] in (view["trade"] or {}).get("in", []):
        coins, produced = _income(view, leader["civ"])
        wanted = {kind for kind in GOODS_KINDS if kind not in produced}
        if coins + 2 >= len(produced):
            wanted.add("coin")  # the leader builds coin sets: no coin for it

    def cost(move: dict) -> float:
        return _offer_cost(hand, move["cards"]) + sum(
            LEADER_FEED for card in move["cards"] if card in wanted
        )

    return min(legal, key=cost)


def take(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    """The card worth most; taking from a player hands them the next pick, so never from
    the leader when another offer is as good, and rather from the weakest."""
    hand = view["hand"]
    players = view["players"]
    standing = {p["seat"]: _standing(view, p) for p in players}
    leader = _leader(view)
    leader_seat = leader["seat"] if leader else None

    def score(move: dict) -> tuple[float, float, float]:
        value = _card_value(hand, move["card"])
        if move["from_seat"] == leader_seat:
            value -= 1.5
        return value, -standing[move["from_seat"]], rng.random()

    return max(legal, key=score)


def compensate(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    hand = view["hand"]
    left = dict(hand)

    def cost(move: dict) -> float:
        left[move["card"]] = hand[move["card"]] - 1
        value = _card_value(left, move["card"])
        left[move["card"]] = hand[move["card"]]
        return value

    return min(legal, key=cost)


def name_next(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    """Itself first; then the players furthest from winning."""
    mine = [move for move in legal if move["seat"] == view["seat"]]
    if mine:
        return mine[0]
    players = view["players"]
    return min(legal, key=lambda move: (players[move["seat"]]["heroes_and_wonders"], move["seat"]))


# --- Build -----------------------------------------------------------------------------


def _threat(view: View, pid: str) -> int:
    """Rival players' legions in or next to a province (neutrals never attack)."""
    civ = _civ(view)
    calm = {civ, *view["neutrals"]}
    provinces = view["provinces"]
    near = 0
    for other in (pid, *LAND_NEIGHBOURS[pid]):
        near += sum(n for owner, n in provinces[other]["legions"].items() if owner not in calm)
    return near


def _prey(view: View, pid: str) -> bool:
    """A weakly held foreign or neutral province with sites next to ``pid``."""
    civ = _civ(view)
    for other in LAND_NEIGHBOURS[pid]:
        owner = view["provinces"][other]["marker"]
        if owner not in (None, civ) and _defence(view, other, civ) <= 1 and _sites(view, other):
            return True
    return False


def _great_value(view: View, item: str) -> float:
    me = _me(view)
    if item == "pyramids" or me["heroes_and_wonders"] >= 3:
        return 1000.0
    return 200.0 + CARD_BONUS.get(item, 0)


def _routes(view: View) -> tuple[float, float]:
    """Weights of the coin route and the goods route: the bot leans on the stronger."""
    coins, goods = _income(view, _civ(view))
    by_coins = coins + 2
    by_goods = len(goods) + min(2, sum(n - 1 for n in goods.values()))
    if by_coins >= by_goods:
        return 1.5, 0.7
    return 0.7, 1.5


def _building_value(view: View, move: dict) -> float:
    """Income gained per turn (in card units), plus position."""
    item = move["item"]
    pid = move["province"]
    province = view["provinces"][pid]
    civ = _civ(view)
    coins, goods = _income(view, civ)
    coin_weight, goods_weight = _routes(view)
    if item == "city":
        return coin_weight * (2.0 if province["temple"] else 1.0) + 0.2
    if item == "temple":
        return 1.5 * coin_weight * len(province["cities"]) + 0.1
    if item == "caravan":
        kind = move["site"]
        fresh = 1.0 if kind not in goods else 0.3
        return goods_weight * fresh * (2 if province["market"] else 1) + 0.2
    if item == "market":
        return goods_weight * sum(
            0.3 if goods.get(kind, 0) > 0 else 1.0 for kind in province["caravans"]
        )
    if item == "control_marker":
        if view["provinces"][pid]["legions"] and any(
            owner != civ for owner in view["provinces"][pid]["legions"]
        ):
            return -1.0
        free = len(city_sites(_version(view), pid)) + len(PROVINCE[pid]["resources"])
        kinds = sum(1 for kind in PROVINCE[pid]["resources"] if kind not in goods)
        return 0.35 * free + 0.3 * kinds - 0.3 * _threat(view, pid) + 0.1
    mine = province["legions"].get(civ, 0)
    threat = _threat(view, pid)
    if item == "legion":
        value = 0.4 * max(0, threat - mine) - 0.25 * mine + (0.3 if mine == 0 else 0.0)
        leader = _leader(view)
        if leader is not None and any(
            view["provinces"][near]["marker"] == leader["civ"] for near in LAND_NEIGHBOURS[pid]
        ):
            # Gather on the leader's border, the more the further it leads.
            lead = _standing(view, leader) - _standing(view, _me(view))
            value += 0.8 + min(LEAD_CAP, LEAD_WEIGHT * lead)
        if mine < 3 and _prey(view, pid):
            value += 1.0  # an army to take a weakly held neighbour with sites
        return value
    if item == "fortress":
        return 0.5 * max(0, threat - mine) - 0.2
    if item == "trireme":
        fleet = sum(sea["triremes"].get(civ, 0) for sea in view["seas"].values())
        docked = sum(p["dock"].get(civ, 0) for p in view["provinces"].values())
        return 0.5 - 0.4 * (fleet + docked)
    return 0.0


def _pay_cost(view: View, move: dict) -> float:
    """What the cards paid are worth beyond this Build phase: only coins kept (two)."""
    pay = move["pay"]
    if not pay or pay[0] != "coin":
        return 0.0
    coins = view["hand"]["coin"]
    kept_before = min(2, coins)
    kept_after = min(2, coins - len(pay))
    return 0.6 * (kept_before - kept_after)


def _buyable(view: View, card: str) -> bool:
    hero = HERO.get(card)
    return hero is None or hero["civ"] in (None, _civ(view))


def _exchange_gain(view: View, move: dict) -> float:
    """Cleopatra: worth it when the swap completes a set, or saves a coin from the burn."""
    hand = dict(view["hand"])
    before = _set_progress(hand)
    hand[move["give"]] -= 1
    hand[move["get"]] += 1
    after = _set_progress(hand)
    target = PYRAMIDS if before >= SET else SET
    if after >= target > before:
        return 300.0
    if move["get"] == "coin" and view["hand"]["coin"] < 2 and view["hand"][move["give"]] >= 1:
        return 0.05  # a goods card that would be burned becomes a kept coin
    return -1.0


def build(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    best, best_score = None, 0.0
    for move in legal:
        kind = move["type"]
        if kind == "end_build":
            continue
        if kind == "exchange":
            score = _exchange_gain(view, move)
        elif move["item"] not in _ITEMS:
            score = _great_value(view, move["item"])
            # Goods first: coins are the only cards that outlast the phase.
            score -= 0.01 * len(move["pay"]) if move["pay"][:1] == ["coin"] else 0
        else:
            cost = len(move["pay"]) or 0.5
            value = _building_value(view, move)
            if not move["pay"]:
                value += 0.5  # Hammurabi's free marker
            score = (value - _pay_cost(view, move)) / cost
        score *= 1.0 + NOISE * rng.random()  # no two games alike
        if score > best_score:
            best, best_score = move, score
    if best is None and _burned(view):
        best = _leftover(view, legal, rng)
    return best or next(move for move in legal if move["type"] == "end_build")


def _burned(view: View) -> int:
    """The cards the end of this Build phase would discard: all but two coins (the
    Mausoleum keeps four cards of any kind)."""
    hand = view["hand"]
    if "mausoleum" in _me(view)["cards"]:
        return max(0, sum(hand.values()) - 4)
    return sum(hand.values()) - min(2, hand["coin"])


def _leftover(view: View, legal: Sequence[dict], rng: random.Random) -> dict | None:
    """Before the phase ends: a build paid with cards that would be burned anyway is worth
    its income or strength, less only the kept coins it spends; rather that than burn
    them."""
    best, best_score = None, 0.0
    for move in legal:
        if move["type"] != "build" or move["item"] not in _ITEMS or not move["pay"]:
            continue
        score = _building_value(view, move) + LEFTOVER - _pay_cost(view, move)
        score *= 1.0 + NOISE * rng.random()
        if score > best_score:
            best, best_score = move, score
    return best


_ITEMS = {
    "control_marker",
    "city",
    "temple",
    "caravan",
    "market",
    "legion",
    "fortress",
    "trireme",
}


def setup_build(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    def score(move: dict) -> float:
        if move["type"] == "end_setup":
            return 0.0
        item = move["item"]
        if item not in _ITEMS:
            return 50.0
        value = {"city": 30, "temple": 34, "caravan": 28, "market": 20, "control_marker": 16}
        base = float(value.get(item, 6))
        if item == "control_marker":
            base += _sites(view, move["province"]) * 3
        if item in ("legion", "fortress"):
            base -= 6 * view["provinces"][move["province"]]["legions"].get(_civ(view), 0)
        return base + rng.random()

    return max(legal, key=score)


def keep(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    return legal[0]


# --- War -------------------------------------------------------------------------------


def _strength(view: View, space: str, civ: str) -> float:
    if space in view["seas"]:
        return view["seas"][space]["triremes"].get(civ, 0)
    province = view["provinces"][space]
    return province["legions"].get(civ, 0) + (1.5 if province["fortress"] == civ else 0)


def _defence(view: View, pid: str, civ: str) -> float:
    target = view["provinces"][pid]
    defence = float(sum(n for who, n in target["legions"].items() if who != civ))
    if target["fortress"] and target["fortress"] != civ:
        defence += 1.5
    return defence


def _worth(view: View, pid: str) -> float:
    province = view["provinces"][pid]
    built = len(province["cities"]) + len(province["caravans"])
    built += bool(province["temple"]) + bool(province["market"])
    return built * 1.5 + _sites(view, pid)


def war(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    civ = _civ(view)
    war_state = view["war"]
    spent = {
        space: war_state["attacked"].get(space, 0) + war_state["both"].get(space, 0)
        for space in set(war_state["attacked"]) | set(war_state["both"])
    }
    by_type: dict[str, list[dict]] = {}
    for move in legal:
        by_type.setdefault(move["type"], []).append(move)
    if by_type.get("hold"):
        return by_type["hold"][0]
    leader = _leader(view)
    leader_civ = leader["civ"] if leader else None
    for move in by_type.get("attack", []):
        space = move["space"]
        mine = _strength(view, space, civ) - spent.get(space, 0)
        theirs = _strength(view, space, move["target"])
        bold = move["target"] == leader_civ or move["target"] in view["neutrals"]
        if mine >= max(1.0, theirs + 0.5) or mine >= 3 or (bold and mine >= theirs):
            return move
    if by_type.get("launch"):
        return by_type["launch"][0]
    for move in by_type.get("pillage", []):
        owner = view["provinces"][move["province"]]["marker"]
        if owner == leader_civ or rng.random() < 0.3:
            return move
    advance = _advance(view, by_type.get("move", []), leader_civ)
    if advance is not None:
        return advance
    return by_type.get("end_war", list(legal))[0]


def _advance(view: View, moves: list[dict], leader_civ: str | None) -> dict | None:
    """Moves a legion towards a weaker neighbouring province worth taking."""
    civ = _civ(view)
    provinces = view["provinces"]
    moved = view["war"]["moved"]
    best, best_score = None, 0.0
    for move in moves:
        if move["unit"] != "legion":
            continue
        origin, goal = move["from"], move["to"]
        target = provinces[goal]
        owner = target["marker"]
        occupier = target["occupier"]
        # One's own province that a rival occupies is lost at the end of the occupier's
        # next war turn: march back in before then.
        recover = owner == civ and occupier not in (None, civ)
        if owner is None or (owner == civ and not recover):
            continue
        here = provinces[origin]
        guard = here["occupier"] == civ or (
            here["marker"] == civ and (origin == _me(view)["capital"] or _threat(view, origin))
        )
        free = here["legions"].get(civ, 0) - moved.get(origin, 0) - (1 if guard else 0)
        defence = _defence(view, goal, civ)
        there = target["legions"].get(civ, 0)
        if free < 1 or there >= defence + 2:
            continue
        neutral = owner in view["neutrals"]
        if there == 0 and free < defence + (0 if neutral else 1):
            continue
        score = _worth(view, goal) + (3 if owner in view["neutrals"] else 0) - defence
        if owner == leader_civ or (recover and occupier == leader_civ):
            score += 8
        if recover:
            score += RECOVER
        if score > best_score:
            best, best_score = move, score
    return best


CHOOSERS = {
    "choose_civ": choose_civ,
    "setup": setup_build,
    "title_choice": choose_title,
    "artemis": choose_good,
    "trade_number": set_trade,
    "offer": offer,
    "take": take,
    "compensate": compensate,
    "name_builder": name_next,
    "build": build,
    "keep": keep,
    "name_warrior": name_next,
    "war": war,
}
