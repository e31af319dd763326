"""What each seat may see (``view``), readable history lines (``describe``) and move labels.

Views are built by adding what the viewer may know: the whole board, titles, heroes and
wonders, hand sizes, and for a seat its own hand and its own offer before the reveal.
Version 1 shows only the bank's size; version 2 shows its cards, which lie face up at the
table (rulebook, 'Setup').
"""

from __future__ import annotations

import re
from typing import Any

from engines.mare_nostrum.build import cost
from engines.mare_nostrum.data import (
    CARD_KINDS,
    CIV,
    CIVS,
    COINS,
    COSTS,
    GOODS,
    GREAT_CARDS,
    HERO,
    HEROES,
    LAND_NEIGHBOURS,
    PIECES_PER_PLAYER,
    POOLS_BY_PLAYERS,
    PROVINCE,
    PROVINCES,
    RECOMMENDED_CIVS,
    SEA,
    SEA_NEIGHBOURS,
    SEAS,
    SHORES,
    TITLES,
    WONDERS,
    city_sites,
    space_name,
    start_of,
)
from engines.mare_nostrum.history import as_text, counted_cards, held_list, held_word
from engines.mare_nostrum.income import held_buildings
from engines.mare_nostrum.rules import result, to_move
from engines.mare_nostrum.setups import SETUP_POINTS, setup_cost
from engines.mare_nostrum.state import (
    CHOOSE_CIV,
    OFFER,
    OVER,
    SETUP,
    State,
    at_war,
    civ_name,
    controlled,
    hand_size,
    rules_version,
)
from engines.mare_nostrum.titles import title_count
from engines.mare_nostrum.words import (
    A_CARD,
    A_ITEM,
    CARD_WORDS,
    EFFECTS,
    PHASE_HEADINGS,
    PHASE_WORDS,
    THE_WONDER,
    TITLE_WORDS,
    WONDER_WORDS,
    T,
    Tn,
    cards_listed,
    pieces_counted,
)

PHASE_TITLES = {
    "choose_civ": "choosing civilisations",
    "setup": "set-up",
    "title_choice": "titles",
    "artemis": "trade",
    "trade_number": "trade",
    "offer": "trade (secret offers)",
    "take": "trade (picking)",
    "compensate": "trade (compensation)",
    "name_builder": "build",
    "build": "build",
    "keep": "build (Mausoleum)",
    "name_warrior": "war",
    "war": "war",
    "over": "game over",
}


def _check_phase(state: State) -> Any:
    """The phase a title check follows, with its words ("build (title check)")."""
    phase = state["title_check"]["phase"]
    return T("%(phase)s (title check)", phase=PHASE_WORDS.get(phase, phase))


def phase_text(state: State) -> str:
    if state["phase"] in (CHOOSE_CIV, SETUP, OVER):
        return PHASE_HEADINGS[state["phase"]]
    if state["title_check"]:
        return T("Turn %(turn)d — %(phase)s", turn=state["turn"], phase=_check_phase(state))
    return T("Turn %(turn)d — %(phase)s", turn=state["turn"], phase=PHASE_WORDS[state["phase"]])


def score_line(state: State, seat: int | None) -> list[int] | None:
    """The view's ``scores`` (the cards each seat holds, once every civilisation is
    chosen), without building the rest of the view."""
    if None in state["civs"]:
        return None
    return [len(state["cards"][s]) for s in range(state["seats"])]


def turn_line(state: State) -> tuple[str, str]:
    """The turn and the phase the history groups events by ("Turn 3", "trade"); the
    set-up phases before the first turn form a turn of their own."""
    if state["phase"] == OVER:
        return PHASE_HEADINGS[OVER], ""
    if state["phase"] in (CHOOSE_CIV, SETUP):
        return T("Before the first turn"), PHASE_WORDS[state["phase"]]
    if state["title_check"]:
        return T("Turn %(turn)d", turn=state["turn"]), _check_phase(state)
    return T("Turn %(turn)d", turn=state["turn"]), PHASE_WORDS[state["phase"]]


