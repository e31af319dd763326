"""A turn page folds only the events no page has folded yet (issue 27): the states after
recent events are kept by event hash, so the next page after a move replays nothing
before it, and a page built from kept states reads exactly as one folded afresh."""

from __future__ import annotations

import random
import re

from pbem.games.service import SeatSpec
from pbem.web import boards, play, timeline
from tests.web.conftest import pig_game
from tests.web.test_audit import applied  # noqa: F401 - the fixture is used by name
from tests.web.test_audit import play as play_pig

CSRF = re.compile(r'name="csrf_token" value="[^"]*"|data-csrf="[^"]*"')


def page(client, token: str) -> str:
    play.PAGES.clear()
    answer = client.get(f"/play/{token}")
    assert answer.status_code == 200
    return CSRF.sub("csrf", answer.text)


def test_the_page_after_a_move_replays_and_reads_no_earlier_event(
    client,
    runtime,
    applied,  # noqa: F811
    monkeypatch,
):
    store = runtime.service.store
    read: list[int] = []
    rows = store.rows

    def counted_rows(*args, **kwargs):
        found = rows(*args, **kwargs)
        read.extend(row["seq"] for row in found)
        return found

    monkeypatch.setattr(store, "rows", counted_rows)
    created = pig_game(runtime, seats=3, target=10**6)
    play_pig(runtime.service, created.game_id, 20)
    timeline.clear_states()
    page(client, created.tokens[0])
    assert len(applied) >= 20  # nothing kept yet: the tail was folded
    play_pig(runtime.service, created.game_id, 1)
    head = runtime.service.head(created.game_id)
    waiting = next(seat for seat in range(3) if seat not in head.engine.to_move(head.state))
    applied.clear()
    read.clear()
    page(client, created.tokens[waiting])
    assert applied == []  # the new head is the game's kept head state; the rest were kept
    assert read == [head.seq]  # and only the new event was read
    timeline.clear_states()
    page(client, created.tokens[waiting])
    assert len(applied) >= 20


def test_pages_from_kept_states_read_as_pages_folded_afresh(client, runtime):
    service = runtime.service
    specs = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(4)]
    created = service.create_game("mare_nostrum", specs, {"turn_limit": 2}, seed=b"k" * 32)
    rng = random.Random(5)
    compared = 0
    for step in range(90):
        head = service.head(created.game_id)
        due = sorted(head.engine.to_move(head.state))
        if not due:
            break
        if step % 15 == 14:
            for token in created.tokens:
                kept = page(client, token)
                timeline.clear_states()
                boards.clear_arrangements()
                assert page(client, token) == kept
                compared += 1
            with client.application.app_context():
                tail = timeline.load_tail(created.game_id)
                timeline.clear_states()
                fresh = timeline.load_tail(created.game_id)
            assert tail.states.keys() == fresh.states.keys()
            for seq, state in fresh.states.items():
                assert head.engine.dump(tail.states[seq]) == head.engine.dump(state)
        view = head.engine.view(head.state, due[0])
        move = head.engine.bot_move(view, head.engine.legal_moves(head.state, due[0]), rng)
        service.submit_move(created.game_id, due[0], move, head.seq)
    assert compared >= 8
