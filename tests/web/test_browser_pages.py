"""The page around the map in Debian's chromium, on a desk (1280x900) and a phone
(390x844): the move panel beside the map and within the first screen, the skip link,
the confirmation dialog, the waiting page that polls and announces, and axe-core
(``axe-playwright-python``) finding no serious or critical violation on any page kind
or mail. Screenshots go to ``test-artifacts/screenshots/turn-<title>-<kind>-<size>.png``.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from pbem.games.service import SeatSpec
from tests.web.conftest import SCREENSHOTS, file_runtime, serving, shoot
from tests.web.test_edges import settings_path

pytestmark = pytest.mark.browser

GOLDEN = Path(__file__).resolve().parents[1] / "mail" / "golden"
TITLES = {
    "mercatores": ["Ann", "Ben"],
    "mare_balticum": ["Ann", "Ben", "Cleo"],
    "mare_nostrum": ["Ann", "Ben", "Cleo"],
}
SIZES = {"desktop": (1280, 900), "phone": (390, 844)}
# Rules inside the boards' SVG (drawn by templates/_board_*.html) that this file does not
# own; none is excluded while the boards pass.
MAP_EXCLUDED: list[str] = []


def play_until_due(service, game_id: str, human: set[int], rng: random.Random, moves: int):
    """Random legal moves for the human seats (bots answer) for about ``moves`` moves,
    then on until a human seat is due alone."""
    for count in range(moves + 200):
        service.play_bots(game_id)
        head = service.head(game_id)
        due = head.engine.to_move(head.state)
        if not due:
            return
        if count >= moves and len(due) == 1 and due <= human:
            return
        seat = sorted(due)[0]
        move = rng.choice(head.engine.legal_moves(head.state, seat))
        service.submit_move(game_id, seat, move, head.seq)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A game of each title at its start and in its middle (two human seats, the rest
    bots), served on a loopback port. The ids are fixed, so the draws are the same on
    every run."""
    with file_runtime(tmp_path_factory, "pages") as runtime:
        games = {}
        rng = random.Random(5)
        for slug, names in TITLES.items():
            for stage, moves in (("start", 0), ("mid", 30)):
                specs = [
                    SeatSpec(names[0], "ann@example.org"),
                    SeatSpec(names[1], "ben@example.org"),
                ]
                specs += [SeatSpec(name, is_bot=True) for name in names[2:]]
                created = runtime.service.create_game(
                    slug,
                    specs,
                    {},
                    seed=bytes([len(slug)]) * 32,
                    game_id=f"pages-{slug.replace('_', '-')}-{stage}",
                )
                play_until_due(runtime.service, created.game_id, {0, 1}, rng, moves)
                due = runtime.service.game(created.game_id).to_move[0]
                games[slug, stage] = {
                    "id": created.game_id,
                    "due": created.tokens[due],
                    "waiting": created.tokens[1 - due],
                    "waiting_seat": 1 - due,
                }
        with serving(runtime) as base:
            yield runtime, base, games


def serious(page) -> list[str]:
    """axe-core's serious and critical violations on the page, one line each."""
    from axe_playwright_python.sync_playwright import Axe

    context = {"exclude": [[selector] for selector in MAP_EXCLUDED]} if MAP_EXCLUDED else None
    found = Axe().run(page, context=context).response["violations"]
    return [
        f"{rule['id']} ({rule['impact']}): {[node['target'] for node in rule['nodes'][:3]]}"
        for rule in found
        if rule["impact"] in ("serious", "critical")
    ]


def one_h1_and_landmarks(page) -> None:
    assert page.locator("h1").count() == 1
    assert page.locator("main").count() == 1 and page.locator("header").count() >= 1


