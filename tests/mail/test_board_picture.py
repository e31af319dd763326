"""The board in turn mails (:mod:`pbem.mail.pictures`, :mod:`pbem.web.board_picture`):
each title's "your turn", reminder and game-over mail carries the seat's board as an
inline PNG (multipart/related, a Content-ID, an alt text that says the position) and
the position in words in the plain part, under 200 KB; the picture shows what that
seat's page shows and nothing more; without a drawer, or when drawing fails, the mail
goes without it."""

from __future__ import annotations

import html as html_module
import logging

import pytest
from sqlmodel import Session, select

from engines import get_engine
from pbem.games.service import SeatSpec
from pbem.mail import pictures, seat_mails
from pbem.mail.dispatch import build_message
from pbem.mail.models import Mail
from pbem.models import Game, Seat
from pbem.web import board_picture
from tests.mail.conftest import make_runtime

TITLES = ("mare_balticum", "mare_nostrum", "mercatores")
LIMIT = 200 * 1024


@pytest.fixture
def runtime(sqlite_db, tmp_path, clock):
    runtime = make_runtime(sqlite_db, tmp_path, clock, mail={"quiet_minutes": 0})
    board_picture.install(runtime)
    return runtime


def new_game(runtime, slug: str) -> str:
    specs = [SeatSpec(name, f"{name.lower()}@example.org") for name in ("Anna", "Ben", "Cleo")]
    specs.append(SeatSpec("Dan", is_bot=True))  # a seat nobody holds is drawn too
    return runtime.service.create_game(slug, specs, {}).game_id


def play_until_turn_passes(runtime, game_id: str) -> int:
    """The seat to move makes its first legal moves until another seat is due; returns
    that seat."""
    service = runtime.service
    first = sorted(service.head(game_id).engine.to_move(service.head(game_id).state))[0]
    for _ in range(40):
        head = service.head(game_id)
        due = head.engine.to_move(head.state)
        if first not in due:
            return sorted(due)[0]
        move = head.engine.legal_moves(head.state, first)[0]
        service.submit_move(game_id, first, move, head.seq)
    raise AssertionError("the turn never passed")


def message_of(runtime, mail: Mail):
    message = build_message(runtime, mail)
    return message, len(message.as_bytes())


def turn_mail(runtime, game_id: str, seat: int) -> Mail:
    with Session(runtime.db) as session:
        return session.exec(
            select(Mail).where(Mail.game_id == game_id, Mail.seat == seat, Mail.kind == "your_turn")
        ).one()


def seat_mail(runtime, game_id: str, seat: int, kind: str, **extra) -> Mail:
    """A mail of ``kind`` to a seat, as the sweep and the game's end write it."""
    with Session(runtime.db) as session:
        game = session.get(Game, game_id)
        row = session.get(Seat, (game_id, seat))
        mail = seat_mails.mail_seat(
            session, runtime, game, row, kind, f"{kind}:{game_id}:{seat}", **extra
        )
        session.commit()
        session.refresh(mail)
        session.expunge(mail)
    return mail


def check_picture(message, name: str) -> str:
    """The message's HTML part is multipart/related with the PNG its img names; returns
    the img's alt text."""
    related = message.get_body(preferencelist=("related",))
    assert related is not None, "the HTML part is not multipart/related"
    html = related.get_body(preferencelist=("html",)).get_content()
    images = [part for part in related.iter_parts() if part.get_content_type() == "image/png"]
    assert len(images) == 1
    image = images[0]
    cid = image["Content-ID"].strip("<>")
    assert f'src="cid:{cid}"' in html
    assert image.get_content_disposition() == "inline"
    data = image.get_content()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(data[16:20], "big") == board_picture.WIDTH
    assert 'width="360"' in html
    alt = html.split('alt="', 1)[1].split('"', 1)[0]
    assert alt.startswith(("The board: ", "The picture shows the part of the board")), alt
    assert name in alt
    assert "pbem-board" not in html
    return alt


@pytest.mark.parametrize("slug", TITLES)
def test_your_turn_and_reminder_show_the_board(runtime, slug):
    game_id = new_game(runtime, slug)
    seat = play_until_turn_passes(runtime, game_id)
    name = ["Anna", "Ben", "Cleo"][seat]
    mail = turn_mail(runtime, game_id, seat)
    message, size = message_of(runtime, mail)
    assert size < LIMIT
    check_picture(message, name)
    text = message.get_body(preferencelist=("plain",)).get_content()
    assert "The board now:" in text and name in text.split("The board now:", 1)[1]
    assert "pbem-board" not in text

    reminder, size = message_of(
        runtime, seat_mail(runtime, game_id, seat, "reminder", since="", consequence="")
    )
    assert size < LIMIT
    check_picture(reminder, name)


@pytest.mark.parametrize("slug", TITLES)
def test_game_over_shows_the_board(runtime, slug):
    game_id = new_game(runtime, slug)
    over = {"seed": "00", "headline": "Anna wins.", "reason": "", "standings": []}
    message, size = message_of(runtime, seat_mail(runtime, game_id, 1, "game_over", **over))
    assert size < LIMIT
    check_picture(message, "Ben")


