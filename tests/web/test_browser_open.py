"""An open game in Debian's chromium, from the stranger's side: the creator leaves a seat
open in the lobby, a stranger finds the game on /open, asks for the seat, confirms from
the mail a real SMTP server on loopback (aiosmtpd) caught, the game starts when full, and
the stranger plays it to its end by clicking, against bots (the creator hands her seat
to one). Screenshots in ``test-artifacts/screenshots`` (``open-*.png``)."""

from __future__ import annotations

import re

import pytest

from pbem.games import open_games, rescue
from pbem.games.service import SeatSpec
from pbem.mail.dispatch import dispatch
from tests.web.conftest import SCREENSHOTS, shoot
from tests.web.test_browser import (  # noqa: F401 - fixtures
    Inbox,
    confirm_if_asked,
    server,
    smtp,
)
from tests.web.test_browser_every_page import axe_findings

pytestmark = pytest.mark.browser


def link_in_mail(inbox: Inbox, address: str, pattern: str) -> str:
    """The newest link matching ``pattern`` in the plain part of a mail to ``address``."""
    for message in reversed(inbox.messages):
        if message["To"] != address:
            continue
        found = re.search(pattern, message.get_body(preferencelist=("plain",)).get_content())
        if found:
            return found.group(0)
    raise AssertionError(f"no mail to {address} with {pattern}")


def test_a_stranger_finds_joins_confirms_and_plays_an_open_game_to_its_end(browser, server):  # noqa: F811
    runtime, base, inbox = server
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    # The creator leaves seat 2 open (the lobby offers only the real titles; the form's
    # word "open" is tested in test_open_pages); a bot plays seat 3.
    made = open_games.create_open(
        runtime,
        "pig",
        [SeatSpec("Anna", "anna@example.org"), None, SeatSpec("Bot 3", is_bot=True)],
        {"target": 20},
        title="Pig with strangers",
    )
    creator = browser.new_page(viewport={"width": 1280, "height": 900})
    creator.goto(f"{base}/open/manage/{made.token}")
    assert "Start now with bots" in creator.content()
    problems = [f"manage: {line}" for line in axe_findings(creator)]

    # A stranger finds it on /open (filtered to games with a seat left), and asks.
    page = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
    page.goto(base + "/open")
    page.select_option("select[name=seats]", "1")
    page.click("form.filters button")
    page.wait_for_load_state()  # the next page, loaded
    listed = page.locator("li.open-game")
    assert listed.count() == 1 and "1 of 3 seats left" in listed.inner_text()
    assert "anna@example.org" not in page.content()
    shoot(page, path=str(SCREENSHOTS / "open-list-phone.png"), full_page=True)
    problems += [f"list: {line}" for line in axe_findings(page)]
    listed.locator("a").click()
    page.wait_for_load_state()  # the next page, loaded
    page.fill("input[name=name]", "Nina")
    page.fill("input[name=email]", "nina@example.net")
    page.click("button:text-is('Ask for a seat')")
    page.wait_for_load_state()  # the next page, loaded
    assert "If nina@example.net can take a seat at this table, a link to confirm" in page.content()
    assert "held for someone" in page.content()
    shoot(page, path=str(SCREENSHOTS / "open-asked-phone.png"), full_page=True)
    problems += [f"game: {line}" for line in axe_findings(page)]

    # The link comes by mail, to that address only; opening it shows a button.
    assert dispatch(runtime).sent >= 2  # the creator's page link, the stranger's link
    confirm = link_in_mail(inbox, "nina@example.net", re.escape(base) + r"/open/confirm/[\w-]+")
    page.goto(confirm)
    problems += [f"confirm: {line}" for line in axe_findings(page)]
    assert not problems, problems
    page.click("button:text-is('Confirm my seat')")
    page.wait_for_load_state()  # the next page, loaded
    assert "the game has started" in page.content()
    (game,) = runtime.service.games()
    assert [seat.name for seat in runtime.service.seats(game.id)] == ["Anna", "Nina", "Bot 3"]

    # Everyone got their link; the creator hears who joined and lets a bot play for her.
    dispatch(runtime)
    play = link_in_mail(inbox, "nina@example.net", re.escape(base) + r"/play/[\w-]+")
    assert "Nina took a seat" in " ".join(m["Subject"] for m in inbox.messages)
    assert link_in_mail(inbox, "anna@example.org", r"/play/[\w-]+")
    rescue.hand_to_bot(runtime, game.id, 0, by=0)
    creator.reload()
    assert "has started" in creator.content()

    # Nina plays to the end by clicking: she rolls until her pot holds 6, then banks.
    for _ in range(200):
        state = runtime.service.game(game.id)
        if state.status != "active":
            break
        page.goto(play)
        if 1 not in (state.to_move or []):
            continue
        pot = runtime.service.view(game.id, 1)["pot"]
        choice = "Stop and bank" if pot >= 6 else "Roll the die"
        button = page.locator(f".moves button:visible:text-is('{choice}')")
        if not button.count():
            page.locator(".moves summary").first.click()
        page.locator(f".moves button:text-is('{choice}')").first.click()
        confirm_if_asked(page)
        assert "That move was not made" not in page.content()
    final = runtime.service.game(game.id)
    assert final.status == "finished", "the game did not end"
    page.goto(play)
    shoot(page, path=str(SCREENSHOTS / "open-finished-phone.png"), full_page=True)
    assert "game is over" in page.content().lower() or "won" in page.content().lower()
    # The public page of the open game now points to the game, and takes nobody.
    page.goto(f"{base}/open/{game.id}")
    assert "has started" in page.content() and "Ask for a seat" not in page.content()

    # In the lobby, the word "open" as a seat's address lists a game of a real title.
    creator.goto(base + "/")
    creator.check("input[name=game][value=mercatores]")
    creator.fill("input[name=seat_name_0]", "Anna")
    creator.fill("input[name=seat_email_0]", "anna@example.org")
    creator.fill("input[name=seat_email_1]", "open")
    creator.click("button.primary")
    creator.wait_for_load_state()  # the step that shows the seed's commitment
    creator.click("button.primary")
    creator.wait_for_load_state()  # the next page, loaded
    assert "/open/manage/" in creator.url and "Start now with bots" in creator.content()
    creator.goto(base + "/open?game=mercatores")
    assert creator.locator("li.open-game").count() == 1
    creator.close()
    page.close()
