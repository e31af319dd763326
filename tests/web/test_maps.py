"""The map boards without a browser: the layout over bot games (names never overlap each
other or a chip, and stay inside the map; the same view gives the same map), the
coastline assets share the places' projection, and the turn page's map is a group of
named links, zooms without JavaScript, highlights what changed since the viewer's last
move and says so when a chosen place names no move."""

from __future__ import annotations

import html as html_module
import importlib
import math
import random
import re
from pathlib import Path

import pytest

from engines import REGISTRY
from pbem.games.service import SeatSpec
from pbem.web import boards, create_app, play
from pbem.web.present import players as shown_players
from pbem.web.titles import layout
from tests.engine_harness import soak_count

MAX_STATES = 150  # a view every 40 moves: bot games end well within 6,000 moves
# The titles drawn as maps (a board module with a FRAME), by slug.
MAP_BOARDS = {
    slug: importlib.import_module(f"engines.{slug}.board")
    for slug, engine in sorted(REGISTRY.items())
    if hasattr(engine, "board_layout")
}

MAPS = [("mare_balticum", 4, {}), ("mare_nostrum", 5, {"turn_limit": 3})]


def advance(runtime, game_id: str, moves: int, rng: random.Random, stop=None) -> None:
    for _ in range(moves):
        head = runtime.service.head(game_id)
        due = sorted(head.engine.to_move(head.state))
        if head.game.status != "active" or not due or (stop and stop(due)):
            return
        view = head.engine.view(head.state, due[0])
        move = head.engine.bot_move(view, head.engine.legal_moves(head.state, due[0]), rng)
        runtime.service.submit_move(game_id, due[0], move, head.game.head_seq, actor="web")


def check_layout(drawn: dict) -> None:
    nodes = drawn["nodes"]
    labels = [node["label"]["box"] for node in nodes]
    chips = [boards.chip_box(node) for node in nodes]
    for i, label in enumerate(labels):
        assert boards.outside(label, drawn["width"], drawn["height"], 0) == 0, nodes[i]["id"]
        for j, other in enumerate(labels[i + 1 :], start=i + 1):
            assert boards.overlap(label, other) == 0, (nodes[i]["id"], nodes[j]["id"])
        for j, chip in enumerate(chips):
            if j != i:
                assert boards.overlap(label, chip) == 0, (nodes[i]["id"], nodes[j]["id"])
    for i, chip in enumerate(chips):
        assert boards.outside(chip, drawn["width"], drawn["height"], 0) == 0
        for other in chips[i + 1 :]:
            assert boards.overlap(chip, other) == 0


@pytest.mark.parametrize(("slug", "seats", "options"), MAPS)
def test_names_never_overlap_along_a_bot_game_and_the_same_view_draws_the_same_map(
    sqlite_runtime, slug, seats, options
):
    runtime = sqlite_runtime
    specs = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(seats)]
    # A fixed game id: the draws depend on it, so every run plays the same game.
    game_id = runtime.service.create_game(
        slug, specs, options, seed=b"m" * 32, game_id=f"maps-{slug.replace('_', '-')}"
    ).game_id
    rng = random.Random(7)
    drawn_states = 0
    for _ in range(MAX_STATES):
        head = runtime.service.head(game_id)
        view = head.engine.view(head.state, 0)
        shown = shown_players(view, runtime.service.seats(game_id))
        drawn = layout(slug, view, shown)
        check_layout(drawn)
        assert layout(slug, view, shown) == drawn
        assert all(node["label"]["size"] >= 12 for node in drawn["nodes"])
        drawn_states += 1
        if head.game.status != "active":
            break
        advance(runtime, game_id, 40, rng)
    else:
        raise AssertionError(f"the bot game did not end within {MAX_STATES * 40} moves")
    assert drawn_states >= 4


