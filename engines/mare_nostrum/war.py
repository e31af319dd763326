"""War phase: moving, battles, occupation, pillage and assimilation (rules 'War').

During a war turn the acting power's units are tracked per space in three counts:
``moved`` (moved, not yet attacked), ``attacked`` (attacked, not moved) and ``both``.
Every other unit there is fresh. Each unit moves at most once and attacks at most once.
"""

from __future__ import annotations

from engines.api import Chance, IllegalMove
from engines.mare_nostrum.data import CIV, COASTS, PROVINCE, PROVINCE_IDS, SEA, SEA_IDS, space_name
from engines.mare_nostrum.flow import next_warrior
from engines.mare_nostrum.income import (
    buildings,
    describe_cards,
    full_income,
    hold_choices,
    hold_pending,
    take_from_bank,
)
from engines.mare_nostrum.reach import linked, seas_within
from engines.mare_nostrum.state import (
    State,
    add,
    civ_name,
    civ_of,
    is_capital,
    military_powers,
    owns_card,
    province_read,
    reading,
    rules_version,
    say,
)
from engines.mare_nostrum.words import T, Tn

FORTRESS_VALUE = 6
HIT_EVERY = 5


def update_occupation(state: State, pid: str) -> None:
    """Rules 'War' 6: legions in another power's province where that power has no legion
    or fortress left occupy it; the occupation ends when the owner returns."""
    province = state["provinces"][pid]
    owner = province["marker"]
    if owner is None or province["legions"].get(owner) or province["fortress"] == owner:
        province["occupier"] = None
        province["occupied_at"] = 0
        province.pop("hold", None)
        return
    foreign = sorted(civ for civ, n in province["legions"].items() if n and civ != owner)
    if province["occupier"] in foreign:
        return
    province.pop("hold", None)
    if len(foreign) == 1:
        province["occupier"] = foreign[0]
        province["occupied_at"] = state["war_serial"]
        say(state, f"{civ_name(foreign[0])} occupies {PROVINCE[pid]['name']}.")
    else:
        province["occupier"] = None
        province["occupied_at"] = 0


def units_at(state: State, civ: str, space: str) -> int:
    seas = reading(state, "seas")
    if space in seas:
        return seas[space].get(civ, 0)
    return province_read(state, space)["legions"].get(civ, 0)


def unmoved(state: State, civ: str, space: str) -> int:
    war = state["war"]
    return units_at(state, civ, space) - war["moved"].get(space, 0) - war["both"].get(space, 0)


def unattacked(state: State, civ: str, space: str) -> int:
    war = state["war"]
    return units_at(state, civ, space) - war["attacked"].get(space, 0) - war["both"].get(space, 0)


def _shift(state: State, civ: str, space: str, amount: int) -> None:
    if space in state["seas"]:
        add(state["seas"][space], civ, amount)
    else:
        add(state["provinces"][space]["legions"], civ, amount)


def _lose_attackers(state: State, space: str, lost: int) -> None:
    """Removes lost attacking units from the turn's counts (moved-and-attacked first)."""
    war = state["war"]
    for key in ("both", "attacked"):
        gone = min(lost, war[key].get(space, 0))
        add(war[key], space, -gone)
        lost -= gone


def launch(state: State, seat: int, move: dict, chance: Chance) -> None:
    civ = civ_of(state, seat)
    pid, sea = move["province"], move["sea"]
    if pid not in PROVINCE or not state["provinces"][pid]["dock"].get(civ):
        raise IllegalMove(T("You have no trireme in dock there."))
    if sea not in COASTS[pid]:
        raise IllegalMove(
            T(
                "%(province)s does not touch %(sea)s.",
                province=PROVINCE[pid]["name"],
                sea=space_name(sea) if sea in SEA else repr(sea),
            )
        )
    add(state["provinces"][pid]["dock"], civ, -1)
    add(state["seas"][sea], civ, 1)
    add(state["war"]["moved"], sea, 1)
    say(
        state,
        f"{civ_name(civ)} puts a trireme to sea from {PROVINCE[pid]['name']} into {space_name(sea)}.",
    )


def legion_destinations(state: State, civ: str, origin: str) -> list[str]:
    reach = linked(state, civ, origin)
    return [pid for pid in PROVINCE if pid in reach]


def trireme_destinations(state: State, civ: str, origin: str) -> list[str]:
    return seas_within(origin, 2 if owns_card(state, civ, "ulysses") else 1)


