"""Every kind of move leads to the section of the rules reference that explains it.

The legal moves of seeded bot games (each title, the fewest and the most seats, every
option's choices) are walked; each kind a title offers must name a section
(``rule_anchor``) that its rules page (``/rules/<slug>``) has. The turn page's groups
of moves and the composing forms link there by a plain link, which submits nothing and
reads "Rule: <kind>" to a screen reader; each kind has the name a player calls it by
(``kind_name``), never its code name.
"""

from __future__ import annotations

import random
import re
from html.parser import HTMLParser

import pytest

from engines import REGISTRY, scan_titles
from engines.api import SeededChance, resolve_options
from pbem.games.service import SeatSpec
from pbem.web import create_app
from tests.web.test_browser_pages import play_until_due

TITLES = sorted(slug for slug in scan_titles() if hasattr(REGISTRY[slug], "rules_reference"))
SEEDS = (1, 2)


def option_sets(engine) -> list[dict]:
    """The defaults, then each option's every other choice alone, then every switch on."""
    sets: list[dict] = [{}]
    switches = {}
    for option in engine.options:
        if isinstance(option.default, bool):
            sets.append({option.name: not option.default})
            switches[option.name] = True
        for choice in option.choices or ():
            if choice != option.default:
                sets.append({option.name: choice})
    if len(switches) > 1:
        sets.append(switches)
    return sets


def kinds_offered(engine, seats: int, options: dict, seed: int, cap: int = 4000) -> set[str]:
    """Every kind of move any due seat may make, along one bot game."""
    chance, rng = SeededChance(seed), random.Random(seed)
    try:
        state = engine.setup(seats, resolve_options(engine, options), chance)
    except ValueError:  # a choice this many seats cannot take (a seat past the last)
        return set()
    kinds: set[str] = set()
    for _ in range(cap):
        due = engine.to_move(state)
        if not due:
            break
        for seat in sorted(due):
            kinds |= {move["type"] for move in engine.legal_moves(state, seat)}
        seat = rng.choice(sorted(due))
        legal = engine.legal_moves(state, seat)
        # The quick levels: a searching one ("hard") offers no other moves, only slower.
        levels = [level for level in engine.bot_levels if level != "hard"] or ["normal"]
        move = engine.bot_move(engine.view(state, seat), legal, rng, rng.choice(levels))
        state = engine.apply(state, seat, move, chance)
    return kinds


class Ids(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.ids += [value for name, value in attrs if name == "id" and value]


def ids_of(html: str) -> list[str]:
    parser = Ids()
    parser.feed(html)
    return parser.ids


@pytest.fixture
def client(sqlite_runtime):
    app = create_app(runtime=sqlite_runtime)
    app.config["TESTING"] = True
    return app.test_client()


@pytest.mark.parametrize("slug", TITLES)
def test_every_kind_of_move_a_title_offers_has_its_section_in_the_rules(client, slug):
    engine = REGISTRY[slug]
    page = client.get(f"/rules/{slug}")
    assert page.status_code == 200
    ids = ids_of(page.text)
    assert len(ids) == len(set(ids)), "an id is used twice on the rules page"
    kinds: set[str] = set()
    for options in option_sets(engine):
        for seats in sorted({engine.min_seats, engine.max_seats}):
            for seed in SEEDS:
                kinds |= kinds_offered(engine, seats, options, seed)
    assert len(kinds) >= 4
    unnamed = sorted(kind for kind in kinds if not engine.kind_name(kind))
    assert unnamed == [], f"kinds a player would read as code: {unnamed}"
    missing = {kind: engine.rule_anchor(kind) for kind in kinds}
    missing = {kind: anchor for kind, anchor in missing.items() if anchor not in ids}
    assert missing == {}, f"kinds without a section on /rules/{slug}: {missing}"


@pytest.mark.parametrize("slug", TITLES)
def test_a_kind_the_rules_do_not_name_gets_no_link(slug):
    assert REGISTRY[slug].rule_anchor("no_such_kind") is None
    assert REGISTRY[slug].kind_name("no_such_kind") is None


LINK = re.compile(r'<a class="rule-link" href="([^"]+)" aria-label="Rule: ([^"]+)">Rule</a>')


@pytest.mark.parametrize("slug", TITLES)
def test_each_group_of_moves_on_the_turn_page_links_to_its_rule(client, sqlite_runtime, slug):
    engine = REGISTRY[slug]
    specs = [SeatSpec(f"P{n}", f"p{n}@example.org") for n in range(engine.min_seats)]
    created = sqlite_runtime.service.create_game(slug, specs, {}, seed=b"r" * 32)
    play_until_due(
        sqlite_runtime.service, created.game_id, set(range(len(specs))), random.Random(2), 12
    )
    due = sqlite_runtime.service.game(created.game_id).to_move[0]
    html = client.get(f"/play/{created.tokens[due]}").text
    groups = re.findall(r'<details id="moves-(\w+)"', html)
    assert groups
    links = LINK.findall(html)
    moves = html[html.index('<div class="moves">') :]
    listed = LINK.findall(moves)
    assert [kind for _, kind in listed] == [engine.kind_name(group) for group in groups]
    headings = re.findall(r"<summary>([^<(]+) \(\d+\)</summary>", moves)
    assert headings == [engine.kind_name(group) for group in groups]
    assert not any("_" in heading for heading in headings)
    for (href, _), group in zip(listed, groups, strict=True):
        assert href == f"/rules/{slug}#{engine.rule_anchor(group)}"
    # Beside the forms, never inside one: following a rule submits nothing.
    for form in re.findall(r"<form .*?</form>", moves, re.S):
        assert "rule-link" not in form
    assert len(links) >= len(listed)
    rules = ids_of(client.get(f"/rules/{slug}").text)
    assert all(href.split("#")[1] in rules for href, _ in links)


def test_a_title_without_a_rules_page_shows_no_rule_links(client, sqlite_runtime):
    from tests.web.conftest import pig_game

    created = pig_game(sqlite_runtime)
    html = client.get(f"/play/{created.tokens[0]}").text
    assert '<div class="moves">' in html and "rule-link" not in html