@pytest.mark.parametrize("slug", list(TITLES))
def test_turn_pages_on_a_desk_and_a_phone(site, browser, slug):
    _, base, games = site
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    problems = []
    for stage in ("start", "mid"):
        game = games[slug, stage]
        for size, (width, height) in SIZES.items():
            page = browser.new_page(viewport={"width": width, "height": height})
            for kind in ("due", "waiting"):
                page.goto(f"{base}/play/{game[kind]}")
                one_h1_and_landmarks(page)
                assert page.locator("meta[http-equiv=refresh]").count() == 0
                overflow = page.evaluate(
                    "document.documentElement.scrollWidth - document.documentElement.clientWidth"
                )
                assert overflow <= 0, f"{kind} {size} scrolls sideways by {overflow}px"
                shoot(page, path=str(SCREENSHOTS / f"turn-{slug}-{stage}-{kind}-{size}.png"))
                heading = page.locator("#turn-heading")
                box = heading.bounding_box()
                if kind == "due":
                    assert heading.inner_text().startswith("It is your turn.")
                    first = page.locator(
                        ".move-panel :is(.card-pick, .moves button, .moves summary):visible"
                    ).first
                    if size == "desktop":
                        # The move panel, its heading and first move, on the first screen.
                        assert box["y"] + box["height"] <= height
                        move_box = first.bounding_box()
                        assert move_box["y"] + move_box["height"] <= height, move_box
                        # Down to the end of the turn's layout (the footer below it
                        # takes the panel along, as it should): the panel stays in view.
                        layout_end = page.evaluate(
                            "document.querySelector('.turn-layout').getBoundingClientRect()"
                            ".bottom - window.innerHeight"
                        )
                        page.mouse.wheel(0, min(2000, layout_end))
                        page.wait_for_timeout(100)
                        assert heading.bounding_box()["y"] >= 0  # sticky: still in view
                        page.evaluate("window.scrollTo(0, 0)")
                    else:
                        # The board's own box fits the width (the board pans inside it).
                        board = page.locator(".board-wrap .map-frame").first
                        assert board.bounding_box()["width"] <= width
                        assert page.locator(".jump-moves a").is_visible()
                else:
                    assert heading.inner_text().startswith("Waiting for")
                    assert page.get_by_role("link", name="Refresh").is_visible()
                # Tab once: the skip link; Enter: the move panel has the focus.
                page.keyboard.press("Tab")
                assert page.evaluate("document.activeElement.className") == "skip-link"
                page.keyboard.press("Enter")
                assert page.evaluate("document.activeElement.id") == "moves"
                if size == "desktop":  # the phone's: test_browser_every_page (light)
                    problems += [f"{stage} {kind} {size}: {line}" for line in serious(page)]
            page.close()
    assert not problems, "\n".join(problems)


def test_the_dialog_asks_before_a_move_that_cannot_be_taken_back(site, browser):
    runtime, base, games = site
    game = games["mare_balticum", "start"]
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{base}/play/{game['due']}")
    before = runtime.service.head(game["id"]).seq
    button = page.locator(".moves form[data-confirm] button").first
    label = button.inner_text()
    for summary in page.locator(".moves details:not([open]) summary").all():
        summary.click()
    button.click()
    dialog = page.locator("dialog.confirm[open]")
    assert dialog.locator("h2").inner_text() == f"Confirm: {label}"
    assert "cannot be taken back" in dialog.inner_text()
    assert not serious(page)
    shoot(page, path=str(SCREENSHOTS / "confirm-dialog-desktop.png"))
    dialog.get_by_role("button", name="Cancel").click()
    assert page.locator("dialog.confirm[open]").count() == 0
    assert runtime.service.head(game["id"]).seq == before
    button.click()
    # The dialog closes at once and the form is posted after it: wait for that page.
    with page.expect_navigation():
        page.locator("dialog.confirm[open]").get_by_role("button", name="Confirm").click()
    page.wait_for_load_state()
    page.wait_for_function("!document.querySelector('dialog.confirm[open]')")
    assert runtime.service.head(game["id"]).seq > before
    page.close()


def announced_after_a_move(page, runtime, game_id: str, prefer=lambda moves: []):
    """Lets the page poll with nothing new (its live region stays silent), makes the due
    seat's move (the first of ``prefer(moves)``, else the first legal), polls again and
    returns the live region once it offers to show the change."""
    live = page.locator(".live[aria-live=polite]")
    page.clock.run_for(20_000)
    assert live.inner_text() == ""
    head = runtime.service.head(game_id)
    due = sorted(head.engine.to_move(head.state))[0]
    moves = head.engine.legal_moves(head.state, due)
    runtime.service.submit_move(game_id, due, (prefer(moves) or moves)[0], head.seq)
    page.clock.run_for(40_000)
    live.get_by_role("button").wait_for()
    return live


def test_the_waiting_page_polls_and_announces_the_change(site, browser):
    runtime, base, games = site
    game = games["mercatores", "start"]
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.clock.install()
    page.goto(f"{base}/play/{game['waiting']}")
    live = announced_after_a_move(
        page, runtime, game["id"], lambda moves: [m for m in moves if m["type"] in ("load", "cash")]
    )
    assert "moved on" in live.inner_text() or "your turn" in live.inner_text()
    live.get_by_role("button").click()
    page.wait_for_load_state()
    assert page.locator(".live").inner_text() == ""
    page.close()


