"""Draws no single party can steer: the contributions to the draws (chance scheme 2).

The server commits to its seed before anyone contributes; every draw mixes the seed with
the contributions recorded before it (pbem.eventlog.chance, pbem.eventlog.contributions).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter

import pytest

from pbem.errors import BadInput, Rejected
from pbem.eventlog import chance
from pbem.eventlog import contributions as contrib
from pbem.eventlog.verify import verify_export
from pbem.games.portable import export_text, import_game
from pbem.games.service import GameService, SeatSpec
from tests.databases import sqlite_engine

GAME = "grind"
BOUND = 12  # the fixture's first set-up draw: one of its 12 bonus cards
GROUND = 10_000  # server seeds tried
WANTED = 0  # the set-up the server would like


def _seed(number: int) -> bytes:
    return hashlib.sha256(f"server seed {number}".encode()).digest()


def _chi_square(counts: Counter, total: int, bound: int) -> float:
    expected = total / bound
    return sum((counts[value] - expected) ** 2 / expected for value in range(bound))


def test_grinding_server_seeds_does_not_choose_the_set_up():
    """Without contributions a server that grinds 10,000 seeds gets the set-up it wants;
    with them it only knows its guess of the contributions, and the seeds it picks for
    that guess give the wanted set-up no more often than any seed: the set-up's
    distribution under the real (fixed) contributions stays uniform."""
    # Scheme 1: the seed alone decides; grinding finds seeds that force the set-up.
    alone = [n for n in range(GROUND) if chance.derive(_seed(n), GAME, 0, 0, BOUND) == WANTED]
    assert alone and all(
        chance.derive(_seed(n), GAME, 0, 0, BOUND) == WANTED for n in alone
    )  # each of them gives it every time: the server chose the set-up

    # Scheme 2: the players' contributions are fixed but unseen by the server.
    real = chance.mix_of([chance.contribution_hash(text) for text in ("Anna's dice", "7f3a9c")])
    guess = chance.mix_of([chance.contribution_hash(text) for text in ("a guess", "another")])
    picked = [
        n for n in range(GROUND) if chance.derive(_seed(n), GAME, 0, 0, BOUND, guess) == WANTED
    ]
    outcomes = Counter(chance.derive(_seed(n), GAME, 0, 0, BOUND, real) for n in picked)
    everyone = Counter(chance.derive(_seed(n), GAME, 0, 0, BOUND, real) for n in range(GROUND))
    picked_chi = _chi_square(outcomes, len(picked), BOUND)
    all_chi = _chi_square(everyone, GROUND, BOUND)
    print(
        f"\nscheme 1: {len(alone)} of {GROUND} seeds force set-up {WANTED} (certainly)"
        f"\nscheme 2: {len(picked)} seeds picked for the guess; under the real "
        f"contributions they give {dict(sorted(outcomes.items()))}"
        f" (chi-square {picked_chi:.1f}, 11 degrees of freedom)"
        f"\nall {GROUND} seeds under the real contributions: {dict(sorted(everyone.items()))}"
        f" (chi-square {all_chi:.1f})"
    )
    assert len(picked) > 600  # about 10,000 / 12
    # 11 degrees of freedom: the 99.99th percentile is about 35.
    assert picked_chi < 40 and all_chi < 40
    # The wanted set-up comes about 1 time in 12, not every time.
    assert outcomes[WANTED] / len(picked) < 0.15
    assert abs(outcomes[WANTED] / len(picked) - everyone[WANTED] / GROUND) < 0.05


def test_mix_folds_hashes_in_order():
    one, two = chance.contribution_hash("a"), chance.contribution_hash("b")
    assert chance.mix_of([]) == chance.NO_MIX
    assert chance.mix_of([one, two]) == chance.mix_with(chance.mix_with(chance.NO_MIX, one), two)
    assert chance.mix_of([one, two]) != chance.mix_of([two, one])
    seed = _seed(1)
    draws = [chance.derive(seed, "g", 3, k, 100, chance.mix_of([one])) for k in range(20)]
    assert draws != [chance.derive(seed, "g", 3, k, 100, chance.mix_of([two])) for k in range(20)]
    assert draws != [chance.derive(seed, "g", 3, k, 100) for k in range(20)]


@pytest.mark.parametrize("bad", ["", "   ", "x" * 201, "tab\there", 5, None])
def test_a_contribution_is_one_printable_line(bad):
    with pytest.raises(ValueError):
        chance.clean_contribution(bad)
    assert chance.clean_contribution("  my lucky words  ") == "my lucky words"


def _play_to_end(service: GameService, game_id: str) -> None:
    for _ in range(400):
        game = service.game(game_id)
        if game.status != "active":
            return
        view = service.view(game_id, None)
        seat = view["to_move"][0]
        move = {"type": "stop"} if view["pot"] >= 6 else {"type": "roll"}
        service.submit_move(game_id, seat, move, game.head_seq)
    raise AssertionError("the game did not end")


def _game(service: GameService, target: int = 10) -> str:
    seats = [SeatSpec("Ann", "ann@example.org"), SeatSpec("Ben", "ben@example.org")]
    creator = contrib.record(0, "creator", "browser", "Ann's own words")
    created = service.create_game("pig", seats, {"target": target}, contributions=[creator])
    return created.game_id


def test_a_whole_game_verifies_with_contributions_and_says_whose(service):
    game_id = _game(service)
    created = service.events(game_id)[0]["payload"]
    assert created["chance"] == 2
    assert created["contributions"][0]["by"] == "browser"
    # Ben's first move comes without a contribution: the server draws one for him.
    _play_until_seat(service, game_id, 1)
    head = service.game(game_id).head_seq
    assert service.contribute_before_move(game_id, 1, head) == head + 1
    event = service.events(game_id, after=head)[0]
    assert event["kind"] == "contribution" and event["seat"] == 1
    assert event["payload"]["by"] == "server"
    _play_to_end(service, game_id)
    data = json.loads(export_text(service, game_id, full=True))
    report = verify_export(data)
    assert report.ok, report.message
    assert f"draws of events 0-{head + 1}: creator Ann, seat 1 (browser)" in report.message
    assert "Ben, seat 2 (server-drawn for a mail-only player)" in report.coverage
    assert "re-derived from the seed and the contributions" in report.message


def _play_until_seat(service: GameService, game_id: str, seat: int) -> None:
    for _ in range(100):
        game = service.game(game_id)
        if seat in game.to_move:
            return
        mover = game.to_move[0]
        service.submit_move(game_id, mover, {"type": "roll"}, game.head_seq)
    raise AssertionError("the seat never came to move")


def test_changing_one_contribution_in_an_export_is_named(service):
    game_id = _game(service)
    _play_until_seat(service, game_id, 1)
    service.contribute(game_id, 1, "Ben's words", "browser")
    _play_to_end(service, game_id)
    data = json.loads(export_text(service, game_id, full=True))
    assert verify_export(data).ok
    at = next(row["seq"] for row in data["events"] if row["kind"] == "contribution")

    # The text alone changed: its sha256 no longer matches, named with its seat.
    edited = json.loads(json.dumps(data))
    edited["events"][at]["payload"]["contribution"] = "Ben's other words"
    report = verify_export(edited)
    assert not report.ok and report.first_bad_seq == at
    assert "the contribution of Ben, seat 2 (browser)" in report.message

    # Text and sha256 changed together: the chain catches it, naming the contribution.
    edited["events"][at]["payload"]["sha256"] = chance.contribution_hash("Ben's other words")
    report = verify_export(edited)
    assert not report.ok and report.first_bad_seq == at
    assert "it is the contribution of Ben, seat 2 (browser)" in report.message

    # The creator's, in the first event.
    edited = json.loads(json.dumps(data))
    edited["events"][0]["payload"]["contributions"][0]["contribution"] = "forged"
    report = verify_export(edited)
    assert not report.ok and report.first_bad_seq == 0
    assert "creator Ann, seat 1 (browser)" in report.message


def test_a_seat_contributes_once_and_bots_never(service):
    seats = [SeatSpec("Ann", "ann@example.org"), SeatSpec("Bot", is_bot=True)]
    game_id = service.create_game("pig", seats, {"target": 50}).game_id
    created = service.events(game_id)[0]["payload"]
    assert created["contributions"][0]["by"] == "server"  # made in one step
    with pytest.raises(Rejected, match="already"):
        service.contribute(game_id, 0, "again", "browser")
    with pytest.raises(Rejected, match="bot"):
        service.contribute(game_id, 1, "beep", "browser")
    with pytest.raises(BadInput):
        service.contribute(game_id, 0, "", "browser")
    assert not service.needs_contribution(game_id, 0)


def test_a_two_step_creation_is_made_once(service):
    pending, commitment = service.begin_game()
    creator = contrib.record(0, "creator", "command line", "typed at a prompt")
    seats = [SeatSpec("Ann", "ann@example.org"), SeatSpec("Bot", is_bot=True)]
    created = service.create_game("pig", seats, contributions=[creator], pending=pending)
    assert created.game_id == pending and created.commitment == commitment
    with pytest.raises(Rejected, match="made already"):
        service.create_game("pig", seats, contributions=[creator], pending=pending)
    with pytest.raises(Rejected, match="not one the server gave"):
        service.create_game("pig", seats, contributions=[creator], pending="0" * 20)
    assert len(service.games()) == 1


def test_a_bad_second_step_writes_nothing_and_can_be_retried(service):
    pending, _ = service.begin_game()
    seats = [SeatSpec("Ann", "ann@example.org")]
    bad = {**contrib.record(0, "creator", "browser", "x"), "sha256": "0" * 64}
    with pytest.raises(BadInput):
        service.create_game("pig", seats, contributions=[bad], pending=pending)
    assert service.games() == []
    good = contrib.record(0, "creator", "browser", "x")
    assert service.create_game("pig", seats, contributions=[good], pending=pending).game_id


def test_old_scheme_games_still_verify_and_take_no_contribution(service):
    seats = [SeatSpec("Ann", "ann@example.org"), SeatSpec("Ben", "ben@example.org")]
    game_id = service.create_game("pig", seats, {"target": 10}, chance_scheme=1).game_id
    assert "chance" not in service.events(game_id)[0]["payload"]
    assert not service.needs_contribution(game_id, 1)
    with pytest.raises(Rejected, match="seed alone"):
        service.contribute(game_id, 1, "late", "browser")
    _play_to_end(service, game_id)
    report = verify_export(json.loads(export_text(service, game_id, full=True)))
    assert report.ok and report.coverage == ""
    assert "re-derived from the seed;" in report.message


def test_an_import_carries_the_mix_on(sqlite_db, tmp_path):
    service = GameService(sqlite_db, snapshot_every=10)
    game_id = _game(service, target=60)
    _play_until_seat(service, game_id, 1)
    service.contribute(game_id, 1, "Ben's words", "browser")
    service.submit_move(game_id, 1, {"type": "roll"}, service.game(game_id).head_seq)
    data = json.loads(export_text(service, game_id, full=True))
    elsewhere = sqlite_engine(tmp_path / "elsewhere.sqlite3")  # another server
    try:
        other = GameService(elsewhere, snapshot_every=10)
        import_game(other, data, mail=False)
        assert not other.needs_contribution(game_id, 1)
        _play_to_end(other, game_id)
        report = verify_export(json.loads(export_text(other, game_id, full=True)))
    finally:
        elsewhere.dispose()
    assert report.ok, report.message
    assert "Ben, seat 2 (browser)" in report.coverage


def test_a_server_drawn_contribution_is_fixed_by_the_seed(service):
    """The server has no choice of the contributions it draws: each follows from the
    committed seed, and verify checks it once the seed is revealed."""
    seats = [SeatSpec("Ann", "ann@example.org"), SeatSpec("Ben", "ben@example.org")]
    game_id = service.create_game("pig", seats, {"target": 10}).game_id
    _play_until_seat(service, game_id, 1)
    service.contribute(game_id, 1, "a value the server would like", "server")
    _play_to_end(service, game_id)
    data = json.loads(export_text(service, game_id, full=True))
    seed = bytes.fromhex(verify_export(data).seed_hex)
    creator = data["events"][0]["payload"]["contributions"][0]
    assert creator["contribution"] == chance.server_contribution(seed, game_id, "creator")
    at = next(row["seq"] for row in data["events"] if row["kind"] == "contribution")
    ben = data["events"][at]["payload"]
    assert ben["contribution"] == chance.server_contribution(seed, game_id, "1")
    assert verify_export(data).ok
    # A server that picked its own value instead is caught, and the seat named.
    other = "a value the server would like"
    data["events"][at]["payload"].update(contribution=other, sha256=chance.contribution_hash(other))
    report = verify_export(data)
    assert not report.ok and report.first_bad_seq == at
    assert "Ben, seat 2" in report.message and "not the one the seed gives" in report.message


def test_a_first_step_never_taken_lapses(service):
    from datetime import timedelta

    from pbem.games.service import PENDING_LAPSES
    from pbem.models import PendingGame

    now = service.clock()
    old, _ = service.begin_game()
    service.clock = lambda: now + PENDING_LAPSES + timedelta(minutes=1)
    seats = [SeatSpec("Ann", "ann@example.org")]
    with pytest.raises(Rejected, match="waited too long"):
        service.pending_game(old)
    fresh, _ = service.begin_game()  # a new first step clears the lapsed ones
    with service.reading() as session:
        assert session.get(PendingGame, old) is None
    assert service.create_game("pig", seats, pending=fresh).game_id == fresh