def quadratic_labels(nodes: list[dict], width: float, height: float) -> list[tuple]:
    """The names' boxes as :func:`boards.place_labels` chose them before its grid: every
    candidate checked against every name placed and every chip."""
    chips = [boards.chip_box(node, 1) for node in nodes]

    def crowd(node: dict) -> tuple:
        near = sum(
            1
            for other in nodes
            if other is not node and abs(other["x"] - node["x"]) + abs(other["y"] - node["y"]) < 120
        )
        return (-near, node["id"])

    placed, boxes = [], {}
    for node in sorted(nodes, key=crowd):
        size = node.get("label_size", boards.LABEL_SIZE)
        w = boards.text_width(node["label_text"], size, bold=node.get("bold", False))
        h = size * 1.3
        own = boards.chip_box(node, 1)
        best, best_cost = None, math.inf
        corners = list(boards.candidates(own, w, h)) + list(boards.farther(own, w, h))
        for x, y in corners:
            box = (x, y, x + w, y + h)
            cost = boards.outside(box, width, height) * 1000
            cost += sum(boards.overlap(box, other) for other in placed) * 10
            cost += sum(boards.overlap(box, chip) for chip in chips if chip != own)
            if cost < best_cost:
                best, best_cost = box, cost
            if cost == 0:
                break
        placed.append(best)
        boxes[node["id"]] = best
    return [boxes[node["id"]] for node in nodes]


def crowded_nodes(rng: random.Random, count: int, width: int, height: int) -> list[dict]:
    return [
        {
            "id": f"n{index:03d}",
            "x": rng.uniform(0, width),
            "y": rng.uniform(0, height),
            "w": rng.choice([12, 30, 54, 80]),
            "h": rng.choice([12, 25, 47]),
            "label_text": "".join(rng.choice("abcdefgh mMiW") for _ in range(rng.randint(3, 22))),
            "label_size": rng.choice([13, 14]),
            "bold": rng.random() < 0.5,
        }
        for index in range(count)
    ]


# The quadratic reference is slow on the crowded boards: the two most crowded run in
# ``make soak``.
@pytest.mark.soak
@pytest.mark.parametrize("seed", range(soak_count(4, 6)))
def test_the_names_grid_places_every_name_where_checking_every_pair_would(seed):
    rng = random.Random(seed)
    width, height = 1000, 600
    nodes = crowded_nodes(rng, 40 + 20 * seed, width, height)
    boards.spread(nodes, width, height)
    expected = quadratic_labels(nodes, width, height)
    boards.place_labels(nodes, width, height)
    assert [node["label"]["box"] for node in nodes] == [
        tuple(round(v, 1) for v in box) for box in expected
    ]


def test_a_box_grid_finds_every_box_that_overlaps():
    rng = random.Random(11)
    boxes = []
    for _ in range(300):
        x, y = rng.uniform(-50, 900), rng.uniform(-50, 900)
        boxes.append((x, y, x + rng.uniform(0.5, 200), y + rng.uniform(0.5, 60)))
    grid = boards.BoxGrid(boxes[:150])
    for box in boxes[150:]:
        near = grid.near(box)
        overlapping = [other for other in boxes[:150] if boards.overlap(box, other) > 0]
        assert all(other in near for other in overlapping)
        assert near == sorted(near, key=boxes.index) and len(near) < 150


def test_a_board_is_arranged_once_and_every_drawing_gets_its_own_copy(sqlite_runtime):
    runtime = sqlite_runtime
    specs = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(5)]
    game_id = runtime.service.create_game("mare_nostrum", specs, {"turn_limit": 3}).game_id
    head = runtime.service.head(game_id)
    boards.clear_arrangements()
    drawn = []
    for seat in range(5):
        view = head.engine.view(head.state, seat)
        drawn.append(
            layout("mare_nostrum", view, shown_players(view, runtime.service.seats(game_id)))
        )
    info = boards.arrangement.cache_info()
    assert (info.misses, info.hits) == (1, 4)
    first, second = drawn[0]["nodes"][0], drawn[1]["nodes"][0]
    assert first["label"] == second["label"] and first["label"] is not second["label"]
    first["label"]["x"] = -1
    again = layout("mare_nostrum", view, shown_players(view, runtime.service.seats(game_id)))
    assert again["nodes"][0]["label"] == second["label"] != first["label"]
    nodes = [dict(node) for node in again["nodes"]]
    nodes[0]["w"] += 30  # another piece on a chip: another arrangement
    boards.finish(nodes, MAP_BOARDS["mare_nostrum"].FRAME)
    assert boards.arrangement.cache_info().misses == 2
    check_layout({"nodes": nodes, "width": again["width"], "height": again["height"]})


