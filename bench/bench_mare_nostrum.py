"""Mare Nostrum speed: bot self-play games per second and replay moves per second.

Run from the project root: ``.venv/bin/python bench/bench_mare_nostrum.py``.
Each figure is the median of 5 runs; self-play cycles through 3-5 players.
"""

from __future__ import annotations

from engine_bench import report

from engines.mare_nostrum import ENGINE

OPTIONS = {"civilisations": "recommended", "setup": "starting", "turn_limit": 30}

if __name__ == "__main__":
    report(ENGINE, 6, lambda game: 3 + game % 3, lambda game: OPTIONS, repeat_records=5)
