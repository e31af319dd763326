"""The rules reference pages: every number shown is read back from the rendered HTML and
compared with the engine's own data; unknown titles are a 404; pages are linked from the
turn and spectator pages; screenshots at desktop and phone sizes."""

from __future__ import annotations

import re
import threading
from html.parser import HTMLParser

import pytest

from engines import REGISTRY
from engines.mare_balticum import data as baltic
from engines.mare_nostrum import data as nostrum
from engines.mare_nostrum.views import start_rows
from engines.mercatores import data as merc
from pbem.games.service import SeatSpec
from tests.web.conftest import pig_game, shoot

NOSTRUM_VERSION = REGISTRY["mare_nostrum"].version  # the page shows the newest rules

GAMES = ["mercatores", "mare_balticum", "mare_nostrum"]


class Tables(HTMLParser):
    """Every table of a page: its id and rows, each row its attributes and cell texts."""

    def __init__(self):
        super().__init__()
        self.tables: list[dict] = []
        self.row: dict | None = None
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.tables.append({"attrs": dict(attrs), "rows": []})
        elif tag == "tr" and self.tables:
            self.row = {"attrs": dict(attrs), "cells": []}
            self.tables[-1]["rows"].append(self.row)
        elif tag in ("td", "th") and self.row is not None:
            self.cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None and self.row is not None:
            self.row["cells"].append(" ".join("".join(self.cell).split()))
            self.cell = None
        elif tag == "tr":
            self.row = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def tables_of(html: str) -> list[dict]:
    parser = Tables()
    parser.feed(html)
    return parser.tables


def table(html: str, table_id: str) -> list[dict]:
    """The rows of the table with that id; the first row is the header."""
    found = [t for t in tables_of(html) if t["attrs"].get("id") == table_id]
    assert len(found) == 1, f"no table {table_id}"
    return found[0]["rows"]


def body_rows(html: str, table_id: str, key: str) -> dict[str, list[str]]:
    """Body rows keyed by a data- attribute: the cell texts (row header first)."""
    return {row["attrs"][key]: row["cells"] for row in table(html, table_id) if key in row["attrs"]}


def profit_steps(header: list[str], cells: list[str]) -> list[list[int]]:
    """A profit table read back from its "N coins" columns: [[threshold, coins], ...]."""
    steps = []
    for title, cell in zip(header, cells, strict=True):
        coins = re.fullmatch(r"(\d+) coins?", title)
        if coins and cell != "—":
            steps.append([int(cell.rstrip("+")), int(coins.group(1))])
    return sorted(steps)


def page(client, slug: str) -> str:
    answer = client.get(f"/rules/{slug}")
    assert answer.status_code == 200
    return answer.get_data(as_text=True)


@pytest.mark.parametrize("slug", ["nothing", "pig", "mercatores2", "..", "MERCATORES"])
def test_an_unknown_title_is_a_404_page(client, slug):
    answer = client.get(f"/rules/{slug}")
    assert answer.status_code == 404
    assert "There is no" in answer.get_data(as_text=True) or slug == ".."


@pytest.mark.parametrize("slug", GAMES)
def test_every_page_has_contents_linking_to_its_sections_and_scrollable_tables(client, slug):
    html = page(client, slug)
    targets = re.findall(r'<li><a href="#([\w-]+)">', html)
    assert len(targets) >= 5
    for target in targets:
        assert f'id="{target}"' in html
    scrolls = re.findall(
        r'<div class="table-scroll" tabindex="0" role="region" aria-label="[^"]+">', html
    )
    assert len(scrolls) == html.count("<table")