@pytest.mark.parametrize("slug", list(MAP_BOARDS))
def test_every_place_lies_inside_its_map_and_the_coastlines_share_the_projection(slug):
    frame = MAP_BOARDS[slug].FRAME
    data = boards.game_data(slug)
    places = (
        [*data.PORTS, *data.AREAS] if slug == "mare_balticum" else [*data.PROVINCES, *data.SEAS]
    )
    assert {place["id"] for place in places} == set(data.GEO)
    for lat, lon in data.GEO.values():
        x, y = frame.project(lat, lon)
        assert 0 < x < frame.width and 0 < y < frame.height
    asset = Path(REGISTRY[slug].static_folder) / "map.svg"
    with open(asset, encoding="utf-8") as svg:
        head = svg.read(300)
    assert f'viewBox="0 0 {frame.width} {frame.height}"' in head


@pytest.mark.parametrize("slug", list(MAP_BOARDS))
def test_on_a_desk_a_map_is_never_drawn_narrower_than_its_texts_read_at_12_px(slug):
    board = MAP_BOARDS[slug]
    css = (Path(REGISTRY[slug].static_folder) / "board.css").read_text(encoding="utf-8")
    found = re.search(rf"svg\.map-{slug}\{{min-width:(\d+)px\}}", css)
    assert found, f"board.css gives the {slug} map no minimum width"
    assert int(found.group(1)) == math.ceil(boards.readable_width(board.FRAME, board.TEXT_SIZES))
    drawn = int(found.group(1)) / board.FRAME.width
    assert min(board.TEXT_SIZES) * drawn >= boards.SMALLEST_READABLE == 12


def test_text_estimates_never_fall_short_of_a_wide_face():
    # Chromium draws these 13 px names in DejaVu Sans this wide (measured with getBBox).
    assert boards.text_width("Mare Hadriaticum", 13, bold=True) >= 131.3
    assert boards.text_width("Northern Baltic Proper", 13, bold=True) >= 167.4
    assert boards.text_width("Mare Hadriaticum", 13) >= 116.4
    assert boards.text_width("Øresund", 13) >= 56.8
    assert boards.text_width("", 13) > 0


@pytest.fixture
def nostrum(sqlite_runtime):
    app = create_app(runtime=sqlite_runtime)
    app.config["TESTING"] = True
    specs = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(3)]
    created = sqlite_runtime.service.create_game("mare_nostrum", specs, {}, seed=b"n" * 32)
    return app.test_client(), sqlite_runtime, created


def due_token(runtime, created) -> str:
    head = runtime.service.head(created.game_id)
    return created.tokens[min(head.engine.to_move(head.state))]


