"""Seeded self-play here and in another checkout must be the same games.

Usage::

    git worktree add /tmp/before <commit>
    .venv/bin/python scripts/same_games.py --tree /tmp/before [--seeds 40] [--title mare_nostrum]

For every version of the title, every number of seats and ``--seeds`` seeds, bots play a
whole game (seeded chance, seeded bots, the bot level and each option with choices
taken in turn by seed, the defaults where a number of seats refuses a choice; a
``turn_limit`` option, where the title has one, set to ``--turn-limit`` to keep games
short). Each game is reduced to one sha256 over every
legal move list offered, every move, every state hash and every history line. Both
checkouts play in processes of their own; the script names the first game that differs
and exits 1, or says how many games and moves were the same. A change meant to make the
rules faster, not different, must leave every game the same.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def play(title: str, seeds: int, turn_limit: int) -> dict[str, list]:
    """In a process of its own, on whatever code ``sys.path`` finds first."""
    from engines import REGISTRY
    from engines.api import SeededChance, canonical_json, resolve_options, state_hash

    newest = REGISTRY[title]
    games: dict[str, list] = {}
    for version in newest.versions:
        engine = newest.at_version(version)
        levels = getattr(engine, "bot_levels", ("normal",))
        for seats in range(engine.min_seats, engine.max_seats + 1):
            for seed in range(seeds):
                options = {
                    option.name: option.choices[seed % len(option.choices)]
                    for option in engine.options
                    if option.choices
                }
                if any(option.name == "turn_limit" for option in engine.options):
                    options["turn_limit"] = turn_limit
                rng = random.Random(seed)
                level = levels[seed % len(levels)]
                try:
                    state = engine.setup(
                        seats, resolve_options(engine, options), SeededChance(seed)
                    )
                except ValueError:  # a choice this number of seats refuses: the defaults
                    plain = {k: v for k, v in options.items() if k == "turn_limit"}
                    state = engine.setup(seats, resolve_options(engine, plain), SeededChance(seed))
                digest = hashlib.sha256(state_hash(engine, state).encode())
                moves = 0
                while engine.to_move(state):
                    due = sorted(engine.to_move(state))
                    seat = due[0] if rng.random() < 0.5 else rng.choice(due)
                    legal = engine.legal_moves(state, seat)
                    move = engine.bot_move(engine.view(state, seat), legal, rng, level)
                    before = state
                    state = engine.apply(state, seat, move, SeededChance(rng.randrange(1 << 30)))
                    lines = engine.describe(before, seat, move, state, None)
                    for part in (legal, move, state_hash(engine, state), lines):
                        digest.update(canonical_json(part).encode())
                    moves += 1
                games[f"version {version}, {seats} seats, seed {seed}"] = [
                    moves,
                    digest.hexdigest(),
                ]
    return games


def played_in(tree: Path, title: str, seeds: int, turn_limit: int) -> dict[str, list]:
    command = [sys.executable, str(Path(__file__).resolve()), "--play", title]
    command += ["--seeds", str(seeds), "--turn-limit", str(turn_limit)]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"playing with the code of {tree} failed:\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, help="the other checkout")
    parser.add_argument("--title", default="mare_nostrum")
    parser.add_argument("--seeds", type=int, default=40)
    parser.add_argument("--turn-limit", type=int, default=12)
    parser.add_argument("--play", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.play:
        print(json.dumps(play(args.play, args.seeds, args.turn_limit)))
        return
    if args.tree is None or not (args.tree / "engines").is_dir():
        parser.error("--tree must name another checkout of the project")
    theirs = played_in(args.tree.resolve(), args.title, args.seeds, args.turn_limit)
    ours = played_in(ROOT, args.title, args.seeds, args.turn_limit)
    for game, (moves, digest) in theirs.items():
        if ours.get(game) != [moves, digest]:
            print(f"{args.title}: {game} differs ({moves} moves in {args.tree})")
            raise SystemExit(1)
    if set(ours) != set(theirs):
        print(f"{args.title}: the two checkouts play different sets of games")
        raise SystemExit(1)
    total = sum(moves for moves, _ in ours.values())
    print(f"{args.title}: {len(ours)} games, {total:,} moves, the same in both checkouts")


if __name__ == "__main__":
    main()
