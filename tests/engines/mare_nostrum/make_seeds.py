"""Records the golden Mare Nostrum games in ``seeds/mare_nostrum/``.

Run: ``.venv/bin/python -m tests.engines.mare_nostrum.make_seeds``. The records are games of
rules version 1, recorded with the first (now "easy") bot. Running games still play that
version, so the records must keep replaying unchanged: do not rerun this script (it
plays version 1, but with the engine's default bot it would record other games).
"""

from __future__ import annotations

from engines.mare_nostrum import ENGINE as NEWEST
from tests.golden import record_game, write_record

ENGINE = NEWEST.at_version(1)

STARTING = {"civilisations": "recommended", "setup": "starting", "turn_limit": 30}
EXPERIENCED = {"civilisations": "random", "setup": "experienced", "turn_limit": 30}

GAMES = (
    ("game1.json", 3, STARTING, "00" * 31 + "01", "mare-nostrum-golden-1", 1),
    ("game2.json", 4, EXPERIENCED, "00" * 31 + "02", "mare-nostrum-golden-2", 2),
    ("game3.json", 5, STARTING, "00" * 31 + "03", "mare-nostrum-golden-3", 3),
)


def main() -> None:
    for name, seats, options, seed, game_id, bot_seed in GAMES:
        record = record_game(ENGINE, seats, options, bytes.fromhex(seed), game_id, bot_seed)
        path = write_record("mare_nostrum", name, record)
        print(f"{path}: {len(record['moves'])} moves, {record['result']['reason']}")


if __name__ == "__main__":
    main()