def phase_line(state: State) -> tuple[str, list[str]]:
    """The public view's ``phase`` and each seat's mark (its civilisation's ``name``, ""
    before it has one), without the rest of the view: what the server's phase line and
    history lines need after every move."""
    civs = [state["civs"][seat] for seat in range(state["seats"])]
    return phase_text(state), [civ_name(civ) if civ is not None else "" for civ in civs]


def _player(state: State, seat: int) -> dict[str, Any]:
    civ = state["civs"][seat]
    if civ is None:
        # No civilisation yet: the server names the seat by its player alone.
        return {"seat": seat, "civ": None, "name": None, "hand_size": 0}
    return {
        "seat": seat,
        "civ": civ,
        "name": civ_name(civ),
        "capital": CIV[civ]["capital"],
        "hand_size": hand_size(state["hands"][seat]),
        "cards": list(state["cards"][seat]),
        "heroes_and_wonders": len(state["cards"][seat]),
        "titles": [t for t in TITLES if state["titles"].get(t) == seat],
        "title_counts": {t: title_count(state, seat, t) for t in TITLES} if state["titles"] else {},
        "provinces": len(controlled(state, civ)),
        "supply": dict(state["supply"][civ]),
    }


def _board(state: State) -> dict[str, Any]:
    provinces = {}
    for pid, province in state["provinces"].items():
        provinces[pid] = {
            "marker": province["marker"],
            "cities": list(province["cities"]),
            "temple": province["temple"],
            "caravans": list(province["caravans"]),
            "market": province["market"],
            "fortress": province["fortress"],
            "legions": dict(province["legions"]),
            "dock": dict(province["dock"]),
            "occupier": province["occupier"],
            "held": held_buildings(province),
            "at_war": at_war(state, pid),
            "placed_this_turn": pid in state["placed"],
        }
    seas = {
        sid: {"triremes": dict(fleet), "at_war": at_war(state, sid)}
        for sid, fleet in state["seas"].items()
    }
    return {"provinces": provinces, "seas": seas}


def _trade(state: State, seat: int | None) -> dict[str, Any] | None:
    trade = state["trade"]
    if trade is None:
        return None
    hidden = state["phase"] == OFFER
    shown: dict[str, Any] = {
        "n": trade["n"],
        "in": list(trade["in"]),
        "taker": trade["taker"],
        "history": [list(pair) for pair in trade["history"]],
        "balance": list(trade["balance"]),
        "offered": [trade["offers"][s] is not None for s in range(state["seats"])],
        "short": trade.get("short"),
    }
    if not hidden:
        shown["offers"] = [dict(offer) if offer is not None else None for offer in trade["offers"]]
    elif seat is not None and trade["offers"][seat] is not None:
        shown["my_offer"] = dict(trade["offers"][seat])
    return shown


# Everything a player may buy, in the order of the rules' cost list.
BUILD_ITEMS = (
    *(item for item in COSTS if item not in ("hero", "wonder", "pyramids")),
    *GREAT_CARDS,
)


