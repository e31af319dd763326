"""Mare Nostrum board and cards as plain data (copied from the project's rules data).

Ids, names, sites and borders come from the design data; ``x``/``y`` are layout hints
for drawing the map on a 1100 x 540 canvas. Derived lookups sit at the bottom.
"""

from __future__ import annotations

from typing import Any

GOODS = {
    "incense": 5,
    "papyrus": 5,
    "gold": 5,
    "gems": 5,
    "oil": 7,
    "wine": 7,
    "cattle": 7,
    "fruit": 7,
    "iron": 7,
    "grain": 11,
    "fish": 11,
    "slaves": 11,
}

COINS = 35

PROVINCES = [
    {
        "id": "hispania",
        "name": "Hispania",
        "island": False,
        "capital_of": None,
        "cities": ["Gades"],
        "resources": ["iron"],
        "coasts": ["s1"],
        "x": 80,
        "y": 200,
    },
    {
        "id": "gallia",
        "name": "Gallia",
        "island": False,
        "capital_of": None,
        "cities": ["Massilia"],
        "resources": ["wine"],
        "coasts": ["s1", "s2"],
        "x": 200,
        "y": 110,
    },
    {
        "id": "sardinia",
        "name": "Sardinia",
        "island": True,
        "capital_of": None,
        "cities": ["Caralis"],
        "resources": ["fish"],
        "coasts": ["s1", "s2", "s3"],
        "x": 270,
        "y": 230,
    },
    {
        "id": "etruria",
        "name": "Etruria",
        "island": False,
        "capital_of": None,
        "cities": [],
        "resources": ["iron"],
        "coasts": ["s2", "s4"],
        "x": 320,
        "y": 130,
    },
    {
        "id": "latium",
        "name": "Latium",
        "island": False,
        "capital_of": "rome",
        "cities": ["Roma"],
        "resources": ["slaves"],
        "coasts": ["s2"],
        "x": 360,
        "y": 175,
    },
    {
        "id": "magna_graecia",
        "name": "Magna Graecia",
        "island": False,
        "capital_of": None,
        "cities": ["Tarentum"],
        "resources": ["wine"],
        "coasts": ["s2", "s4", "s5"],
        "x": 420,
        "y": 215,
    },
    {
        "id": "sicilia",
        "name": "Sicilia",
        "island": True,
        "capital_of": None,
        "cities": ["Syracusae"],
        "resources": ["grain"],
        "coasts": ["s2", "s3", "s5"],
        "x": 370,
        "y": 290,
    },
    {
        "id": "illyria",
        "name": "Illyria",
        "island": False,
        "capital_of": None,
        "cities": [],
        "resources": ["fish"],
        "coasts": ["s4", "s5"],
        "x": 430,
        "y": 120,
    },
    {
        "id": "mauretania",
        "name": "Mauretania",
        "island": False,
        "capital_of": None,
        "cities": ["Tingis"],
        "resources": ["gems"],
        "coasts": ["s1"],
        "x": 80,
        "y": 330,
    },
    {
        "id": "numidia",
        "name": "Numidia",
        "island": False,
        "capital_of": None,
        "cities": ["Cirta"],
        "resources": ["cattle"],
        "coasts": ["s1", "s3"],
        "x": 200,
        "y": 350,
    },
    {
        "id": "africa",
        "name": "Africa",
        "island": False,
        "capital_of": "carthage",
        "cities": ["Carthago"],
        "resources": ["grain"],
        "coasts": ["s3"],
        "x": 300,
        "y": 360,
    },
    {
        "id": "tripolitania",
        "name": "Tripolitania",
        "island": False,
        "capital_of": None,
        "cities": ["Leptis"],
        "resources": ["oil"],
        "coasts": ["s3", "s5"],
        "x": 400,
        "y": 400,
    },
    {
        "id": "cyrenaica",
        "name": "Cyrenaica",
        "island": False,
        "capital_of": None,
        "cities": ["Cyrene"],
        "resources": ["slaves"],
        "coasts": ["s5", "s8"],
        "x": 540,
        "y": 420,
    },
    {
        "id": "marmarica",
        "name": "Marmarica",
        "island": False,
        "capital_of": None,
        "cities": ["Paraetonium"],
        "resources": [],
        "coasts": ["s8", "s9"],
        "x": 650,
        "y": 440,
    },
    {
        "id": "aegyptus",
        "name": "Aegyptus",
        "island": False,
        "capital_of": "egypt",
        "cities": ["Alexandria", "Memphis"],
        "resources": ["papyrus", "grain"],
        "coasts": ["s9"],
        "x": 760,
        "y": 450,
    },
    {
        "id": "thebais",
        "name": "Thebais",
        "island": False,
        "capital_of": None,
        "cities": ["Thebae"],
        "resources": ["papyrus", "gold"],
        "coasts": [],
        "x": 790,
        "y": 500,
    },
    {
        "id": "nabataea",
        "name": "Nabataea",
        "island": False,
        "capital_of": None,
        "cities": ["Petra"],
        "resources": ["incense"],
        "coasts": [],
        "x": 860,
        "y": 420,
    },
    {
        "id": "judaea",
        "name": "Judaea",
        "island": False,
        "capital_of": None,
        "cities": ["Hierosolyma"],
        "resources": ["fruit"],
        "coasts": ["s10"],
        "x": 850,
        "y": 370,
    },
    {
        "id": "phoenicia",
        "name": "Phoenicia",
        "island": False,
        "capital_of": None,
        "cities": ["Tyrus"],
        "resources": ["fish"],
        "coasts": ["s10"],
        "x": 860,
        "y": 320,
    },
    {
        "id": "syria",
        "name": "Syria",
        "island": False,
        "capital_of": None,
        "cities": ["Antiochia"],
        "resources": ["slaves"],
        "coasts": ["s10"],
        "x": 880,
        "y": 270,
    },
    {
        "id": "mesopotamia",
        "name": "Mesopotamia",
        "island": False,
        "capital_of": None,
        "cities": ["Ninive"],
        "resources": ["grain"],
        "coasts": [],
        "x": 960,
        "y": 260,
    },
    {
        "id": "babylonia",
        "name": "Babylonia",
        "island": False,
        "capital_of": "babylon",
        "cities": ["Babylon"],
        "resources": ["incense", "slaves"],
        "coasts": [],
        "x": 990,
        "y": 360,
    },
    {
        "id": "susiana",
        "name": "Susiana",
        "island": False,
        "capital_of": None,
        "cities": ["Susa"],
        "resources": ["gems"],
        "coasts": [],
        "x": 1060,
        "y": 320,
    },
    {
        "id": "cilicia",
        "name": "Cilicia",
        "island": False,
        "capital_of": None,
        "cities": ["Tarsus"],
        "resources": ["iron"],
        "coasts": ["s10"],
        "x": 820,
        "y": 230,
    },
    {
        "id": "cappadocia",
        "name": "Cappadocia",
        "island": False,
        "capital_of": None,
        "cities": [],
        "resources": ["cattle"],
        "coasts": ["s7"],
        "x": 870,
        "y": 170,
    },
    {
        "id": "asia",
        "name": "Asia",
        "island": False,
        "capital_of": None,
        "cities": ["Troas"],
        "resources": ["oil"],
        "coasts": ["s6", "s7", "s10"],
        "x": 730,
        "y": 200,
    },
    {
        "id": "thracia",
        "name": "Thracia",
        "island": False,
        "capital_of": None,
        "cities": ["Byzantium"],
        "resources": ["cattle"],
        "coasts": ["s6", "s7"],
        "x": 650,
        "y": 110,
    },
    {
        "id": "macedonia",
        "name": "Macedonia",
        "island": False,
        "capital_of": None,
        "cities": ["Pella"],
        "resources": ["gold"],
        "coasts": ["s5", "s6"],
        "x": 540,
        "y": 140,
    },
    {
        "id": "attica",
        "name": "Attica",
        "island": False,
        "capital_of": "greece",
        "cities": ["Athenae"],
        "resources": ["oil"],
        "coasts": ["s6"],
        "x": 590,
        "y": 240,
    },
    {
        "id": "peloponnesus",
        "name": "Peloponnesus",
        "island": False,
        "capital_of": None,
        "cities": ["Corinthus"],
        "resources": ["fruit"],
        "coasts": ["s5", "s6"],
        "x": 540,
        "y": 270,
    },
    {
        "id": "creta",
        "name": "Creta",
        "island": True,
        "capital_of": None,
        "cities": ["Cnossus"],
        "resources": ["wine"],
        "coasts": ["s6", "s8", "s9"],
        "x": 620,
        "y": 340,
    },
    {
        "id": "rhodus",
        "name": "Rhodus",
        "island": True,
        "capital_of": None,
        "cities": ["Rhodus"],
        "resources": ["fish"],
        "coasts": ["s6", "s9", "s10"],
        "x": 720,
        "y": 290,
    },
    {
        "id": "cyprus",
        "name": "Cyprus",
        "island": True,
        "capital_of": None,
        "cities": ["Salamis"],
        "resources": ["fruit"],
        "coasts": ["s9", "s10"],
        "x": 790,
        "y": 320,
    },
]

