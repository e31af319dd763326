"""The history page without script: every event grouped by turn and phase (the turn of
the step open), filters by player and kind as query parameters, the turn jump, the
board fragment the page's script swaps in, and lines kept across moves."""

from __future__ import annotations

import random
import re

import pytest

from pbem.games import talk
from pbem.games.service import SeatSpec
from pbem.games.vacations import start_vacation

ITEM = re.compile(
    r'<li id="event-(\d+)" data-seat="(\d*)" data-kinds="([a-z ]*)"( class="current")?( hidden)?>'
)
TURN = re.compile(r'<details class="turn" id="turn-(\d+)" data-first="(\d+)"( open)?( hidden)?>')


def bot_moves(service, game_id: str, rng: random.Random, count: int) -> None:
    """``count`` moves by the engine's bot for whichever seat is due."""
    for _ in range(count):
        head = service.head(game_id)
        due = sorted(head.engine.to_move(head.state))
        if not due:
            return
        legal = head.engine.legal_moves(head.state, due[0])
        move = head.engine.bot_move(head.engine.view(head.state, due[0]), legal, rng)
        service.submit_move(game_id, due[0], move, head.seq)


def long_game(runtime, moves: int = 90):
    """A Mare Nostrum game of three players some turns in, with table talk, a private
    note and a vacation among its moves."""
    seats = [SeatSpec(name, f"{name.lower()}@example.org") for name in ("Ann", "Ben", "Cleo")]
    created = runtime.service.create_game("mare_nostrum", seats, seed=b"\x03" * 32)
    rng = random.Random(3)
    bot_moves(runtime.service, created.game_id, rng, moves // 2)
    talk.post(runtime, created.game_id, 1, None, "Good luck, everyone")
    talk.post(runtime, created.game_id, 2, 0, "Shall we corner Ben?")
    start_vacation(runtime, created.game_id, 0, 2)
    bot_moves(runtime.service, created.game_id, rng, moves - moves // 2)
    return created


def items(html: str) -> list[dict]:
    return [
        {
            "seq": int(found.group(1)),
            "seat": found.group(2),
            "kinds": found.group(3).split(),
            "current": bool(found.group(4)),
            "shown": not found.group(5),
        }
        for found in ITEM.finditer(html)
    ]


@pytest.fixture
def game(runtime):
    return long_game(runtime)


def test_every_event_is_listed_once_in_turns_and_phases(client, runtime, game):
    head = runtime.service.game(game.game_id).head_seq
    html = client.get(f"/games/{game.game_id}/history").get_data(as_text=True)
    listed = items(html)
    assert [item["seq"] for item in listed] == list(range(head + 1))
    assert all(item["shown"] for item in listed)
    assert [item["seq"] for item in listed if item["current"]] == [head]
    turns = TURN.findall(html)
    assert len(turns) >= 3, "the game should span a few turns"
    labels = re.findall(r"<summary>([^<]+?) <span", html)
    assert labels[:3] == ["Turn 1", "Turn 2", "Turn 3"], labels
    assert len(labels) == len(set(labels)), "each turn is one group"
    # Only the turn holding the step (the head) is open.
    assert [index for index, _, opened, _ in turns if opened] == [turns[-1][0]]
    # Phases inside a turn: Mare Nostrum's trade, build and war.
    turn_two = html.split('id="turn-2"')[1].split("</details>")[0]
    phases = re.findall(r"<h3>([^<]+)</h3>", turn_two)
    assert "build" in phases and phases.index("build") > 0, phases
    # The step's line names its turn and phase.
    assert re.search(r'id="event-line"[^>]*>#' + str(head), html)


def test_an_event_belongs_to_the_turn_its_predecessor_left(app, runtime, game):
    from engines import get_engine
    from pbem.web.history import clear_folds, history_entries

    engine = get_engine("mare_nostrum")
    service = runtime.service
    with app.test_request_context():
        clear_folds()
        entries = history_entries(service.game(game.game_id), None, None)
    for line in entries[1:]:
        before = service.state_at(game.game_id, line["seq"] - 1)[1]
        turn, phase = engine.turn_line(before)
        assert (line["turn"], line["phase"]) == (turn, phase), line["seq"]
        assert engine.phase_line(before)[0].startswith(turn)


def test_filters_by_kind_and_player_work_as_query_parameters(client, runtime, game):
    url = f"/games/{game.game_id}/history"
    every = items(client.get(url).get_data(as_text=True))
    talk_seqs = {item["seq"] for item in every if "talk" in item["kinds"]}
    seat_seqs = {item["seq"] for item in every if "seats" in item["kinds"]}
    assert len(talk_seqs) == 2 and len(seat_seqs) == 1

    def shown(query: str) -> set[int]:
        answer = client.get(f"{url}?{query}")
        assert answer.status_code == 200, query
        return {item["seq"] for item in items(answer.get_data(as_text=True)) if item["shown"]}

    assert shown("kind=talk") == talk_seqs
    assert shown("kind=talk&kind=seats") == talk_seqs | seat_seqs
    moves = shown("kind=moves")
    assert moves and not moves & (talk_seqs | seat_seqs) and 0 not in moves
    draws = shown("kind=draws")
    assert 0 in draws, "the set-up drew the decks"
    by_ben = shown("player=1")
    assert by_ben == {item["seq"] for item in every if item["seat"] == "1"}
    assert shown("player=1&kind=talk") == {min(talk_seqs)}
    page = client.get(f"{url}?player=2&kind=talk").get_data(as_text=True)
    assert "1 of " in page and 'class="filters-clear">' in page
    # A turn without a shown event is folded away, as is a phase.
    assert all(hidden for *_, hidden in TURN.findall(client.get(f"{url}?kind=talk").text)[:1])
    for bad in ("player=3", "player=-1", "player=x", "kind=nothing"):
        answer = client.get(f"{url}?{bad}")
        assert answer.status_code == 400, bad


def test_a_seat_reads_its_private_note_and_the_others_only_that_it_was_sent(client, game):
    lines = {}
    for seat, token in enumerate(game.tokens):
        html = client.get(f"/play/{token}/history?kind=talk").get_data(as_text=True)
        lines[seat] = html
    assert "Shall we corner Ben?" in lines[0] and "Shall we corner Ben?" in lines[2]
    assert "Shall we corner Ben?" not in lines[1]
    assert "a private note" in lines[1]
    spectator = client.get(f"/games/{game.game_id}/history?kind=talk&player=2").text
    assert "Shall we corner Ben?" not in spectator and "a private note" in spectator


def test_the_turn_jump_opens_that_turn_on_its_first_event(client, game):
    url = f"/games/{game.game_id}/history"
    turns = TURN.findall(client.get(url).text)
    index, first = turns[2][0], int(turns[2][1])
    html = client.get(f"{url}?turn={index}&kind=moves").text
    assert [t[0] for t in TURN.findall(html) if t[2]] == [index]
    assert 'name="at" min="0" max="' in html and f'value="{first}"' in html
    assert [item["seq"] for item in items(html) if item["current"]] == [first]
    # Stepping keeps the filters.
    assert f'href="{url}?at={first + 1}&amp;kind=moves"' in html


def test_the_step_fragment_is_the_board_after_one_event(client, runtime, game):
    head = runtime.service.game(game.game_id).head_seq
    answer = client.get(f"/games/{game.game_id}/history/step?at=5&player=1")
    assert answer.status_code == 200
    html = answer.get_data(as_text=True)
    assert "<html" not in html and '<span class="at-label">5</span>' in html
    assert 'id="event-line"' in html and "board-wrap" in html
    assert "?at=6&amp;player=1" in html and "?at=4&amp;player=1" in html
    seat = client.get(f"/play/{game.tokens[1]}/history/step?at={head}")
    assert seat.status_code == 200 and 'rel="next"' not in seat.text
    for bad in (f"at={head + 1}", "at=-1", "at=x", ""):
        assert client.get(f"/games/{game.game_id}/history/step?{bad}").status_code == 404
    assert client.get("/play/" + "x" * 43 + "/history/step?at=1").status_code == 404


def test_lines_kept_across_moves_match_lines_folded_afresh(app, runtime, game):
    from pbem.web.history import clear_folds, history_entries

    service = runtime.service
    with app.test_request_context():
        history_entries(service.game(game.game_id), 1, "Europe/Berlin")
        bot_moves(service, game.game_id, random.Random(9), 6)
        talk.post(runtime, game.game_id, 0, None, "Later")
        kept = history_entries(service.game(game.game_id), 1, "Europe/Berlin")
        clear_folds()
        fresh = history_entries(service.game(game.game_id), 1, "Europe/Berlin")
    assert kept == fresh
    assert kept[-1]["lines"] == ["Ann said to the table: “Later”"]


def test_a_secret_offer_reads_only_in_its_own_seats_history(client, runtime, game):
    """Mare Nostrum's trade offers are secret until revealed: in the grouped history,
    filtered or not, a seat reads its own offers' cards and nobody else's."""
    offers: dict[int, int] = {}
    for row in runtime.service.events(game.game_id):
        if row["kind"] == "move" and row["payload"]["move"].get("type") == "offer":
            offers[row["seat"]] = offers.get(row["seat"], 0) + 1
    assert offers, "the game should hold secret offers"
    block = re.compile(r'<li id="event-\d+" data-seat="(\d*)"[^>]*>(.*?)</li>', re.S)
    readers = [(None, f"/games/{game.game_id}/history")]
    readers += [(seat, f"/play/{token}/history") for seat, token in enumerate(game.tokens)]
    for viewer, url in readers:
        for query in ("", "?kind=moves", f"?kind=moves&player={min(offers)}", "?turn=2"):
            html = client.get(url + query).text
            own = [seat for seat, text in block.findall(html) if "You offer" in text]
            assert set(own) <= ({str(viewer)} if viewer is not None else set()), (url, query)
            if query in ("", "?kind=moves") and viewer is not None:
                assert len(own) == offers.get(viewer, 0), (viewer, query)


def test_a_title_without_turn_line_lists_its_events_in_one_group(client, runtime, monkeypatch):
    """A title written from the protocol alone (Drawn Nim: no ``turn_line``, and a view
    whose ``turn`` is the seat to move) gets one group, not a "turn" per move."""
    from engines import REGISTRY
    from tests.titles_fixture import DRAWN_NIM

    monkeypatch.setitem(REGISTRY, DRAWN_NIM.slug, DRAWN_NIM)
    assert not hasattr(DRAWN_NIM, "turn_line")
    seats = [SeatSpec("Ann", "ann@example.org"), SeatSpec("Ben", "ben@example.org")]
    created = runtime.service.create_game(DRAWN_NIM.slug, seats)
    bot_moves(runtime.service, created.game_id, random.Random(1), 4)
    html = client.get(f"/games/{created.game_id}/history").text
    assert len(TURN.findall(html)) == 1 and "<summary>Every event <span" in html
    assert len(items(html)) == runtime.service.game(created.game_id).head_seq + 1 >= 3


def test_a_long_game_lists_only_the_events_near_the_step(client, runtime, game, monkeypatch):
    from pbem.web import history

    monkeypatch.setattr(history, "LIST_REACH", 5)
    url = f"/games/{game.game_id}/history"
    html = client.get(url).text
    head = runtime.service.game(game.game_id).head_seq
    assert {item["seq"] for item in items(html)} == set(range(head - 5, head + 1))
    assert 'href="' + url + '?turn=1"' in html and "Show this turn's events" in html
    last_first = max(int(first) for _, first, *_ in TURN.findall(html))
    if last_first < head - 5:
        assert f'href="{url}?at={head - 6}">Earlier events of this turn' in html
    first_turn = client.get(f"{url}?turn=1").text
    seqs = {item["seq"] for item in items(first_turn)}
    assert 0 in seqs and not seqs & {item["seq"] for item in items(html)}