def view(state: State, seat: int | None) -> dict[str, Any]:
    seats = range(state["seats"])
    shown: dict[str, Any] = {
        "game": "mare_nostrum",
        "seat": seat,
        "to_move": sorted(to_move(state)),
        "phase": phase_text(state),
        "phase_id": state["phase"],
        "turn": state["turn"],
        "turn_limit": state["options"]["turn_limit"],
        "options": dict(state["options"]),
        "players": [_player(state, s) for s in seats],
        "neutrals": list(state["neutrals"]),
        "titles": dict(state["titles"]),
        "bank_size": sum(state["bank"].values()),
        "pool": dict(state["pool"]),
        "great_cards_left": [
            c for c in GREAT_CARDS if not any(c in cards for cards in state["cards"])
        ],
        "finished": state["phase"] == OVER,
        **_board(state),
        "trade": _trade(state, seat),
        "artemis": list(state["artemis"]),
        "keeper": state["keeper"],
    }
    if rules_version(state) >= 2:
        # The bank lies face up (rulebook, 'Setup'): everyone sees what it holds.
        shown["rules_version"] = rules_version(state)
        shown["bank"] = {kind: state["bank"][kind] for kind in CARD_KINDS}
    if None not in state["civs"]:
        shown["scores"] = [len(state["cards"][s]) for s in seats]
    if state["title_check"]:
        check = state["title_check"]
        shown["title_check"] = {
            "phase": check["phase"],
            "title": check["left"][0] if check["left"] else None,
            "candidates": list(check.get("candidates", [])),
        }
    if state["setup"]:
        shown["setup"] = dict(state["setup"])
    if state["build"]:
        shown["build"] = {
            key: state["build"][key] for key in ("done", "current", "cleopatra", "hammurabi")
        }
    if state["war"]:
        war = state["war"]
        shown["war"] = {key: war[key] for key in ("done", "current", "moved", "attacked", "both")}
    if seat is not None and seat in seats:
        shown["hand"] = {kind: state["hands"][seat][kind] for kind in CARD_KINDS}
        if state["setup"] or state["build"]:
            # What each purchase costs this seat now (hero discounts included), by the
            # rules' own cost functions: the move labels show it.
            price = setup_cost if state["setup"] else (lambda item: cost(state, seat, item))
            shown["costs"] = {item: price(item) for item in BUILD_ITEMS}
    if state["phase"] == OVER:
        shown["result"] = result(state).to_json()
    return shown


def describe(before: State, seat: int, move: dict, after: State, viewer: int | None) -> list[str]:
    """The lines of the move's log that ``viewer`` may read, the players named by seat
    placeholders and the grammar mended (the log in the state keeps its first words)."""
    lines = []
    if viewer == seat and move.get("type") == "offer":
        offered = [
            (kind, move["cards"].count(kind)) for kind in CARD_KINDS if kind in move["cards"]
        ]
        lines.append(T("You offer %(counted)s.", counted=counted_cards(offered)))
    seats = seats_of(after)
    for text, audience in after["log"]:
        if audience is None or viewer in audience:
            lines.append(as_text(reword(text, seats)))
    return lines


def seats_of(state: State) -> dict[str, int]:
    """Each civilisation a seat plays, with that seat."""
    return {civ: seat for seat, civ in enumerate(state["civs"]) if civ is not None}


WONDER_IDS = frozenset(wonder["id"] for wonder in WONDERS)

# Words of the stored log, mended as they are read: a hero is no "a Archimedes", a wonder
# is "the Pyramids" (exact phrases built from the data, so nothing else is touched).
CORRECTIONS: tuple[tuple[str, str], ...] = tuple(
    (f"{verb} a {card['name']}", f"{verb} {'the ' if card_id in WONDER_IDS else ''}{card['name']}")
    for verb in ("builds", "sets up")
    for card_id, card in GREAT_CARDS.items()
)
# A civilisation's name, not the city site Babylon: "Babylonia (Babylon)", "the city of
# Babylon" and "city:Babylon" name the city.
CIV_WORDS = re.compile(
    r"(?<!\()(?<!city of )(?<!city:)\b(" + "|".join(re.escape(civ["name"]) for civ in CIVS) + r")\b"
)
CIV_BY_NAME = {civ["name"]: civ["id"] for civ in CIVS}
CHOSE = re.compile(r"^Seat (\d+) plays (\w+)\.$")
DESERTS = re.compile(r"^Helen of Troy: a (\w+) legion deserts in ")
HOLD = re.compile(r"^(\w+)'s legions in ")
HELD = re.compile(
    r" hold ((?:city:[^,]+|temple|caravan:\w+|market)(?:, (?:city:[^,]+|temple|caravan:\w+|market))*)\.$"
)
SHARED = re.compile(r": ((?:\w+ and )+\w+) share the win\.$")
# "Rome names Rome to build." (a chooser naming themselves), "Rome names 0 cards for
# trading." (the number each player offers) and a battle's "6 = 6 against 4 = 4; Egypt
# loses 1, Rome loses 0." are read as a player says them.
NAMES_NEXT = re.compile(r"^(\w+) names (\w+) (to build|for war)\.$")
NEXT_WORDS = {"to build": "to build next", "for war": "to take the next war turn"}
TRADING = re.compile(r" names (\d+) cards? for trading\.$")
BATTLE = re.compile(
    r"^([^:]+ attacks [^:]+): (.+?) = (\d+) against (.+?) = (\d+); "
    r"(.+?) loses (\d+), (.+?) loses (\d+)\.$"
)


