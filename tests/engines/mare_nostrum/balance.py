"""Balance measurements for Mare Nostrum: bot games of the printed set-ups, played by the
"normal" bot in every seat, and by one "normal" seat among "easy" bots.

Used by the soak test (``test_balance.py``) and ``bench/bench_mare_nostrum_balance.py``.
The civilisations are the recommended ones for the player count, rotated so that each
sits in each seat position equally often; chance and the bots are seeded per game.
"""

from __future__ import annotations

import random
import time
from collections import Counter

from engines.api import SeededChance
from engines.mare_nostrum import ENGINE
from engines.mare_nostrum.data import RECOMMENDED_CIVS

TURN_LIMIT = 30
ENDINGS = ("pyramids", "four cards", "turn limit")


def ending(reason: str) -> str:
    if "Pyramids" in reason:
        return "pyramids"
    if "four heroes" in reason:
        return "four cards"
    return "turn limit"


def play(
    civs: list[str], levels: list[str], seed: int, turn_limit: int = TURN_LIMIT, engine=ENGINE
) -> dict:
    """One bot game; ``civs`` and ``levels`` per seat. Returns the winners' civilisations,
    the ending, the last turn and the bots' thinking time per move."""
    seats = len(civs)
    chance, rng = SeededChance(seed), random.Random(seed)
    options = {"civilisations": "choose", "setup": "starting", "turn_limit": turn_limit}
    state = engine.setup(seats, options, chance)
    for civ in civs:
        seat = min(engine.to_move(state))
        state = engine.apply(state, seat, {"type": "choose_civ", "civ": civ}, chance)
    thinking = Counter()
    moves = Counter()
    while due := engine.to_move(state):
        seat = min(due)
        legal = engine.legal_moves(state, seat)
        started = time.perf_counter()
        move = engine.bot_move(engine.view(state, seat), legal, rng, level=levels[seat])
        thinking[levels[seat]] += time.perf_counter() - started
        moves[levels[seat]] += 1
        state = engine.apply(state, seat, move, chance)
    result = engine.result(state)
    return {
        "winners": [civs[seat] for seat in result.winners],
        "winner_seats": list(result.winners),
        "ending": ending(result.reason),
        "turn": state["turn"],
        "thinking": thinking,
        "moves": moves,
    }


def balance(seats: int, games: int, seed: int = 0, first: int = 0) -> dict:
    """The normal bot in every seat; civilisations rotated over the seats. ``first`` is
    the number of the first game: games ``first`` to ``first + games - 1`` of the series,
    so that a series split in parts (and merged by :func:`merge`) gives its figures."""
    civs = list(RECOMMENDED_CIVS[seats])
    wins: Counter = Counter()
    endings: Counter = Counter()
    by_civ: dict[str, Counter] = {civ: Counter() for civ in civs}
    turns = []
    for game in range(first, first + games):
        shift = game % seats
        order = civs[shift:] + civs[:shift]
        played = play(order, ["normal"] * seats, seed + 1000 * seats + game)
        endings[played["ending"]] += 1
        turns.append(played["turn"])
        for civ in played["winners"]:
            wins[civ] += 1
            by_civ[civ][played["ending"]] += 1
    return {"wins": wins, "endings": endings, "by_civ": by_civ, "turns": turns, "games": games}


def merge(parts: list[dict]) -> dict:
    """One :func:`balance` result from the results of parts of a series."""
    merged = {"wins": Counter(), "endings": Counter(), "by_civ": {}, "turns": [], "games": 0}
    for part in parts:
        merged["wins"].update(part["wins"])
        merged["endings"].update(part["endings"])
        for civ, kinds in part["by_civ"].items():
            merged["by_civ"].setdefault(civ, Counter()).update(kinds)
        merged["turns"].extend(part["turns"])
        merged["games"] += part["games"]
    return merged


def against_easy(games: int, seats: int = 4, seed: int = 0) -> dict:
    """One normal seat among easy bots; its seat and the civilisations rotated."""
    civs = list(RECOMMENDED_CIVS[seats])
    won = 0
    by_civ: Counter = Counter()
    played_as: Counter = Counter()
    thinking = moves = 0.0
    easy_thinking = easy_moves = 0.0
    for game in range(games):
        normal_seat = game % seats
        shift = (game // seats) % seats
        order = civs[shift:] + civs[:shift]
        levels = ["easy"] * seats
        levels[normal_seat] = "normal"
        played = play(order, levels, seed + 50000 + game)
        played_as[order[normal_seat]] += 1
        if normal_seat in played["winner_seats"]:
            won += 1
            by_civ[order[normal_seat]] += 1
        thinking += played["thinking"]["normal"]
        moves += played["moves"]["normal"]
        easy_thinking += played["thinking"]["easy"]
        easy_moves += played["moves"]["easy"]
    return {
        "games": games,
        "won": won,
        "by_civ": by_civ,
        "played_as": played_as,
        "ms_per_move": 1000 * thinking / max(1, moves),
        "easy_ms_per_move": 1000 * easy_thinking / max(1, easy_moves),
    }


def balance_table(results: dict[int, dict]) -> str:
    lines = ["Balance: the normal bot in every seat, turn limit 30, civilisations rotated"]
    for seats, found in results.items():
        games = found["games"]
        lines.append(
            f"{seats} players, {games} games: "
            + ", ".join(f"{kind} {found['endings'][kind]}" for kind in ENDINGS)
            + f"; {100 * (games - found['endings']['turn limit']) / games:.1f}% end by a "
            f"victory; mean last turn {sum(found['turns']) / games:.1f}"
        )
        for civ, kinds in sorted(found["by_civ"].items()):
            share = 100 * found["wins"][civ] / games
            error = (share * (100 - share) / games) ** 0.5
            detail = ", ".join(f"{kind} {kinds[kind]}" for kind in ENDINGS if kinds[kind])
            lines.append(
                f"  {civ:9} {found['wins'][civ]:4} wins {share:5.1f}% ±{error:3.1f}  ({detail})"
            )
    return "\n".join(lines)


def against_table(found: dict) -> str:
    games, won = found["games"], found["won"]
    lines = [
        "Normal bot against easy bots: one normal seat, 4 players, seat and civilisation rotated",
        f"  normal seat won {won} of {games} games: {100 * won / games:.1f}% "
        f"(an even share is 25%)",
        f"  bot time per move: normal {found['ms_per_move']:.2f} ms, "
        f"easy {found['easy_ms_per_move']:.2f} ms",
    ]
    for civ, n in sorted(found["played_as"].items()):
        lines.append(f"  as {civ:9} won {found['by_civ'][civ]:3} of {n}")
    return "\n".join(lines)
