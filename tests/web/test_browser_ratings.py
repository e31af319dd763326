"""From an open game to the leaderboard, in Debian's chromium: a stranger finds a game on
/open, joins, confirms from the mail a real SMTP server on loopback caught, the game
starts; the creator and the stranger each claim a handle from their "my games" page
(its link came in their invitation), the stranger plays the game to its end by
clicking, and both ratings show on /ratings/pig and on both profiles. No page shows an
address or a seat's link. Screenshots in ``test-artifacts/screenshots``
(``ratings-*.png``)."""

from __future__ import annotations

import re

import pytest

from pbem.games import open_games, rescue
from pbem.games.service import SeatSpec
from pbem.mail.dispatch import dispatch
from tests.web.conftest import SCREENSHOTS, shoot
from tests.web.test_browser import confirm_if_asked, server, smtp  # noqa: F401 - fixtures
from tests.web.test_browser_every_page import axe_findings
from tests.web.test_browser_open import link_in_mail

pytestmark = pytest.mark.browser

ADDRESSES = ("anna@example.org", "nina@example.net")


def private_bits(page, links: list[str]) -> list[str]:
    """What of the addresses and private links shows on ``page``."""
    text = page.content()
    found = [address for address in ADDRESSES if address in text]
    found += [link for link in links if link.rsplit("/", 1)[1] in text]
    return found + [word for word in ("/play/", "/my-games/") if word in text]


def claim(page, games_link: str, handle: str) -> None:
    page.goto(games_link)
    page.fill("input[name=handle]", handle)
    page.click("button:text-is('Claim this handle')")
    # The answer is a new page: wait for it (its content is empty while it loads).
    page.wait_for_selector(f"a[href*='/players/{handle}']")
    assert f"/players/{handle}" in page.content()


def test_a_stranger_joins_plays_to_the_end_and_both_are_rated(browser, server):  # noqa: F811
    runtime, base, inbox = server
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    made = open_games.create_open(
        runtime,
        "pig",
        [SeatSpec("Anna", "anna@example.org"), None, SeatSpec("Bot 3", is_bot=True)],
        {"target": 12},
        title="Rated pig",
    )
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
    complaints: list[str] = []  # the pages keep the Content-Security-Policy (the chart too)
    page.on(
        "console",
        lambda message: (
            complaints.append(message.text) if "Content Security Policy" in message.text else None
        ),
    )
    page.goto(base + "/open")
    page.locator("li.open-game a").click()
    page.wait_for_load_state()  # the next page, loaded
    page.fill("input[name=name]", "Nina")
    page.fill("input[name=email]", "nina@example.net")
    page.click("button:text-is('Ask for a seat')")
    page.wait_for_load_state()  # the next page, loaded
    dispatch(runtime)
    page.goto(link_in_mail(inbox, "nina@example.net", re.escape(base) + r"/open/confirm/[\w-]+"))
    page.click("button:text-is('Confirm my seat')")
    page.wait_for_load_state()  # the next page, loaded
    assert "the game has started" in page.content()
    (game,) = runtime.service.games()
    assert game.id == made.game_id

    # Both claim a handle from "my games", whose link came in their invitation.
    dispatch(runtime)
    mine = re.escape(base) + r"/my-games/[\w-]+"
    anna_games = link_in_mail(inbox, "anna@example.org", mine)
    nina_games = link_in_mail(inbox, "nina@example.net", mine)
    play = link_in_mail(inbox, "nina@example.net", re.escape(base) + r"/play/[\w-]+")
    creator = browser.new_page(viewport={"width": 1280, "height": 900})
    claim(creator, anna_games, "anna_k")
    claim(page, nina_games, "nina")
    problems = [f"my games: {line}" for line in axe_findings(page)]
    shoot(page, path=str(SCREENSHOTS / "ratings-my-games-phone.png"), full_page=True)
    rescue.hand_to_bot(runtime, game.id, 0, by=0)  # a bot plays Anna's seat; it stays hers

    for _ in range(200):
        state = runtime.service.game(game.id)
        if state.status != "active":
            break
        page.goto(play)
        if 1 not in (state.to_move or []):
            continue
        pot = runtime.service.view(game.id, 1)["pot"]
        choice = "Stop and bank" if pot >= 5 else "Roll the die"
        if not page.locator(f".moves button:visible:text-is('{choice}')").count():
            page.locator(".moves summary").first.click()
        page.locator(f".moves button:text-is('{choice}')").first.click()
        confirm_if_asked(page)
    assert runtime.service.game(game.id).status == "finished", "the game did not end"

    # The leaderboard lists both handles (and not the bot); each profile has its rating.
    page.goto(base + "/ratings/pig")
    listed = page.locator("table.ratings tbody tr")
    assert listed.count() == 2
    assert {listed.nth(n).locator("a").inner_text() for n in range(2)} == {"anna_k", "nina"}
    assert "Bot 3" not in page.content()
    shoot(page, path=str(SCREENSHOTS / "ratings-board-phone.png"), full_page=True)
    problems += [f"ratings: {line}" for line in axe_findings(page)]
    seen = []
    for handle in ("anna_k", "nina"):
        page.goto(f"{base}/players/{handle}")
        assert page.locator("svg.rating-chart polyline").count() == 1
        assert "Rated pig" in page.content() and "Nina" in page.content()
        assert page.locator("li.player-game").count() == 1
        seen += private_bits(page, [anna_games, nina_games, play])
        problems += [f"profile {handle}: {line}" for line in axe_findings(page)]
        shoot(page, path=str(SCREENSHOTS / f"ratings-profile-{handle}.png"), full_page=True)
    page.goto(base + "/ratings/pig")
    seen += private_bits(page, [anna_games, nina_games, play])
    assert not seen, seen
    assert not complaints, complaints
    assert not problems, problems
    # Only the page's own address shows on "my games", with the profile's buttons.
    creator.goto(anna_games)
    assert "nina@example.net" not in creator.content() and "Hide my profile" in creator.content()
    creator.close()
    page.close()