CARD_PATTERN = "|".join(CARD_KINDS)
# "receives 3 coins, 1 gems, 1 slaves" reads "receives 3 coins, 1 gems card, 1 slaves card"
CARD_LIST = re.compile(
    rf" (receives|offers|taking) (\d+ (?:{CARD_PATTERN})s?(?:, \d+ (?:{CARD_PATTERN})s?)*)(?=[.;])"
)
ONE_CARD = (
    (re.compile(rf" (takes|swaps) ({CARD_PATTERN}) (from|for) ({CARD_PATTERN}\b)?"), None),
    (re.compile(r" keeps 1 cards \(Mausoleum\)"), " keeps 1 card (Mausoleum)"),
)


def _one_card(found: re.Match) -> str:
    """ "takes coin from" reads "takes a coin from"; "swaps gold for coin" reads
    "swaps a gold card for a coin"."""
    verb, card, word, other = found.groups()
    return f" {verb} {a_card(card)} {word} " + (a_card(other) if other else "")


def reword(text: str, seats: dict[str, int]) -> str:
    """A stored log line as a player reads it: seats as placeholders, grammar mended."""
    for wrong, right in CORRECTIONS:
        if wrong in text:
            text = text.replace(wrong, right)
    for pattern, right in ONE_CARD:
        text = pattern.sub(right if right is not None else _one_card, text)
    chose = CHOSE.match(text)
    if chose:
        return f"{{name:{int(chose.group(1)) - 1}}} plays {chose.group(2)}."
    if " names " in text:
        text = NAMES_NEXT.sub(_names_next, text)
        text = TRADING.sub(_trading, text)
    elif " attacks " in text:
        text = BATTLE.sub(_battle, text)
    if " receives " in text or " offers " in text or " taking " in text:
        text = CARD_LIST.sub(lambda found: f" {found[1]} {_card_list(found[2])}", text)
    text = DESERTS.sub(r"Helen of Troy: a legion of \1 deserts in ", text)
    text = HOLD.sub(r"The legions of \1 in ", text)
    held = HELD.search(text)
    if held:
        buildings = [_hold_key(key) for key in held.group(1).split(", ")]
        text = text[: held.start(1)] + _and(buildings) + text[held.end(1) :]
    shared = SHARED.search(text)
    if shared:
        who = shared.group(1).split(" and ")
        text = (
            text[: shared.start(1)]
            + ", ".join(who[:-1])
            + " and "
            + who[-1]
            + text[shared.end(1) :]
        )

    def seat_of(found: re.Match) -> str:
        seat = seats.get(CIV_BY_NAME[found.group(1)])
        return found.group(1) if seat is None else f"{{seat:{seat}}}"

    return CIV_WORDS.sub(seat_of, text)


def _names_next(found: re.Match) -> str:
    """The Lawgiver or the General naming who acts next (rules 'Build' 1, 'War' 1)."""
    chooser, named, what = found.groups()
    return f"{chooser} names {'themselves' if named == chooser else named} {NEXT_WORDS[what]}."


