"""Version 3 of the Mare Nostrum rules: set-ups retuned for balance, beside versions 1 and 2
which running games still play unchanged (and, since version 4, itself kept unchanged)."""

from __future__ import annotations

import hashlib
import random

import pytest

from engines.api import ScriptedChance, SeededChance, canonical_json
from engines.mare_nostrum import ENGINE as NEWEST
from engines.mare_nostrum import data
from engines.mare_nostrum.state import controlled
from engines.mare_nostrum.titles import title_count
from engines.mare_nostrum.views import rules_reference, start_rows
from tests.engines.mare_nostrum.helpers import ENGINE as V1
from tests.engines.mare_nostrum.helpers import V2, invariant

V3 = NEWEST.at_version(3)
OPTIONS = {"civilisations": "recommended", "setup": "starting", "turn_limit": 30}
PRINTED_TITLES = {"general": "rome", "lawgiver": "egypt", "navigator": "carthage"}


def start(engine, seats: int) -> dict:
    return engine.setup(seats, OPTIONS, ScriptedChance([0] * 20))


def digest(engine, state: dict) -> str:
    text = canonical_json(engine.dump(state))
    return hashlib.sha256(text.encode() if isinstance(text, str) else text).hexdigest()


def test_version_three_and_older_versions_stay_playable():
    assert V3.version == 3 and NEWEST.versions[:3] == (1, 2, 3)
    assert V1.at_version(3) is V3 and V2.at_version(3) is V3 and NEWEST.at_version(3) is V3
    assert {option.name: option.default for option in V3.options} == {
        "civilisations": "recommended",
        "setup": "starting",
        "turn_limit": 40,
    }
    state = start(V3, 4)
    assert state["rules_version"] == 3 and V3.dump(state)["rules_version"] == 3
    assert V3.view(state, 0)["rules_version"] == 3


# The set-ups of versions 1 to 3, pinned: the states they start from, by hash.
SETUP_HASHES = {
    (1, 3): "584303308c9700b6a7f459e87c6585680d888e3d0ab16c93a8c954832f19696c",
    (1, 4): "b165e9e1b9ec4bbdd9f69cf7867e5e396bed7143e02bbdef8ade5ecee073e304",
    (1, 5): "e7b8a54edab2e90a8b233608a0c3249a2738fcaf9c4d4b37f687e1ac3c2c138c",
    (2, 3): "8a9d0b5d2c6ba60cbe720086a89d69d864fd4e1b017899d177598f7dc4ceb5b2",
    (2, 4): "579a033bc95754f5c057f53f9c280e4f66222c5c26e0316326170250db20af47",
    (2, 5): "1edf01cbfaba01ecf4a7a0064a842e26afd3cf82cb8151709e456dfb3e7c19ec",
    (3, 3): "2311029853976adeebb1d1e195836c8dedf8aee1d75aa30a70c4ddab1d1308f9",
    (3, 4): "f53be5335e222462e083b5c095178bc6f275b52df58996f466fc760eece97206",
    (3, 5): "9dce44b8c3b3a66569d792dba6fc01b89993b19d285962ffaee1bf6dcce4af64",
}
# A whole 4-player game of easy bots (the first bot, unchanged) on each older version.
GAME_HASHES = {
    1: (257, "17e09435aeff88931cf4423eb8556bd1d5434cd43d4fc6fc02d3290d409e3b86"),
    2: (489, "51b31e466d581ff36e3538b371ba23f056ca6a63ccebad83e440289c9841e867"),
}


@pytest.mark.parametrize(("version", "seats"), sorted(SETUP_HASHES))
def test_older_set_ups_are_unchanged(version, seats):
    engine = NEWEST.at_version(version)
    assert digest(engine, start(engine, seats)) == SETUP_HASHES[version, seats]


@pytest.mark.parametrize("version", sorted(GAME_HASHES))
def test_version_one_and_two_games_play_as_they_always_did(version):
    engine = NEWEST.at_version(version)
    chance, rng = SeededChance(5), random.Random(5)
    state = engine.setup(4, {"turn_limit": 30}, chance)
    moves = 0
    while due := engine.to_move(state):
        seat = min(due)
        view = engine.view(state, seat)
        move = engine.bot_move(view, engine.legal_moves(state, seat), rng, level="easy")
        state = engine.apply(state, seat, move, chance)
        moves += 1
    assert (moves, digest(engine, state)) == GAME_HASHES[version]


SET_UPS = [(civ, None) for civ in data.CIV_IDS] + [
    (civ, seats) for seats, starts in data.STARTS_V3_BY_PLAYERS.items() for civ in starts
]


