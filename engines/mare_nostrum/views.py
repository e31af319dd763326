"""What each seat may see (``view``), readable history lines (``describe``) and move labels.

Views are built by adding what the viewer may know: the whole board, titles, heroes and
wonders, hand sizes, and for a seat its own hand and its own offer before the reveal.
Version 1 shows only the bank's size; version 2 shows its cards, which lie face up at the
table (rulebook, 'Setup').
"""

from __future__ import annotations

from typing import Any

from engines.mare_nostrum.build import item_name
from engines.mare_nostrum.data import (
    CARD_KINDS,
    CIV,
    GREAT_CARDS,
    PROVINCE,
    TITLE_NAMES,
    TITLES,
    space_name,
)
from engines.mare_nostrum.income import held_buildings
from engines.mare_nostrum.rules import result, to_move
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


def phase_text(state: State) -> str:
    if state["phase"] in (CHOOSE_CIV, SETUP, OVER):
        return PHASE_TITLES[state["phase"]].capitalize()
    if state["title_check"]:
        return f"Turn {state['turn']} — {state['title_check']['phase']} (title check)"
    return f"Turn {state['turn']} — {PHASE_TITLES[state['phase']]}"


def _player(state: State, seat: int) -> dict[str, Any]:
    civ = state["civs"][seat]
    if civ is None:
        return {"seat": seat, "civ": None, "name": f"Seat {seat + 1}", "hand_size": 0}
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
    if state["phase"] == OVER:
        shown["result"] = result(state).to_json()
    return shown


def describe(before: State, seat: int, move: dict, after: State, viewer: int | None) -> list[str]:
    """The lines of the move's log that ``viewer`` may read."""
    lines = []
    if viewer == seat and move.get("type") == "offer":
        lines.append(f"You offer {', '.join(move['cards'])}.")
    for text, audience in after["log"]:
        if audience is None or viewer in audience:
            lines.append(text)
    return lines


def _cards(cards: list[str]) -> str:
    return ", ".join(cards) if cards else "nothing"


def move_label(move: dict) -> str:
    kind = move.get("type")
    if kind == "choose_civ":
        return f"Play {CIV[move['civ']]['name']}"
    if kind in ("build", "setup_build"):
        item = move["item"]
        label = f"Build {item_name(item)}" if item in GREAT_CARDS else f"Build a {item_name(item)}"
        if "province" in move:
            label += f" in {PROVINCE[move['province']]['name']}"
        if "site" in move:
            label += f" ({move['site']})"
        if kind == "build":
            label += f", paying {_cards(move['pay'])}" if move["pay"] else " free (Hammurabi)"
        return label
    if kind == "end_setup":
        return "End the set-up"
    if kind == "choose_title_holder":
        return f"Give the {TITLE_NAMES[move['title']]} title to seat {move['seat'] + 1}"
    if kind == "choose_good":
        return f"Take {move['good']} (Temple of Artemis)"
    if kind == "set_trade":
        return (
            f"Trade {move['n']} card{'s' if move['n'] != 1 else ''} each"
            if move["n"]
            else "No trading"
        )
    if kind == "offer":
        return f"Offer {_cards(move['cards'])}"
    if kind == "take":
        return f"Take {move['card']} from seat {move['from_seat'] + 1}"
    if kind == "compensate":
        return f"Give {move['card']} to seat {move['to_seat'] + 1}"
    if kind == "name_builder":
        return f"Seat {move['seat'] + 1} builds next"
    if kind == "exchange":
        return f"Swap {move['give']} for {move['get']} (Cleopatra)"
    if kind == "end_build":
        return "End building"
    if kind == "keep":
        return f"Keep {_cards(move['cards'])}"
    if kind == "name_warrior":
        return f"Seat {move['seat'] + 1} goes to war next"
    if kind == "launch":
        return f"Put to sea from {space_name(move['province'])} into {space_name(move['sea'])}"
    if kind == "move":
        return f"Move a {move['unit']} from {space_name(move['from'])} to {space_name(move['to'])}"
    if kind == "attack":
        return f"Attack {CIV[move['target']]['name']} in {space_name(move['space'])}"
    if kind == "pillage":
        return f"Pillage {space_name(move['province'])}"
    if kind == "hold":
        return f"Hold {', '.join(move['buildings'])} in {space_name(move['province'])}"
    if kind == "end_war":
        return "End the war turn"
    return str(kind)