def test_mercatores_shows_every_profit_table_and_card_count_of_the_data(client):
    html = page(client, "mercatores")
    header = table(html, "goods-table")[0]["cells"]
    rows = body_rows(html, "goods-table", "data-goods")
    assert list(rows) == [goods["id"] for goods in merc.GOODS]
    for goods in merc.GOODS:
        cells = rows[goods["id"]]
        assert cells[0] == goods["name"]
        assert int(cells[1]) == goods["count"] == len(goods["ships"])
        assert [int(n) for n in cells[2].split(" / ")] == [
            goods["ships"].count(n) for n in (0, 1, 2)
        ]
        assert profit_steps(header, cells) == [list(step) for step in goods["table"]]
    header = table(html, "specials-table")[0]["cells"]
    rows = body_rows(html, "specials-table", "data-special")
    shown = {card for ids in rows for card in ids.split()}
    assert shown == {special["id"] for special in merc.SPECIALS}
    for ids, cells in rows.items():
        cards = [merc.CARDS[card] for card in ids.split()]
        assert {card["name"] for card in cards} == {cells[0]}
        assert int(cells[1]) == len(cards)
        for card in cards:
            assert profit_steps(header, cells) == [list(step) for step in card["table"]]
        counts = {"warehouse": "goods kinds", "quay": "ship symbols", "trade_route": "opponent"}
        assert counts[cards[0]["kind"]] in cells[2]
    assert re.search(rf'id="captain-value">{merc.CAPTAIN_VALUE}<', html)


def test_mare_balticum_shows_the_bag_ports_contracts_and_areas_of_the_data(client):
    html = page(client, "mare_balticum")
    goods = body_rows(html, "goods-table", "data-kind")
    assert list(goods) == list(baltic.GOODS)
    for kind, cells in goods.items():
        assert int(cells[1]) == baltic.TOKENS[kind]
        assert cells[2] == str(baltic.DEMAND_TOKENS[kind]) if kind in baltic.FISH else "—"
    ports = body_rows(html, "ports-table", "data-port")
    for port in baltic.PORTS:
        cells = ports[port["id"]]
        assert cells[0] == port["name"]
        assert [int(n) for n in cells[1].split(", ")] == list(port["circles"])
    contracts = body_rows(html, "contracts-table", "data-contract")
    assert list(contracts) == list(baltic.CONTRACT_IDS)
    for contract in baltic.CONTRACTS:
        cells = contracts[contract["id"]]
        needs = dict((kind, int(n)) for n, kind in (part.split() for part in cells[1].split(", ")))
        assert needs == contract["needs"]
        assert int(cells[2]) == contract["points"]
    areas = body_rows(html, "areas-table", "data-area")
    assert list(areas) == list(baltic.AREA_IDS)
    for area in baltic.AREAS:
        cells = areas[area["id"]]
        assert cells[1] == area["depth"]
        assert int(cells[2]) == baltic.CAPACITY[area["id"]]
        assert set(cells[3].split(", ")) == {baltic.NAMES[n] for n in baltic.NEIGHBOURS[area["id"]]}
    vessels = table(html, "vessels-table")
    players = [int(n) for n in vessels[0]["cells"][1:]]
    each = [int(n) for n in vessels[1]["cells"][1:]]
    assert dict(zip(players, each, strict=True)) == baltic.VESSELS_BY_PLAYERS
    assert re.search(rf'id="time-tokens">{baltic.TIME_TOKENS}<', html)
    assert "-1 circle" in html and "lost" in html