SEAS = [
    {"id": "s1", "name": "Mare Hispanum", "x": 150, "y": 270},
    {"id": "s2", "name": "Mare Tyrrhenum", "x": 300, "y": 200},
    {"id": "s3", "name": "Mare Africum", "x": 300, "y": 300},
    {"id": "s4", "name": "Mare Hadriaticum", "x": 400, "y": 160},
    {"id": "s5", "name": "Mare Ionium", "x": 470, "y": 300},
    {"id": "s6", "name": "Mare Aegaeum", "x": 630, "y": 210},
    {"id": "s7", "name": "Pontus Euxinus", "x": 760, "y": 120},
    {"id": "s8", "name": "Mare Libycum", "x": 580, "y": 380},
    {"id": "s9", "name": "Mare Aegyptium", "x": 700, "y": 380},
    {"id": "s10", "name": "Mare Syriacum", "x": 790, "y": 270},
]

LAND_EDGES = [
    ("hispania", "gallia"),
    ("gallia", "etruria"),
    ("etruria", "latium"),
    ("etruria", "illyria"),
    ("latium", "magna_graecia"),
    ("magna_graecia", "sicilia"),
    ("illyria", "macedonia"),
    ("mauretania", "numidia"),
    ("numidia", "africa"),
    ("africa", "tripolitania"),
    ("tripolitania", "cyrenaica"),
    ("cyrenaica", "marmarica"),
    ("marmarica", "aegyptus"),
    ("aegyptus", "thebais"),
    ("aegyptus", "nabataea"),
    ("nabataea", "judaea"),
    ("nabataea", "babylonia"),
    ("judaea", "phoenicia"),
    ("phoenicia", "syria"),
    ("syria", "cilicia"),
    ("syria", "mesopotamia"),
    ("mesopotamia", "cappadocia"),
    ("mesopotamia", "babylonia"),
    ("mesopotamia", "susiana"),
    ("babylonia", "susiana"),
    ("cilicia", "cappadocia"),
    ("cilicia", "asia"),
    ("cappadocia", "asia"),
    ("asia", "thracia"),
    ("thracia", "macedonia"),
    ("macedonia", "attica"),
    ("attica", "peloponnesus"),
]

