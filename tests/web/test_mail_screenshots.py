"""Each title's turn, reminder and game-over mail (with the board picture) as a phone
shows it: the HTML part in Debian's chromium at 390x844 (device scale 3, touch), its
``cid:`` image given inline, into ``test-artifacts/screenshots/mails/`` (``make
screenshots``), and every golden mail (``golden-<case>.png``). Nothing scrolls
sideways, and the picture fits the screen."""

from __future__ import annotations

import base64

import pytest

from pbem.web import board_picture
from tests.mail.conftest import Clock, make_runtime
from tests.mail.conftest import new_game as new_pig_game
from tests.mail.test_board_picture import (
    TITLES,
    message_of,
    new_game,
    play_until_turn_passes,
    seat_mail,
    turn_mail,
)
from tests.mail.test_golden_mails import LANGUAGES, NAMES, cases, title_turn
from tests.mail.test_golden_mails import TITLES as GOLDEN_TITLES
from tests.mail.test_golden_mails import message_of as golden_message
from tests.mail.test_golden_mails import runtime as runtime  # noqa: F401 - the golden fixture
from tests.web.conftest import SCREENSHOTS, shoot
from tests.web.test_maps_browser import write_gallery

FOLDER = SCREENSHOTS / "mails"


@pytest.fixture(scope="module")
def browser(browser):
    """The shared chromium; the gallery's index lists the mails once they are taken."""
    yield browser
    write_gallery()


@pytest.fixture
def mail_runtime(sqlite_db, tmp_path):
    runtime = make_runtime(sqlite_db, tmp_path, Clock(), mail={"quiet_minutes": 0})
    board_picture.install(runtime)
    return runtime


def as_page(message) -> str:
    """The HTML part with each ``cid:`` it names replaced by its image's data."""
    related = message.get_body(preferencelist=("related",))
    html = message.get_body(preferencelist=("html",)).get_content()
    for part in related.iter_parts() if related is not None else []:
        if part.get_content_maintype() == "image":
            data = base64.b64encode(part.get_content()).decode()
            cid = part["Content-ID"].strip("<>")
            html = html.replace(f"cid:{cid}", f"data:{part.get_content_type()};base64,{data}")
    return html


@pytest.mark.parametrize("slug", TITLES)
def test_mails_on_a_phone(mail_runtime, browser, slug):
    runtime = mail_runtime
    game_id = new_game(runtime, slug)
    seat = play_until_turn_passes(runtime, game_id)
    over = {"seed": "0" * 32, "headline": "Anna wins.", "reason": "", "standings": []}
    mails = {
        "your_turn": turn_mail(runtime, game_id, seat),
        "reminder": seat_mail(runtime, game_id, seat, "reminder", since="", consequence=""),
        "game_over": seat_mail(runtime, game_id, seat, "game_over", **over),
    }
    FOLDER.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, device_scale_factor=3, has_touch=True
    )
    try:
        page = context.new_page()
        for kind, mail in mails.items():
            message, _ = message_of(runtime, mail)
            page.set_content(as_page(message))
            shoot(page, path=str(FOLDER / f"{kind}-{slug}.png"), full_page=True)
            assert page.evaluate("document.documentElement.scrollWidth") <= 390, kind
            box = page.locator("img").first.bounding_box()
            assert box is not None and box["width"] <= 390 and box["height"] > 50, kind
    finally:
        context.close()


def test_every_golden_mail_on_a_phone(runtime, browser):  # noqa: F811 - the golden fixture
    FOLDER.mkdir(parents=True, exist_ok=True)
    built = cases(runtime)
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, device_scale_factor=3, has_touch=True
    )
    try:
        page = context.new_page()
        for name in NAMES:
            kind, case = built[name]
            page.set_content(as_page(golden_message(runtime, kind, case)))
            shoot(page, path=str(FOLDER / f"golden-{name}.png"), full_page=True)
            assert page.evaluate("document.documentElement.scrollWidth") <= 390, name
    finally:
        context.close()


@pytest.mark.parametrize("language", LANGUAGES)
def test_each_titles_turn_mail_in_each_language_on_a_phone(runtime, browser, language):  # noqa: F811
    """The golden turn mail of each title in German, Polish and French
    (``golden-<language>-<title>.png``): nothing scrolls sideways in any language."""
    FOLDER.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, device_scale_factor=3, has_touch=True
    )
    try:
        page = context.new_page()
        for slug in GOLDEN_TITLES:
            message = golden_message(runtime, "your_turn", title_turn(runtime, slug, language))
            page.set_content(as_page(message))
            shoot(page, path=str(FOLDER / f"golden-{language}-{slug}.png"), full_page=True)
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, (language, slug, width)
    finally:
        context.close()


def test_the_game_over_standings_keep_each_name_whole_on_a_phone(mail_runtime, browser):
    """Long figures (nine columns of a breakdown) beside short names once squeezed the
    names of a table letter by letter at 390 px; each name now reads on one line, its
    figures under it."""
    runtime = mail_runtime
    game_id = new_pig_game(runtime, seats=3).game_id
    figures = (
        "Salmon: 6, Flatfish: 15, Herring: 0, Cod: 0, Amber: 5, Contract: 0, Points: 26, "
        "Warehouse tokens: 13, Lost in the hold: 1"
    )
    names = ["Bot Konstantin", "Bruno", "Annabelle"]
    over = {
        "seed": "0" * 32,
        "headline": "Bot Konstantin wins.",
        "reason": "Most points after the final scoring.",
        "standings": [
            {"rank": rank, "name": name, "winner": rank == 1, "score": figures}
            for rank, name in enumerate(names, start=1)
        ],
        "lines": ["Annabelle sails from Åland Sea to Gdańsk. (played by a bot for Annabelle)"],
    }
    mail = seat_mail(runtime, game_id, 0, "game_over", **over)
    message, _ = message_of(runtime, mail)
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, device_scale_factor=3, has_touch=True
    )
    try:
        page = context.new_page()
        page.set_content(as_page(message))
        FOLDER.mkdir(parents=True, exist_ok=True)
        shoot(page, path=str(FOLDER / "game_over-standings.png"), full_page=True)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        for name in names:
            # The text node of the name, measured: one line box, so no break inside.
            lines = page.evaluate(
                """(name) => {
                    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
                    while (walker.nextNode()) {
                        const node = walker.currentNode;
                        const at = node.data.indexOf(name);
                        if (at < 0 || node.parentElement.closest("ul")) continue;
                        const range = document.createRange();
                        range.setStart(node, at);
                        range.setEnd(node, at + name.length);
                        return new Set([...range.getClientRects()].map((r) => r.top)).size;
                    }
                    return 0;
                }""",
                name,
            )
            assert lines == 1, name
        items = page.locator("ul li").all_inner_texts()
        assert items and not any(item.startswith("(played by") for item in items)
    finally:
        context.close()