def test_the_map_is_a_group_of_named_links_not_links_inside_an_image(nostrum):
    client, runtime, created = nostrum
    html = client.get(f"/play/{due_token(runtime, created)}").text
    svg = html.split('<svg class="board map')[1].split("</svg>")[0]
    assert 'role="group" aria-label="The Mediterranean: 33 provinces and 10 seas' in svg
    links = re.findall(
        r'<a class="place[^"]*" href="\?pick=(\w+)#moves" data-place="\1"(?: data-seats="[\d ]+")?'
        r' aria-label="([^"]+)"><title>\2</title>',
        svg,
    )
    assert len(links) == 43
    assert 'role="img"' not in svg
    names = dict(links)
    assert re.match(r"Latium: Rome \([^)]+\)'s control marker, .*legion", names["latium"])
    assert names["s2"].startswith("Mare Tyrrhenum (sea): ")
    # A link's only text is the place's name, which its own name begins with (axe-core's
    # label-content-name-mismatch): the pieces' letters follow it, hidden from readers.
    for link in re.findall(r"<a class=\"place.*?</a>", svg, re.S):
        texts = re.findall(r"<text[^>]*>([^<]*)</text>", link)
        name = re.search(r'aria-label="([^"]+)"', link).group(1)
        assert len(texts) == 1 and name.startswith(html_module.unescape(texts[0])), link
    assert svg.count('<g class="marks" aria-hidden="true">') > 0
    # The places of the viewer's civilisation are marked as theirs (the first view is
    # centred on them), and the list under the map says what every link says.
    head = runtime.service.head(created.game_id)
    seat = min(head.engine.to_move(head.state))
    assert f'data-viewer="{seat}"' in html and f'data-seats="{seat}"' in svg
    places = html.split('<details class="map-places">')[1].split("</details>")[0]
    assert "Every province and sea as text (43)" in places
    listed = [
        html_module.unescape(re.sub(r"</?strong>", "", item))
        for item in re.findall(r"<li>(.*?)</li>", places)
    ]
    assert sorted(listed) == sorted(html_module.unescape(name) for name in names.values())
    # The spectator's map has no moves: its places are named images, with no links.
    spectator = client.get(f"/games/{created.game_id}").text
    svg = spectator.split('<svg class="board map')[1].split("</svg>")[0]
    assert "<a " not in svg and svg.count('role="img"') == 43


def test_zoom_links_work_without_javascript_and_bad_levels_fall_back(nostrum):
    client, runtime, created = nostrum
    token = due_token(runtime, created)
    html = client.get(f"/play/{token}").text
    assert 'class="map-frame zoom-1"' in html and 'width="1000" height="' in html
    assert 'href="?zoom=2#map" aria-label="Zoom in"' in html
    zoomed = client.get(f"/play/{token}?zoom=3").text
    assert 'class="map-frame zoom-3"' in zoomed and 'width="1500"' in zoomed
    assert 'href="?zoom=2#map" aria-label="Zoom out"' in zoomed
    for bad in ("9", "x", "-1", "1e9"):
        page = client.get(f"/play/{token}?zoom={bad}")
        assert page.status_code == 200 and 'class="map-frame zoom-1"' in page.text


def counted_renders(monkeypatch) -> list:
    """The turn-page renders from here on (each call's arguments), with an empty cache."""
    renders = []
    render_page = play.render_page

    def counted(*given, **named):
        renders.append(given)
        return render_page(*given, **named)

    monkeypatch.setattr(play, "render_page", counted)
    play.PAGES.clear()
    return renders


def test_made_up_zoom_values_share_the_default_page_and_never_reach_the_cache(nostrum, monkeypatch):
    client, runtime, created = nostrum
    token = due_token(runtime, created)
    renders = counted_renders(monkeypatch)
    plain = client.get(f"/play/{token}").text
    assert len(renders) == 1 and len(play.PAGES) == 1
    for bad in ("9", "x", "-1", "1e9", "01", " 2", "2.0", "3x", *map(str, range(4, 64))):
        page = client.get(f"/play/{token}", query_string={"zoom": bad})
        assert page.status_code == 200 and page.text == plain, bad
    assert client.get(f"/play/{token}?zoom=1").text == plain
    assert len(renders) == 1 and len(play.PAGES) == 1
    assert {key[5] for key in play.PAGES} == {1}
    client.get(f"/play/{token}?zoom=2")
    client.get(f"/play/{token}?zoom=3")
    assert len(renders) == 3 and {key[5] for key in play.PAGES} == {1, 2, 3}
    assert boards.zoom_level(None) == 1 and boards.zoom_level("3") == 3


