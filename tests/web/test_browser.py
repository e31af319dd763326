"""Whole games in Debian's chromium: create in the lobby, read the invitations from a real
SMTP server on loopback, open each seat's link and play by clicking; screenshots saved."""

from __future__ import annotations

import json
import re
import threading
from email import message_from_bytes, policy

import pytest
from aiosmtpd.controller import Controller
from werkzeug.serving import make_server

from engines import REGISTRY
from pbem.mail.dispatch import dispatch
from pbem.runtime import build_runtime
from pbem.web import create_app
from tests.web.conftest import SCREENSHOTS, free_port, overrides, shoot

pytestmark = pytest.mark.browser

GAMES = ["mercatores", "mare_balticum", "mare_nostrum"]


class Inbox:
    """An aiosmtpd handler keeping every message it receives."""

    def __init__(self):
        self.messages = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(message_from_bytes(envelope.content, policy=policy.default))
        return "250 OK"


@pytest.fixture
def smtp():
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    yield inbox, controller.port
    controller.stop()


@pytest.fixture
def server(sqlite_db, tmp_path, smtp):
    inbox, smtp_port = smtp
    port = free_port()
    config = overrides(tmp_path)
    config["server"]["base_url"] = f"http://127.0.0.1:{port}"
    config["mail"] = {"host": "127.0.0.1", "port": smtp_port, "security": "none"}
    runtime = build_runtime(config, db=sqlite_db)
    httpd = make_server("127.0.0.1", port, create_app(runtime=runtime), threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield runtime, f"http://127.0.0.1:{port}", inbox
    httpd.shutdown()
    thread.join(timeout=10)


def invitation_links(inbox: Inbox, base: str) -> dict[str, str]:
    """Each recipient's play link, read from the mails the SMTP server received."""
    links = {}
    for message in inbox.messages:
        for part in message.walk():
            if part.get_content_type() == "text/plain":
                found = re.search(re.escape(base) + r"/play/[\w-]+", part.get_content())
                if found:
                    links[message["To"]] = found.group(0)
    return links


def choose_cards(page, runtime, game_id: str, seat: int) -> None:
    """Composes a legal trade or load by clicking the cards' boxes, then sends it."""
    head = runtime.service.head(game_id)
    move = head.engine.legal_moves(head.state, seat)[0]
    form = page.locator(f"form.compose:has(input[name=move_type][value={move['type']}])")
    if move["type"] in ("offer", "build", "keep"):
        pick_mare_nostrum_cards(form, move)
    elif move["type"] == "trade":
        form.locator(f"input[name='f.give'][value='{move['give']}']").check()
        chosen = move["take"]
    else:
        form.locator("select[name='f.way']").select_option(move["way"])
        chosen = move["cards"]
    if move["type"] in ("trade", "load"):
        for card in chosen:
            form.locator(f"input[type=checkbox][value='{card}']").first.check()
    form.locator("button").click()
    confirm_if_asked(page)
    page.wait_for_selector("svg.board")
    assert "That move was not made" not in page.content()


def pick_mare_nostrum_cards(form, move: dict) -> None:
    """A Mare Nostrum offer, payment or keep: the place chosen, the cards clicked (or
    counted, for a kind held many times)."""
    field = "pay" if move["type"] == "build" else "cards"
    if move["type"] == "build":
        place = {key: value for key, value in move.items() if key != "pay"}
        values = form.locator("select[name=fields] option").evaluate_all(
            "options => options.map(option => option.value)"
        )
        chosen = next(
            value
            for value in values
            if {k: v for k, v in json.loads(value).items() if k != "pay"} == place
        )
        form.locator("select[name=fields]").select_option(value=chosen)
    for card in sorted(set(move[field])):
        count = form.locator(f"input[name='n.{field}.{card}']")
        if count.count():
            count.fill(str(move[field].count(card)))
            continue
        for copy in range(move[field].count(card)):
            form.locator(f".card-pick:has(input[value='{card}'])").nth(copy).click()


def board(page) -> str:
    return page.inner_html("svg.board")


def settled(page) -> None:
    """Waits for the answer to a move: a composed move goes to the server in the
    background (static/enhance.js), which either opens the confirmation dialog or moves
    the page on to the answer."""
    from playwright.sync_api import Error

    try:
        page.wait_for_function(
            "() => document.readyState === 'complete' && !document.querySelector('form[aria-busy]')"
        )
    except Error:  # the page moved on to the answer while waiting
        pass
    page.wait_for_load_state()


def question(page) -> str:
    """The second step's question: the open dialog's heading, else the confirm page's."""
    settled(page)
    dialog = page.locator("dialog.confirm[open]")
    if dialog.count():
        return dialog.locator("h2").inner_text()
    heading = page.locator("h1", has_text="Confirm:")
    return heading.inner_text() if heading.count() else ""


def confirm_if_asked(page) -> None:
    """Takes the second step a move that cannot be taken back asks for: the dialog with
    script, the confirm page without."""
    settled(page)
    dialog = page.locator("dialog.confirm[open]")
    if dialog.count():
        with page.expect_navigation():
            dialog.get_by_role("button", name="Confirm").click()
        page.wait_for_load_state()
    elif page.locator("h1", has_text="Confirm:").count():
        page.get_by_role("button", name="Confirm").click()
        page.wait_for_load_state()


@pytest.mark.parametrize("slug", GAMES)
def test_a_game_from_the_lobby_through_mail_to_moves_by_clicking(browser, server, slug):
    runtime, base, inbox = server
    engine = REGISTRY[slug]
    seats = engine.min_seats
    # The essential flow works without JavaScript: the whole game is played with it off.
    page = browser.new_page(viewport={"width": 1280, "height": 900}, java_script_enabled=False)
    page.goto(base + "/")
    page.check(f"input[name=game][value={slug}]")
    for index in range(seats):
        page.fill(f"input[name=seat_name_{index}]", f"Player {index + 1}")
        page.fill(f"input[name=seat_email_{index}]", f"p{index}@example.org")
    page.click("button.primary")
    # The second step shows the seed's commitment; without script the creator types her
    # contribution to the dice herself.
    assert page.locator("code.hash").count() and not page.input_value("input[name=contribution]")
    page.fill("input[name=contribution]", "typed without script")
    page.click("button.primary")
    assert "/play/" in page.url
    page.wait_for_selector("svg.board")
    (game,) = runtime.service.games()
    assert dispatch(runtime).sent >= seats
    links = invitation_links(inbox, base)
    assert sorted(links) == [f"p{index}@example.org" for index in range(seats)]
    changed = 0
    for _ in range(8):
        due = runtime.service.game(game.id).to_move
        if not due:
            break
        page.goto(links[f"p{due[0]}@example.org"])
        before = board(page)
        if page.locator("form.compose").count():
            choose_cards(page, runtime, game.id, due[0])
            changed += board(page) != before
            continue
        place = page.locator("svg.board a .chip, svg.board a .card")  # a place's marks
        if place.count():
            place.first.click()
            page.wait_for_load_state()
        if not page.locator(".moves button:visible").count():
            page.locator(".moves summary").first.click()
        page.locator(".moves button:visible").first.click()
        confirm_if_asked(page)
        page.wait_for_selector("svg.board")
        assert "That move was not made" not in page.content()
        changed += board(page) != before
    assert changed >= 1
    assert runtime.service.game(game.id).head_seq >= 4
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shoot(page, path=str(SCREENSHOTS / f"{slug}-desktop.png"), full_page=True)
    phone = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone.goto(links["p0@example.org"])
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= 400, f"the page is {width}px wide on a phone"
    shoot(phone, path=str(SCREENSHOTS / f"{slug}-phone.png"), full_page=True)
    phone.goto(f"{base}/games/{game.id}/history?at=1")
    phone.locator("#history-step a[rel=next]").click()  # the board swapped in by script
    from playwright.sync_api import expect

    expect(phone.locator("#history-step .at-label")).to_have_text("2")
    assert phone.url.endswith("?at=2")
    shoot(phone, path=str(SCREENSHOTS / f"{slug}-history-phone.png"), full_page=True)
    page.close()
    phone.close()