def test_mare_nostrum_shows_every_cost_card_effect_site_and_set_up_of_the_data(client):
    html = page(client, "mare_nostrum")
    costs = body_rows(html, "costs-table", "data-item")
    assert {item: int(cells[1]) for item, cells in costs.items()} == nostrum.COSTS
    heroes = body_rows(html, "heroes-table", "data-card")
    assert list(heroes) == [hero["id"] for hero in nostrum.HEROES]
    for hero in nostrum.HEROES:
        name, who, cost, effect = heroes[hero["id"]]
        assert name == hero["name"] and effect == hero["effect"]
        assert who == (nostrum.CIV[hero["civ"]]["name"] if hero["civ"] else "anyone")
        assert int(cost) == nostrum.COSTS["hero"]
    wonders = body_rows(html, "wonders-table", "data-card")
    assert list(wonders) == [wonder["id"] for wonder in nostrum.WONDERS]
    for wonder in nostrum.WONDERS:
        assert wonders[wonder["id"]] == [wonder["name"], str(wonder["cost"]), wonder["effect"]]
    provinces = body_rows(html, "provinces-table", "data-province")
    assert list(provinces) == list(nostrum.PROVINCE_IDS)
    for province in nostrum.PROVINCES:
        cells = provinces[province["id"]]
        sites = nostrum.city_sites(NOSTRUM_VERSION, province["id"])
        assert cells[1] == (", ".join(sites) or "—")
        assert cells[2] == (", ".join(province["resources"]) or "—")
        assert cells[3] == (", ".join(nostrum.SEA[s]["name"] for s in province["coasts"]) or "—")
    seas = body_rows(html, "seas-table", "data-sea")
    assert list(seas) == list(nostrum.SEA_IDS)
    pools = body_rows(html, "pools-table", "data-players")
    for players, pool in nostrum.POOLS_BY_PLAYERS.items():
        caravan, city, market, temple = (int(n) for n in pools[str(players)][1:])
        assert pool == {"caravan": caravan, "city": city, "market": market, "temple": temple}
    goods = {row["attrs"].get("data-kind") for row in table(html, "goods-table")}
    assert re.search(rf'id="coin-count">{nostrum.COINS}<', html)
    assert goods  # the goods table is there; its cells are checked below
    cells = re.findall(r'<td class="num" data-kind="(\w+)">(\d+)</td>', html)
    assert {kind: int(n) for kind, n in cells} == nostrum.GOODS


def test_mare_nostrum_set_ups_add_up_to_the_rulebook_points_from_the_costs(client):
    html = page(client, "mare_nostrum")
    setups = [t for t in tables_of(html) if "setup-points" in t["attrs"].get("class", "")]
    assert [t["attrs"]["data-civ"] for t in setups] == [civ["name"] for civ in nostrum.CIVS]
    for civ, shown in zip(nostrum.CIVS, setups, strict=True):
        rows = [row["cells"] for row in shown["rows"][1:]]
        expected = start_rows(NOSTRUM_VERSION, civ["id"])
        assert len(rows) == len(expected) + 1
        for cells, row in zip(rows, expected, strict=False):
            assert cells == [row["item"], str(row["count"]), str(row["each"]), str(row["points"])]
            assert int(cells[1]) * int(cells[2]) == int(cells[3])
        assert rows[-1][0] == "Total"
        assert int(rows[-1][-1]) == sum(int(cells[3]) for cells in rows[:-1]) == 36
    recommended = re.findall(r'<li data-players="(\d)">\d players: ([^<]+)</li>', html)
    assert {int(n): civs.split(", ") for n, civs in recommended} == {
        n: [nostrum.CIV[civ]["name"] for civ in civs]
        for n, civs in nostrum.RECOMMENDED_CIVS.items()
    }


@pytest.mark.parametrize("slug", GAMES)
def test_the_turn_and_spectator_pages_link_to_the_rules_reference(client, runtime, slug):
    engine = REGISTRY[slug]
    specs = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(engine.min_seats)]
    created = runtime.service.create_game(slug, specs, {})
    link = f'<a href="/rules/{slug}">Rules reference</a>'
    assert link in client.get(f"/games/{created.game_id}").text
    assert link in client.get(f"/play/{created.tokens[0]}").text


def test_a_game_without_a_reference_shows_no_link(client, runtime):
    created = pig_game(runtime)
    assert "Rules reference" not in client.get(f"/games/{created.game_id}").text
    assert "Rules reference" not in client.get(f"/play/{created.tokens[0]}").text


