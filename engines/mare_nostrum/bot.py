"""A Mare Nostrum bot: sees only its seat's view and its legal moves, and plays to win.

Its plan: grow an economy of cities and temples (coins) and caravans (varied goods),
trade for goods it lacks, buy a hero or wonder whenever a set of nine allows it (the
Pyramids when twelve do), spread control markers into provinces with sites, keep a
legion at home and attack neighbours that are clearly weaker. Every choice is one of the
listed moves, and each phase's moves run out, so the bot never stalls a game.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from engines.mare_nostrum.data import GOODS_KINDS, LAND_NEIGHBOURS, PROVINCE

View = Mapping[str, Any]

# What a purchase is worth to the bot, before local adjustments.
BUILD_VALUE = {
    "temple": 34,
    "city": 30,
    "market": 24,
    "caravan": 22,
    "control_marker": 16,
    "legion": 9,
    "fortress": 5,
    "trireme": 4,
}
GREAT_VALUE = 100


def choose_move(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    phase = view["phase_id"]
    chooser = CHOOSERS.get(phase)
    move = chooser(view, legal, rng) if chooser else None
    return move if move is not None else legal[0]


def _me(view: View) -> dict:
    return view["players"][view["seat"]]


def _civ(view: View) -> str:
    return _me(view)["civ"]


def _hand(view: View) -> dict[str, int]:
    return view["hand"]


def choose_civ(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    return rng.choice(list(legal))


def choose_title(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    # Hand the title to the challenger with the fewest heroes and wonders.
    players = view["players"]
    return min(legal, key=lambda move: (players[move["seat"]]["heroes_and_wonders"], move["seat"]))


def choose_good(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    hand = _hand(view)
    return min(legal, key=lambda move: (hand[move["good"]], GOODS_KINDS.index(move["good"])))


def set_trade(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    # Name as many cards as the bot holds spares (duplicate goods), to trade for variety.
    hand = _hand(view)
    spare = sum(max(0, hand[kind] - 1) for kind in GOODS_KINDS)
    wanted = min(len(legal) - 1, max(2, spare + rng.choice((0, 1))))
    return next(move for move in legal if move["n"] == wanted)


def offer(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    return legal[0]  # the spare cards (duplicates first) are listed first


def _card_value(hand: dict[str, int], kind: str) -> float:
    if kind == "coin":
        return 2.0 + (1.0 if hand["coin"] >= 4 else 0.0)
    return 3.0 if hand[kind] == 0 else 0.5


def take(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    hand = _hand(view)
    players = view["players"]
    return max(
        legal,
        key=lambda move: (
            _card_value(hand, move["card"]),
            players[move["from_seat"]]["heroes_and_wonders"],
            rng.random(),
        ),
    )


def compensate(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    hand = _hand(view)
    return min(legal, key=lambda move: _card_value(hand, move["card"]) - 0.1 * hand[move["card"]])


def name_next(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    # Others first, so the bot sees what they did; then itself.
    others = [move for move in legal if move["seat"] != view["seat"]]
    return rng.choice(others) if others else legal[0]


def _province_value(view: View, pid: str) -> int:
    data = PROVINCE[pid]
    return len(data["cities"]) * 3 + len(data["resources"]) * 3


def _threat(view: View, pid: str) -> int:
    """Foreign legions next to or in a province."""
    civ = _civ(view)
    provinces = view["provinces"]
    near = 0
    for other in (pid, *LAND_NEIGHBOURS[pid]):
        near += sum(n for owner, n in provinces[other]["legions"].items() if owner != civ)
    return near


def _prey(view: View, pid: str) -> bool:
    """A weakly held foreign province with sites next to ``pid``."""
    civ = _civ(view)
    for other in LAND_NEIGHBOURS[pid]:
        owner = view["provinces"][other]["marker"]
        if (
            owner not in (None, civ)
            and _defence(view, other, civ) <= 1
            and _province_value(view, other) >= 3
        ):
            return True
    return False


def _build_score(view: View, move: dict) -> float:
    if move["type"] == "end_build":
        return 0.0
    if move["type"] == "exchange":
        return -1.0
    item = move["item"]
    me = _me(view)
    if item not in BUILD_VALUE:
        if item == "pyramids" or me["heroes_and_wonders"] >= 3:
            return 1000.0
        return GREAT_VALUE
    score = float(BUILD_VALUE[item])
    pid = move["province"]
    province = view["provinces"][pid]
    civ = me["civ"]
    if item == "control_marker":
        score += _province_value(view, pid) - 2 * _threat(view, pid)
        if not PROVINCE[pid]["cities"] and not PROVINCE[pid]["resources"]:
            score -= 10
    elif item in ("legion", "fortress"):
        threat = _threat(view, pid)
        mine = province["legions"].get(civ, 0)
        score += 6 * max(0, threat - mine) - 4 * mine
        if item == "legion" and mine < 3 and _prey(view, pid):
            score += 8
        if item == "fortress" and threat == 0:
            score -= 8
    elif item == "trireme":
        fleet = sum(sea["triremes"].get(civ, 0) for sea in view["seas"].values())
        score += 6 if fleet < 2 else -2 * fleet
    # Paying with goods keeps coins for heroes; coins beyond two are lost anyway.
    pay = move["pay"]
    if pay and pay[0] == "coin":
        hand = _hand(view)
        score -= 6 if hand["coin"] - len(pay) < 2 and hand["coin"] >= 5 else 0
    return score


def build(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    best = max(legal, key=lambda move: (_build_score(view, move), rng.random()))
    return (
        best if _build_score(view, best) > 0 else next(m for m in legal if m["type"] == "end_build")
    )


def setup_build(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    def score(move: dict) -> float:
        if move["type"] == "end_setup":
            return 0.0
        item = move["item"]
        if item not in BUILD_VALUE:
            return 50.0
        value = float(BUILD_VALUE[item])
        if item == "control_marker":
            value += _province_value(view, move["province"])
        if item in ("legion", "fortress"):
            mine = view["provinces"][move["province"]]["legions"].get(_civ(view), 0)
            value -= 6 * mine
        return value + rng.random()

    return max(legal, key=score)


def keep(view: View, legal: Sequence[dict], rng: random.Random) -> dict:
    return legal[0]


def _strength(view: View, space: str, civ: str) -> float:
    if space in view["seas"]:
        return view["seas"][space]["triremes"].get(civ, 0)
    province = view["provinces"][space]
    return province["legions"].get(civ, 0) + (1.5 if province["fortress"] == civ else 0)


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
    for move in by_type.get("attack", []):
        space = move["space"]
        mine = _strength(view, space, civ) - spent.get(space, 0)
        if mine >= max(1.0, _strength(view, space, move["target"])) or mine >= 3:
            return move
    if by_type.get("launch"):
        return by_type["launch"][0]
    advance = _advance(view, by_type.get("move", []))
    if advance is not None:
        return advance
    for move in by_type.get("pillage", []):
        if rng.random() < 0.2:
            return move
    return by_type.get("end_war", list(legal))[0]  # version 2 may withhold end_war


def _leader(view: View) -> str | None:
    """The rival civilisation closest to winning, once it owns two heroes and wonders."""
    rivals = [p for p in view["players"] if p["seat"] != view["seat"]]
    best = max(rivals, key=lambda p: (p["heroes_and_wonders"], p["provinces"]))
    return best["civ"] if best["heroes_and_wonders"] >= 2 else None


def _defence(view: View, pid: str, civ: str) -> float:
    target = view["provinces"][pid]
    defence = float(sum(n for who, n in target["legions"].items() if who != civ))
    if target["fortress"] and target["fortress"] != civ:
        defence += 1.5
    return defence


def _advance(view: View, moves: list[dict]) -> dict | None:
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
        if owner == civ or owner is None and not PROVINCE[goal]["cities"]:
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
        if there == 0 and free < defence + 1:
            continue
        score = _province_value(view, goal) + (3 if owner in view["neutrals"] else 0) - defence
        if owner == _leader(view):
            score += 4
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
