"""Mare Nostrum 5-player set-up screens: balance with candidate set-ups, before any
becomes a rules version.

    .venv/bin/python bench/bench_mare_nostrum_setups.py CANDIDATE[+CANDIDATE...] [GAMES]
        [--seed S] [--jobs N]

Plays GAMES (400 unless told) 5-player games with the "normal" bot in every seat, as
``bench/bench_mare_nostrum_balance.py 400 5`` does, but with the newest version's
5-player set-ups changed by the named candidates (``base``: as they are), and prints each
civilisation's share of wins and how the games ended. Every candidate keeps its
civilisation's 36 points (a temple or a market 6; a city, caravan, legion, fortress or
trireme 3). The candidates are patched into this process only; the engine is unchanged.
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines.mare_nostrum import ENGINE, data  # noqa: E402
from engines.mare_nostrum.data import STARTS_V2, STARTS_V3, _changed  # noqa: E402
from tests.engines.mare_nostrum.balance import balance, merge  # noqa: E402

SEATS = 5
NEWEST = data.starts_by_players(ENGINE.version)  # the newest version's own set-ups
TODAY = dict(NEWEST[SEATS])
ROME_CARAVANS = [["latium", "slaves"], ["magna_graecia", "wine"], ["etruria", "iron"]]
CANDIDATES = {
    "base": {},
    # Babylon
    "bab_meso": {"babylon": _changed(STARTS_V3["babylon"], caravans=[["mesopotamia", "grain"]])},
    "bab_nab": {"babylon": _changed(STARTS_V3["babylon"], caravans=[["nabataea", "incense"]])},
    "bab_slv": {"babylon": _changed(STARTS_V3["babylon"], caravans=[["babylonia", "slaves"]])},
    "bab_legmeso": {
        "babylon": _changed(STARTS_V3["babylon"], legions={"babylonia": 1, "mesopotamia": 1})
    },
    "bab_v3": {"babylon": STARTS_V3["babylon"]},  # version 3's (both legions in Babylonia)
    "bab_legnab": {  # version 4's
        "babylon": _changed(STARTS_V3["babylon"], legions={"babylonia": 1, "nabataea": 1})
    },
    # Carthage
    "carth_v2": {"carthage": STARTS_V2["carthage"]},
    "carth_mkt": {
        "carthage": _changed(STARTS_V3["carthage"], temples=[], markets=[["africa", "grain"]])
    },
    "carth_mktnum": {
        "carthage": _changed(STARTS_V3["carthage"], temples=[], markets=[["numidia", "cattle"]])
    },
    "carth_mkttri": {
        "carthage": _changed(STARTS_V3["carthage"], temples=[], markets=[["tripolitania", "oil"]])
    },
    "carth_tri": {
        "carthage": _changed(
            STARTS_V3["carthage"],
            caravans=[["africa", "grain"], ["numidia", "cattle"]],
            triremes={"s3": 1},
        )
    },
    # Rome
    "rome_car": {"rome": _changed(STARTS_V3["rome"], caravans=ROME_CARAVANS, triremes={})},
    "rome_cardec": {"rome": _changed(STARTS_V3["rome"], caravans=ROME_CARAVANS, legions={})},
    "rome_leg2": {"rome": _changed(STARTS_V3["rome"], legions={"latium": 2}, triremes={})},
    # Greece and Egypt
    "gre_fort": {
        "greece": _changed(STARTS_V3["greece"], fortresses=["attica", "peloponnesus"], legions={})
    },
    "egy_tri": {"egypt": STARTS_V3["egypt"]},
    "gre_tri": {"greece": _changed(STARTS_V3["greece"], legions={}, triremes={"s6": 1})},
    "gre_leg2": {
        "greece": _changed(
            STARTS_V3["greece"],
            caravans=[["attica", "oil"], ["peloponnesus", "fruit"]],
            legions={"attica": 2},
        )
    },
    "bab_v2": {"babylon": STARTS_V2["babylon"]},
}


def patched(names: str) -> dict:
    setups = dict(TODAY)
    for name in names.split("+"):
        if name not in CANDIDATES:
            raise SystemExit(f"no candidate {name!r}; the candidates: {', '.join(CANDIDATES)}")
        setups.update(CANDIDATES[name])
    return setups


def part(args: tuple[str, int, int, int]) -> dict:
    names, games, seed, first = args
    NEWEST[SEATS] = patched(names)
    return balance(SEATS, games, seed, first)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("candidates")
    parser.add_argument("games", nargs="?", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    patched(args.candidates)  # refuses an unknown name before any game
    jobs = max(1, args.jobs)
    sizes = [args.games // jobs + (1 if index < args.games % jobs else 0) for index in range(jobs)]
    starts = [sum(sizes[:index]) for index in range(jobs)]
    work = [
        (args.candidates, size, args.seed, start) for size, start in zip(sizes, starts, strict=True)
    ]
    with ProcessPoolExecutor(jobs) as pool:
        merged = merge(list(pool.map(part, work)))
    shares = sorted(merged["wins"].items(), key=lambda item: -item[1])
    print(
        f"{args.candidates} ({merged['games']} games, seed {args.seed}): "
        + ", ".join(f"{civ} {100 * wins / merged['games']:.1f}%" for civ, wins in shares)
        + f"; endings {dict(merged['endings'])}",
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
