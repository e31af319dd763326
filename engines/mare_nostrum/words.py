"""Mare Nostrum's words for players (engines/text.py): the markers and the tables of the
common nouns its sentences name (cards, pieces, titles, wonders). Places, civilisations
and heroes are names: plain strings, the same in every language."""

from __future__ import annotations

from engines.text import markers

T, Tn = markers("mare_nostrum")

AND = T(" and ")

# The cards: a coin, or one of the twelve goods.
CARD_WORDS = {
    "coin": T("coin"),
    "incense": T("incense"),
    "papyrus": T("papyrus"),
    "gold": T("gold"),
    "gems": T("gems"),
    "oil": T("oil"),
    "wine": T("wine"),
    "cattle": T("cattle"),
    "fruit": T("fruit"),
    "iron": T("iron"),
    "grain": T("grain"),
    "fish": T("fish"),
    "slaves": T("slaves"),
}

# One card as the object of a sentence ("takes a wine card", "an oil card").
A_CARD = {
    "coin": T("a coin"),
    "incense": T("an incense card"),
    "papyrus": T("a papyrus card"),
    "gold": T("a gold card"),
    "gems": T("a gems card"),
    "oil": T("an oil card"),
    "wine": T("a wine card"),
    "cattle": T("a cattle card"),
    "fruit": T("a fruit card"),
    "iron": T("an iron card"),
    "grain": T("a grain card"),
    "fish": T("a fish card"),
    "slaves": T("a slaves card"),
}

# The pieces and buildings, as a name ("fortress") and as an object ("a fortress").
ITEM_WORDS = {
    "control_marker": T("control marker"),
    "city": T("city"),
    "temple": T("temple"),
    "caravan": T("caravan"),
    "market": T("market"),
    "legion": T("legion"),
    "fortress": T("fortress"),
    "trireme": T("trireme"),
}
A_ITEM = {
    "control_marker": T("a control marker"),
    "city": T("a city"),
    "temple": T("a temple"),
    "caravan": T("a caravan"),
    "market": T("a market"),
    "legion": T("a legion"),
    "fortress": T("a fortress"),
    "trireme": T("a trireme"),
}

WONDER_WORDS = {
    "colossus": T("Colossus"),
    "hanging_gardens": T("Hanging Gardens"),
    "temple_of_artemis": T("Temple of Artemis"),
    "statue_of_zeus": T("Statue of Zeus"),
    "lighthouse": T("Lighthouse"),
    "mausoleum": T("Mausoleum"),
    "pyramids": T("Pyramids"),
}
# A wonder as an object: "builds the Pyramids".
THE_WONDER = {
    "colossus": T("the Colossus"),
    "hanging_gardens": T("the Hanging Gardens"),
    "temple_of_artemis": T("the Temple of Artemis"),
    "statue_of_zeus": T("the Statue of Zeus"),
    "lighthouse": T("the Lighthouse"),
    "mausoleum": T("the Mausoleum"),
    "pyramids": T("the Pyramids"),
}

TITLE_WORDS = {
    "navigator": T("Great Navigator"),
    "lawgiver": T("Great Lawgiver"),
    "general": T("Great General"),
}

PHASE_WORDS = {
    "choose_civ": T("choosing civilisations"),
    "setup": T("set-up"),
    "title_choice": T("titles"),
    "artemis": T("trade"),
    "trade_number": T("trade"),
    "offer": T("trade (secret offers)"),
    "take": T("trade (picking)"),
    "compensate": T("trade (compensation)"),
    "name_builder": T("build"),
    "build": T("build"),
    "keep": T("build (Mausoleum)"),
    "name_warrior": T("war"),
    "war": T("war"),
    "over": T("game over"),
}
# The same as a heading (capitalised): before the first turn and at the end.
PHASE_HEADINGS = {
    "choose_civ": T("Choosing civilisations"),
    "setup": T("Set-up"),
    "over": T("Game over"),
}


def card_word(card: str):
    """A card's name in words (a coin or a goods), a name it does not know as it is."""
    return CARD_WORDS.get(card, card)


def cards_listed(cards: list[str]):
    """ "coin, wine, iron" (a payment, an offer): each card's word; "nothing" for none."""
    from engines.text import joined

    return joined([card_word(card) for card in cards], ", ") if cards else T("nothing")


def great_word(card: str):
    """A hero (a name) or a wonder (a word) by its id."""
    from engines.mare_nostrum.data import GREAT_CARDS

    return WONDER_WORDS.get(card) or GREAT_CARDS[card]["name"]


