"""Checks that turn pages read exactly as another checkout renders them: every seat's
uncached turn page, the game page and the history step at many states of a bot game of
each title, from both checkouts.

Run from the project root: ``.venv/bin/python bench/check_page_html.py --against PATH
[--states 12] [--every 7]``

Each checkout plays the same seeded games (same seed, same bot choices) in a process of
its own and renders every seat's page, with the page cache emptied, at every
``--every``-th event; what differs between two runs of one checkout anyway (the seats'
links, CSRF tokens, times and so the hashes) is masked. The pages are compared one by one;
the first difference is printed and the exit status is 1 when any page differs.
"""

from __future__ import annotations

import argparse
import difflib
import json
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if "--tree" in sys.argv[:-1]:
    ROOT = Path(sys.argv[sys.argv.index("--tree") + 1]).resolve()
sys.path.insert(0, str(ROOT))

TITLES = [("mare_nostrum", 5, {"turn_limit": 2}), ("mare_balticum", 4, {}), ("mercatores", 3, {})]
MASKS = [
    (re.compile(r'name="csrf_token" value="[^"]*"'), "csrf"),
    (re.compile(r"\b[0-9a-f]{64}\b"), "HASH"),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?"), "ISO"),
    (re.compile(r"\b\d{1,2} \w{3}( \d{4})?,? \d\d:\d\d( \w+)?"), "STAMP"),
    (re.compile(r"\b\d\d:\d\d\b"), "HH:MM"),
]


def pages(states: int, every: int) -> dict[str, str]:
    from pbem.db import make_engine
    from pbem.games.service import SeatSpec
    from pbem.migrations import migrate
    from pbem.runtime import build_runtime
    from pbem.web import create_app, play

    found = {}
    with tempfile.TemporaryDirectory() as scratch:
        for slug, seats, options in TITLES:
            db = make_engine(f"sqlite:///{Path(scratch) / (slug + '.sqlite3')}")
            migrate(db)
            runtime = build_runtime(
                {
                    "security": {"secret_key": "check"},
                    "paths": {"var": str(Path(scratch) / "var")},
                    "server": {"demo": False, "base_url": "http://localhost"},
                },
                db=db,
                create_schema=False,
            )
            client = create_app(runtime=runtime).test_client()
            specs = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(seats)]
            created = runtime.service.create_game(
                slug, specs, options, seed=b"c" * 32, game_id=f"check{slug[:5]}"
            )
            masks = [(created.game_id, "GAME")] + [
                (token, f"TOKEN{n}") for n, token in enumerate(created.tokens)
            ]
            rng = random.Random(7)
            for number in range(states * every):
                head = runtime.service.head(created.game_id)
                if number % every == 0:
                    addresses = {
                        f"seat {seat}": f"/play/{token}"
                        for seat, token in enumerate(created.tokens)
                    }
                    addresses["game page"] = f"/games/{created.game_id}"
                    addresses["history step"] = f"/games/{created.game_id}/history?at={head.seq}"
                    for name, address in addresses.items():
                        play.PAGES.clear()
                        html = client.get(address).text
                        for text, mask in masks:
                            html = html.replace(text, mask)
                        for pattern, mask in MASKS:
                            html = pattern.sub(mask, html)
                        found[f"{slug} event {head.seq} {name}"] = html
                due = sorted(head.engine.to_move(head.state))
                if head.game.status != "active" or not due:
                    break
                view = head.engine.view(head.state, due[0])
                move = head.engine.bot_move(view, head.engine.legal_moves(head.state, due[0]), rng)
                runtime.service.submit_move(created.game_id, due[0], move, head.seq)
            db.dispose()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", help="the other checkout")
    parser.add_argument("--tree", help=argparse.SUPPRESS)
    parser.add_argument("--states", type=int, default=12)
    parser.add_argument("--every", type=int, default=7)
    args = parser.parse_args()
    if not args.against:
        print(json.dumps(pages(args.states, args.every)))
        return
    runs = {}
    for name, tree in (("before", Path(args.against).resolve()), ("after", ROOT)):
        command = [sys.executable, __file__, "--tree", str(tree)]
        command += ["--states", str(args.states), "--every", str(args.every)]
        runs[name] = json.loads(subprocess.run(command, capture_output=True, check=True).stdout)
    before, after = runs["before"], runs["after"]
    differ = [key for key in before if before[key] != after.get(key)]
    print(f"{len(before)} pages before, {len(after)} after; {len(differ)} differ")
    if before.keys() != after.keys():
        print("not the same pages:", sorted(set(before) ^ set(after))[:5])
    for key in differ[:1]:
        diff = difflib.unified_diff(
            before[key].splitlines(), after[key].splitlines(), "before", "after", lineterm=""
        )
        print(key)
        print("\n".join(list(diff)[:40]))
    sys.exit(1 if differ or before.keys() != after.keys() else 0)


if __name__ == "__main__":
    main()
