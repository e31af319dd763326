"""Ratings and profiles: a finished game records its seats and rates its people once
(bots left out, resigners last, a failure leaving the move standing), handles are
claimed, refused, hidden and deleted, and the leaderboard lists shown handles only.
On SQLite and PostgreSQL."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from pbem.errors import BadInput, NotFound, Rejected, TooMany
from pbem.games import profiles, ratings, rescue
from pbem.games.portable import import_full
from pbem.games.service import SeatSpec
from pbem.models import PlayerGame, RatedGame, Rating
from tests.games.test_full_export import elsewhere  # noqa: F401 - a fixture
from tests.mail.conftest import new_game, take_turn


def finish(runtime, game_id: str) -> None:
    for _ in range(400):
        if runtime.service.game(game_id).status != "active":
            return
        take_turn(runtime, game_id, rolls=2)
    raise AssertionError("the game did not end")


def rows(runtime, model, **where):
    with Session(runtime.db) as session:
        query = select(model)
        for key, value in where.items():
            query = query.where(getattr(model, key) == value)
        return list(session.exec(query))


def test_a_finished_game_rates_its_people_once_in_the_order_of_its_result(runtime):
    game = new_game(runtime, seats=3, target=15)
    finish(runtime, game.game_id)
    seats = {row.seat: row for row in rows(runtime, PlayerGame, game_id=game.game_id)}
    assert sorted(seats) == [0, 1, 2]
    assert {row.person for row in seats.values()} == {
        "anna@example.org",
        "ben@example.org",
        "cleo@example.org",
    }
    result = runtime.service.game(game.game_id).result
    (winner,) = result["winners"]
    assert seats[winner].rank == 1 and all(seats[s].rank > 1 for s in seats if s != winner)
    assert sum(row.moves for row in seats.values()) >= 3
    board = {row.person: row for row in rows(runtime, Rating, engine="pig")}
    assert all(row.games == 1 for row in board.values())
    best = board[seats[winner].person]
    assert best.mu > 25 and all(row.mu < best.mu for row in board.values() if row is not best)
    assert best.conservative == pytest.approx(best.mu - 3 * best.sigma)
    assert [row.rated for row in rows(runtime, RatedGame)] == [True]
    # Once: recording it again (a replay, a second listener) changes nothing.
    with Session(runtime.db) as session:
        assert ratings.record(session, runtime, game.game_id) is False
        session.commit()
    assert all(row.games == 1 for row in rows(runtime, Rating))
    assert len(rows(runtime, PlayerGame)) == 3


def test_bots_are_not_rated_and_the_people_rank_among_themselves(runtime):
    made = runtime.service.create_game(
        "pig",
        [
            SeatSpec("Anna", "anna@example.org"),
            SeatSpec("Robo", is_bot=True),
            SeatSpec("Ben", "BEN@example.org"),
        ],
        {"target": 15},
    )
    finish(runtime, made.game_id)
    seats = {row.seat: row for row in rows(runtime, PlayerGame, game_id=made.game_id)}
    assert seats[1].person == "" and seats[1].mu is None
    assert seats[2].person == "ben@example.org"  # the address in lower case
    assert {row.person for row in rows(runtime, Rating)} == {"anna@example.org", "ben@example.org"}
    anna, ben = seats[0], seats[2]
    if anna.rank != ben.rank:
        better, worse = (anna, ben) if anna.rank < ben.rank else (ben, anna)
        assert better.mu > worse.mu


def test_one_person_against_bots_is_recorded_but_not_rated(runtime):
    made = runtime.service.create_game(
        "pig", [SeatSpec("Anna", "anna@example.org"), SeatSpec("Robo", is_bot=True)], {"target": 10}
    )
    finish(runtime, made.game_id)
    assert [row.rated for row in rows(runtime, RatedGame)] == [False]
    assert rows(runtime, Rating) == []
    assert len(rows(runtime, PlayerGame, game_id=made.game_id)) == 2


def test_a_resigned_player_is_rated_last(runtime):
    game = new_game(runtime, seats=3, target=15)
    rescue.resign(runtime, game.game_id, 1, by=1)
    finish(runtime, game.game_id)
    seats = {row.seat: row for row in rows(runtime, PlayerGame, game_id=game.game_id)}
    assert seats[1].person == "ben@example.org" and seats[1].resigned
    board = {row.person: row for row in rows(runtime, Rating)}
    assert board["ben@example.org"].mu < min(
        board[p].mu for p in ("anna@example.org", "cleo@example.org")
    )


def test_a_failing_rating_leaves_the_move_standing(runtime, monkeypatch):
    def broken():
        raise RuntimeError("the rating model is broken")

    monkeypatch.setattr(ratings, "model", broken)
    game = new_game(runtime, seats=2, target=10)
    finish(runtime, game.game_id)
    assert runtime.service.game(game.game_id).status == "finished"
    assert rows(runtime, RatedGame) == [] and rows(runtime, Rating) == []


def test_the_last_move_counts_in_the_figures_and_a_deadline_move_is_a_missed_deadline(runtime):
    game = new_game(runtime, seats=2, target=10)
    head = runtime.service.head(game.game_id)
    late = sorted(head.engine.to_move(head.state))[0]
    runtime.service.submit_move(
        game.game_id, late, {"type": "stop"}, head.seq, kind="auto_move", actor="deadline"
    )
    finish(runtime, game.game_id)
    events = runtime.service.events(game.game_id)
    moves = [e for e in events if e["kind"] in ("move", "auto_move")]
    recorded = {row.seat: row.moves for row in rows(runtime, PlayerGame, game_id=game.game_id)}
    assert sum(recorded.values()) == len(moves)
    missed = {row.seat: row.missed_deadlines for row in rows(runtime, PlayerGame)}
    assert missed == {late: 1, 1 - late: 0}


def test_a_game_imported_finished_is_not_rated_by_the_importing_server(runtime, elsewhere, clock):  # noqa: F811
    game = new_game(runtime, seats=2, target=10)
    finish(runtime, game.game_id)
    assert len(rows(runtime, Rating)) == 2
    import_full(
        elsewhere.service, runtime.service.export_game(game.game_id, full=True), runtime=elsewhere
    )
    assert elsewhere.service.game(game.game_id).status == "finished"
    assert rows(elsewhere, Rating) == [] and rows(elsewhere, RatedGame) == []


@pytest.mark.parametrize(
    "handle",
    [
        "ab",
        "x" * 25,
        "with space",
        "émile",
        "admin",
        "Admin_2",
        "the-ADM1N",
        "superbot",
        "bot_x",
        "moderator7",
        "pbem",
        "ratings",
        "SysTem",
        "bot7",
        "x-mod",
        "r0bot",
        "SUPP0RT",
    ],
)
def test_bad_and_reserved_handles_are_refused(handle):
    with pytest.raises(BadInput):
        profiles.clean_handle(handle)


@pytest.mark.parametrize("handle", ["Bottle", "Modesty", "anna-k", "Nina_1987", "abc"])
def test_ordinary_handles_are_taken_as_written(handle):
    assert profiles.clean_handle(f"  {handle} ") == handle


def test_handles_are_unique_whatever_their_case_and_hidden_or_deleted_pages_are_gone(
    runtime, clock
):
    assert profiles.claim(runtime, "anna@example.org", "Anna_K") == "Anna_K"
    with pytest.raises(Rejected):
        profiles.claim(runtime, "ben@example.org", "anna_k")
    assert profiles.public_profile(runtime, "ANNA_K").handle == "Anna_K"
    profiles.set_hidden(runtime, "anna@example.org", True)
    with pytest.raises(NotFound):
        profiles.public_profile(runtime, "Anna_K")
    profiles.set_hidden(runtime, "anna@example.org", False)
    # A rename frees nothing at once: the old handle is kept from others for a while.
    profiles.claim(runtime, "anna@example.org", "AnnaK")
    with pytest.raises(Rejected):
        profiles.claim(runtime, "ben@example.org", "Anna_K")
    profiles.delete(runtime, "anna@example.org")
    with pytest.raises(NotFound):
        profiles.public_profile(runtime, "AnnaK")
    with pytest.raises(Rejected):
        profiles.claim(runtime, "ben@example.org", "annak")
    clock.advance(days=profiles.FREED_AFTER.days + 1)
    assert profiles.claim(runtime, "ben@example.org", "annak") == "annak"
    assert profiles.own_profile(runtime, "anna@example.org") is None


def test_claims_are_limited_per_address_and_per_client(runtime):
    for n in range(profiles.LIMITS["address"]):
        profiles.claim(runtime, "anna@example.org", f"anna{n}")
    with pytest.raises(TooMany):
        profiles.claim(runtime, "anna@example.org", "anna_last")
    for n in range(profiles.LIMITS["client"]):
        profiles.claim(runtime, f"p{n}@example.org", f"player{n}", client="10.0.0.9")
    with pytest.raises(TooMany):
        profiles.claim(runtime, "zed@example.org", "zed", client="10.0.0.9")
    assert profiles.own_profile(runtime, "zed@example.org") is None


def test_profiles_and_the_leaderboard_show_handles_never_addresses(runtime):
    game = new_game(runtime, seats=3, target=15)
    finish(runtime, game.game_id)
    # Ratings were kept before anyone claimed a handle: a later claim shows them.
    assert ratings.leaderboard(runtime, "pig") == ([], False)
    profiles.claim(runtime, "anna@example.org", "anna")
    profiles.claim(runtime, "ben@example.org", "ben")
    lines, more = ratings.leaderboard(runtime, "pig")
    assert [line.handle for line in lines] == sorted(
        ["anna", "ben"], key=lambda h: -next(x.rating for x in lines if x.handle == h)
    )
    assert not more and lines[0].rating >= lines[1].rating
    page = profiles.public_profile(runtime, "anna")
    assert page.played == 1 and page.titles and page.ratings[0].games == 1
    assert len(page.ratings[0].history) == 2  # where everybody starts, then the game
    assert page.ratings[0].history[0][1] == pytest.approx(0.0)
    assert [name for _, name in page.games[0].table] and "Cleo" in str(page.games[0].table)
    assert "@" not in repr(page)
    # A private game counts, but shows neither its title nor who played it.
    hidden = runtime.service.create_game(
        "pig",
        [SeatSpec("Anna P", "anna@example.org"), SeatSpec("Secret Sam", "sam@example.org")],
        {"target": 10},
        title="Quiet table",
        private=True,
    )
    finish(runtime, hidden.game_id)
    page = profiles.public_profile(runtime, "anna")
    assert page.played == 2 and page.ratings[0].games == 2
    assert "Quiet table" not in repr(page) and "Secret Sam" not in repr(page)
    assert hidden.game_id not in repr(page)
    profiles.set_hidden(runtime, "ben@example.org", True)
    assert [line.handle for line in ratings.leaderboard(runtime, "pig")[0]] == ["anna"]
    runtime.config.setdefault("ratings", {})["min_games"] = 3
    assert ratings.leaderboard(runtime, "pig")[0] == []