def test_other_mails_have_no_board(runtime):
    game_id = new_game(runtime, "mare_balticum")
    headline = {"headline": "A notice", "lines": ["Something happened."]}
    message, _ = message_of(runtime, seat_mail(runtime, game_id, 0, "notice", **headline))
    assert message.get_body(preferencelist=("related",)) is None
    assert not any(part.get_content_type() == "image/png" for part in message.walk())


def test_a_seat_sees_its_own_board_only(runtime):
    """Non-interference: another seat's hidden cards (a Mercatores hand) change nothing
    in a seat's picture or words, while that other seat's own picture shows them."""
    game_id = new_game(runtime, "mercatores")
    engine = get_engine("mercatores")
    with Session(runtime.db) as session:
        game = session.get(Game, game_id)
        data = dict(game.head_state)
        seq = game.head_seq
    hands = [list(hand) for hand in data["hands"]]
    deck = list(data["deck"])
    # Ben's hand swapped for as many other cards from the deck: his to see, nobody else's.
    swapped = {**data, "hands": [hands[0], deck[: len(hands[1])], *hands[2:]]}
    swapped["deck"] = hands[1] + deck[len(hands[1]) :]
    assert swapped["hands"][1] != hands[1]
    assert engine.view(engine.load(swapped), 0) == engine.view(engine.load(data), 0)

    def drawn(seat: int, head_state: dict) -> pictures.Picture:
        with Session(runtime.db) as session:
            game = session.get(Game, game_id)
            game.head_state = head_state
            session.add(game)
            session.commit()
        return board_picture.Pictures(runtime)(game_id, seat, seq)  # nothing kept

    anna, ben = drawn(0, data), drawn(1, data)
    anna_swapped, ben_swapped = drawn(0, swapped), drawn(1, swapped)
    assert anna_swapped.png == anna.png and anna_swapped.words == anna.words
    assert ben_swapped.png != ben.png  # the swap shows where it may: Ben's own board


def test_a_failed_drawing_sends_the_mail_without_it(runtime, caplog):
    game_id = new_game(runtime, "mare_nostrum")
    seat = play_until_turn_passes(runtime, game_id)

    def broken(game_id, seat, seq):
        raise RuntimeError("no renderer here")

    runtime.extras[pictures.HOOK] = broken
    with caplog.at_level(logging.ERROR, logger="pbem.mail.pictures"):
        message, _ = message_of(runtime, turn_mail(runtime, game_id, seat))
    assert "no board for mail" in caplog.text
    assert message.get_body(preferencelist=("related",)) is None
    html = message.get_body(preferencelist=("html",)).get_content()
    text = message.get_body(preferencelist=("plain",)).get_content()
    assert "pbem-board" not in html + text and "It is your turn" in text

    runtime.extras.pop(pictures.HOOK)  # a process that installed no drawer
    message, _ = message_of(runtime, turn_mail(runtime, game_id, seat))
    assert message.get_body(preferencelist=("related",)) is None


def test_without_resvg_the_words_still_go(runtime, monkeypatch):
    """A server without the renderer: no PNG, the position in words in both parts."""
    game_id = new_game(runtime, "mare_balticum")
    seat = play_until_turn_passes(runtime, game_id)

    def missing(svg, slug):
        raise ImportError("No module named 'resvg_py'")

    monkeypatch.setattr(board_picture, "to_png", missing)
    message, _ = message_of(runtime, turn_mail(runtime, game_id, seat))
    assert message.get_body(preferencelist=("related",)) is None
    html = message.get_body(preferencelist=("html",)).get_content()
    assert "<img" not in html and "Where the game stands:" in html
    assert "The board now:" in message.get_body(preferencelist=("plain",)).get_content()


def test_a_mail_too_large_with_its_picture_goes_with_the_words(runtime, monkeypatch, caplog):
    game_id = new_game(runtime, "mare_nostrum")
    seat = play_until_turn_passes(runtime, game_id)
    monkeypatch.setattr(pictures, "MAX_MAIL_BYTES", 20_000)
    with caplog.at_level(logging.WARNING, logger="pbem.mail.dispatch"):
        message, size = message_of(runtime, turn_mail(runtime, game_id, seat))
    assert "too large with its board" in caplog.text
    assert size < 20_000 and message.get_body(preferencelist=("related",)) is None
    html = message.get_body(preferencelist=("html",)).get_content()
    assert "<img" not in html and "Where the game stands:" in html