@pytest.fixture(scope="module")
def live_server(tmp_path_factory):
    """The app on a loopback port (SQLite), for the browser."""
    from werkzeug.serving import make_server

    from pbem.runtime import build_runtime
    from pbem.web import create_app
    from tests.databases import sqlite_engine
    from tests.web.conftest import free_port, overrides

    tmp = tmp_path_factory.mktemp("rules")
    db = sqlite_engine(tmp / "rules.sqlite3")
    port = free_port()
    runtime = build_runtime(overrides(tmp), db=db)
    httpd = make_server("127.0.0.1", port, create_app(runtime=runtime), threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{port}"
    httpd.shutdown()
    thread.join(timeout=10)
    db.dispose()


@pytest.mark.browser
@pytest.mark.parametrize("slug", GAMES)
def test_rules_pages_read_well_on_desktop_and_phone(live_server, slug):
    """Screenshots at 1280x900 and 390x844; on the phone only the tables' own regions
    scroll sideways, never the page."""
    from playwright.sync_api import sync_playwright

    from tests.web.conftest import CHROMIUM_ARGS, SCREENSHOTS

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
        )
        try:
            for size, (width, height) in {"desktop": (1280, 900), "phone": (390, 844)}.items():
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(f"{live_server}/rules/{slug}")
                assert page.locator("nav.toc a").count() >= 5
                overflow = page.evaluate(
                    "document.documentElement.scrollWidth - document.documentElement.clientWidth"
                )
                assert overflow <= 0, f"the {size} page scrolls sideways by {overflow}px"
                region = page.locator(".table-scroll").first
                region.focus()
                assert page.evaluate("document.activeElement.getAttribute('role')") == "region"
                page.evaluate("document.activeElement.blur()")
                shoot(page, path=str(SCREENSHOTS / f"rules-{slug}-{size}.png"), full_page=True)
                page.close()
        finally:
            browser.close()


def play_until(runtime, slug: str, options: dict, done, limit: int = 400):
    """A game of bots' choices made through the service until ``done(state)``."""
    import random as _random

    engine = REGISTRY[slug]
    specs = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(engine.min_seats)]
    created = runtime.service.create_game(slug, specs, options)
    rng = _random.Random(5)
    for _ in range(limit):
        head = runtime.service.head(created.game_id)
        if done(head.state) or not engine.to_move(head.state):
            break
        seat = min(engine.to_move(head.state))
        legal = engine.legal_moves(head.state, seat)
        move = engine.bot_move(engine.view(head.state, seat), legal, rng)
        runtime.service.submit_move(created.game_id, seat, move, head.seq)
    return created, runtime.service.head(created.game_id)


def place_groups(html: str) -> dict[str, tuple[str, str]]:
    """Each map place's accessible name and tooltip: {place: (aria-label, title)}."""
    found = re.findall(
        r'<g class="[a-z]+" data-place="(\w+)"(?: data-seats="[^"]*")? role="img" '
        r'aria-label="([^"]*)"><title>([^<]*)</title>',
        html,
    )
    return {place: (label, title) for place, label, title in found}


def test_mare_nostrum_map_names_every_place_with_its_owner_buildings_and_caravan_goods(
    client, runtime
):
    created, head = play_until(runtime, "mare_nostrum", {}, lambda state: state["turn"] >= 2)
    html = client.get(f"/games/{created.game_id}").text
    groups = place_groups(html)
    assert set(groups) == set(nostrum.PROVINCE_IDS) | set(nostrum.SEA_IDS)
    view = head.engine.view(head.state, None)
    names = {player["civ"]: player["name"] for player in view["players"]}
    for pid, shown in view["provinces"].items():
        label, title = groups[pid]
        assert label == title and label.startswith(nostrum.PROVINCE[pid]["name"] + ": ")
        if shown["marker"] in names:
            assert f": {names[shown['marker']]} (" in label and "'s control marker" in label
        for goods in shown["caravans"]:
            assert goods in label.split(" producing ")[1]
        for site in shown["cities"]:
            assert site in label
        if shown["fortress"]:
            assert "'s fortress" in label
    assert 'role="img" aria-label="The Mediterranean' not in html
    legend = html.split('aria-label="Map legend"')[1]
    assert "fortress" in legend and "city with a temple" in legend
    assert "caravan with a market" in legend
    for civ in view["neutrals"]:
        assert f"{civ.capitalize()} (neutral)" in legend