SEA_EDGES = [
    ("s1", "s2"),
    ("s1", "s3"),
    ("s2", "s3"),
    ("s2", "s5"),
    ("s3", "s5"),
    ("s4", "s5"),
    ("s5", "s6"),
    ("s5", "s8"),
    ("s6", "s7"),
    ("s6", "s8"),
    ("s6", "s9"),
    ("s6", "s10"),
    ("s8", "s9"),
    ("s9", "s10"),
]

CIVS = [
    {
        "id": "rome",
        "name": "Rome",
        "capital": "latium",
        "hero": "julius_caesar",
        "start": {
            "provinces": ["latium", "etruria", "magna_graecia"],
            "fortresses": ["latium", "magna_graecia"],
            "cities": [["latium", "Roma"]],
            "temples": [],
            "caravans": [["latium", "slaves"], ["etruria", "iron"], ["magna_graecia", "wine"]],
            "markets": [],
            "legions": {"latium": 2, "magna_graecia": 2},
            "triremes": {"s2": 1, "s4": 1},
        },
        "start_title": "general",
    },
    {
        "id": "carthage",
        "name": "Carthage",
        "capital": "africa",
        "hero": "hannibal",
        "start": {
            "provinces": ["africa", "numidia", "tripolitania"],
            "fortresses": ["africa"],
            "cities": [["africa", "Carthago"]],
            "temples": [],
            "caravans": [["africa", "grain"], ["numidia", "cattle"], ["tripolitania", "oil"]],
            "markets": [["africa", "grain"]],
            "legions": {"africa": 1, "tripolitania": 1},
            "triremes": {"s3": 2, "s1": 1},
        },
        "start_title": "navigator",
    },
    {
        "id": "greece",
        "name": "Greece",
        "capital": "attica",
        "hero": "pericles",
        "start": {
            "provinces": ["attica", "peloponnesus", "macedonia"],
            "fortresses": ["attica"],
            "cities": [["attica", "Athenae"], ["peloponnesus", "Corinthus"]],
            "temples": [],
            "caravans": [["attica", "oil"], ["peloponnesus", "fruit"], ["macedonia", "gold"]],
            "markets": [],
            "legions": {"attica": 1, "peloponnesus": 1, "macedonia": 1},
            "triremes": {"s6": 2, "s5": 1},
        },
        "start_title": None,
    },
    {
        "id": "egypt",
        "name": "Egypt",
        "capital": "aegyptus",
        "hero": "cleopatra",
        "start": {
            "provinces": ["aegyptus", "thebais", "marmarica"],
            "fortresses": ["aegyptus"],
            "cities": [
                ["aegyptus", "Alexandria"],
                ["aegyptus", "Memphis"],
                ["thebais", "Thebae"],
                ["marmarica", "Paraetonium"],
            ],
            "temples": [["aegyptus", "Alexandria"]],
            "caravans": [["aegyptus", "papyrus"], ["aegyptus", "grain"]],
            "markets": [],
            "legions": {"aegyptus": 1, "marmarica": 1},
            "triremes": {"s9": 1},
        },
        "start_title": "lawgiver",
    },
    {
        "id": "babylon",
        "name": "Babylon",
        "capital": "babylonia",
        "hero": "hammurabi",
        "start": {
            "provinces": ["babylonia", "mesopotamia", "syria"],
            "fortresses": ["babylonia", "mesopotamia"],
            "cities": [["babylonia", "Babylon"]],
            "temples": [],
            "caravans": [["babylonia", "incense"], ["mesopotamia", "grain"]],
            "markets": [["babylonia", "incense"]],
            "legions": {"babylonia": 2, "mesopotamia": 1, "syria": 2},
            "triremes": {},
        },
        "start_title": None,
    },
]