def _card_list(listed: str) -> str:
    """ "2 coins, 1 grain" as "2 coins, 1 grain card": goods are counted in cards."""
    words = []
    for item in listed.split(", "):
        count, kind = item.split(" ", 1)
        if kind.startswith("coin"):
            words.append(item)
        else:
            words.append(f"{count} {kind} card{'' if count == '1' else 's'}")
    return ", ".join(words)


def _trading(found: re.Match) -> str:
    """The Navigator's number: how many cards each player offers (rules 'Trade')."""
    count = int(found[1])
    if not count:
        return " calls no trading this turn."
    return f" sets the trade at {count} card{'' if count == 1 else 's'} each."


def _battle(found: re.Match) -> str:
    """A battle's dice and losses: a lone die (or fortress) without its sum, and the
    losses in units ("Egypt loses 1 unit, Rome loses none"; "no unit is lost")."""
    head, rolled, total, defence, defended, target, lost, attacker, fell = found.groups()

    def side(dice: str, sum_: str) -> str:
        return f"{dice} = {sum_}" if " + " in dice else dice

    def units(count: str) -> str:
        return {"0": "none", "1": "1 unit"}.get(count, f"{count} units")

    losses = (
        "no unit is lost"
        if lost == fell == "0"
        else f"{target} loses {units(lost)}, {attacker} loses {units(fell)}"
    )
    return f"{head}: {side(rolled, total)} against {side(defence, defended)}; {losses}."


def a_card(name: str) -> str:
    """One card in words: "a coin", "a wine card", "an oil card" (the goods' names are
    mass or plural nouns: "1 slaves" would read badly)."""
    if name in A_CARD:
        return A_CARD[name]
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name} card"


def _item_object(item: str) -> Any:
    """What a purchase buys, as the object of a sentence: "a city", "the Pyramids",
    "Archimedes" (a hero's name)."""
    if item in THE_WONDER:
        return THE_WONDER[item]
    if item in GREAT_CARDS:
        return GREAT_CARDS[item]["name"]
    return A_ITEM[item]


def build_label(move: dict, view: dict | None) -> str:
    """A purchase with its price: "Build a city in Latium (Roma): costs 3, paying ..."."""
    item = move["item"]
    what = _item_object(item)
    if "province" in move and "site" in move:
        site = move["site"]
        label = T(
            "Build %(item)s in %(province)s (%(site)s)",
            item=what,
            province=PROVINCE[move["province"]]["name"],
            site=CARD_WORDS.get(site, site),
        )
    elif "province" in move:
        label = T(
            "Build %(item)s in %(province)s", item=what, province=PROVINCE[move["province"]]["name"]
        )
    elif "site" in move:
        label = T(
            "Build %(item)s (%(site)s)", item=what, site=CARD_WORDS.get(move["site"], move["site"])
        )
    else:
        label = T("Build %(item)s", item=what)
    price = (view or {}).get("costs", {}).get(item)
    if move["type"] == "setup_build":
        if price is not None:
            points = view.get("setup", {}).get("points")
            if points is not None:
                return T(
                    "%(label)s: costs %(price)d of your %(points)d points left",
                    label=label,
                    price=price,
                    points=points,
                )
        return label
    if not move["pay"]:
        return T("%(label)s free (Hammurabi)", label=label)
    if price is not None:
        return T(
            "%(label)s: costs %(price)d, paying %(cards)s",
            label=label,
            price=price,
            cards=cards_listed(move["pay"]),
        )
    return T("%(label)s, paying %(cards)s", label=label, cards=cards_listed(move["pay"]))


def _civ_seat(civ: str, view: dict | None) -> str:
    """A civilisation as a label names it: its player's placeholder, or its name when
    no seat plays it (a neutral)."""
    for player in (view or {}).get("players") or []:
        if player.get("civ") == civ:
            return f"{{seat:{player['seat']}}}"
    return CIV[civ]["name"]


