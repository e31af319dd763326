"""Records the three golden Mare Balticum games in ``seeds/mare_balticum/``.

Run from the project root: ``.venv/bin/python -m tests.engines.mare_balticum.make_seeds``.
"""

from __future__ import annotations

from engines.mare_balticum import ENGINE
from tests.golden import record_game, write_record

GAMES = [
    (
        "game1.json",
        3,
        {"demand_management": False, "trade_contracts": False, "seat_order": "as_listed"},
        "01",
    ),
    (
        "game2.json",
        4,
        {"demand_management": True, "trade_contracts": False, "seat_order": "random"},
        "02",
    ),
    (
        "game3.json",
        5,
        {"demand_management": True, "trade_contracts": True, "seat_order": "as_listed"},
        "03",
    ),
]


def main() -> None:
    for name, seats, options, last_byte in GAMES:
        seed = bytes.fromhex("00" * 31 + last_byte)
        record = record_game(
            ENGINE, seats, options, seed, f"mare-balticum-{name[:-5]}", bot_seed=seats
        )
        path = write_record("mare_balticum", name, record)
        print(f"{path}: {len(record['moves'])} moves, result {record['result']['scores']}")


if __name__ == "__main__":
    main()
