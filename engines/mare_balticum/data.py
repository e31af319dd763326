"""Mare Balticum board and components as plain data (copied from the project's design data).

The printed board was not available: the 23 sea areas, their depths, adjacency, layout
hints (x to the east, y to the south, on a 0-100 grid) and the 0/-1 values of the demand
circles are this project's design. Areas are listed in fill order (setup and refill);
demand circles are dealt in port order, then circle order within a port.
"""

from __future__ import annotations

PORTS: tuple[dict, ...] = (
    {"id": "copenhagen", "name": "København (Copenhagen)", "circles": (0,), "x": 8, "y": 78},
    {"id": "stockholm", "name": "Stockholm", "circles": (0, -1), "x": 40, "y": 40},
    {"id": "gdansk", "name": "Gdańsk", "circles": (0, -1), "x": 38, "y": 92},
    {"id": "riga", "name": "Riga", "circles": (0,), "x": 74, "y": 72},
    {
        "id": "st_petersburg",
        "name": "Sankt Peterburg (St Petersburg)",
        "circles": (0, -1),
        "x": 95,
        "y": 38,
    },
)

AREAS: tuple[dict, ...] = (
    {"id": "oresund", "name": "Øresund (The Sound)", "depth": "shallow", "x": 10, "y": 72},
    {"id": "belt_sea", "name": "Belt Sea / Bay of Kiel", "depth": "shallow", "x": 6, "y": 86},
    {"id": "arkona", "name": "Arkona Basin", "depth": "deep", "x": 16, "y": 82},
    {"id": "pomeranian_bay", "name": "Pomeranian Bay", "depth": "shallow", "x": 20, "y": 92},
    {"id": "hano_bay", "name": "Hanö Bay", "depth": "shallow", "x": 24, "y": 76},
    {"id": "bornholm", "name": "Bornholm Basin", "depth": "deep", "x": 28, "y": 84},
    {"id": "gulf_gdansk", "name": "Gulf of Gdańsk", "depth": "shallow", "x": 40, "y": 86},
    {"id": "gdansk_deep", "name": "Gdańsk Deep", "depth": "deep", "x": 46, "y": 78},
    {"id": "kalmar_sound", "name": "Kalmar Sound", "depth": "shallow", "x": 32, "y": 70},
    {"id": "curonian_coast", "name": "Curonian Coast", "depth": "shallow", "x": 56, "y": 80},
    {
        "id": "western_gotland",
        "name": "Landsort Deep (Western Gotland Basin)",
        "depth": "deep",
        "x": 40,
        "y": 62,
    },
    {
        "id": "eastern_gotland",
        "name": "Gotland Deep (Eastern Gotland Basin)",
        "depth": "deep",
        "x": 54,
        "y": 64,
    },
    {"id": "irbe_strait", "name": "Irbe Strait", "depth": "shallow", "x": 62, "y": 60},
    {"id": "gulf_riga", "name": "Gulf of Riga", "depth": "shallow", "x": 68, "y": 66},
    {"id": "vainameri", "name": "Väinameri (Moonsund)", "depth": "shallow", "x": 64, "y": 50},
    {
        "id": "stockholm_archipelago",
        "name": "Stockholm Archipelago",
        "depth": "shallow",
        "x": 44,
        "y": 46,
    },
    {
        "id": "northern_baltic",
        "name": "Northern Baltic Proper (Fårö Deep)",
        "depth": "deep",
        "x": 54,
        "y": 48,
    },
    {"id": "aland_sea", "name": "Åland Sea", "depth": "deep", "x": 46, "y": 34},
    {"id": "archipelago_sea", "name": "Archipelago Sea", "depth": "shallow", "x": 58, "y": 34},
    {
        "id": "gulf_finland_west",
        "name": "Gulf of Finland (west)",
        "depth": "deep",
        "x": 70,
        "y": 40,
    },
    {
        "id": "gulf_finland_east",
        "name": "Gulf of Finland (east) / Neva Bay",
        "depth": "shallow",
        "x": 84,
        "y": 38,
    },
    {"id": "bothnian_sea", "name": "Bothnian Sea", "depth": "deep", "x": 48, "y": 20},
    {"id": "bothnian_bay", "name": "Bothnian Bay", "depth": "shallow", "x": 52, "y": 6},
)

