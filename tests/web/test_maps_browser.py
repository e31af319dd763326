"""The map boards in a real browser, at 1280x900 and 390x844, for each title at the start,
in the middle and at the end of a game: no two names overlap, none is cut by the map's
edge, every text on a map is at least 12 CSS px on a desk, where the whole map lies in
its column beside the move panel, and the whole map fits a phone's width; no page
scrolls sideways. Mercatores has no map: its card board's text sizes on a phone are
measured and kept readable. Screenshots of each case go to
``test-artifacts/screenshots/maps/`` with an ``index.html`` gallery (``make screenshots``).
"""

from __future__ import annotations

import html
import random

import pytest

from pbem.games.service import SeatSpec
from tests.web.conftest import SCREENSHOTS, file_runtime, serving

pytestmark = pytest.mark.browser

GALLERY = SCREENSHOTS / "maps"
TITLES = {
    "mare_balticum": (4, {}, 120),
    "mare_nostrum": (5, {"turn_limit": 3}, 60),
    "mercatores": (3, {}, 40),
}
STAGES = ("start", "mid", "end")
VIEWPORTS = {"desktop": (1280, 900), "phone": (390, 844)}


def advance(runtime, game_id: str, moves: int, rng: random.Random) -> None:
    """Every seat plays its bot's choice, ``moves`` moves (or to the end)."""
    for _ in range(moves):
        head = runtime.service.head(game_id)
        due = sorted(head.engine.to_move(head.state))
        if head.game.status != "active" or not due:
            return
        seat = due[0]
        view = head.engine.view(head.state, seat)
        move = head.engine.bot_move(view, head.engine.legal_moves(head.state, seat), rng)
        runtime.service.submit_move(game_id, seat, move, head.game.head_seq, actor="web")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A game of each title at each stage, and the link of the seat whose page is shown
    (a seat that is due, so that the map's places are links to its moves). The game ids
    are fixed, since the draws derive from them: each game is the same on every run."""
    with file_runtime(tmp_path_factory, "maps") as runtime:
        links = {}
        for slug, (seats, options, middle) in TITLES.items():
            for stage in STAGES:
                specs = [SeatSpec(f"Player {i + 1}", f"p{i}@example.org") for i in range(seats)]
                created = runtime.service.create_game(
                    slug,
                    specs,
                    options,
                    seed=bytes([seats]) * 32,
                    game_id=f"maps-{slug.replace('_', '-')}-{stage}",
                )
                moves = {"start": 0, "mid": middle, "end": 100_000}[stage]
                advance(runtime, created.game_id, moves, random.Random(seats))
                head = runtime.service.head(created.game_id)
                assert (head.game.status == "finished") == (stage == "end")
                due = sorted(head.engine.to_move(head.state)) or [0]
                links[slug, stage] = f"/play/{created.tokens[due[0]]}"
        with serving(runtime) as base:
            yield base, links


@pytest.fixture(scope="module")
def browser(browser):
    """The shared chromium; the gallery is written once the module's screenshots are taken."""
    yield browser
    write_gallery()


MEASURE = """(svg) => {
  const box = (r) => ({x0: r.left, y0: r.top, x1: r.right, y1: r.bottom});
  const px = (t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
  const frame = svg.closest('.map-frame') || svg.parentElement;
  const wrap = svg.closest('.board-wrap');
  return {
    svg: box(svg.getBoundingClientRect()),
    column: box(svg.closest('.map-column').getBoundingClientRect()),
    labels: [...svg.querySelectorAll('text.label')].map(
      (t) => ({text: t.textContent, size: px(t), ...box(t.getBoundingClientRect())})),
    texts: [...svg.querySelectorAll('text')].map((t) => ({text: t.textContent, size: px(t)})),
    frame: {client: frame.clientWidth, scroll: frame.scrollWidth},
    wrap: {client: wrap.clientWidth, scroll: wrap.scrollWidth},
    viewport: window.innerWidth,
  };
}"""


def scrolls_sideways(page) -> int:
    """How far the page reaches beyond the window's width (0: no sideways scroll)."""
    return page.evaluate("Math.max(0, document.documentElement.scrollWidth - window.innerWidth)")


def beside_the_panel_in_full(page, facts: dict, height: int) -> None:
    """On a desk: the whole board lies in its column, nothing of it hidden in a scroll
    box, and the move panel beside it has its heading on the first screen."""
    board, column = facts["svg"], facts["column"]
    assert column["x0"] - 0.5 <= board["x0"] and board["x1"] <= column["x1"] + 0.5, facts
    assert facts["frame"]["scroll"] <= facts["frame"]["client"] + 1, facts["frame"]
    assert facts["wrap"]["scroll"] <= facts["wrap"]["client"] + 1, facts["wrap"]
    panel = page.locator("#moves").bounding_box()
    assert panel["x"] >= board["x1"], (panel, board)
    heading = page.locator("#turn-heading").bounding_box()
    assert heading["y"] + heading["height"] <= height, heading


def crossing(a: dict, b: dict, slack: float = 0.5) -> bool:
    return (
        min(a["x1"], b["x1"]) - max(a["x0"], b["x0"]) > slack
        and min(a["y1"], b["y1"]) - max(a["y0"], b["y0"]) > slack
    )


def clipped(label: dict, svg: dict, slack: float = 0.5) -> bool:
    return (
        label["x0"] < svg["x0"] - slack
        or label["y0"] < svg["y0"] - slack
        or label["x1"] > svg["x1"] + slack
        or label["y1"] > svg["y1"] + slack
    )


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("slug", ["mare_balticum", "mare_nostrum"])
@pytest.mark.parametrize("device", list(VIEWPORTS))
def test_map_names_never_overlap_or_leave_the_map_and_read_at_12_px(
    browser, served, slug, stage, device
):
    base, links = served
    width, height = VIEWPORTS[device]
    page = browser.new_page(
        viewport={"width": width, "height": height}, is_mobile=device == "phone"
    )
    page.goto(base + links[slug, stage])
    svg = page.locator("svg.map")
    facts = svg.evaluate(MEASURE)
    GALLERY.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(GALLERY / f"{slug}-{stage}-{device}.png"), full_page=True)
    assert scrolls_sideways(page) == 0
    labels = facts["labels"]
    assert len(labels) >= 28
    overlaps = [
        (a["text"], b["text"])
        for i, a in enumerate(labels)
        for b in labels[i + 1 :]
        if crossing(a, b)
    ]
    assert not overlaps
    assert not [label["text"] for label in labels if clipped(label, facts["svg"])]
    if device == "desktop":
        smallest = min(text["size"] for text in facts["texts"])
        assert smallest >= 12, min(facts["texts"], key=lambda text: text["size"])
        beside_the_panel_in_full(page, facts, height)
    else:
        # The whole map fits the phone's width: nothing of it hides in a scroll box.
        assert facts["svg"]["x1"] - facts["svg"]["x0"] <= facts["viewport"]
        assert facts["frame"]["scroll"] <= facts["frame"]["client"] + 1
        # Zoomed in (a link, no JavaScript needed), its names are at least 12 px again.
        page.click("a[aria-label='Zoom in']")
        page.wait_for_url("**zoom=2**")
        zoomed = page.locator("svg.map").evaluate(MEASURE)
        page.screenshot(path=str(GALLERY / f"{slug}-{stage}-phone-zoomed.png"))
        assert min(label["size"] for label in zoomed["labels"]) >= 12
        assert zoomed["frame"]["scroll"] > zoomed["frame"]["client"]  # it pans
        assert scrolls_sideways(page) == 0  # the map's frame pans, not the page
    page.close()


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("device", list(VIEWPORTS))
def test_the_mercatores_table_reads_at_12_px_on_a_desk_and_zoomed_on_a_phone(
    browser, served, stage, device
):
    base, links = served
    width, height = VIEWPORTS[device]
    page = browser.new_page(
        viewport={"width": width, "height": height}, is_mobile=device == "phone"
    )
    page.goto(base + links["mercatores", stage])
    facts = page.locator("svg.board").evaluate(MEASURE)
    GALLERY.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(GALLERY / f"mercatores-{stage}-{device}.png"), full_page=True)
    assert scrolls_sideways(page) == 0
    assert facts["svg"]["x1"] - facts["svg"]["x0"] <= facts["viewport"]
    if device == "desktop":
        beside_the_panel_in_full(page, facts, height)
    else:
        page.click("a[aria-label='Zoom in']")
        page.wait_for_url("**zoom=2**")
        facts = page.locator("svg.board").evaluate(MEASURE)
        assert scrolls_sideways(page) == 0
    smallest = min(facts["texts"], key=lambda text: text["size"])
    assert smallest["size"] >= 12, smallest
    page.close()


def write_gallery() -> None:
    """``index.html`` beside the screenshots: every title, stage and device on one page."""
    if not GALLERY.exists():
        return
    shots = sorted(path.name for path in GALLERY.glob("*.png"))
    items = "\n".join(
        f'<figure><a href="{html.escape(name)}"><img src="{html.escape(name)}" '
        f'alt="{html.escape(name[:-4])}" loading="lazy"></a>'
        f"<figcaption>{html.escape(name[:-4])}</figcaption></figure>"
        for name in shots
    )
    (GALLERY / "index.html").write_text(
        "<!doctype html><meta charset=utf-8><title>pbem boards</title>"
        "<style>body{font-family:sans-serif;display:flex;flex-wrap:wrap;gap:1rem}"
        "figure{margin:0;width:320px}img{width:100%;border:1px solid #ccc}</style>\n" + items + "\n"
    )