HEROES = [
    {
        "id": "julius_caesar",
        "name": "Julius Caesar",
        "civ": "rome",
        "effect": "Your legions and fortresses cost 2 cards instead of 3.",
    },
    {
        "id": "hannibal",
        "name": "Hannibal",
        "civ": "carthage",
        "effect": "Your legions get +1 on each die in combat.",
    },
    {
        "id": "pericles",
        "name": "Pericles",
        "civ": "greece",
        "effect": "Your triremes cost 2 cards instead of 3 and get +1 on each die in combat.",
    },
    {
        "id": "cleopatra",
        "name": "Cleopatra",
        "civ": "egypt",
        "effect": "Once each Build phase you may swap 1 goods card for 1 coin card with the bank, or "
        "the other way round.",
    },
    {
        "id": "hammurabi",
        "name": "Hammurabi",
        "civ": "babylon",
        "effect": "Each Build phase you may place 1 control marker free of charge, following the "
        "normal placement rules.",
    },
    {
        "id": "agamemnon",
        "name": "Agamemnon",
        "civ": None,
        "effect": "Your legions get +1 on each die when attacking, on top of any other bonus.",
    },
    {
        "id": "archimedes",
        "name": "Archimedes",
        "civ": None,
        "effect": "Adds 2 to your count for the Great General title.",
    },
    {
        "id": "helen_of_troy",
        "name": "Helen of Troy",
        "civ": None,
        "effect": "Once per land battle in which you defend, before the dice, one attacking legion "
        "deserts: it is removed and, if you have one in stock, replaced by one of your "
        "legions in that province.",
    },
    {
        "id": "nebuchadnezzar",
        "name": "Nebuchadnezzar",
        "civ": None,
        "effect": "Your take-overs succeed at once, at the end of the war turn in which the province "
        "was occupied, with no wait.",
    },
    {
        "id": "solomon",
        "name": "Solomon",
        "civ": None,
        "effect": "You take 2 extra coin cards from the bank each Trade phase.",
    },
    {
        "id": "ulysses",
        "name": "Ulysses",
        "civ": None,
        "effect": "Your triremes may move up to 2 sea areas.",
    },
]

