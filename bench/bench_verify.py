"""``pbem verify`` speed: events verified per second, per title, before and after.

Run from the project root: ``.venv/bin/python bench/bench_verify.py [--runs N] [--tree PATH]``.

Bots play one whole game of each title through the service on a scratch SQLite file;
its full export (seed revealed, so every draw and every state hash is checked) is then
verified offline by :func:`pbem.eventlog.verify.verify_export`, as ``pbem verify FILE``
does after reading the file. Each figure is the CPU time of the verification (the
thread's, so that other work on a shared machine does not count), as a median.

"before" is, by default, the state hash as it was computed before (a deep copy of the
state by ``engine.dump``, then ``json.dumps``; the row hash by ``json.dumps``) with the
rest of the code as it is. With ``--tree PATH`` it is the whole code of another checkout
(``git worktree add /tmp/before <commit>``): engines, hashes and all. Each run then
verifies the same exported files in two fresh processes, one importing ``PATH`` and one
this checkout, in turn, run by run; each process verifies every title once to warm up,
then ``--repeat`` times, and reports the median.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TITLES = ("mare_nostrum", "mare_balticum", "mercatores")


def measure(files: list[str], repeat: int) -> None:
    """In a process of its own: the rate of each file's verification, as JSON on stdout
    (the code verifying is whatever ``sys.path`` finds first)."""
    from pbem.eventlog import verify

    rates = {}
    for name in files:
        exported = json.loads(Path(name).read_text())
        verify.verify_export(exported)  # warm-up: imports, caches
        rates[name] = statistics.median(rate(verify, exported) for _ in range(repeat))
    print(json.dumps(rates))


def rate(verify, exported: dict) -> float:
    start = time.thread_time()
    report = verify.verify_export(exported)
    elapsed = time.thread_time() - start
    assert report.ok and report.seed_revealed, report.summary()
    return report.events / elapsed


def measured_in(tree: Path, files: list[str], repeat: int) -> dict[str, float]:
    """:func:`measure` run in a fresh process on the code of ``tree``."""
    command = [sys.executable, str(Path(__file__).resolve()), "--measure", *files]
    command += ["--repeat", str(repeat)]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"verifying with the code of {tree} failed:\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


def exported_games(folder: Path) -> dict[str, dict]:
    from engines import REGISTRY
    from pbem.db import make_engine
    from pbem.games.service import GameService, SeatSpec
    from pbem.migrations import migrate

    db = make_engine(f"sqlite:///{folder / 'verify.sqlite3'}")
    migrate(db)
    service = GameService(db, snapshot_every=25)
    exports = {}
    for slug in TITLES:
        engine = REGISTRY[slug]
        seats = [SeatSpec(f"Bot {i + 1}", is_bot=True) for i in range(engine.max_seats)]
        created = service.create_game(slug, seats, {})
        service.play_bots(created.game_id, max_moves=50_000)
        exports[slug] = service.export_game(created.game_id)
    db.dispose()
    return exports


def old_hashes():
    """The state and row hashes as they were computed before, to patch in."""
    from engines.api import canonical_json
    from pbem.eventlog import log

    def keyed_state_hash(seed, engine, state):
        body = canonical_json(engine.dump(state)).encode("utf-8")
        key = hmac.digest(seed, b"pbem:state-hash", "sha256")
        return hmac.new(key, body, hashlib.sha256).hexdigest()

    def row_hash(row):
        body = canonical_json(
            {
                name: log.hashed_payload(row) if name == "payload" else row[name]
                for name in log.HASHED_FIELDS
            }
        )
        return hashlib.sha256((row["prev_hash"] + body).encode("utf-8")).hexdigest()

    return keyed_state_hash, row_hash


def in_process(exports: dict[str, dict], runs: int) -> dict[str, tuple[float, float]]:
    """Default "before": the old hashes patched into this checkout's verification."""
    from pbem.eventlog import verify

    now = verify.keyed_state_hash, verify.row_hash
    before_hashes = old_hashes()
    figures = {}
    for slug, exported in exports.items():
        verify.verify_export(exported)
        before, after = [], []
        for _ in range(runs):
            verify.keyed_state_hash, verify.row_hash = before_hashes
            try:
                before.append(rate(verify, exported))
            finally:
                verify.keyed_state_hash, verify.row_hash = now
            after.append(rate(verify, exported))
        figures[slug] = statistics.median(before), statistics.median(after)
    return figures


def two_trees(
    exports: dict[str, dict], tree: Path, runs: int, repeat: int, folder: Path
) -> dict[str, tuple[float, float]]:
    files = []
    for slug, exported in exports.items():
        path = folder / f"{slug}.json"
        path.write_text(json.dumps(exported))
        files.append(str(path))
    before: dict[str, list[float]] = {name: [] for name in files}
    after: dict[str, list[float]] = {name: [] for name in files}
    for _ in range(runs):
        for name, value in measured_in(tree, files, repeat).items():
            before[name].append(value)
        for name, value in measured_in(ROOT, files, repeat).items():
            after[name].append(value)
    return {
        slug: (statistics.median(before[name]), statistics.median(after[name]))
        for slug, name in zip(exports, files, strict=True)
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=3, help="verifications per process")
    parser.add_argument("--tree", type=Path, help="a checkout whose code is 'before'")
    parser.add_argument("--measure", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measure(args.measure, args.repeat)
        return
    if args.tree is not None and not (args.tree / "pbem" / "eventlog" / "verify.py").is_file():
        parser.error(f"{args.tree} is not a checkout of the project")
    sys.path.insert(0, str(ROOT))
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        exports = exported_games(folder)
        if args.tree is None:
            figures = in_process(exports, args.runs)
            print("before: the state and row hashes as they were (json.dumps of a deep copy)")
        else:
            figures = two_trees(exports, args.tree.resolve(), args.runs, args.repeat, folder)
            print(f"before: the code of {args.tree}")
    print(f"{'title':<16}{'events':>8}{'before ev/s':>14}{'after ev/s':>13}{'speed-up':>10}")
    for slug, (old, new) in figures.items():
        events = len(exports[slug]["events"])
        print(f"{slug:<16}{events:>8}{old:>14,.0f}{new:>13,.0f}{new / old:>9.2f}x")


if __name__ == "__main__":
    main()
