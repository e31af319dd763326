"""The "normal" bot: what it does better than the first version's ("easy") bot."""

from __future__ import annotations

import random

import pytest

from engines.api import SeededChance
from engines.mare_balticum import ENGINE, bot, bot_normal
from engines.mare_balticum.data import AREA_IDS
from pbem.eventlog.chance import RecordingChance

from .helpers import in_turn


def normal(state, seat=0):
    legal = ENGINE.legal_moves(state, seat)
    move = ENGINE.bot_move(ENGINE.view(state, seat), legal, random.Random(0), level="normal")
    assert move in legal
    return move


def test_it_never_fishes_a_kind_worth_nothing_to_it():
    empty = {area: () for area in AREA_IDS}
    goods = {**empty, "oresund": ("herring", "herring")}
    state = in_turn(
        3,
        fleets={0: ["copenhagen", "oresund"]},
        goods=goods,
        markets={0: {"herring": 0}},
        played={0: [0]},
    )
    assert normal(state)["type"] != "fish"
    # the easy bot fishes it all the same
    legal = ENGINE.legal_moves(state, 0)
    easy = ENGINE.bot_move(ENGINE.view(state, 0), legal, random.Random(0), level="easy")
    assert easy == {"type": "fish", "area": "oresund", "kind": "herring"}
    # worth x3, the same herring is fished
    rich = in_turn(
        3,
        fleets={0: ["copenhagen", "oresund"]},
        goods=goods,
        markets={0: {"herring": 3}},
        played={0: [3]},
    )
    assert normal(rich) == {"type": "fish", "area": "oresund", "kind": "herring"}


def test_the_plan_gives_the_high_tokens_to_the_kinds_it_holds_most():
    state = in_turn(3, warehouses={0: {"cod": 4, "salmon": 2}}, holds={0: {"herring": 1}})
    values = bot_normal.plan(ENGINE.view(state, 0))
    assert values["cod"] == 3 and values["salmon"] == 2 and values["herring"] == 1
    assert values["flatfish"] == 0 and values["amber"] == 1


def play(levels, seed):
    chance, rng = SeededChance(seed), random.Random(seed)
    state = ENGINE.setup(len(levels), {}, chance)
    first_number = [None] * len(levels)
    unloads = {level: [] for level in levels}
    while due := ENGINE.to_move(state):
        seat = min(due)
        legal = ENGINE.legal_moves(state, seat)
        move = ENGINE.bot_move(ENGINE.view(state, seat), legal, rng, level=levels[seat])
        if move["type"] == "produce" and move["token"] != "tax" and first_number[seat] is None:
            first_number[seat] = move["token"]
        if move["type"] == "unload":
            unloads[levels[seat]].append(sum(move["fish"].values()))
        state = ENGINE.apply(state, seat, move, chance)
    lost = {level: 0 for level in levels}
    for detail in ENGINE.result(state).breakdown["seats"]:
        lost[levels[detail["seat"]]] += detail["lost_in_hold"]
    return first_number, unloads, lost


def test_its_production_order_does_not_give_its_x3_away():
    easy_first, normal_first = set(), set()
    for seed in range(8):
        first, _, _ = play(["easy", "easy", "easy"], seed)
        easy_first.update(first)
        first, _, _ = play(["normal", "normal", "normal"], seed)
        normal_first.update(first)
    assert easy_first == {3}  # the first bot always starts with its x3
    assert len(normal_first) >= 3


def test_it_lands_more_fish_at_a_time_and_loses_fewer_in_the_hold():
    sizes = {"easy": [], "normal": []}
    lost = {"easy": 0, "normal": 0}
    for seed in range(12):
        levels = ["normal" if seat == seed % 3 else "easy" for seat in range(3)]
        _, unloads, lost_here = play(levels, seed)
        for level in sizes:
            sizes[level] += unloads[level]
            lost[level] += lost_here[level] / levels.count(level)
    assert sum(sizes["normal"]) / len(sizes["normal"]) > sum(sizes["easy"]) / len(sizes["easy"])
    assert lost["normal"] < lost["easy"] / 2


def test_easy_is_the_first_bot():
    state = in_turn(3)
    legal = ENGINE.legal_moves(state, 0)
    view = ENGINE.view(state, 0)
    assert ENGINE.bot_move(view, legal, random.Random(4), level="easy") == bot.choose_move(
        view, legal, random.Random(4)
    )