WONDERS = [
    {
        "id": "colossus",
        "name": "Colossus",
        "cost": 9,
        "effect": "Adds 2 to your count for the Great Navigator title.",
    },
    {
        "id": "hanging_gardens",
        "name": "Hanging Gardens",
        "cost": 9,
        "effect": "Adds 2 to your count for the Great Lawgiver title.",
    },
    {
        "id": "temple_of_artemis",
        "name": "Temple of Artemis",
        "cost": 9,
        "effect": "Each Trade phase you take 1 goods card of your choice from the bank, if one is "
        "available.",
    },
    {
        "id": "statue_of_zeus",
        "name": "Statue of Zeus",
        "cost": 9,
        "effect": "Adds 2 to your count for the Great General title.",
    },
    {
        "id": "lighthouse",
        "name": "Lighthouse",
        "cost": 9,
        "effect": "Your triremes get +1 on each die in sea battles.",
    },
    {
        "id": "mausoleum",
        "name": "Mausoleum",
        "cost": 9,
        "effect": "At the end of the Build phase you may keep up to 4 cards of any kind instead of 2 "
        "coins.",
    },
    {
        "id": "pyramids",
        "name": "Pyramids",
        "cost": 12,
        "effect": "Paid with 12 coins or one card of each of the 12 goods kinds; building them wins "
        "the game at once.",
    },
]

COSTS = {
    "control_marker": 3,
    "city": 3,
    "caravan": 3,
    "legion": 3,
    "fortress": 3,
    "trireme": 3,
    "temple": 6,
    "market": 6,
    "hero": 9,
    "wonder": 9,
    "pyramids": 12,
}

POOLS_BY_PLAYERS = {
    3: {"caravan": 18, "city": 8, "market": 8, "temple": 4},
    4: {"caravan": 23, "city": 10, "market": 10, "temple": 5},
    5: {"caravan": 28, "city": 12, "market": 12, "temple": 6},
}

PIECES_PER_PLAYER = {"control_marker": 12, "legion": 8, "trireme": 5, "fortress": 8}

RECOMMENDED_CIVS = {
    3: ["greece", "carthage", "babylon"],
    4: ["greece", "carthage", "rome", "egypt"],
    5: ["rome", "carthage", "greece", "egypt", "babylon"],
}
TITLES = ("navigator", "lawgiver", "general")
TITLE_NAMES = {
    "navigator": "Great Navigator",
    "lawgiver": "Great Lawgiver",
    "general": "Great General",
}
GOODS_KINDS = tuple(GOODS)
CARD_KINDS = ("coin", *GOODS_KINDS)
CARD_NAMES = {"coin": "coin", **{kind: kind for kind in GOODS_KINDS}}
BUILDINGS = ("city", "temple", "caravan", "market")
UNITS = ("legion", "fortress", "trireme")
PIECES = ("control_marker", "legion", "trireme", "fortress")