def _hold_key(key: str) -> Any:
    kind, _, site = key.partition(":")
    if kind in ("city", "caravan", "temple", "market"):
        return held_word(kind, site)
    return f"the {kind}"


def _and(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]


def move_label(move: dict, view: dict | None = None) -> str:
    kind = move.get("type")
    if kind == "choose_civ":
        return T("Play %(civ)s", civ=CIV[move["civ"]]["name"])
    if kind in ("build", "setup_build"):
        return build_label(move, view)
    if kind == "end_setup":
        return T("End the set-up")
    if kind == "choose_title_holder":
        return T(
            "Give the %(title)s title to %(who)s",
            title=TITLE_WORDS[move["title"]],
            who=f"{{seat:{move['seat']}}}",
        )
    if kind == "choose_good":
        return T("Take %(card)s (Temple of Artemis)", card=a_card(move["good"]))
    if kind == "set_trade":
        if move["n"]:
            return Tn("Trade %(num)d card each", "Trade %(num)d cards each", move["n"])
        return T("No trading")
    if kind == "offer":
        return T("Offer %(cards)s", cards=cards_listed(move["cards"]))
    if kind == "take":
        return T(
            "Take %(card)s from %(who)s",
            card=a_card(move["card"]),
            who=f"{{seat:{move['from_seat']}}}",
        )
    if kind == "compensate":
        return T(
            "Give %(card)s to %(who)s", card=a_card(move["card"]), who=f"{{seat:{move['to_seat']}}}"
        )
    if kind == "name_builder":
        return T("%(who)s builds next", who=f"{{seat:{move['seat']}}}")
    if kind == "exchange":
        return T(
            "Swap %(give)s for %(get)s (Cleopatra)",
            give=a_card(move["give"]),
            get=a_card(move["get"]),
        )
    if kind == "end_build":
        return T("End building")
    if kind == "keep":
        return T("Keep %(cards)s", cards=cards_listed(move["cards"]))
    if kind == "name_warrior":
        return T("%(who)s goes to war next", who=f"{{seat:{move['seat']}}}")
    if kind == "launch":
        return T(
            "Put to sea from %(province)s into %(sea)s",
            province=space_name(move["province"]),
            sea=space_name(move["sea"]),
        )
    if kind == "move":
        unit = A_ITEM.get(move["unit"], f"a {move['unit']}")
        return T(
            "Move %(unit)s from %(start)s to %(end)s",
            unit=unit,
            start=space_name(move["from"]),
            end=space_name(move["to"]),
        )
    if kind == "attack":
        return T(
            "Attack %(target)s in %(where)s",
            target=_civ_seat(move["target"], view),
            where=space_name(move["space"]),
        )
    if kind == "pillage":
        return T("Pillage %(province)s", province=space_name(move["province"]))
    if kind == "hold":
        held = (
            held_list([_hold_key(key) for key in move["buildings"]])
            if move["buildings"]
            else T("nothing")
        )
        return T(
            "Hold %(buildings)s in %(province)s",
            buildings=held,
            province=space_name(move["province"]),
        )
    if kind == "end_war":
        return T("End the war turn")
    return str(kind)


# --- Rules reference --------------------------------------------------------------------

START_ITEMS = (
    ("control_marker", T("Control markers (not the capital)")),
    ("city", T("Cities")),
    ("temple", T("Temples")),
    ("caravan", T("Caravans")),
    ("market", T("Markets")),
    ("legion", T("Legions")),
    ("fortress", T("Fortresses")),
    ("trireme", T("Triremes")),
)