def move_unit(state: State, seat: int, move: dict, chance: Chance) -> None:
    civ = civ_of(state, seat)
    unit, origin, goal = move["unit"], move["from"], move["to"]
    if unit == "legion":
        if origin not in PROVINCE or goal not in PROVINCE:
            raise IllegalMove(T("Legions move from a province to a province."))
        if goal not in legion_destinations(state, civ, origin):
            raise IllegalMove(
                T(
                    "A legion moves one province by land, or along a chain of your triremes: "
                    "%(end)s is out of reach from %(start)s.",
                    end=PROVINCE[goal]["name"],
                    start=PROVINCE[origin]["name"],
                )
            )
    elif unit == "trireme":
        if origin not in SEA or goal not in SEA:
            raise IllegalMove(T("Triremes at sea move from a sea to a sea."))
        if goal not in trireme_destinations(state, civ, origin):
            raise IllegalMove(
                T(
                    "%(end)s is too far for a trireme from %(start)s.",
                    end=SEA[goal]["name"],
                    start=SEA[origin]["name"],
                )
            )
    else:
        raise IllegalMove(T("Only legions and triremes move."))
    if unmoved(state, civ, origin) < 1:
        where = space_name(origin)
        raise IllegalMove(
            T("You have no legion in %(where)s that has not moved this turn.", where=where)
            if unit == "legion"
            else T("You have no trireme in %(where)s that has not moved this turn.", where=where)
        )
    war = state["war"]
    _shift(state, civ, origin, -1)
    _shift(state, civ, goal, 1)
    if war["attacked"].get(origin):
        add(war["attacked"], origin, -1)
        add(war["both"], goal, 1)
    else:
        add(war["moved"], goal, 1)
    say(state, f"{civ_name(civ)} moves a {unit} from {space_name(origin)} to {space_name(goal)}.")
    for space in (origin, goal):
        if space in PROVINCE:
            update_occupation(state, space)


def _bonus(state: State, civ: str, land: bool, attacking: bool) -> int:
    if land:
        return owns_card(state, civ, "hannibal") + (
            attacking and owns_card(state, civ, "agamemnon")
        )
    return owns_card(state, civ, "pericles") + owns_card(state, civ, "lighthouse")


def attack(state: State, seat: int, move: dict, chance: Chance) -> None:
    civ = civ_of(state, seat)
    space, target = move["space"], move["target"]
    land = space in PROVINCE
    if not land and space not in SEA:
        raise IllegalMove(T("There is no province or sea called %(name)s.", name=repr(space)))
    if target not in CIV or target == civ:
        raise IllegalMove(T("Name another power to attack."))
    if target not in military_powers(state, space):
        raise IllegalMove(
            T(
                "%(target)s has no military units in %(where)s.",
                target=civ_name(target),
                where=space_name(space),
            )
        )
    attackers = unattacked(state, civ, space)
    if attackers < 1:
        raise IllegalMove(
            T(
                "You have no unit in %(where)s that has not attacked this turn.",
                where=space_name(space),
            )
        )
    war = state["war"]
    moved = war["moved"].pop(space, 0)
    add(war["both"], space, moved)
    add(war["attacked"], space, attackers - moved)
    supply = state["supply"]
    unit = "legion" if land else "trireme"
    where = space_name(space)
    if land and owns_card(state, target, "helen_of_troy"):
        # Helen of Troy: one attacking legion deserts to the defender before the dice.
        _shift(state, civ, space, -1)
        _lose_attackers(state, space, 1)
        supply[civ]["legion"] += 1
        attackers -= 1
        joined = supply[target]["legion"] > 0
        if joined:
            supply[target]["legion"] -= 1
            _shift(state, target, space, 1)
        say(
            state,
            f"Helen of Troy: a {civ_name(civ)} legion deserts in {where}"
            + (f" and joins {civ_name(target)}." if joined else "."),
        )
    defenders = units_at(state, target, space)
    fortress = land and state["provinces"][space]["fortress"] == target
    if attackers < 1:
        update_occupation(state, space)
        return
    bonus = _bonus(state, civ, land, attacking=True)
    rolls = [chance.below(6) + 1 for _ in range(attackers)]
    defence_bonus = _bonus(state, target, land, attacking=False)
    defence = [chance.below(6) + 1 for _ in range(defenders)]
    total = sum(rolls) + bonus * attackers
    defended = sum(defence) + defence_bonus * defenders + (FORTRESS_VALUE if fortress else 0)
    hits, counter = total // HIT_EVERY, defended // HIT_EVERY
    # Losses at the same time; legions fall before the fortress (rules 'War' 4).
    lost_units = min(hits, defenders)
    lost_fortress = fortress and hits > defenders
    lost_attackers = min(counter, attackers)
    _shift(state, target, space, -lost_units)
    supply[target][unit] += lost_units
    if lost_fortress:
        state["provinces"][space]["fortress"] = None
        supply[target]["fortress"] += 1
    _shift(state, civ, space, -lost_attackers)
    _lose_attackers(state, space, lost_attackers)
    supply[civ][unit] += lost_attackers
    # "Rome attacks Greece in Attica: 6 + 5 + 2 = 13 against 4 + 6 (fortress) = 10; ..."
    say(
        state,
        f"{civ_name(civ)} attacks {civ_name(target)} in {where}: "
        f"{_dice(rolls, bonus)} = {total} against {_dice(defence, defence_bonus, fortress=fortress)} = "
        f"{defended}; {civ_name(target)} loses {lost_units + lost_fortress}, "
        f"{civ_name(civ)} loses {lost_attackers}.",
    )
    if land:
        update_occupation(state, space)


