"""Records the golden Mercatores games in ``seeds/mercatores/``.

Run: ``.venv/bin/python -m tests.engines.mercatores.make_seeds``. Rerun it (and commit
the files) only when a deliberate rules change bumps the engine's version.
"""

from __future__ import annotations

from engines.mercatores import ENGINE
from tests.golden import record_game, write_record

GAMES = (
    ("game1.json", 2, {"end_cards": 15}, "00" * 31 + "01", "mercatores-golden-1", 1),
    ("game2.json", 3, {"end_cards": 15}, "00" * 31 + "02", "mercatores-golden-2", 2),
    ("game3.json", 4, {"end_cards": 12}, "00" * 31 + "03", "mercatores-golden-3", 3),
)


def main() -> None:
    for name, seats, options, seed, game_id, bot_seed in GAMES:
        record = record_game(ENGINE, seats, options, bytes.fromhex(seed), game_id, bot_seed)
        path = write_record("mercatores", name, record)
        print(f"{path}: {len(record['moves'])} moves, {record['result']['reason']}")


if __name__ == "__main__":
    main()
