"""Bot against bot: one seat at a stronger level against the others at a weaker one.

Used by ``bench/bench_bots.py`` and the soak tests. Works for any engine that offers
``bot_levels``. Seats rotate from game to game, so every seat position is played by the
stronger bot equally often, each deal once per seat.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from engines.api import Engine, SeededChance


@dataclass
class DuelTable:
    """What the games of one title and player count came to."""

    slug: str
    players: int
    games: int = 0
    wins: float = 0.0  # the stronger bot's wins; a shared win counts as a share
    pairs: float = 0.0  # its head-to-head record against each weaker seat (ties: half)
    pair_count: int = 0
    unfinished: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    moves: dict[str, int] = field(default_factory=dict)

    @property
    def win_share(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def baseline(self) -> float:
        return 1 / self.players

    @property
    def head_to_head(self) -> float:
        return self.pairs / self.pair_count if self.pair_count else 0.0

    def ms_per_move(self, level: str) -> float:
        moves = self.moves.get(level, 0)
        return 1000 * self.seconds.get(level, 0.0) / moves if moves else 0.0

    def row(self, strong: str, weak: str) -> str:
        return (
            f"{self.slug:<14} {self.players:>7} {self.games:>6} {self.win_share:>10.1%} "
            f"{self.baseline:>9.1%} {self.head_to_head:>13.1%} "
            f"{self.ms_per_move(strong):>10.2f} {self.ms_per_move(weak):>8.2f} {self.unfinished:>10}"
        )


HEADER = (
    f"{'title':<14} {'players':>7} {'games':>6} {'normal win':>10} {'baseline':>9} "
    f"{'head-to-head':>13} {'ms normal':>10} {'ms easy':>8} {'unfinished':>10}"
)


def pairing(result, seat: int, other: int) -> float:
    """``seat``'s share of its pairing with ``other`` in a finished game: 1 if it ranks
    above, half on a tie, 0 below. The winners rank first whatever their scores (as
    :class:`engines.api.Result` says: Mare Nostrum's Pyramids win outright), then the
    scores rank the rest."""

    def rank(who: int) -> tuple[bool, float]:
        return who in result.winners, result.scores[who]

    mine, theirs = rank(seat), rank(other)
    return 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0


def play_game(
    engine: Engine,
    levels: list[str],
    seed: int,
    options: dict | None = None,
    max_moves: int = 50_000,
    table: DuelTable | None = None,
):
    """One game with the given level per seat; returns the result (None if unfinished)."""
    chance = SeededChance(seed)
    rng = random.Random(seed ^ 0x5EED)
    state = engine.setup(len(levels), options or {}, chance)
    for _ in range(max_moves):
        due = engine.to_move(state)
        if not due:
            return engine.result(state)
        seat = min(due)
        level = levels[seat]
        legal = engine.legal_moves(state, seat)
        view = engine.view(state, seat)
        start = time.perf_counter()
        move = engine.bot_move(view, legal, rng, level=level)
        if table is not None:
            table.seconds[level] = table.seconds.get(level, 0.0) + time.perf_counter() - start
            table.moves[level] = table.moves.get(level, 0) + 1
        state = engine.apply(state, seat, move, chance)
    return None


def duel(
    engine: Engine,
    players: int,
    games: int,
    *,
    strong: str = "normal",
    weak: str = "easy",
    seed: int = 0,
    options: dict | None = None,
) -> DuelTable:
    """``games`` games: one ``strong`` seat (rotating) against ``weak`` seats.

    Each deal (seed) is played once with the strong bot in every seat, so neither the
    luck of the deal nor the advantage of a seat favours either level.
    """
    table = DuelTable(engine.slug, players)
    for game in range(games):
        seat = game % players
        levels = [strong if other == seat else weak for other in range(players)]
        deal = seed * 1_000_003 + game // players
        result = play_game(engine, levels, deal, options, table=table)
        table.games += 1
        if result is None:
            table.unfinished += 1
            continue
        if seat in result.winners:
            table.wins += 1 / len(result.winners)
        for other in range(players):
            if other == seat:
                continue
            table.pairs += pairing(result, seat, other)
            table.pair_count += 1
    return table