def test_made_up_pick_values_share_one_page_and_never_grow_the_cache(nostrum, monkeypatch):
    client, runtime, created = nostrum
    token = due_token(runtime, created)
    renders = counted_renders(monkeypatch)
    client.get(f"/play/{token}")
    missed = client.get(f"/play/{token}?pick=nowhere").text
    assert "No move names that place now; here is every move." in missed
    assert len(renders) == 2 and len(play.PAGES) == 2
    made_up = ["x", "?", "LATIUM", "latium ", "<b>", "coin", "rome", *map(str, range(60))]
    for value in made_up:
        page = client.get(f"/play/{token}", query_string={"pick": value})
        assert page.status_code == 200 and page.text == missed, value
    assert len(renders) == 2 and len(play.PAGES) == 2
    client.get(f"/play/{token}?pick=latium")
    client.get(f"/play/{token}?pick=latium")
    assert len(renders) == 3 and {key[2] for key in play.PAGES} == {
        "",
        boards.UNKNOWN_PICK,
        "latium",
    }


@pytest.mark.parametrize("slug", ["mare_balticum", "mare_nostrum", "mercatores"])
def test_every_place_and_card_a_board_links_is_a_pick_it_knows(slug):
    data = boards.game_data(slug)
    linked = set(getattr(data, "GEO", {})) | set(getattr(data, "CARDS", {}))
    assert linked, slug
    assert all(boards.pick_choice(slug, ident) == ident for ident in linked)
    assert boards.pick_choice(slug, "") == "" and boards.pick_choice(slug, None) == ""
    assert boards.pick_choice(slug, "no-such-place") == boards.UNKNOWN_PICK


def test_a_place_no_move_names_says_so_and_shows_every_move(nostrum):
    client, runtime, created = nostrum
    token = due_token(runtime, created)
    every = client.get(f"/play/{token}").text
    html = client.get(f"/play/{token}?pick=latium").text
    assert "No move names Latium now; here is every move." in html
    assert html.count('name="move"') == every.count('name="move"') > 0
    odd = client.get(f"/play/{token}?pick=%3Cscript%3E").text
    assert "No move names that place now" in odd and "<script>" not in odd.split("<main")[1]


def test_what_changed_since_the_viewers_last_move_is_highlighted(sqlite_runtime):
    runtime = sqlite_runtime
    app = create_app(runtime=runtime)
    app.config["TESTING"] = True
    client = app.test_client()
    specs = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(3)]
    created = runtime.service.create_game("mare_balticum", specs, {}, seed=b"b" * 32)
    rng = random.Random(3)
    first = client.get(f"/play/{created.tokens[0]}").text
    assert "place changed" not in first  # nothing before a first move
    advance(runtime, created.game_id, 1, rng)  # seat 0's move ...
    advance(runtime, created.game_id, 200, rng, stop=lambda due: 0 in due)  # ... the others'
    head = runtime.service.head(created.game_id)
    assert 0 in head.engine.to_move(head.state)
    html = client.get(f"/play/{created.tokens[0]}").text
    changed = re.findall(r'<a class="place changed" href="\?pick=(\w+)#moves"', html)
    assert changed
    for place in changed:
        label = re.search(rf'data-place="{place}"[^>]* aria-label="([^"]+)"', html).group(1)
        assert label.endswith("changed since your last move")
    assert html.count('class="changed-ring"') == len(changed)


def test_changed_places_compares_each_place_and_fleet():
    old = {"goods": {"a": ["cod"], "b": []}, "players": [{"fleet": ["a", "c"]}]}
    new = {"goods": {"a": ["cod"], "b": ["herring"]}, "players": [{"fleet": ["c", "c"]}]}
    changed_places = MAP_BOARDS["mare_balticum"].changed_places
    assert changed_places(old, new) == {"a", "b", "c"}
    assert changed_places(None, new) == set()