EDGES: tuple[tuple[str, str], ...] = (
    ("copenhagen", "oresund"),
    ("copenhagen", "belt_sea"),
    ("oresund", "belt_sea"),
    ("oresund", "arkona"),
    ("belt_sea", "arkona"),
    ("belt_sea", "pomeranian_bay"),
    ("arkona", "pomeranian_bay"),
    ("arkona", "bornholm"),
    ("arkona", "hano_bay"),
    ("pomeranian_bay", "bornholm"),
    ("hano_bay", "bornholm"),
    ("hano_bay", "kalmar_sound"),
    ("bornholm", "kalmar_sound"),
    ("bornholm", "gdansk_deep"),
    ("bornholm", "gulf_gdansk"),
    ("gdansk", "gulf_gdansk"),
    ("gulf_gdansk", "gdansk_deep"),
    ("gulf_gdansk", "curonian_coast"),
    ("gdansk_deep", "curonian_coast"),
    ("gdansk_deep", "eastern_gotland"),
    ("gdansk_deep", "western_gotland"),
    ("kalmar_sound", "western_gotland"),
    ("western_gotland", "eastern_gotland"),
    ("western_gotland", "stockholm_archipelago"),
    ("western_gotland", "northern_baltic"),
    ("eastern_gotland", "curonian_coast"),
    ("eastern_gotland", "irbe_strait"),
    ("eastern_gotland", "northern_baltic"),
    ("curonian_coast", "irbe_strait"),
    ("irbe_strait", "gulf_riga"),
    ("riga", "gulf_riga"),
    ("gulf_riga", "vainameri"),
    ("vainameri", "northern_baltic"),
    ("vainameri", "gulf_finland_west"),
    ("stockholm", "stockholm_archipelago"),
    ("stockholm", "aland_sea"),
    ("stockholm_archipelago", "northern_baltic"),
    ("stockholm_archipelago", "aland_sea"),
    ("northern_baltic", "aland_sea"),
    ("northern_baltic", "archipelago_sea"),
    ("northern_baltic", "gulf_finland_west"),
    ("aland_sea", "archipelago_sea"),
    ("aland_sea", "bothnian_sea"),
    ("archipelago_sea", "gulf_finland_west"),
    ("archipelago_sea", "bothnian_sea"),
    ("gulf_finland_west", "gulf_finland_east"),
    ("st_petersburg", "gulf_finland_east"),
    ("bothnian_sea", "bothnian_bay"),
)
FISH: tuple[str, ...] = ("salmon", "flatfish", "herring", "cod")
GOODS: tuple[str, ...] = (*FISH, "amber")
# The bag in canonical order: the goods, then the passage of time tokens.
BAG_KINDS: tuple[str, ...] = (*GOODS, "time")
TOKENS: dict[str, int] = {"salmon": 12, "flatfish": 12, "herring": 12, "cod": 12, "amber": 20}
TIME_TOKENS = 6
DEMAND_TOKENS: dict[str, int] = {"salmon": 2, "flatfish": 2, "herring": 2, "cod": 2}
VESSELS_BY_PLAYERS: dict[int, int] = {3: 5, 4: 4, 5: 3}
NUMBER_TOKENS: tuple[int, ...] = (0, 1, 2, 3)
PRODUCTION_TOKENS: tuple[int | str, ...] = (*NUMBER_TOKENS, "tax")
HOLD_SIZE = 5
ACTIONS_PER_TURN = 3

CONTRACTS: tuple[dict, ...] = (
    {"id": "c1", "needs": {"salmon": 1, "herring": 1, "amber": 2}, "points": 7},
    {"id": "c2", "needs": {"salmon": 1, "flatfish": 1, "amber": 2}, "points": 7},
    {"id": "c3", "needs": {"salmon": 1, "cod": 1, "amber": 2}, "points": 7},
    {"id": "c4", "needs": {"herring": 1, "flatfish": 1, "amber": 2}, "points": 7},
    {"id": "c5", "needs": {"herring": 1, "cod": 1, "amber": 2}, "points": 7},
    {"id": "c6", "needs": {"flatfish": 1, "cod": 1, "amber": 2}, "points": 7},
)

COLOURS: tuple[str, ...] = ("Red", "Blue", "Green", "Yellow", "Black")

# Derived lookups (the web may use them as well).
PORT_IDS: tuple[str, ...] = tuple(port["id"] for port in PORTS)
AREA_IDS: tuple[str, ...] = tuple(area["id"] for area in AREAS)
LOCATIONS: tuple[str, ...] = PORT_IDS + AREA_IDS
LOCATION_INDEX: dict[str, int] = {location: i for i, location in enumerate(LOCATIONS)}
NAMES: dict[str, str] = {item["id"]: item["name"] for item in (*PORTS, *AREAS)}
CAPACITY: dict[str, int] = {area["id"]: 2 if area["depth"] == "deep" else 1 for area in AREAS}
CIRCLES: dict[str, tuple[int, ...]] = {port["id"]: port["circles"] for port in PORTS}
CONTRACT_BY_ID: dict[str, dict] = {contract["id"]: contract for contract in CONTRACTS}
CONTRACT_IDS: tuple[str, ...] = tuple(contract["id"] for contract in CONTRACTS)


def _neighbours() -> dict[str, tuple[str, ...]]:
    found: dict[str, list[str]] = {location: [] for location in LOCATIONS}
    for a, b in EDGES:
        found[a].append(b)
        found[b].append(a)
    return {
        location: tuple(sorted(near, key=LOCATION_INDEX.__getitem__))
        for location, near in found.items()
    }


NEIGHBOURS: dict[str, tuple[str, ...]] = _neighbours()

# Drawing hints only (no rule reads them): where the board draws each port and area, as
# (latitude, longitude) in degrees: the port's city, or a point in the area's waters.
GEO: dict[str, tuple[float, float]] = {
    "copenhagen": (55.68, 12.57),
    "stockholm": (59.33, 18.07),
    "gdansk": (54.35, 18.65),
    "riga": (56.95, 24.11),
    "st_petersburg": (59.94, 30.31),
    "oresund": (56.05, 12.65),
    "belt_sea": (54.65, 10.75),
    "arkona": (54.95, 13.55),
    "pomeranian_bay": (54.15, 14.25),
    "hano_bay": (55.75, 14.65),
    "bornholm": (55.3, 15.9),
    "gulf_gdansk": (54.6, 19.1),
    "gdansk_deep": (55.1, 19.5),
    "kalmar_sound": (56.7, 16.55),
    "curonian_coast": (55.6, 20.75),
    "western_gotland": (58.3, 18.5),
    "eastern_gotland": (57.2, 19.9),
    "irbe_strait": (57.75, 22.0),
    "gulf_riga": (57.5, 23.45),
    "vainameri": (58.75, 23.2),
    "stockholm_archipelago": (59.55, 19.1),
    "northern_baltic": (58.75, 20.6),
    "aland_sea": (60.1, 19.35),
    "archipelago_sea": (60.2, 21.4),
    "gulf_finland_west": (59.7, 24.2),
    "gulf_finland_east": (60.05, 28.0),
    "bothnian_sea": (61.8, 19.8),
    "bothnian_bay": (64.6, 23.2),
}