def test_mare_nostrum_shows_the_offers_on_the_table(client, runtime):
    created, head = play_until(
        runtime, "mare_nostrum", {}, lambda state: state["phase"] == "take", limit=200
    )
    view = head.engine.view(head.state, None)
    html = client.get(f"/games/{created.game_id}").text
    if not (view["trade"] and view["trade"]["n"] and "offers" in view["trade"]):
        pytest.skip("no trading was open at this point")
    section = html.split('id="offers-heading"')[1].split("</section>")[0]
    for player, offer in zip(view["players"], view["trade"]["offers"], strict=True):
        assert player["name"] in section
        for card, n in (offer or {}).items():
            if n:
                assert f"{n} {card}" in section


def test_mare_balticum_map_names_what_lies_in_every_area_and_port(client, runtime):
    created, head = play_until(
        runtime, "mare_balticum", {"demand_management": True}, lambda state: state.round >= 3
    )
    html = client.get(f"/games/{created.game_id}").text
    groups = place_groups(html)
    assert set(groups) == set(baltic.LOCATIONS)
    view = head.engine.view(head.state, None)
    for area in baltic.AREA_IDS:
        label, title = groups[area]
        assert label == title
        goods = ", ".join(view["goods"][area]) or "no goods"
        assert f"{baltic.NAMES[area].split(' (')[0]} (" in label and f"): {goods};" in label
    for port in baltic.PORT_IDS:
        label, _ = groups[port]
        for kind, circle in zip(view["demand"][port], view["circles"][port], strict=True):
            if kind:
                assert f"{kind} ({circle} circle)" in label
    legend = html.split('aria-label="Map legend"')[1]
    for kind in baltic.GOODS:
        assert kind in legend


def test_mercatores_cards_carry_tooltips_and_the_turn_page_previews_payouts(client, runtime):
    created, head = play_until(runtime, "mercatores", {}, lambda state: state.step == "load")
    seat = head.state.turn
    html = client.get(f"/play/{created.tokens[seat]}").text
    titles = re.findall(
        r'<g class="card" data-card="([\w-]+)" role="img" aria-label="([^"]*)"><title>', html
    )
    assert titles and all(merc.CARDS[card]["name"] in label for card, label in titles)
    assert "Legend" in html and "ship symbol" in html
    loads = re.findall(r"Load [^<]* now", html)
    assert len(loads) == len(head.engine.legal_moves(head.state, seat))


def test_mare_nostrum_names_the_set_ups_of_their_own_player_counts(client):
    html = page(client, "mare_nostrum")
    shown = re.findall(r'<p class="setup-by-players" data-civ="(\w+)" data-players="(\d)">', html)
    expected = [
        (nostrum.CIV[civ]["name"], str(players))
        for civ in nostrum.CIV_IDS
        for players, starts in sorted(nostrum.starts_by_players(NOSTRUM_VERSION).items())
        if civ in starts and NOSTRUM_VERSION >= 3
    ]
    assert shown == expected and expected
    assert "In 3-player games Babylon starts instead from" in html
    # Where the pieces stand, not only how many: Greece's 3-player set-up differs from
    # its usual one by where a fortress and a legion stand.
    assert (
        "In 3-player games Greece starts instead from: provinces Attica, Peloponnesus, "
        "Macedonia; cities Athenae, Corinthus; caravans oil (Attica), fruit (Peloponnesus), "
        "gold (Macedonia); fortresses Attica, Peloponnesus; legions none; triremes none."
    ) in html
    assert "Fortresses: Attica. Legions: Attica. Triremes: none." in html  # Greece usually
    assert "Legions: Babylonia (2)." in html