def start_rows(version: int, civ: str, seats: int | None = None) -> list[dict]:
    """A printed set-up counted at the build costs: the civilisation hero and every piece
    (the capital's own control marker is free), as the rulebook counts its 36 points."""
    start = start_of(version, civ, seats)
    capital = CIV[civ]["capital"]
    counts = {
        "control_marker": sum(1 for pid in start["provinces"] if pid != capital),
        "city": len(start["cities"]),
        "temple": len(start["temples"]),
        "caravan": len(start["caravans"]),
        "market": len(start["markets"]),
        "legion": sum(start["legions"].values()),
        "fortress": len(start["fortresses"]),
        "trireme": sum(start["triremes"].values()),
    }
    hero = CIV[civ]["hero"]
    rows = [
        {"item": T("Hero: %(name)s", name=HERO[hero]["name"]), "count": 1, "each": COSTS["hero"]}
    ]
    rows += [
        {"item": name, "count": counts[item], "each": COSTS[item]}
        for item, name in START_ITEMS
        if counts[item]
    ]
    for row in rows:
        row["points"] = row["count"] * row["each"]
    return rows


def _placed(space: str, n: int) -> str:
    """ "Latium" for one piece, "Babylonia (2)" for more."""
    return space if n == 1 else f"{space} ({n})"


def start_summary(version: int, civ: str, seats: int | None = None) -> dict:
    """What a printed set-up places, and its points."""
    start = start_of(version, civ, seats)
    rows = start_rows(version, civ, seats)
    return {
        "provinces": [PROVINCE[pid]["name"] for pid in start["provinces"]],
        "cities": [site for _, site in start["cities"]],
        "caravans": [
            T(
                "%(goods)s (%(province)s)",
                goods=CARD_WORDS.get(goods, goods),
                province=PROVINCE[pid]["name"],
            )
            for pid, goods in start["caravans"]
        ],
        "fortresses": [PROVINCE[pid]["name"] for pid in start["fortresses"]],
        "legions": [_placed(PROVINCE[pid]["name"], n) for pid, n in start["legions"].items()],
        "triremes": [_placed(SEA[sea]["name"], n) for sea, n in start["triremes"].items()],
        "rows": rows,
        "total": sum(row["points"] for row in rows),
    }


def rules_reference(version: int) -> dict:
    """The game's numbers for the rules reference page, straight from the data."""
    setups = []
    for civ in CIVS:
        entry = {
            "civ": civ["name"],
            "capital": PROVINCE[civ["capital"]]["name"],
            "title": TITLE_WORDS.get(civ["start_title"] or ""),
            **start_summary(version, civ["id"]),
        }
        # From version 3 on, a set-up may differ with the number of players.
        entry["by_players"] = [
            {"players": seats, **summary}
            for seats in sorted(POOLS_BY_PLAYERS)
            if (summary := start_summary(version, civ["id"], seats))
            != start_summary(version, civ["id"])
        ]
        setups.append(entry)
    return {
        "version": version,
        "players": [min(POOLS_BY_PLAYERS), max(POOLS_BY_PLAYERS)],
        "costs": [
            {"item": item, "name": COST_NAMES[item], "cost": price} for item, price in COSTS.items()
        ],
        "goods": [
            {"kind": kind, "name": CARD_WORDS[kind], "cards": count}
            for kind, count in GOODS.items()
        ],
        "coins": COINS,
        "pools": [
            {"players": players, **pool} for players, pool in sorted(POOLS_BY_PLAYERS.items())
        ],
        "pieces": [
            {
                "item": item,
                "name": COST_NAMES[item],
                "count": count,
                "counted": pieces_counted(item, count),
            }
            for item, count in PIECES_PER_PLAYER.items()
        ],
        "heroes": [
            {
                "id": hero["id"],
                "name": hero["name"],
                "civ": CIV[hero["civ"]]["name"] if hero["civ"] else None,
                "cost": COSTS["hero"],
                "effect": EFFECTS.get(hero["id"], hero["effect"]),
            }
            for hero in HEROES
        ],
        "wonders": [
            {
                "id": wonder["id"],
                "name": WONDER_WORDS.get(wonder["id"], wonder["name"]),
                "cost": wonder["cost"],
                "effect": EFFECTS.get(wonder["id"], wonder["effect"]),
            }
            for wonder in WONDERS
        ],
        "titles": [{"id": title, "name": TITLE_WORDS[title]} for title in TITLES],
        "recommended": [
            {"players": players, "civs": [CIV[civ]["name"] for civ in civs]}
            for players, civs in sorted(RECOMMENDED_CIVS.items())
        ],
        "setups": setups,
        "setup_points": SETUP_POINTS,
        "provinces": [
            {
                "id": province["id"],
                "name": province["name"],
                "capital_of": CIV[province["capital_of"]]["name"]
                if province["capital_of"]
                else None,
                "island": province["island"],
                "cities": city_sites(version, province["id"]),
                "resources": [CARD_WORDS.get(kind, kind) for kind in province["resources"]],
                "seas": [SEA[sea]["name"] for sea in province["coasts"]],
                "neighbours": [PROVINCE[near]["name"] for near in LAND_NEIGHBOURS[province["id"]]],
            }
            for province in PROVINCES
        ],
        "seas": [
            {
                "id": sea["id"],
                "name": sea["name"],
                "neighbours": [SEA[near]["name"] for near in SEA_NEIGHBOURS[sea["id"]]],
                "shores": [PROVINCE[pid]["name"] for pid in SHORES[sea["id"]]],
            }
            for sea in SEAS
        ],
    }


