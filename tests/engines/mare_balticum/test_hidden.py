"""Hidden information: a seat's secret production choice changes nothing another seat or a
spectator sees, until the game ends; dump/load round-trips every state of those games."""

from __future__ import annotations

import json
import random

import pytest

from engines.api import SeededChance, canonical_json
from engines.mare_balticum import ENGINE as NEWEST
from tests.engine_harness import check_round_trip

from .helpers import invariant

SWAP = {"salmon": "cod", "cod": "salmon"}
TOKENS = {3: 2, 2: 3}
ENGINE = NEWEST.at_version(1)  # version 1 hides which space holds a token


def twin_games(seats: int, options: dict, seed: int, secret: int, engine=None):
    """Two games, identical but for ``secret``'s choice at the first passage of time.

    Version 1: in the first game the seat puts x3 on salmon, in the second on cod; its
    later number tokens swap salmon and cod. Version 2 (the spaces are seen): x3 on salmon
    in the first, x2 on salmon in the second, and later x2 and x3 swap. Every other move
    stays the same in both games.
    Yields (seat, move in game 1, move in game 2, before 1, after 1, before 2, after 2).
    """
    ENGINE = engine or globals()["ENGINE"]  # noqa: N806 - the module's engine by default
    by_number = ENGINE.version >= 2
    first = ENGINE.setup(seats, options, SeededChance(seed))
    second = ENGINE.setup(seats, options, SeededChance(seed))
    rngs = [random.Random(seed * 10 + seat) for seat in range(seats)]
    forced = False
    for step in range(20000):
        due = ENGINE.to_move(first)
        assert due == ENGINE.to_move(second)
        if not due:
            return
        seat = sorted(due)[step % len(due)]
        move = ENGINE.bot_move(
            ENGINE.view(first, seat), ENGINE.legal_moves(first, seat), rngs[seat]
        )
        other = move
        if seat == secret and move["type"] == "produce":
            if not forced:
                move, other, forced = (
                    {"type": "produce", "token": 3, "kind": "salmon"},
                    {"type": "produce", "token": 2 if by_number else 3, "kind": "cod"},
                    True,
                )
                if by_number:
                    other["kind"] = "salmon"
            elif move["token"] != "tax" and by_number:
                other = {**move, "token": TOKENS.get(move["token"], move["token"])}
            elif move["token"] != "tax":
                other = {**move, "kind": SWAP.get(move["kind"], move["kind"])}
        after_first = ENGINE.apply(first, seat, move, SeededChance(step))
        after_second = ENGINE.apply(second, seat, other, SeededChance(step))
        yield seat, move, other, first, after_first, second, after_second
        first, second = after_first, after_second
    raise AssertionError("the twin games did not end")


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize(
    ("seats", "options", "seed"),
    [
        (3, {}, 5),
        (4, {"demand_management": True, "trade_contracts": True}, 6),
        (5, {"trade_contracts": True, "seat_order": "random"}, 7),
    ],
)
def test_a_secret_production_choice_is_invisible_to_others_until_the_end(
    seats, options, seed, version
):
    ENGINE = NEWEST.at_version(version)  # noqa: N806
    secret = 1
    observers = [None, *(seat for seat in range(seats) if seat != secret)]
    differed = False
    for seat, move, other, before1, after1, before2, after2 in twin_games(
        seats, options, seed, secret, ENGINE
    ):
        invariant(after1)
        invariant(after2)
        check_round_trip(ENGINE, after1)
        assert ENGINE.load(json.loads(json.dumps(ENGINE.dump(after2)))) == after2
        differed = differed or ENGINE.dump(after1) != ENGINE.dump(after2)
        if ENGINE.result(after1) is not None:
            break
        for viewer in observers:
            assert canonical_json(ENGINE.view(after1, viewer)) == canonical_json(
                ENGINE.view(after2, viewer)
            ), f"viewer {viewer} sees the secret after {move}"
            assert ENGINE.describe(before1, seat, move, after1, viewer) == ENGINE.describe(
                before2, seat, other, after2, viewer
            )
    assert differed
    # At the end the markets are revealed: the two games differ for everyone.
    assert (
        ENGINE.view(after1, 0)["players"][secret]["market"]
        != ENGINE.view(after2, 0)["players"][secret]["market"]
    )


def test_the_owner_sees_the_own_secret_choice():
    games = twin_games(3, {}, 5, 1)
    for seat, move, other, _, after1, _, after2 in games:
        if seat == 1 and move != other:
            assert ENGINE.view(after1, 1) != ENGINE.view(after2, 1)
            return
    raise AssertionError("no secret choice was made")


def test_the_board_and_the_mail_words_hide_the_unplayed_number_tokens():
    """Rules file, 'Hidden information': which number tokens a player still holds (and so
    which went where) stays hidden until the end. The board with its list of places, and
    the words a mail gives of it, are the same for every other seat and for spectators in
    two games that differ only in one seat's numbers."""
    from pbem.web.board_picture import board_words
    from tests.engines.board_pages import board_html

    secret, seats = 1, 4
    observers = [None, 0, 2, 3]
    seen_numbers = False
    for _, _, _, _, after1, _, after2 in twin_games(
        seats, {"trade_contracts": True}, 6, secret, NEWEST
    ):
        if NEWEST.result(after1) is not None:
            break
        if after1.played[secret] == after2.played[secret]:
            continue
        if not any(event["type"] in ("production", "turn_ended") for event in after1.events):
            continue  # the board after each passage of time and each turn's end
        seen_numbers = True
        for viewer in observers:
            view1, view2 = NEWEST.view(after1, viewer), NEWEST.view(after2, viewer)
            page1, page2 = board_html("mare_balticum", view1), board_html("mare_balticum", view2)
            assert page1 == page2, f"viewer {viewer} sees the numbers on the board"
            assert board_words(page1, view1) == board_words(page2, view2)
        own1 = board_html("mare_balticum", NEWEST.view(after1, secret))
        own2 = board_html("mare_balticum", NEWEST.view(after2, secret))
        assert own1 != own2  # the owner's own market, with its numbers, is on the board
    assert seen_numbers
