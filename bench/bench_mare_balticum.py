"""Mare Balticum speed: bot self-play games per second and replay moves per second.

Run from the project root: ``.venv/bin/python bench/bench_mare_balticum.py``.
Each figure is the median of 5 runs; self-play cycles through 3-5 players and the four
module combinations.
"""

from __future__ import annotations

from engine_bench import report

from engines.mare_balticum import ENGINE

OPTIONS = [
    {"demand_management": demand, "trade_contracts": contracts}
    for demand in (False, True)
    for contracts in (False, True)
]

if __name__ == "__main__":
    report(ENGINE, 12, lambda game: 3 + game % 3, lambda game: OPTIONS[game % 4])