def test_the_words_of_a_seat_mail_hold_its_own_hand_and_no_one_elses(runtime):
    """The position in words (plain part and alt text) names the reader's own hand, from
    the engine's ``own_words``; another seat's mail, and a spectator's, never show it."""
    game_id = new_game(runtime, "mercatores")
    with Session(runtime.db) as session:
        game = session.get(Game, game_id)
        hands = [list(hand) for hand in game.head_state["hands"]]
        seq = game.head_seq
    engine = get_engine("mercatores")
    said = engine.own_words(engine.view(engine.load(game.head_state), 1))
    assert said and said[0].startswith("Your hand: ")
    assert engine.own_words(engine.view(engine.load(game.head_state), None)) == []

    drawer = board_picture.Pictures(runtime)
    ben = drawer(game_id, 1, seq)
    anna = drawer(game_id, 0, seq)
    watcher = drawer(game_id, None, seq)
    assert said[0] in ben.words
    assert said[0] not in anna.words and said[0] not in watcher.words
    assert sum(line.startswith("Your hand: ") for line in anna.words) == 1
    assert not any(line.startswith("Your hand: ") for line in watcher.words)
    assert hands[0] != hands[1]

    message, size = message_of(
        runtime, seat_mail(runtime, game_id, 1, "reminder", since="", consequence="")
    )
    assert size < LIMIT
    text = message.get_body(preferencelist=("plain",)).get_content()
    assert said[0] in text.split("The board now:", 1)[1]
    other, _ = message_of(
        runtime, seat_mail(runtime, game_id, 0, "reminder", since="", consequence="")
    )
    assert said[0] not in other.as_string()


@pytest.mark.parametrize("slug", TITLES)
def test_on_a_phone_the_picture_shows_the_part_around_the_readers_pieces(runtime, slug):
    """A wide map shown 390 px wide reads at 5 or 6 px: a seat's picture shows the part
    around its own pieces, where every text reads at 10 px or more, and says so (alt
    text and caption); a spectator's picture, and a board that reads near enough whole
    (the table of cards), stay whole."""
    game_id = new_game(runtime, slug)
    play_until_turn_passes(runtime, game_id)
    seat = 0  # Anna, who has moved: her pieces are on the board
    seq = runtime.service.head(game_id).seq
    drawer = board_picture.Pictures(runtime)
    picture = drawer(game_id, seat, seq)
    watcher = drawer(game_id, None, seq)
    assert watcher.part == ""
    if slug == "mercatores":
        assert picture.part == "" and picture.smallest_px == watcher.smallest_px >= 8.5
        return
    assert watcher.smallest_px < 7  # the whole map on a phone
    assert picture.smallest_px >= 10, picture.smallest_px
    assert picture.part.startswith("around your pieces: ")
    assert picture.width == board_picture.WIDTH and picture.height <= picture.width * 1.25
    message, size = message_of(
        runtime, seat_mail(runtime, game_id, seat, "reminder", since="", consequence="")
    )
    assert size < LIMIT
    alt = html_module.unescape(check_picture(message, "Anna"))
    assert alt.startswith("The picture shows the part of the board around your pieces: ")
    assert "whole board is on the game's page" in alt
    related = message.get_body(preferencelist=("related",))
    html = related.get_body(preferencelist=("html",)).get_content()
    # The caption links the whole board: the seat's own link to the game's page.
    assert "the whole board is on <a href=" in html
    whole = html.split("the whole board is on <a href=", 1)[1].split("</a>", 1)[0]
    assert whole.startswith('"http') and "/play/" in whole and whole.endswith("page")


def test_the_part_shown_is_around_the_seats_own_places():
    """:func:`board_picture.crop` on a drawn map: the window holds the seat's places
    whole and reads at 10 px; without a seat, or with no place of its own nor changed,
    the map stays whole."""
    chips = "".join(
        f'<g class="place" data-place="p{n}"{seats}><title>P{n}</title>'
        f'<rect class="chip" x="{x}" y="{y}" width="30" height="20" rx="5"/>'
        f'<text class="label" x="{x}" y="{y}" font-size="12" '
        f'data-box="{x} {y - 12} {x + 40} {y}">Place {n}</text></g>'
        for n, (x, y, seats) in enumerate(
            [(900, 500, ' data-seats="1"'), (950, 540, ' data-seats="1 2"'), (40, 40, "")]
        )
    )
    svg = f'<svg class="board" viewBox="0 0 1000 600" width="1000" height="600">{chips}</svg>'
    assert board_picture.smallest_px(svg) < 5
    cut, part = board_picture.crop(svg, 1)
    assert part == "around your pieces: Place 0, Place 1"
    left, top, wide, high = board_picture.view_box(cut)
    assert board_picture.smallest_px(cut) >= 10
    assert left <= 900 and 990 <= left + wide and top <= 488 and 560 <= top + high
    assert left + wide <= 1000 and top + high <= 600  # inside the map
    assert board_picture.crop(svg, None) == (svg, "")
    assert board_picture.crop(svg, 0) == (svg, "")  # nothing of seat 0's, nothing changed
    marked = svg.replace('class="place" data-place="p2"', 'class="place changed" data-place="p2"')
    assert board_picture.crop(marked, 0)[1] == "around what changed: Place 2"


def test_the_slot_carries_the_seats_link_whatever_its_letters():
    for link in ("http://pbem.test/play/ab--cd-", "http://pbem.test/play/x?a=1&b=2", ""):
        found = pictures.HTML_SLOT.search("<p>" + pictures.html_slot(7, link) + "</p>")
        assert found is not None and found[1] == "7"
        assert html_module.unescape(found[2] or "") == link