def test_bots_near_the_end_still_act_so_the_clock_runs_out():
    """Four normal bots with both modules once all waited for the end at the start of
    every turn near it; the time tokens are drawn only as the sea is fished, so the end
    never came (seeds 14, 15 and 37 ran past round 700). Now every such game ends."""
    options = {"demand_management": True, "trade_contracts": True}
    for seed in (14, 15, 37):
        rng = random.Random(seed)
        state = ENGINE.setup(4, options, SeededChance(seed))
        for _ in range(6000):
            due = sorted(ENGINE.to_move(state))
            if not due:
                break
            seat = rng.choice(due)
            legal = ENGINE.legal_moves(state, seat)
            move = ENGINE.bot_move(ENGINE.view(state, seat), legal, rng)
            state = ENGINE.apply(state, seat, move, SeededChance(rng.randrange(1 << 30)))
        assert ENGINE.result(state) is not None, seed


def _played_out(seats: int, options: dict, game_id: str, rng: random.Random, cap=3000) -> int:
    """Plays normal bots with each event's draws derived as the server derives them;
    returns the number of moves the game took (fails if it did not end)."""
    seed = b"m" * 32
    state = ENGINE.setup(seats, options, RecordingChance(seed, game_id, 0))
    for moves in range(cap):
        due = sorted(ENGINE.to_move(state))
        if not due:
            return moves
        legal = ENGINE.legal_moves(state, due[0])
        move = ENGINE.bot_move(ENGINE.view(state, due[0]), legal, rng)
        state = ENGINE.apply(state, due[0], move, RecordingChance(seed, game_id, moves + 1))
    raise AssertionError(f"{seats} bots, {options}, game {game_id}: no end after {cap} moves")


@pytest.mark.parametrize(
    ("seats", "options", "game_id", "bot_seed"),
    [
        # A bot with one fish in a port that buys it would not land it alone, sailed off
        # towards the goods, then back towards the port: every bot sailed to and fro,
        # no sea area was left empty and unoccupied, so nothing was drawn and time
        # stood still (these games ran to 6,000 moves; a game takes about 180).
        (3, {}, "g6x", 6),
        (3, {"trade_contracts": True}, "g39x", 39),
        (3, {"demand_management": True}, "g9x", 9),
        (3, {"demand_management": True}, "g57x", 57),
        (4, {"demand_management": True}, "g75x", 75),
        (4, {"demand_management": True, "trade_contracts": True}, "g6x", 6),
        (5, {"demand_management": True, "trade_contracts": True}, "g7x", 7),
        # Module 1: ports that take a kind through a -1 circle eat a single fish; a bot
        # that made for any port "buying" its catch sailed between two such ports.
        (3, {"demand_management": True}, "g0x", 0),
        (3, {"demand_management": True}, "g27x", 27),
    ],
)
def test_normal_bots_never_sail_to_and_fro_for_ever(seats, options, game_id, bot_seed):
    assert _played_out(seats, options, game_id, random.Random(bot_seed)) < 400


def test_the_bot_game_that_once_never_ended_through_the_server_ends(tmp_path):
    """The game that showed it: four normal bots played through the service, seed
    ``m``*32, game ``w8ib7tfqae``, bot choices from ``Random(7)``."""
    from pbem.games.service import SeatSpec
    from pbem.runtime import build_runtime
    from tests.databases import sqlite_engine

    db = sqlite_engine(tmp_path / "game.db")
    config = {"security": {"secret_key": "test-secret"}, "paths": {"var": str(tmp_path)}}
    service = build_runtime(config, db=db).service
    specs = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(4)]
    game_id = service.create_game(
        "mare_balticum", specs, {}, seed=b"m" * 32, game_id="w8ib7tfqae"
    ).game_id
    rng = random.Random(7)
    for _ in range(1000):
        head = service.head(game_id)
        due = sorted(head.engine.to_move(head.state))
        if head.game.status != "active" or not due:
            break
        view = head.engine.view(head.state, due[0])
        move = head.engine.bot_move(view, head.engine.legal_moves(head.state, due[0]), rng)
        service.submit_move(game_id, due[0], move, head.game.head_seq, actor="web")
    assert service.head(game_id).game.status == "finished"
    db.dispose()