# Refusals that name a piece: one sentence each, so each language words it whole.
ALL_ON_BOARD = {
    "control_marker": T("All your control markers are on the board already."),
    "legion": T("All your legions are on the board already."),
    "fortress": T("All your fortresses are on the board already."),
    "trireme": T("All your triremes are on the board already."),
}
NONE_IN_POOL = {
    "city": T("No city is left in the pool: wait until one returns."),
    "temple": T("No temple is left in the pool: wait until one returns."),
    "caravan": T("No caravan is left in the pool: wait until one returns."),
    "market": T("No market is left in the pool: wait until one returns."),
}


def great_card_word(card: str):
    """A hero's name or a wonder's word, by id (the board's list of what a player owns)."""
    from engines.mare_nostrum.data import GREAT_CARDS

    if card in WONDER_WORDS:
        return WONDER_WORDS[card]
    return GREAT_CARDS[card]["name"] if card in GREAT_CARDS else card.replace("_", " ")


def build_target(label):
    """A build move's label (views.build_label) read for the compose form's list: what
    is bought where, without "Build" (``what``), its price in cards (None when free or
    unknown), the group it goes in (``heading``) and a key naming the place once."""
    from engines.text import Text

    params = getattr(label, "params", {})
    head = params.get("label", label)
    msgid = getattr(label, "msgid", "")
    price = params.get("price") if msgid.startswith("%(label)s: costs") else None
    free = msgid == "%(label)s free (Hammurabi)"
    shown = getattr(head, "params", {})
    item, province, site = shown.get("item"), shown.get("province"), shown.get("site")
    if not isinstance(head, Text) or item is None:
        return {
            "what": str(label),
            "price": None,
            "heading": T("Heroes and wonders"),
            "key": str(label),
        }
    if province is not None and site is not None:
        what = T("%(item)s in %(province)s (%(site)s)", item=item, province=province, site=site)
    elif province is not None:
        what = T("%(item)s in %(province)s", item=item, province=province)
    else:
        what = item
    if free:
        what = T("%(what)s free (Hammurabi)", what=what)
    heading = T("Build %(item)s", item=item) if province is not None else T("Heroes and wonders")
    return {"what": what, "price": price, "heading": heading, "key": str(head)}


# What each hero and wonder does (the rules reference), as data.py words it.
EFFECTS = {
    "julius_caesar": T("Your legions and fortresses cost 2 cards instead of 3."),
    "hannibal": T("Your legions get +1 on each die in combat."),
    "pericles": T("Your triremes cost 2 cards instead of 3 and get +1 on each die in combat."),
    "cleopatra": T(
        "Once each Build phase you may swap 1 goods card for 1 coin card with the bank, or "
        "the other way round."
    ),
    "hammurabi": T(
        "Each Build phase you may place 1 control marker free of charge, following the "
        "normal placement rules."
    ),
    "agamemnon": T("Your legions get +1 on each die when attacking, on top of any other bonus."),
    "archimedes": T("Adds 2 to your count for the Great General title."),
    "helen_of_troy": T(
        "Once per land battle in which you defend, before the dice, one attacking legion "
        "deserts: it is removed and, if you have one in stock, replaced by one of your "
        "legions in that province."
    ),
    "nebuchadnezzar": T(
        "Your take-overs succeed at once, at the end of the war turn in which the province "
        "was occupied, with no wait."
    ),
    "solomon": T("You take 2 extra coin cards from the bank each Trade phase."),
    "ulysses": T("Your triremes may move up to 2 sea areas."),
    "colossus": T("Adds 2 to your count for the Great Navigator title."),
    "hanging_gardens": T("Adds 2 to your count for the Great Lawgiver title."),
    "temple_of_artemis": T(
        "Each Trade phase you take 1 goods card of your choice from the bank, if one is available."
    ),
    "statue_of_zeus": T("Adds 2 to your count for the Great General title."),
    "lighthouse": T("Your triremes get +1 on each die in sea battles."),
    "mausoleum": T(
        "At the end of the Build phase you may keep up to 4 cards of any kind instead of 2 coins."
    ),
    "pyramids": T(
        "Paid with 12 coins or one card of each of the 12 goods kinds; building them wins "
        "the game at once."
    ),
}


def pieces_counted(item: str, count: int):
    """A player's supply of a piece: "12 control markers"."""
    if item == "control_marker":
        return Tn("%(num)d control marker", "%(num)d control markers", count)
    if item == "legion":
        return Tn("%(num)d legion", "%(num)d legions", count)
    if item == "trireme":
        return Tn("%(num)d trireme", "%(num)d triremes", count)
    return Tn("%(num)d fortress", "%(num)d fortresses", count)
