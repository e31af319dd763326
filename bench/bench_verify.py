"""``pbem verify`` speed: events verified per second, per title, before and after.

Run from the project root: ``.venv/bin/python bench/bench_verify.py [--runs N]``.

Bots play one whole game of each title through the service on a scratch SQLite file;
its full export (seed revealed, so every draw and every state hash is checked) is then
verified offline by :func:`pbem.eventlog.verify.verify_export`, as ``pbem verify FILE``
does after reading the file. "before" runs the state hash as it was (a deep copy of the
state by ``engine.dump``, then ``json.dumps``; the row hash by ``json.dumps``); "after" runs the code as it is. The two
alternate, run by run; each figure is the median.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines import REGISTRY  # noqa: E402
from engines.api import canonical_json  # noqa: E402
from pbem.db import make_engine  # noqa: E402
from pbem.eventlog import log, verify  # noqa: E402
from pbem.games.service import GameService, SeatSpec  # noqa: E402
from pbem.migrations import migrate  # noqa: E402

TITLES = ("mare_nostrum", "mare_balticum", "mercatores")
NOW = verify.keyed_state_hash, verify.row_hash


def before_keyed_state_hash(seed, engine, state):
    """The state hash as it was computed before: a deep copy, then ``json.dumps``."""
    body = canonical_json(engine.dump(state)).encode("utf-8")
    key = hmac.digest(seed, b"pbem:state-hash", "sha256")
    return hmac.new(key, body, hashlib.sha256).hexdigest()


def before_row_hash(row):
    """The row hash as it was computed before: ``json.dumps`` of the row."""
    body = canonical_json(
        {
            name: log.hashed_payload(row) if name == "payload" else row[name]
            for name in log.HASHED_FIELDS
        }
    )
    return hashlib.sha256((row["prev_hash"] + body).encode("utf-8")).hexdigest()


BEFORE = before_keyed_state_hash, before_row_hash


def exported_game(service: GameService, slug: str) -> dict:
    engine = REGISTRY[slug]
    seats = [SeatSpec(f"Bot {i + 1}", is_bot=True) for i in range(engine.max_seats)]
    created = service.create_game(slug, seats, {})
    service.play_bots(created.game_id, max_moves=50_000)
    return service.export_game(created.game_id)


def rate(exported: dict, hashes) -> float:
    verify.keyed_state_hash, verify.row_hash = hashes
    try:
        start = time.perf_counter()
        report = verify.verify_export(exported)
        elapsed = time.perf_counter() - start
    finally:
        verify.keyed_state_hash, verify.row_hash = NOW
    assert report.ok and report.seed_revealed, report.summary()
    return report.events / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = make_engine(f"sqlite:///{Path(folder) / 'verify.sqlite3'}")
        migrate(db)
        service = GameService(db, snapshot_every=25)
        exports = {slug: exported_game(service, slug) for slug in TITLES}
        db.dispose()
    print(f"{'title':<16}{'events':>8}{'before ev/s':>14}{'after ev/s':>13}{'speed-up':>10}")
    for slug, exported in exports.items():
        before, after = [], []
        for _ in range(args.runs):
            before.append(rate(exported, BEFORE))
            after.append(rate(exported, NOW))
        old, new = statistics.median(before), statistics.median(after)
        events = len(exported["events"])
        print(f"{slug:<16}{events:>8}{old:>14,.0f}{new:>13,.0f}{new / old:>9.2f}x")


if __name__ == "__main__":
    main()