def _dice(rolls: list[int], bonus: int, *, fortress: bool = False) -> str:
    parts = [str(roll + bonus) for roll in rolls]
    if fortress:
        parts.append(f"{FORTRESS_VALUE} (fortress)")
    return " + ".join(parts) if parts else "0"


def _occupied(state: State, civ: str, move: dict) -> tuple[str, dict, str]:
    """The province ``move`` names (id, state, name), which ``civ`` must occupy."""
    pid = move["province"]
    if pid not in PROVINCE:
        raise IllegalMove(T("There is no province called %(name)s.", name=repr(pid)))
    province = state["provinces"][pid]
    name = PROVINCE[pid]["name"]
    if province["occupier"] != civ:
        raise IllegalMove(T("You do not occupy %(province)s.", province=name))
    return pid, province, name


def pillage(state: State, seat: int, move: dict, chance: Chance) -> None:
    civ = civ_of(state, seat)
    pid, province, name = _occupied(state, civ, move)
    if is_capital(pid):
        raise IllegalMove(
            T("%(province)s is a capital: capitals are never pillaged.", province=name)
        )
    got = take_from_bank(state, seat, full_income(province))
    pool = state["pool"]
    pool["city"] += len(province["cities"])
    pool["caravan"] += len(province["caravans"])
    pool["temple"] += province["temple"] is not None
    pool["market"] += province["market"] is not None
    state["supply"][province["marker"]]["control_marker"] += 1
    owner = province["marker"]
    province.update(
        cities=[], caravans=[], temple=None, market=None, marker=None, occupier=None, occupied_at=0
    )
    province.pop("hold", None)
    say(
        state,
        f"{civ_name(civ)} pillages {name}, taking {describe_cards(got)}; "
        f"{civ_name(owner)} loses the province and its buildings.",
    )


def assimilate(state: State, civ: str) -> None:
    """Rules 'War' 7: at the end of the occupier's next war turn (Nebuchadnezzar: this
    one) the owner's marker goes and the occupier's comes, with the buildings."""
    serial = state["war_serial"]
    at_once = owns_card(state, civ, "nebuchadnezzar")
    for pid in PROVINCE_IDS:
        seen = province_read(state, pid)
        if seen["occupier"] != civ or not (at_once or seen["occupied_at"] < serial):
            continue
        province = state["provinces"][pid]
        owner = province["marker"]
        state["supply"][owner]["control_marker"] += 1
        supply = state["supply"][civ]
        if supply["control_marker"]:
            supply["control_marker"] -= 1
            province["marker"] = civ
            say(
                state,
                f"{civ_name(civ)} assimilates {PROVINCE[pid]['name']} from {civ_name(owner)}.",
            )
        else:
            province["marker"] = None
            say(
                state,
                f"{civ_name(owner)} loses {PROVINCE[pid]['name']}; {civ_name(civ)} has no "
                "control marker left to place there.",
            )
        province["occupier"] = None
        province["occupied_at"] = 0
        province.pop("hold", None)
        update_occupation(state, pid)