@pytest.mark.parametrize(("civ", "seats"), SET_UPS)
def test_each_version_three_set_up_is_worth_36_points_and_keeps_the_rules_facts(civ, seats):
    begin = data.start_of(3, civ, seats)
    assert sum(row["points"] for row in start_rows(3, civ, seats)) == 36
    capital = data.CIV[civ]["capital"]
    assert capital in begin["provinces"] and len(set(begin["provinces"])) == 3
    assert capital in begin["fortresses"]
    for pid, site in begin["cities"]:
        assert site in data.city_sites(3, pid) and pid in begin["provinces"]
    for pid, site in begin["temples"]:
        assert [pid, site] in begin["cities"]
    for pid, goods in begin["caravans"]:
        assert goods in data.PROVINCE[pid]["resources"] and pid in begin["provinces"]
    for pid, goods in begin["markets"]:
        assert [pid, goods] in begin["caravans"]
    for pid in (*begin["fortresses"], *begin["legions"]):
        assert pid in begin["provinces"]
    for sea in begin["triremes"]:
        assert any(sea in data.COASTS[pid] for pid in begin["provinces"])
    if civ == "babylon":
        assert not begin["triremes"]
    if civ == "egypt":
        assert ["aegyptus", "papyrus"] in begin["caravans"]
        assert ["aegyptus", "grain"] in begin["caravans"]


@pytest.mark.parametrize("seats", [3, 4, 5])
def test_version_three_keeps_the_printed_titles_and_three_provinces_each(seats):
    state = start(V3, seats)
    assert state["phase"] == "trade_number"  # no title changed hands, no choice pending
    holders = {title: state["civs"][seat] for title, seat in state["titles"].items()}
    for title, civ in PRINTED_TITLES.items():
        if civ in state["civs"]:
            assert holders[title] == civ
            mine = title_count(state, state["titles"][title], title)
            assert all(title_count(state, seat, title) <= mine for seat in range(seats))
    for civ in state["civs"]:
        assert len(controlled(state, civ)) == 3
    invariant(state)


def test_some_player_counts_start_from_set_ups_of_their_own():
    assert data.STARTS_V3_BY_PLAYERS[3]["babylon"] != data.STARTS_V3["babylon"]
    for seats in (3, 4, 5):
        for civ in data.CIV_IDS:
            chance = ScriptedChance([0] * 20)
            state = V3.setup(seats, {**OPTIONS, "civilisations": "choose"}, chance)
            others = [other for other in data.CIV_IDS if other != civ]
            for chosen in (civ, *others[: seats - 1]):
                seat = min(V3.to_move(state))
                state = V3.apply(state, seat, {"type": "choose_civ", "civ": chosen}, chance)
            expected = data.STARTS_V3_BY_PLAYERS.get(seats, {}).get(civ, data.STARTS_V3[civ])
            assert data.start_of(3, civ, seats) is expected
            assert sorted(controlled(state, civ)) == sorted(expected["provinces"])
            for pid, site in expected["cities"]:
                assert site in state["provinces"][pid]["cities"]
            for pid, site in expected["markets"]:
                assert state["provinces"][pid]["market"] == site
            for pid, site in expected["temples"]:
                assert state["provinces"][pid]["temple"] == site
            for pid, n in expected["legions"].items():
                assert state["provinces"][pid]["legions"][civ] == n
            for sea, n in expected["triremes"].items():
                assert state["seas"][sea][civ] == n


def test_the_rules_reference_shows_the_version_three_set_ups():
    shown = rules_reference(3)
    assert [setup["total"] for setup in shown["setups"]] == [36] * 5
    for setup, civ in zip(shown["setups"], data.CIVS, strict=True):
        begin = data.STARTS_V3[civ["id"]]
        assert setup["cities"] == [site for _, site in begin["cities"]]
        expected = [
            seats for seats, starts in data.STARTS_V3_BY_PLAYERS.items() if civ["id"] in starts
        ]
        assert [other["players"] for other in setup["by_players"]] == expected
        for other in setup["by_players"]:
            assert other["total"] == 36 and other["rows"] != setup["rows"]
    assert all(not setup["by_players"] for setup in rules_reference(2)["setups"])


def test_a_version_two_game_plays_to_its_end_after_version_three_ships(sqlite_db):
    from pbem.eventlog.verify import verify_export
    from pbem.games.service import GameService, SeatSpec

    service = GameService(sqlite_db, snapshot_every=20)
    bots = [SeatSpec(f"Bot {i + 1}", is_bot=True, bot_level="normal") for i in range(3)]
    options = {"turn_limit": 6}
    old = service.create_game("mare_nostrum", bots, options, version=2)
    new = service.create_game("mare_nostrum", bots, options)
    assert service.game(old.game_id).engine_version == 2
    assert service.game(new.game_id).engine_version == NEWEST.version
    service.play_bots(old.game_id, max_moves=30)
    head = service.head(old.game_id)
    assert head.engine.version == 2 and head.state["rules_version"] == 2
    report = {entry["game_id"]: entry for entry in service.check_engines()}
    assert report[old.game_id]["ok"] and report[old.game_id]["running"] == 2
    assert report[new.game_id]["ok"] and report[new.game_id]["running"] == NEWEST.version
    for created in (old, new):
        service.play_bots(created.game_id, max_moves=20_000)
        assert service.game(created.game_id).status == "finished"
        assert service.verify_game(created.game_id).ok
        assert verify_export(service.export_game(created.game_id)).ok
    assert service.game(old.game_id).engine_version == 2