# --------------------------------------------------------------------------- recorded leaks
CONTRACTS = {"trade_contracts": True}
SPENT = [3, 2, 1, 0]  # every number token played: the market is known


def test_it_takes_no_contract_it_cannot_fill_in_the_turns_left():
    """Two turns left, two amber in the warehouse and neither herring nor cod anywhere:
    the contract "herring + cod + 2 amber" would score nothing, the action is wasted."""
    state = in_turn(
        3,
        CONTRACTS,
        fleets={0: ["copenhagen", "oresund"]},
        warehouses={0: {"amber": 2, "salmon": 1}},
        markets={0: {"salmon": 3, "flatfish": 2, "herring": 1, "cod": 0}},
        played={0: SPENT},
        final_turns=6,
    )
    assert normal(state)["type"] != "take_contract"


def test_it_takes_a_contract_its_warehouse_already_fills():
    """Amber, flatfish and cod in the warehouse, the fish on low multipliers: the
    contract "flatfish + cod + 2 amber" scores 7 for goods worth 3."""
    state = in_turn(
        3,
        CONTRACTS,
        fleets={0: ["copenhagen"]},
        warehouses={0: {"amber": 2, "flatfish": 1, "cod": 1}},
        markets={0: {"salmon": 3, "flatfish": 1, "herring": 2, "cod": 0}},
        played={0: SPENT},
    )
    assert normal(state) == {"type": "take_contract", "contract": "c6"}


def test_no_contract_whose_goods_score_as_much_without_it():
    """Salmon at x3 and herring at x2 with two amber score 7 without the contract
    "salmon + herring + 2 amber", which scores 7: taking it gains nothing."""
    state = in_turn(
        3,
        CONTRACTS,
        fleets={0: ["copenhagen"]},
        warehouses={0: {"amber": 2, "salmon": 1, "herring": 1}},
        markets={0: {"salmon": 3, "flatfish": 1, "herring": 2, "cod": 0}},
        played={0: SPENT},
    )
    assert normal(state)["type"] != "take_contract"


def test_it_does_not_spend_an_action_landing_a_single_fish_early():
    """Early in the game, in Copenhagen (which buys herring only) with one herring and two
    cod in a hold with room, and a herring in the Oresund where a vessel lies: landing the
    herring alone spends an action on one fish; fished first, both herring land at once."""
    state = in_turn(
        3,
        fleets={0: ["copenhagen", "oresund"]},
        goods={"oresund": ("herring",)},
        holds={0: {"herring": 1, "cod": 2}},
        markets={0: {"cod": 3, "herring": 2}},
        played={0: [3, 2]},
    )
    assert normal(state) == {"type": "fish", "area": "oresund", "kind": "herring"}


def test_it_lands_a_single_fish_when_the_end_is_near():
    state = in_turn(
        3,
        fleets={0: ["copenhagen", "oresund"]},
        holds={0: {"herring": 1, "cod": 2}},
        markets={0: {"cod": 3, "herring": 2}},
        played={0: [3, 2]},
        final_turns=2,
    )
    assert normal(state) == {"type": "unload", "port": "copenhagen", "fish": {"herring": 1}}


@pytest.mark.parametrize("level", ["easy", "normal"])
def test_its_move_depends_on_nothing_hidden_from_its_seat(level):
    """Two games that differ only in where one seat put its secret number tokens (rules
    version 1 hides them): every other seat's bot sees the same view in both and makes
    the same move, drawn with the same seed."""
    from .test_hidden import twin_games

    engine = ENGINE.at_version(1)
    options = {"demand_management": True, "trade_contracts": True}
    secret, compared, differed = 1, 0, False
    for _, _, _, _, first, _, second in twin_games(3, options, 6, secret, engine):
        differed = differed or engine.dump(first) != engine.dump(second)
        due = sorted(engine.to_move(first))
        if not due or engine.result(first) is not None:
            break
        for seat in due:
            if seat == secret:
                continue
            views = [engine.view(state, seat) for state in (first, second)]
            assert views[0] == views[1]
            moves = [
                engine.bot_move(view, engine.legal_moves(state, seat), random.Random(7), level)
                for view, state in zip(views, (first, second), strict=True)
            ]
            assert moves[0] == moves[1]
            compared += 1
    assert differed and compared > 50