def docked(state: State, civ: str) -> list[str]:
    """The provinces where ``civ`` has triremes in dock, in map order."""
    return [pid for pid in PROVINCE_IDS if province_read(state, pid)["dock"].get(civ)]


def pending_holds(state: State, civ: str) -> list[str]:
    """Version 2: the provinces ``civ`` occupies whose held buildings it has yet to choose."""
    return [
        pid
        for pid in PROVINCE_IDS
        if province_read(state, pid)["occupier"] == civ and hold_pending(province_read(state, pid))
    ]


def hold(state: State, seat: int, move: dict, chance: Chance) -> None:
    """Version 2: the occupier chooses which buildings its legions hold (rules 'War' 6)."""
    civ = civ_of(state, seat)
    if rules_version(state) < 2:
        raise IllegalMove(
            T("In this game's rules the occupier's legions hold the most valuable buildings.")
        )
    pid, province, name = _occupied(state, civ, move)
    choices = hold_choices(province)
    if not choices:
        raise IllegalMove(
            T(
                "Your legions in %(province)s hold every building there: there is no choice.",
                province=name,
            )
        )
    chosen = move["buildings"]
    if sorted(chosen) not in [sorted(choice) for choice in choices]:
        raise IllegalMove(
            Tn(
                "Name %(num)d different buildings of %(province)s for your %(num)d legion "
                "there to hold (from %(buildings)s).",
                "Name %(num)d different buildings of %(province)s for your %(num)d legions "
                "there to hold (from %(buildings)s).",
                len(choices[0]),
                province=name,
                buildings=", ".join(buildings(province)),
            )
        )
    province["hold"] = [key for key in buildings(province) if key in chosen]
    say(state, f"{civ_name(civ)}'s legions in {name} hold {', '.join(province['hold'])}.")


def end_war(state: State, seat: int, move: dict, chance: Chance) -> None:
    civ = civ_of(state, seat)
    if rules_version(state) >= 2:
        waiting = docked(state, civ)
        if waiting:
            raise IllegalMove(
                T(
                    "Your new triremes put to sea in the war phase: launch the one in dock in "
                    "%(province)s before you end the war turn.",
                    province=PROVINCE[waiting[0]]["name"],
                )
            )
        unchosen = pending_holds(state, civ)
        if unchosen:
            raise IllegalMove(
                T(
                    "Choose which buildings your legions hold in %(province)s "
                    "before you end the war turn.",
                    province=PROVINCE[unchosen[0]]["name"],
                )
            )
    assimilate(state, civ_of(state, seat))
    state["war"]["done"].append(seat)
    say(state, f"{civ_name(civ_of(state, seat))} ends the war turn.")
    next_warrior(state)


def war_moves(state: State, seat: int) -> list[dict]:
    civ = civ_of(state, seat)
    moves: list[dict] = []
    provinces = state["provinces"]
    version = rules_version(state)
    if version >= 2:
        for pid in pending_holds(state, civ):
            moves += [
                {"type": "hold", "province": pid, "buildings": choice}
                for choice in hold_choices(provinces[pid])
            ]
    # Map order, never the dict's order: a state loaded from a snapshot lists the same moves.
    for pid in PROVINCE_IDS:
        if provinces[pid]["dock"].get(civ):
            moves += [{"type": "launch", "province": pid, "sea": sea} for sea in COASTS[pid]]
    for pid in PROVINCE_IDS:
        if units_at(state, civ, pid) and unmoved(state, civ, pid) > 0:
            moves += [
                {"type": "move", "unit": "legion", "from": pid, "to": goal}
                for goal in legion_destinations(state, civ, pid)
            ]
    for sea in SEA_IDS:
        if units_at(state, civ, sea) and unmoved(state, civ, sea) > 0:
            moves += [
                {"type": "move", "unit": "trireme", "from": sea, "to": goal}
                for goal in trireme_destinations(state, civ, sea)
            ]
    for space in (*PROVINCE_IDS, *SEA_IDS):
        if units_at(state, civ, space) and unattacked(state, civ, space) > 0:
            moves += [
                {"type": "attack", "space": space, "target": target}
                for target in military_powers(state, space)
                if target != civ
            ]
    for pid in PROVINCE_IDS:
        if provinces[pid]["occupier"] == civ and not is_capital(pid):
            moves.append({"type": "pillage", "province": pid})
    if version < 2 or not (docked(state, civ) or pending_holds(state, civ)):
        moves.append({"type": "end_war"})
    return moves