COST_NAMES = {
    "control_marker": T("Control marker"),
    "city": T("City"),
    "caravan": T("Caravan"),
    "legion": T("Legion"),
    "fortress": T("Fortress"),
    "trireme": T("Trireme"),
    "temple": T("Temple"),
    "market": T("Market"),
    "hero": T("Hero"),
    "wonder": T("Wonder"),
    "pyramids": T("The Pyramids"),
}


# The section of the rules reference (templates/rules.html) that explains each kind of
# move, for the link beside the kind's moves on the turn page.
RULE_SECTIONS = {
    "choose_civ": "setups",
    "setup_build": "experienced",
    "end_setup": "experienced",
    "choose_title_holder": "titles",
    "choose_good": "wonders",
    "set_trade": "trading",
    "offer": "trading",
    "take": "trading",
    "compensate": "compensation",
    "name_builder": "building",
    "build": "building",
    "exchange": "heroes",
    "end_build": "building",
    "keep": "discard",
    "name_warrior": "war",
    "launch": "war-moves",
    "move": "war-moves",
    "attack": "battle",
    "pillage": "occupation",
    "hold": "occupation",
    "end_war": "occupation",
}


KIND_NAMES = {
    "choose_civ": T("Choose a civilisation"),
    "setup_build": T("Place a starting piece"),
    "end_setup": T("Finish the set-up"),
    "choose_title_holder": T("Give a title"),
    "choose_good": T("Take a good (Temple of Artemis)"),
    "set_trade": T("Set the number of cards to trade"),
    "offer": T("Offer cards"),
    "take": T("Take a card"),
    "compensate": T("Give a card back"),
    "name_builder": T("Choose who builds next"),
    "build": T("Build"),
    "exchange": T("Swap a card (Cleopatra)"),
    "end_build": T("End building"),
    "keep": T("Keep cards (Mausoleum)"),
    "name_warrior": T("Choose who goes to war next"),
    "launch": T("Put to sea"),
    "move": T("Move"),
    "attack": T("Attack"),
    "pillage": T("Pillage"),
    "hold": T("Hold a province"),
    "end_war": T("End the war turn"),
}


def kind_name(kind: str) -> str | None:
    """What a player calls moves of ``kind`` (a group's heading on the turn page)."""
    return KIND_NAMES.get(kind)


def rule_anchor(kind: str) -> str | None:
    """The id of the rules reference's section that explains moves of ``kind``."""
    return RULE_SECTIONS.get(kind)
