"""Readable records: the CPU time to write and to read back one whole game's record,
per title, beside the time to verify its JSON export.

Run from the project root: ``.venv/bin/python bench/bench_record.py [--level easy|normal]
[--seats N]``.

Bots play one whole game of each title through the service on a scratch SQLite file;
its full export is verified (:func:`pbem.eventlog.verify.verify_export`), written as a
record (:func:`pbem.games.record.write_record`: a replay, and each move's notation
matched against the position's legal moves) and read back
(:func:`pbem.games.record.read_record`: a replay, each move found by its notation, every
hash computed again). Figures are the process's CPU time; the read-back export must be
the written one.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from engines import REGISTRY  # noqa: E402
from pbem.db import make_engine  # noqa: E402
from pbem.eventlog.verify import verify_export  # noqa: E402
from pbem.games.portable import export_game  # noqa: E402
from pbem.games.record import read_record, write_record  # noqa: E402
from pbem.games.service import GameService, SeatSpec  # noqa: E402
from pbem.migrations import migrate  # noqa: E402


def cpu(work, argument):
    start = time.process_time()
    value = work(argument)
    return value, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--level", default="easy")
    parser.add_argument("--seats", type=int, default=0, help="0: each title's most")
    args = parser.parse_args()
    folder = pathlib.Path(tempfile.mkdtemp())
    db = make_engine(f"sqlite:///{folder / 'bench.sqlite3'}")
    migrate(db)
    service = GameService(db, snapshot_every=25)
    for slug in sorted(slug for slug in REGISTRY if getattr(REGISTRY[slug], "listed", True)):
        engine = REGISTRY[slug]
        count = min(args.seats or engine.max_seats, engine.max_seats)
        seats = [SeatSpec(f"Bot {i + 1}", is_bot=True, bot_level=args.level) for i in range(count)]
        game_id = service.create_game(slug, seats, {}).game_id
        service.play_bots(game_id, max_moves=100_000)
        data = export_game(service, game_id)
        _, verified = cpu(verify_export, data)
        text, written = cpu(write_record, data)
        back, read = cpu(read_record, text)
        assert back == data, slug
        with_json = sum(1 for line in text.splitlines() if '{"move"' in line)
        print(
            f"{slug}: {len(data['events'])} events, {count} seats ({args.level} bots): "
            f"verify JSON {verified:.2f} s, write record {written:.2f} s, read back "
            f"{read:.2f} s CPU; record {len(text) / 1e3:.0f} kB, JSON "
            f"{len(json.dumps(data)) / 1e3:.0f} kB; moves needing their JSON: {with_json}"
        )


if __name__ == "__main__":
    main()
