"""Mercatores speed: bot self-play games per second and replay moves per second.

Run from the project root: ``.venv/bin/python bench/bench_mercatores.py``.
Each figure is the median of 5 runs; self-play cycles through 2-4 players.
"""

from __future__ import annotations

from engine_bench import report

from engines.mercatores import ENGINE

if __name__ == "__main__":
    report(ENGINE, 30, lambda game: 2 + game % 3, lambda game: {}, repeat_records=30)