# Drawing hints only (no rule reads them): where the board draws each province and sea,
# as (latitude, longitude) in degrees, near the region's ancient heart.
GEO: dict[str, tuple[float, float]] = {
    "hispania": (39.6, -3.8),
    "gallia": (44.6, 3.2),
    "sardinia": (40.1, 9.0),
    "etruria": (43.3, 11.3),
    "latium": (41.9, 12.9),
    "magna_graecia": (40.3, 16.3),
    "sicilia": (37.5, 14.2),
    "illyria": (44.0, 17.8),
    "mauretania": (33.8, -5.0),
    "numidia": (35.6, 5.5),
    "africa": (35.6, 9.9),
    "tripolitania": (31.6, 13.2),
    "cyrenaica": (32.0, 21.6),
    "marmarica": (30.6, 26.2),
    "aegyptus": (30.4, 30.9),
    "thebais": (26.6, 32.6),
    "nabataea": (29.9, 35.8),
    "judaea": (31.8, 35.2),
    "phoenicia": (33.9, 35.9),
    "syria": (35.6, 37.6),
    "mesopotamia": (36.6, 41.6),
    "babylonia": (32.5, 44.4),
    "susiana": (32.2, 48.2),
    "cilicia": (37.1, 34.6),
    "cappadocia": (38.9, 35.6),
    "asia": (38.6, 28.6),
    "thracia": (41.8, 26.4),
    "macedonia": (40.8, 22.0),
    "attica": (38.2, 23.8),
    "peloponnesus": (37.4, 22.2),
    "creta": (35.2, 24.9),
    "rhodus": (36.2, 28.0),
    "cyprus": (35.1, 33.3),
    "s1": (38.6, 3.2),
    "s2": (40.0, 12.0),
    "s3": (36.4, 12.6),
    "s4": (42.9, 15.0),
    "s5": (37.0, 18.6),
    "s6": (38.9, 25.2),
    "s7": (43.3, 34.0),
    "s8": (34.0, 20.6),
    "s9": (33.1, 28.2),
    "s10": (33.6, 33.6),
}

PROVINCE = {province["id"]: province for province in PROVINCES}
SEA = {sea["id"]: sea for sea in SEAS}
CIV = {civ["id"]: civ for civ in CIVS}
CIV_IDS = tuple(civ["id"] for civ in CIVS)
PROVINCE_IDS = tuple(PROVINCE)
SEA_IDS = tuple(SEA)
HERO = {hero["id"]: hero for hero in HEROES}
WONDER = {wonder["id"]: wonder for wonder in WONDERS}
GREAT_CARDS = {**HERO, **WONDER}
CAPITALS = {civ["capital"]: civ["id"] for civ in CIVS}


