"""Failover under load: a synchronous standby takes over when the primary dies.

    .venv/bin/python bench/bench_failover.py [--minutes 1.5] [--games 20] [--kill-after 30]
        [--promote-after 5] [--ports 5442,5443]

Run as root. Builds a PostgreSQL primary and a synchronous hot standby with Debian's
``pg_createcluster`` and ``pg_basebackup -R`` (``scripts/pg_pair.py``), then runs the load
benchmark (``bench/bench_load.py``: gunicorn web workers, one ``pbem worker``, aiosmtpd,
bot clients through the JSON API) against the multi-host URL. ``--kill-after`` seconds
into the run it SIGKILLs the primary's postmaster and all its processes (a host that
died), waits ``--promote-after`` seconds (an operator or a failover manager noticing) and
promotes the standby with ``pg_ctlcluster promote``. Clients retry an answer of 5xx with
the same expected seq, as a careful client does.

It prints the load benchmark's figures and then: acknowledged moves lost (every move a
client got a 200 for must be in the surviving database's log, same seq, seat and move;
must be 0), seconds without service (from the kill to the first move answered 200 after
it, and from the promotion to that move), the answers clients saw from the kill until
service came back (by status), and whether every game's chain verifies on the survivor
(the load benchmark's own check, through the service). The clusters are dropped at the
end, on failure too. Exits 1 when any check fails.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "bench"))

import bench_load  # noqa: E402
import pg_pair  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=1.5)
    parser.add_argument("--games", type=int, default=20, help="games played at once")
    parser.add_argument("--web-workers", type=int, default=2)
    parser.add_argument("--kill-after", type=float, default=30.0, help="seconds into the run")
    parser.add_argument("--promote-after", type=float, default=5.0, help="seconds after the kill")
    parser.add_argument("--ports", default="5442,5443", help="primary,standby")
    args = parser.parse_args()
    if reason := pg_pair.available():
        print(f"bench_failover: {reason}", file=sys.stderr)
        return 2

    first, second = (int(port) for port in args.ports.split(","))
    pair = pg_pair.StandbyPair("pbem_failover", first, second)
    moments: dict[str, float] = {}

    def failover(stats: bench_load.Stats, stop: threading.Event) -> None:
        if stop.wait(args.kill_after):
            return
        moments["kill"] = time.perf_counter()
        pair.kill_primary()
        print(f"primary SIGKILLed {args.kill_after:.0f} s into the run", flush=True)
        time.sleep(args.promote_after)
        moments["promote called"] = time.perf_counter()
        pair.promote()
        moments["promoted"] = time.perf_counter()

    def checks(stats: bench_load.Stats, service) -> list[str]:
        failures: list[str] = []
        if "promoted" not in moments:
            return ["the run ended before the primary was killed (raise --minutes)"]
        if pair.sql(pair.standby_port, "SELECT pg_is_in_recovery()") != "f":
            failures.append("the standby is not the primary after the promotion")
        logs: dict[str, dict[int, dict]] = {}
        lost = []
        for game_id, seq, seat, move in stats.acknowledged:
            if game_id not in logs:
                logs[game_id] = {row["seq"]: row for row in service.events(game_id)}
            # The answer's seq is the game's head: the move, or the reveal after a last move.
            rows = [logs[game_id].get(seq), logs[game_id].get(seq - 1)]
            if not any(
                row
                and row["kind"] == "move"
                and row["seat"] == seat
                and row["payload"] == {"move": move}
                for row in rows
            ):
                lost.append((game_id, seq))
        print(f"acknowledged moves: {len(stats.acknowledged)}, lost on the survivor: {len(lost)}")
        if lost:
            failures.append(f"{len(lost)} acknowledged moves lost, e.g. {lost[:5]}")

        kill, promoted = moments["kill"], moments["promoted"]
        back = [t for t, method, status in stats.answers if method == "POST" and status == 200]
        back = [t for t in back if t > promoted]
        if not back:
            failures.append("no move was answered 200 after the promotion")
            return failures
        first_ok = min(back)
        during = Counter(
            f"{method} {status}"
            for t, method, status in stats.answers
            if kill <= t <= first_ok and status != 200
        )
        print(
            f"promotion took {promoted - moments['promote called']:.2f} s; without service: "
            f"{first_ok - kill:.2f} s from the kill to the first move answered 200 "
            f"({first_ok - promoted:.2f} s after the promotion)"
        )
        print(f"answers other than 200 from the kill until then: {dict(sorted(during.items()))}")
        late = Counter(
            f"{method} {status}"
            for t, method, status in stats.answers
            if t > first_ok and status >= 500
        )
        print(f"5xx answers after the first move answered 200: {dict(late) or 0}")
        return failures

    try:
        began = time.perf_counter()
        pair.build()
        print(
            f"primary on :{first}, synchronous standby on :{second}, built in "
            f"{time.perf_counter() - began:.1f} s; {pair.url()}",
            flush=True,
        )
        return bench_load.main(
            [
                "--database",
                pair.url(),
                "--minutes",
                str(args.minutes),
                "--games",
                str(args.games),
                "--web-workers",
                str(args.web_workers),
                "--retry-5xx",
                "120",
                "--tolerate-5xx",
            ],
            during=failover,
            after=checks,
        )
    finally:
        pair.drop()


if __name__ == "__main__":
    sys.exit(main())
