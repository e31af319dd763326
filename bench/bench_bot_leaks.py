"""The normal bots' known leaks, counted over seeded games (one normal seat, rotating,
against easy bots).

    .venv/bin/python bench/bench_bot_leaks.py [GAMES] [--title SLUG ...] [--players N]

Prints, per title:

- **mare_balticum** (both modules): the trade contracts the normal bot took and how many
  scored nothing at the end; its unloadings, how many moved a single fish, how many
  of those came early (before the last turns were counted) with room left in the hold,
  and how many of these left fish aboard that the same port would have taken at once.
- **mare_nostrum**: the ends of the normal bot's Build phase, and how many burned 3 or
  more cards while a build it could pay for was among its legal moves.

The normal seat rotates over every seat, each deal played once per seat (as in
``tests/bot_duel.py``). Default: 24 games per title.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines import REGISTRY  # noqa: E402
from engines.api import SeededChance  # noqa: E402

OPTIONS = {
    "mare_balticum": {"demand_management": True, "trade_contracts": True},
    "mare_nostrum": {"turn_limit": 30},
}
PLAYERS = {"mare_balticum": 3, "mare_nostrum": 3}


def games_of(slug: str, players: int, games: int, watch) -> Counter:
    """Plays the games and lets ``watch(view, legal, move, counts)`` count each normal
    move; returns the counts (with the normal seat's final result under "result")."""
    engine = REGISTRY[slug]
    declared = {option.name for option in engine.options}
    options = {k: v for k, v in OPTIONS.get(slug, {}).items() if k in declared}
    counts: Counter = Counter()
    for game in range(games):
        seat_of_normal = game % players
        deal = 1_000_003 + game // players
        chance, rng = SeededChance(deal), random.Random(deal ^ 0x5EED)
        state = engine.setup(players, options, chance)
        taken: list[str] = []
        while due := engine.to_move(state):
            seat = min(due)
            legal = engine.legal_moves(state, seat)
            view = engine.view(state, seat)
            level = "normal" if seat == seat_of_normal else "easy"
            move = engine.bot_move(view, legal, rng, level=level)
            if level == "normal":
                watch(view, legal, move, counts, taken)
            state = engine.apply(state, seat, move, chance)
        result = engine.result(state)
        counts["games"] += 1
        if seat_of_normal in result.winners:
            counts["wins"] += 1 / len(result.winners)
        others = [score for seat, score in enumerate(result.scores) if seat != seat_of_normal]
        counts["margin"] += result.scores[seat_of_normal] - sum(others) / len(others)
        if slug == "mare_balticum":
            detail = result.breakdown["seats"][seat_of_normal]
            for contract in taken:
                filled = detail["contract"] == contract and detail["contract_sets"] > 0
                counts["contracts scoring nothing"] += not filled
    return counts


def watch_balticum(view, legal, move, counts, taken) -> None:
    if move["type"] == "take_contract":
        counts["contracts taken"] += 1
        taken.append(move["contract"])
    if move["type"] == "unload":
        counts["unloadings"] += 1
        if sum(move["fish"].values()) == 1:
            counts["single-fish unloadings"] += 1
            me = view["players"][view["seat"]]
            early = view.get("final_turns") is None
            if early and sum(me["hold"].values()) < 5:
                counts["single-fish, early, room in the hold"] += 1
                most = max(sum(m["fish"].values()) for m in legal if m["type"] == "unload")
                if most > 1:
                    counts["single-fish, early, room, more landable there"] += 1


def watch_nostrum(view, legal, move, counts, taken) -> None:
    if move["type"] != "end_build":
        return
    counts["build phase ends"] += 1
    hand = view["hand"]
    burned = sum(hand.values()) - min(2, hand["coin"])
    if "mausoleum" in view["players"][view["seat"]].get("cards", ()):
        burned = max(0, sum(hand.values()) - 4)
    if burned >= 3:
        counts["burned 3+ cards"] += 1
        builds = {other["item"] for other in legal if other["type"] == "build"}
        if builds:
            counts["burned 3+ with a build on offer"] += 1
            if builds <= {"legion", "fortress", "trireme"}:
                counts["only legions, fortresses or triremes on offer"] += 1


WATCH = {"mare_balticum": watch_balticum, "mare_nostrum": watch_nostrum}


def share(part: float, whole: float) -> str:
    return f"{part:g} of {whole:g} ({part / whole:.0%})" if whole else f"{part:g} of 0"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("games", nargs="?", type=int, default=24)
    parser.add_argument("--title", action="append", help="only this title (repeatable)")
    parser.add_argument("--players", type=int, help="players per game")
    args = parser.parse_args(argv)
    for slug in args.title or sorted(WATCH):
        players = args.players or PLAYERS[slug]
        started = time.perf_counter()
        counts = games_of(slug, players, args.games, WATCH[slug])
        seconds = time.perf_counter() - started
        print(f"{slug}, {players} players, {counts['games']} games ({seconds:.0f} s)")
        print(f"  normal seat's wins: {share(counts['wins'], counts['games'])}")
        margin = counts["margin"] / counts["games"]
        print(f"  its score less the easy seats' average, per game: {margin:+.1f}")
        if slug == "mare_balticum":
            taken = counts["contracts taken"]
            print(
                f"  contracts scoring nothing: {share(counts['contracts scoring nothing'], taken)}"
            )
            unloads = counts["unloadings"]
            print(f"  single-fish unloadings: {share(counts['single-fish unloadings'], unloads)}")
            early = counts["single-fish, early, room in the hold"]
            print(f"    of them early with room in the hold: {early}")
            more = counts["single-fish, early, room, more landable there"]
            print(f"      of those, where an unloading there could land more fish: {more}")
        else:
            ends = counts["build phase ends"]
            print(f"  build phase ends burning 3+ cards: {share(counts['burned 3+ cards'], ends)}")
            leak = counts["burned 3+ with a build on offer"]
            print(f"    with an affordable build on offer: {share(leak, ends)}")
            military = counts["only legions, fortresses or triremes on offer"]
            print(f"      of them with only legions, fortresses or triremes on offer: {military}")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
