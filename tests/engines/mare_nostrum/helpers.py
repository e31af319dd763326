"""Shared checks and builders for the Mare Nostrum tests."""

from __future__ import annotations

from engines.api import ScriptedChance
from engines.mare_nostrum import ENGINE as NEWEST
from engines.mare_nostrum.data import CARD_KINDS, COINS, GOODS, PIECES_PER_PLAYER, POOLS_BY_PLAYERS
from engines.mare_nostrum.state import clone, empty_hand

# The rules tests pin version 1, which running games still play; version 2's changes have
# tests of their own (test_version2.py).
ENGINE = NEWEST.at_version(1)
V2 = NEWEST.at_version(2)
TOTAL_CARDS = COINS + sum(GOODS.values())
OPTIONS = {"civilisations": "recommended", "setup": "starting", "turn_limit": 30}


def check_cards_accounted(state) -> None:
    """The 123 resource cards are all in the bank, the hands or the offers."""
    total = {kind: state["bank"][kind] for kind in CARD_KINDS}
    for hand in state["hands"]:
        for kind in CARD_KINDS:
            assert hand[kind] >= 0
            total[kind] += hand[kind]
    if state["trade"]:
        for offer in state["trade"]["offers"]:
            for kind, n in (offer or {}).items():
                assert n > 0
                total[kind] += n
    assert total == {"coin": COINS, **GOODS}
    assert sum(total.values()) == TOTAL_CARDS == 123


def check_pieces(state) -> None:
    """No power exceeds its pieces; the shared building pools are conserved."""
    on_board = {civ: dict.fromkeys(PIECES_PER_PLAYER, 0) for civ in state["supply"]}
    buildings = dict.fromkeys(POOLS_BY_PLAYERS[state["seats"]], 0)
    for province in state["provinces"].values():
        if province["marker"]:
            on_board[province["marker"]]["control_marker"] += 1
        if province["fortress"]:
            on_board[province["fortress"]]["fortress"] += 1
        for civ, n in province["legions"].items():
            assert n > 0
            on_board[civ]["legion"] += n
        for civ, n in province["dock"].items():
            assert n > 0
            on_board[civ]["trireme"] += n
        buildings["city"] += len(province["cities"])
        buildings["caravan"] += len(province["caravans"])
        buildings["temple"] += province["temple"] is not None
        buildings["market"] += province["market"] is not None
        if province["temple"] is not None:
            assert province["temple"] in province["cities"]
        if province["market"] is not None:
            assert province["market"] in province["caravans"]
    for fleet in state["seas"].values():
        for civ, n in fleet.items():
            assert n > 0
            on_board[civ]["trireme"] += n
    for civ, pieces in on_board.items():
        for piece, n in pieces.items():
            assert state["supply"][civ][piece] >= 0
            assert n + state["supply"][civ][piece] == PIECES_PER_PLAYER[piece], (civ, piece)
    for kind, n in buildings.items():
        assert state["pool"][kind] >= 0
        assert n + state["pool"][kind] == POOLS_BY_PLAYERS[state["seats"]][kind], kind
    owned = [card for cards in state["cards"] for card in cards]
    assert len(owned) == len(set(owned))


def invariant(state) -> None:
    check_cards_accounted(state)
    check_pieces(state)


def start(seats: int = 4, **options) -> dict:
    """A new game (starting set-up, recommended civilisations unless told otherwise)."""
    return ENGINE.setup(seats, {**OPTIONS, **options}, ScriptedChance([0] * 20))


def with_hand(state: dict, seat: int, **cards: int) -> dict:
    """A copy where ``seat`` holds exactly ``cards`` (taken from or returned to the bank)."""
    state = clone(state)
    hand = state["hands"][seat]
    for kind in CARD_KINDS:
        state["bank"][kind] += hand[kind]
    state["hands"][seat] = empty_hand()
    for kind, n in cards.items():
        state["bank"][kind] -= n
        state["hands"][seat][kind] = n
    return state


def seat_of(state: dict, civ: str) -> int:
    return state["civs"].index(civ)


def play(state: dict, seat: int, move: dict, outcomes=()) -> dict:
    return ENGINE.apply(state, seat, move, ScriptedChance(list(outcomes)))


def building(state: dict, seat: int) -> dict:
    """A copy where ``seat`` is in the middle of its build turn."""
    state = clone(state)
    state.update(phase="build", trade=None, title_check=None)
    state["build"] = {"done": [], "current": seat, "cleopatra": False, "hammurabi": False}
    return state


def warring(state: dict, seat: int) -> dict:
    """A copy where ``seat`` has just begun its war turn."""
    state = clone(state)
    state.update(phase="war", trade=None, build=None, title_check=None)
    state["war"] = {"done": [], "current": seat, "moved": {}, "attacked": {}, "both": {}}
    state["war_serial"] += 1
    return state


def put_legions(state: dict, civ: str, province: str, n: int) -> dict:
    """A copy with ``n`` more of ``civ``'s legions (from its supply) in ``province``."""
    state = clone(state)
    legions = state["provinces"][province]["legions"]
    legions[civ] = legions.get(civ, 0) + n
    state["supply"][civ]["legion"] -= n
    return state


def give_cards(state: dict, seat: int, *cards: str) -> dict:
    state = clone(state)
    state["cards"][seat] = sorted([*state["cards"][seat], *cards])
    return state


def dice(*faces: int) -> list[int]:
    """Scripted chance outcomes for die faces 1-6."""
    return [face - 1 for face in faces]