def _neighbours(edges: list[tuple[str, str]], nodes: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    found: dict[str, list[str]] = {node: [] for node in nodes}
    for a, b in edges:
        found[a].append(b)
        found[b].append(a)
    order = {node: index for index, node in enumerate(nodes)}
    return {node: tuple(sorted(near, key=order.__getitem__)) for node, near in found.items()}


LAND_NEIGHBOURS = _neighbours(LAND_EDGES, PROVINCE_IDS)
SEA_NEIGHBOURS = _neighbours(SEA_EDGES, SEA_IDS)
COASTS = {province["id"]: tuple(province["coasts"]) for province in PROVINCES}
SHORES = {sea: tuple(p for p in PROVINCE_IDS if sea in COASTS[p]) for sea in SEA_IDS}
# Experienced set-up: Greece may also settle these provinces (rules 'Setup').
GREEK_EXTRA_PROVINCES = ("asia", "thracia", "rhodus", "creta")


def space_name(space: str) -> str:
    """The readable name of a province or sea id."""
    if space in PROVINCE:
        return PROVINCE[space]["name"]
    return SEA[space]["name"]


# --- Version 2 of the rules ------------------------------------------------------------
# Version 1 plays the map and set-ups above exactly as they were. Version 2 moves one city
# site (Memphis leaves Aegyptus; Etruria gains Pisae) and starts every civilisation from a
# set-up worth the rulebook's 36 build points: the civilisation hero (9) and each control
# marker outside the capital (3) count, the capital's marker is free; cities, caravans,
# legions, fortresses and triremes 3, temples and markets 6.
CITY_SITES_V2 = {"aegyptus": ["Alexandria"], "etruria": ["Pisae"]}

STARTS_V2 = {
    # Rome, Great General (2: fortress, trireme): hero 9 + markers 2x3 + fortress 3
    # + cities 2x3 + caravans 3x3 + trireme 3 = 36
    "rome": {
        "provinces": ["latium", "etruria", "magna_graecia"],
        "fortresses": ["latium"],
        "cities": [["latium", "Roma"], ["magna_graecia", "Tarentum"]],
        "temples": [],
        "caravans": [["latium", "slaves"], ["magna_graecia", "wine"], ["etruria", "iron"]],
        "markets": [],
        "legions": {},
        "triremes": {"s2": 1},
    },
    # Carthage, Great Navigator (3 caravans): hero 9 + markers 2x3 + fortress 3
    # + cities 2x3 + caravans 3x3 + trireme 3 = 36
    "carthage": {
        "provinces": ["africa", "numidia", "tripolitania"],
        "fortresses": ["africa"],
        "cities": [["africa", "Carthago"], ["numidia", "Cirta"]],
        "temples": [],
        "caravans": [["africa", "grain"], ["numidia", "cattle"], ["tripolitania", "oil"]],
        "markets": [],
        "legions": {},
        "triremes": {"s3": 1},
    },
    # Greece: hero 9 + markers 2x3 + fortress 3 + cities 2x3 + caravans 3x3 + legion 3 = 36
    "greece": {
        "provinces": ["attica", "peloponnesus", "macedonia"],
        "fortresses": ["attica"],
        "cities": [["attica", "Athenae"], ["peloponnesus", "Corinthus"]],
        "temples": [],
        "caravans": [["attica", "oil"], ["peloponnesus", "fruit"], ["macedonia", "gold"]],
        "markets": [],
        "legions": {"attica": 1},
        "triremes": {},
    },
    # Egypt, Great Lawgiver (2: city, temple): hero 9 + markers 2x3 + fortress 3 + city 3
    # + temple 6 + caravans (papyrus, grain in its capital) 2x3 + trireme 3 = 36
    "egypt": {
        "provinces": ["aegyptus", "thebais", "marmarica"],
        "fortresses": ["aegyptus"],
        "cities": [["aegyptus", "Alexandria"]],
        "temples": [["aegyptus", "Alexandria"]],
        "caravans": [["aegyptus", "papyrus"], ["aegyptus", "grain"]],
        "markets": [],
        "legions": {},
        "triremes": {"s9": 1},
    },
    # Babylon, no fleet: hero 9 + markers 2x3 + fortress 3 + city 3 + caravans 2x3
    # + market 6 + legion 3 = 36
    "babylon": {
        "provinces": ["babylonia", "nabataea", "mesopotamia"],
        "fortresses": ["babylonia"],
        "cities": [["babylonia", "Babylon"]],
        "temples": [],
        "caravans": [["babylonia", "incense"], ["babylonia", "slaves"]],
        "markets": [["babylonia", "incense"]],
        "legions": {"babylonia": 1},
        "triremes": {},
    },
}


# --- Version 3 of the rules ------------------------------------------------------------
# Version 3 keeps version 2's map and rules and changes set-ups only, each still worth the
# rulebook's 36 points counted as above (measured balance, see the engine's docstring).
# A set-up that differs from an earlier one names only the parts it changes.
CITY_SITES_V3 = dict(CITY_SITES_V2)


def _changed(start: dict, **parts: Any) -> dict:
    """A set-up as ``start`` is, but for the ``parts`` given (the rest shared with it)."""
    return {**start, **parts}


STARTS_V3 = {
    # Rome, Great General (3: fortress, legion, trireme): hero 9 + markers 2x3 + fortress 3
    # + legion 3 + trireme 3 + cities 2x3 + caravans 2x3 = 36 (version 2's iron caravan of
    # Etruria becomes a legion in Latium)
    "rome": _changed(
        STARTS_V2["rome"],
        caravans=[["latium", "slaves"], ["magna_graecia", "wine"]],
        legions={"latium": 1},
    ),
    # Carthage, Great Navigator (3 caravans): hero 9 + markers 2x3 + fortress 3 + city 3
    # + temple 6 + caravans 3x3 = 36 (version 2's city of Cirta and trireme become a temple
    # in Carthago)
    "carthage": _changed(
        STARTS_V2["carthage"],
        cities=[["africa", "Carthago"]],
        temples=[["africa", "Carthago"]],
        triremes={},
    ),
    # Greece, as in version 2: hero 9 + markers 2x3 + fortress 3 + cities 2x3
    # + caravans 3x3 + legion 3 = 36
    "greece": STARTS_V2["greece"],
    # Egypt, Great Lawgiver (2: city, temple), as in version 2: hero 9 + markers 2x3
    # + fortress 3 + city 3 + temple 6 + caravans (papyrus, grain in its capital) 2x3
    # + trireme 3 = 36
    "egypt": STARTS_V2["egypt"],
    # Babylon, no fleet: hero 9 + markers 2x3 + fortress 3 + city 3 + caravan 3 + market 6
    # + legions 2x3 = 36 (version 2's slaves caravan becomes a second legion)
    "babylon": _changed(
        STARTS_V2["babylon"],
        caravans=[["babylonia", "incense"]],
        legions={"babylonia": 2},
    ),
}

# Set-ups of their own for some player counts, in place of the ones above (the geography
# around a civilisation changes with who is neutral: measured balance, see the engine's
# docstring).
STARTS_V3_BY_PLAYERS: dict[int, dict[str, dict]] = {
    # With three players Rome and Egypt are usually neutral and Babylon has the east to
    # itself: with the set-up above it won 72% of 3-player bot games.
    3: {
        # Babylon, no fleet: hero 9 + markers 2x3 + fortress 3 + city 3 + temple 6
        # + caravan 3 + legions 2x3 = 36 (the market becomes a temple, and the incense
        # caravan of Babylonia a grain caravan in Mesopotamia, on the border)
        "babylon": _changed(
            STARTS_V3["babylon"],
            temples=[["babylonia", "Babylon"]],
            caravans=[["mesopotamia", "grain"]],
            markets=[],
        ),
        # Greece: hero 9 + markers 2x3 + fortresses 2x3 + cities 2x3 + caravans 3x3 = 36
        # (the legion of Attica becomes a fortress in Peloponnesus)
        "greece": _changed(
            STARTS_V3["greece"],
            fortresses=["attica", "peloponnesus"],
            legions={},
        ),
    },
    # With five players Egypt borders a Babylonian player and gains by holding its ground.
    5: {
        # Egypt, Great Lawgiver (2: city, temple): hero 9 + markers 2x3 + fortress 3
        # + city 3 + temple 6 + caravans (papyrus, grain in its capital) 2x3 + legion 3
        # = 36 (the trireme becomes a legion in Aegyptus)
        "egypt": _changed(STARTS_V3["egypt"], legions={"aegyptus": 1}, triremes={}),
    },
}


# --- Version 4 of the rules ------------------------------------------------------------
# Version 4 keeps version 3's map, rules and set-ups but one: with five players Babylon's
# second legion stands in Nabataea, not in Babylonia (measured balance, see the engine's
# docstring).
STARTS_V4_BY_PLAYERS: dict[int, dict[str, dict]] = {
    3: STARTS_V3_BY_PLAYERS[3],
    5: {
        **STARTS_V3_BY_PLAYERS[5],
        # Babylon, no fleet: hero 9 + markers 2x3 + fortress 3 + city 3 + caravan 3
        # + market 6 + legions 2x3 = 36 (one of the two legions of Babylonia moves to
        # Nabataea, on the border with Egypt)
        "babylon": _changed(STARTS_V3["babylon"], legions={"babylonia": 1, "nabataea": 1}),
    },
}


def starts_by_players(version: int) -> dict[int, dict[str, dict]]:
    """The set-ups of their own that some player counts have under a version of the rules
    (none before version 3)."""
    if version >= 4:
        return STARTS_V4_BY_PLAYERS
    return STARTS_V3_BY_PLAYERS if version >= 3 else {}


def city_sites(version: int, pid: str) -> list[str]:
    """The city sites of a province under a version of the rules."""
    if version >= 3:
        return CITY_SITES_V3.get(pid, PROVINCE[pid]["cities"])
    if version >= 2 and pid in CITY_SITES_V2:
        return CITY_SITES_V2[pid]
    return PROVINCE[pid]["cities"]


def start_of(version: int, civ: str, seats: int | None = None) -> dict:
    """A civilisation's printed starting set-up under a version of the rules (from version
    3 on, some player counts have set-ups of their own)."""
    if version >= 3:
        return starts_by_players(version).get(seats or 0, {}).get(civ, STARTS_V3[civ])
    return STARTS_V2[civ] if version >= 2 else CIV[civ]["start"]


# Words for the title's templates (engines.mare_nostrum.words; read there through
# ``game_data``): translated where they are shown.
def __getattr__(name: str):
    if name in ("CARD_WORDS", "TITLE_WORDS", "ITEM_WORDS", "great_card_word", "build_target"):
        from engines.mare_nostrum import words

        return getattr(words, name)
    raise AttributeError(name)
