"""Security over HTTP: what a seat may see, links, CSRF and concurrent submissions."""

from __future__ import annotations

import json
import random
import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlmodel import Session

from engines.api import canonical_json
from pbem.games.service import SeatSpec
from pbem.models import Game
from tests.web.conftest import form_fields, pig_game

CARD_ID = re.compile(r"(?<![\w-])((?:corn|cotton|tobacco|cocoa|coffee)-\d\d|[wqt]\d{1,2})(?![\w-])")


def api_move(client, token: str, rng: random.Random) -> int:
    """Plays the seat's bot move through the API; the answer's status."""
    seat = client.get(f"/api/play/{token}").json
    engine_moves = [entry["move"] for entry in seat["legal_moves"]]
    from engines import get_engine

    move = get_engine(seat["game"]).bot_move(seat["view"], engine_moves, rng)
    answer = client.post(
        f"/api/play/{token}/moves", json={"move": move, "expected_seq": seat["seq"]}
    )
    return answer.status_code


def test_no_answer_for_a_seat_holds_a_card_it_never_saw(sqlite_runtime):
    from pbem.web import create_app

    runtime = sqlite_runtime
    client = create_app(runtime=runtime).test_client()
    seats = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(3)]
    created = runtime.service.create_game("mercatores", seats, seed=b"\x07" * 32)
    rng = random.Random(3)
    for _ in range(30):
        due = runtime.service.game(created.game_id).to_move
        assert api_move(client, created.tokens[due[0]], rng) == 200
    engine, _, head = runtime.service.state_at(created.game_id)
    states = [runtime.service.state_at(created.game_id, seq)[1] for seq in range(head + 1)]
    every_card = (
        set(engine.dump(states[0])["deck"])
        | {card for hand in engine.dump(states[0])["hands"] for card in hand}
        | set(engine.dump(states[0])["market"])
    )
    assert len(every_card) > 60
    for viewer, token in [(None, None), *enumerate(created.tokens)]:
        seen = set()
        for state in states:
            seen |= set(CARD_ID.findall(canonical_json(engine.view(state, viewer))))
        forbidden = every_card - seen
        assert forbidden, "every card was seen: the test would prove nothing"
        if token is None:
            urls = [f"/games/{created.game_id}", f"/api/games/{created.game_id}"]
            urls += [f"/games/{created.game_id}/history?at={seq}" for seq in range(head + 1)]
            history = f"/games/{created.game_id}/history"
        else:
            urls = [f"/play/{token}", f"/api/play/{token}", f"/play/{token}/export.json"]
            urls += [f"/play/{token}/history?at={seq}" for seq in range(head + 1)]
            history = f"/play/{token}/history"
        # The grouped and filtered history, its turn jump and the script's board steps.
        urls += [f"{history}?kind={kind}" for kind in ("moves", "draws", "talk", "seats")]
        urls += [f"{history}?player={seat}&kind=moves" for seat in range(3)]
        urls += [f"{history}?turn={turn}" for turn in range(1, 4)]
        urls += [f"{history}/step?at={seq}" for seq in range(head + 1)]
        for url in urls:
            answer = client.get(url)
            assert answer.status_code == 200, url
            leaked = set(CARD_ID.findall(answer.text)) & forbidden
            assert not leaked, f"{url} shows {sorted(leaked)} to viewer {viewer}"


def balticum_pairs():
    """Mare Balticum: a secret production choice (the engine's twin games), sampled."""
    from engines.mare_balticum import ENGINE
    from tests.engines.mare_balticum.test_hidden import twin_games

    differing = 0
    for _, _, _, _, after1, _, after2 in twin_games(3, {}, 5, 1):
        if ENGINE.dump(after1) == ENGINE.dump(after2) or ENGINE.result(after1) is not None:
            continue
        differing += 1
        if differing % 5 == 1:
            yield after1, after2
        if differing > 20:
            return


def mercatores_pairs():
    """Mercatores: one card of a hand swapped with its neighbour in the deck."""
    from engines.api import SeededChance
    from engines.mercatores import ENGINE
    from tests.engines.mercatores.test_views import neighbour_swap

    state = ENGINE.setup(3, {}, SeededChance(4))
    yield state, neighbour_swap(state, 1)[0]


def nostrum_pairs():
    """Mare Nostrum: two different hands, and two different secret offers (seat 0's)."""
    from tests.engines.mare_nostrum.helpers import play, start, with_hand

    yield with_hand(start(4), 0, grain=2, coin=1), with_hand(start(4), 0, fish=1, gold=1, coin=1)
    state = play(with_hand(start(4), 0, grain=2, fish=1), 1, {"type": "set_trade", "n": 2})
    yield (
        play(state, 0, {"type": "offer", "cards": ["grain", "fish"]}),
        play(state, 0, {"type": "offer", "cards": ["grain", "grain"]}),
    )


PAIRS = {
    "mare_balticum": (3, 1, balticum_pairs),
    "mercatores": (3, 1, mercatores_pairs),
    "mare_nostrum": (4, 0, nostrum_pairs),
}