def test_the_spectator_page_polls_and_announces_the_change(site, browser):
    runtime, base, games = site
    game = games["mercatores", "start"]
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.clock.install()
    page.goto(f"{base}/games/{game['id']}")
    assert page.locator("meta[http-equiv=refresh]").count() == 0
    # Without script: a link that shows the page again.
    assert page.get_by_role("link", name="Refresh").get_attribute("href") == f"/games/{game['id']}"
    before = runtime.service.head(game["id"]).seq
    live = announced_after_a_move(page, runtime, game["id"])
    assert "moved on" in live.inner_text() or "over" in live.inner_text()
    live.get_by_role("button").click()
    page.wait_for_load_state()
    assert page.locator(".live").inner_text() == ""
    game_now = runtime.service.game(game["id"])
    assert game_now.head_seq > before
    assert f"(event {game_now.head_seq})" in page.locator("main").inner_text()
    polled = page.request.get(f"{base}/games/{game['id']}/head")
    assert polled.headers["cache-control"] == "no-store"
    assert polled.json() == {
        "seq": game_now.head_seq,
        "head": game_now.head_hash,
        "status": game_now.status,
    }
    assert page.request.get(f"{base}/games/no-such-game/head").status == 404
    page.close()


def test_the_other_page_kinds_have_one_heading_landmarks_and_a_skip_link(site, browser):
    """(axe-core checks each of these page kinds in ``test_browser_every_page.py``.)"""
    runtime, base, games = site
    game = games["mare_nostrum", "mid"]
    pages = {
        "lobby": "/",
        "spectator": f"/games/{game['id']}",
        "history": f"/play/{game['due']}/history",
        "public history": f"/games/{game['id']}/history",
        "audit": f"/games/{game['id']}/audit",
        "rules": "/rules/mare_nostrum",
        "settings": settings_path(runtime, game["id"], game["waiting_seat"]),
        "rescue": f"/rescue/{game['due']}",
        "not found": "/play/" + "x" * 40,
    }
    for width, height in SIZES.values():
        page = browser.new_page(viewport={"width": width, "height": height})
        for name, path in pages.items():
            page.goto(base + path)
            one_h1_and_landmarks(page)
            page.keyboard.press("Tab")
            assert page.evaluate("document.activeElement.className") == "skip-link", name
        page.close()


def test_every_golden_mail_reads_at_phone_width_without_serious_violations(browser):
    page = browser.new_page(viewport={"width": 390, "height": 844})
    problems = []
    mails = sorted(GOLDEN.glob("*.html"))
    assert mails
    for mail in mails:
        page.set_content(mail.read_text(encoding="utf-8"))
        assert page.locator("meta[name=viewport]").count() == 1, mail.name
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        if overflow > 0:
            problems.append(f"{mail.name}: scrolls sideways by {overflow}px at 390px")
        problems += [f"{mail.name}: {line}" for line in serious(page)]
    page.close()
    assert not problems, "\n".join(problems)


def test_the_checker_itself_finds_what_the_issue_found(browser):
    """The same check on a page with a meta refresh and links inside an image fails."""
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.set_content(
        '<html lang="en"><head><meta http-equiv="refresh" content="15"><title>t</title></head>'
        '<body><main><h1>t</h1><svg role="img" aria-label="map"><a href="#x"><text>R</text>'
        '</a></svg><div style="overflow:auto;height:3em"><p>1</p><p>2</p><p>3</p><p>4</p>'
        "</div></main></body></html>"
    )
    found = " ".join(serious(page))
    assert "meta-refresh" in found and "nested-interactive" in found
    page.close()


def test_without_script_the_confirm_page_asks_and_cancel_changes_nothing(site, browser):
    runtime, base, games = site
    game = games["mare_nostrum", "start"]
    page = browser.new_page(viewport={"width": 390, "height": 844})
    page.goto(f"{base}/play/{game['due']}")
    # As a browser without script sends it (axe-core itself needs script to run).
    page.evaluate(
        "document.querySelectorAll('form').forEach(f => f.removeAttribute('data-confirm'))"
    )
    before = runtime.service.head(game["id"]).seq
    button = page.locator(".moves form.final button").first
    for summary in page.locator(".moves details:not([open]) summary").all():
        summary.click()
    label = button.inner_text()
    button.click()
    assert page.locator("h1").inner_text() == f"Confirm: {label}"
    one_h1_and_landmarks(page)
    assert not serious(page)
    shoot(page, path=str(SCREENSHOTS / "confirm-page-phone.png"))
    page.get_by_role("link", name="Cancel").click()
    assert page.locator("#turn-heading").inner_text().startswith("It is your turn.")
    assert runtime.service.head(game["id"]).seq == before
    page.close()
