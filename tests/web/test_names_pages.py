"""Pages, the API, mails' history lines and refusals name the players: a Mare Nostrum
turn page lists "Take a coin from Ben (Carthage)", never "seat 2"."""

from __future__ import annotations

import html as html_lib
import random
import re

import pytest

from engines import REGISTRY
from engines.mare_nostrum.views import a_card
from pbem.errors import Rejected
from pbem.games.service import SeatSpec

NAMES = ["Ann", "Ben", "Cleo"]
SEAT_NUMBER = re.compile(r"\bseat \d|\{seat:|\{name:", re.IGNORECASE)


def nostrum_until(runtime, done, limit: int = 300):
    """A 3-player Mare Nostrum game of Ann, Ben and Cleo, played by bots' choices through
    the service until ``done(state, seat, legal)`` holds for the seat to move."""
    engine = REGISTRY["mare_nostrum"]
    specs = [SeatSpec(name, f"{name.lower()}@example.org") for name in NAMES]
    created = runtime.service.create_game("mare_nostrum", specs, {"turn_limit": 6})
    rng = random.Random(7)
    for _ in range(limit):
        head = runtime.service.head(created.game_id)
        due = sorted(engine.to_move(head.state))
        assert due, "the game ended first"
        seat = due[0]
        legal = engine.legal_moves(head.state, seat)
        if done(head.state, seat, legal):
            return created, head, seat, legal
        move = engine.bot_move(engine.view(head.state, seat), legal, rng)
        runtime.service.submit_move(created.game_id, seat, move, head.seq)
    pytest.fail("the wanted moment never came")


def civ_of(head, seat: int) -> str:
    return head.engine.view(head.state, None)["players"][seat]["name"]


def buttons(page: str) -> list[str]:
    return [
        html_lib.unescape(label)
        for label in re.findall(r'<button type="submit">([^<]*)</button>', page)
    ]


def test_a_mare_nostrum_turn_page_names_the_other_players_in_its_moves(client, runtime):
    created, head, seat, legal = nostrum_until(
        runtime, lambda state, seat, legal: any(move["type"] == "take" for move in legal)
    )
    page = client.get(f"/play/{created.tokens[seat]}").text
    labels = buttons(page)
    takes = [label for label in labels if label.startswith("Take a")]
    assert takes and len(takes) == sum(move["type"] == "take" for move in legal)
    for move in legal:
        if move["type"] == "take":
            victim = move["from_seat"]
            card = a_card(move["card"])
            wanted = f"Take {card} from {NAMES[victim]} ({civ_of(head, victim)})"
            assert wanted in takes
    assert not SEAT_NUMBER.search(page)
    # The history on the page names the movers too.
    assert re.search(
        r"(Ann|Ben|Cleo) \((Rome|Carthage|Greece|Egypt|Babylon)\) ", html_lib.unescape(page)
    )


def test_the_api_labels_and_the_spectator_history_name_the_players(client, runtime):
    created, head, seat, legal = nostrum_until(
        runtime, lambda state, seat, legal: any(move["type"] == "name_builder" for move in legal)
    )
    answer = client.get(f"/api/play/{created.tokens[seat]}").get_json()
    labels = [entry["label"] for entry in answer["legal_moves"]]
    named = {move["seat"] for move in legal if move["type"] == "name_builder"}
    for other in named:
        assert f"{NAMES[other]} ({civ_of(head, other)}) builds next" in labels
    assert not any(SEAT_NUMBER.search(label) for label in labels)
    history = html_lib.unescape(client.get(f"/games/{created.game_id}").text)
    assert not SEAT_NUMBER.search(history)
    assert f"{NAMES[0]} ({civ_of(head, 0)})" in history


def test_a_refusal_names_the_player_it_is_about(runtime):
    created, head, seat, legal = nostrum_until(
        runtime, lambda state, seat, legal: any(move["type"] == "take" for move in legal)
    )
    offers = head.engine.view(head.state, seat)["trade"]["offers"]
    victim = next(move["from_seat"] for move in legal if move["type"] == "take")
    missing = next(
        kind for kind in ("incense", "gems", "gold", "fish") if not offers[victim].get(kind)
    )
    with pytest.raises(Rejected) as refused:
        runtime.service.submit_move(
            created.game_id, seat, {"type": "take", "from_seat": victim, "card": missing}, head.seq
        )
    assert refused.value.message == (
        f"{NAMES[victim]} ({civ_of(head, victim)}) offers no {missing} card."
    )
    assert runtime.service.head(created.game_id).seq == head.seq  # nothing was applied


def test_a_seat_without_a_civilisation_yet_is_named_by_its_player(client, runtime):
    specs = [SeatSpec(name, f"{name.lower()}@example.org") for name in NAMES]
    created = runtime.service.create_game("mare_nostrum", specs, {"civilisations": "choose"})
    page = html_lib.unescape(client.get(f"/play/{created.tokens[0]}").text)
    assert "Play Rome" in buttons(page)
    assert not SEAT_NUMBER.search(page)
    assert "Ben: 0 provinces" in page
    runtime.service.submit_move(created.game_id, 0, {"type": "choose_civ", "civ": "rome"}, 0)
    page = html_lib.unescape(client.get(f"/play/{created.tokens[1]}").text)
    assert "Ann plays Rome." in page and not SEAT_NUMBER.search(page)


def test_mail_history_lines_name_each_seat_as_its_holder_then(runtime):
    from pbem.eventlog.store import game_engine
    from pbem.games.invitations import invite_replacement, take_seat
    from pbem.mail import history

    created, head, _, _ = nostrum_until(
        runtime, lambda state, seat, legal: state["phase"] == "build"
    )
    before = head.seq
    civ = civ_of(head, 0)
    token = invite_replacement(runtime, created.game_id, 0, "Dee", "dee@example.org").token
    take_seat(runtime, token)
    engine = REGISTRY["mare_nostrum"]
    rng = random.Random(3)
    for _ in range(60):
        head = runtime.service.head(created.game_id)
        seat = min(engine.to_move(head.state))
        legal = engine.legal_moves(head.state, seat)
        move = engine.bot_move(engine.view(head.state, seat), legal, rng)
        runtime.service.submit_move(created.game_id, seat, move, head.seq)
    game = runtime.service.game(created.game_id)
    with runtime.service.reading() as session:
        earlier = history.history(session, runtime, game, game_engine(game), 1, 0, before)[0]
        later = history.history(session, runtime, game, game_engine(game), 1, before)[0]
    assert any(f"Ann ({civ})" in line for line in earlier)
    assert not any("Dee" in line for line in earlier)
    assert any(f"Dee ({civ})" in line for line in later)
    assert not any(SEAT_NUMBER.search(line) for line in earlier + later)


def test_a_seat_export_names_the_players_in_its_lines(client, runtime):
    created, head, seat, legal = nostrum_until(
        runtime, lambda state, seat, legal: any(move["type"] == "name_builder" for move in legal)
    )
    exported = runtime.service.export_game(created.game_id, seat=seat)
    lines = [line for entry in exported["events"] for line in entry.get("lines", [])]
    assert lines and not any(SEAT_NUMBER.search(line) for line in lines)
    assert any(f"{NAMES[0]} ({civ_of(head, 0)})" in line for line in lines)
    download = client.get(f"/play/{created.tokens[seat]}/export.json").get_data(as_text=True)
    assert "{seat:" not in download and "{name:" not in download