@pytest.mark.parametrize("slug", sorted(PAIRS))
def test_what_a_seat_may_not_see_changes_none_of_its_answers(sqlite_runtime, slug):
    """The engines' non-interference pairs, over HTTP: two states that differ only in
    what one seat may see give every other seat and a spectator the very same answers."""
    from engines import get_engine
    from pbem.web import create_app, play

    runtime = sqlite_runtime
    engine = get_engine(slug)
    seats, secret, pairs = PAIRS[slug]
    client = create_app(runtime=runtime).test_client()
    specs = [SeatSpec(f"P{i}", f"p{i}@example.org") for i in range(seats)]
    created = runtime.service.create_game(slug, specs)
    others = [token for seat, token in enumerate(created.tokens) if seat != secret]
    urls = [f"/play/{token}" for token in others] + [f"/api/play/{token}" for token in others]
    urls.append(f"/api/games/{created.game_id}")
    # The history by turn, filtered, and the board step its script fetches at the head.
    head = runtime.service.game(created.game_id).head_seq
    for history in [f"/games/{created.game_id}/history"] + [f"/play/{t}/history" for t in others]:
        urls += [history, f"{history}?kind=moves&player={secret}", f"{history}?turn=1"]
        urls.append(f"{history}/step?at={head}")
    checked = owner_pages_differ = 0
    for first, second in pairs():
        answers, own, own_page = [], [], []
        for state in (first, second):
            with Session(runtime.db) as session:
                game = session.get(Game, created.game_id)
                game.head_state = engine.dump(state)
                session.add(game)
                session.commit()
            play.PAGES.clear()
            answers.append([client.get(url).text for url in urls])
            own.append(client.get(f"/api/play/{created.tokens[secret]}").json["view"])
            own_page.append(client.get(f"/play/{created.tokens[secret]}").text)
        assert own[0] != own[1], "the pair differs in nothing the secret's owner sees"
        for url, one, other in zip(urls, *answers, strict=True):
            assert one == other, f"{url} changes with what seat {secret} alone may see"
        checked += 1
        owner_pages_differ += own_page[0] != own_page[1]
    assert checked >= 1 and owner_pages_differ >= 1


def test_forged_revoked_and_foreign_links_get_404_and_no_information(client, runtime):
    created = pig_game(runtime)
    other = pig_game(runtime)
    revoked = created.tokens[1]
    runtime.service.rotate_token(created.game_id, 1)
    forged = "A" * 43
    for token in (forged, revoked, "short", "x" * 400):
        for url in (
            f"/play/{token}",
            f"/play/{token}/history",
            f"/play/{token}/export.json",
            f"/api/play/{token}",
        ):
            answer = client.get(url)
            assert answer.status_code == 404, url
            assert created.game_id not in answer.text
            # The seat's name, as a word: a random token on the page (a form's, a nonce)
            # may hold the letters "P1" by chance.
            assert not re.search(r"(?<![\w-])P1(?![\w-])", answer.text)
    # A seat's link opens its own game only: another game's id in the path changes nothing.
    answer = client.get(f"/api/play/{other.tokens[0]}")
    assert answer.json["id"] == other.game_id
    assert client.get("/games/nosuchgame").status_code == 404


def test_a_post_without_the_csrf_token_is_refused(client, runtime):
    created = pig_game(runtime)
    token = created.tokens[0]
    _, seq = form_fields(client.get(f"/play/{token}").text)
    move = json.dumps({"type": "stop"})
    for data in ({"seq": seq, "move": move}, {"seq": seq, "move": move, "csrf_token": "forged"}):
        answer = client.post(f"/play/{token}/move", data=data)
        assert answer.status_code == 400 and "expired" in answer.text
        answer = client.post(f"/play/{token}/take-back", data=data)
        assert answer.status_code == 400
    fresh = type(client)(client.application)
    assert fresh.post("/games", data={"game": "pig"}).status_code == 400
    assert runtime.service.head(created.game_id).seq == 0
    assert len(runtime.service.games()) == 1


def test_fifty_concurrent_posts_of_the_same_move_land_once(app, runtime):
    created = pig_game(runtime)
    token = created.tokens[0]

    def post(_):
        answer = app.test_client().post(
            f"/api/play/{token}/moves", json={"move": {"type": "stop"}, "expected_seq": 0}
        )
        return answer.status_code

    with ThreadPoolExecutor(max_workers=10) as pool:
        statuses = list(pool.map(post, range(50)))
    assert set(statuses) <= {200, 409}, statuses
    assert 200 in statuses
    events = runtime.service.events(created.game_id)
    assert [event["kind"] for event in events] == ["created", "move"]


def test_a_cached_turn_page_carries_each_visitors_own_csrf_token(app, runtime):
    created = pig_game(runtime)
    token = created.tokens[0]
    first, second = app.test_client(), app.test_client()
    csrf_first, seq = form_fields(first.get(f"/play/{token}").text)
    csrf_second, _ = form_fields(second.get(f"/play/{token}").text)
    assert csrf_first != csrf_second
    move = json.dumps({"type": "stop"})
    refused = first.post(
        f"/play/{token}/move", data={"csrf_token": csrf_second, "seq": seq, "move": move}
    )
    assert refused.status_code == 400
    made = second.post(
        f"/play/{token}/move",
        data={"csrf_token": csrf_second, "seq": seq, "move": move, "confirmed": "1"},
    )
    assert made.status_code == 303
    assert "(event 1)" in first.get(f"/play/{token}").text


def test_a_replaced_link_gets_a_page_whose_forms_use_the_new_link(client, runtime):
    created = pig_game(runtime)
    old = created.tokens[0]
    assert old in client.get(f"/play/{old}").text
    new = runtime.service.rotate_token(created.game_id, 0)
    assert client.get(f"/play/{old}").status_code == 404
    page = client.get(f"/play/{new}").text
    assert new in page and old not in page
