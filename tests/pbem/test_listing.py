"""Game listings paged in the database: keyset pages, filters, counts, and no head_state."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import event, text, update
from sqlmodel import Session

from pbem.errors import BadInput
from pbem.games.listing import make_cursor
from pbem.games.service import GameService, SeatSpec
from pbem.models import Game

START = datetime(2026, 1, 1, tzinfo=UTC)


class Clock:
    """A clock that only moves when told: many games share one updated_at."""

    def __init__(self):
        self.now = START

    def __call__(self):
        return self.now


def new_game(service: GameService, title: str = "") -> str:
    seats = [SeatSpec("A"), SeatSpec("B")]
    return service.create_game("pig", seats, {"target": 50}, title=title).game_id


def walk(service: GameService, between=None, **filters) -> list[str]:
    """Every id of a listing, page by page; ``between`` runs before each next page."""
    seen, after = [], None
    while True:
        page = service.list_games(after=after, **filters)
        seen += [row.id for row in page.games]
        if page.next is None:
            return seen
        if between:
            between()
        after = page.next


def finish(db, game_ids) -> None:
    with Session(db) as session:
        session.exec(update(Game).where(Game.id.in_(game_ids)).values(status="finished"))
        session.commit()


@pytest.fixture
def clocked(db):
    clock = Clock()
    return GameService(db, clock=clock), clock


def test_pages_hold_every_game_once_while_games_are_created(clocked):
    service, clock = clocked
    ids = []
    for number in range(11):
        if number % 4 == 0:  # runs of games with the same updated_at: the id breaks ties
            clock.now += timedelta(seconds=1)
        ids.append(new_game(service))

    created_between = []

    def create_one():
        clock.now += timedelta(seconds=1)
        created_between.append(new_game(service))

    seen = walk(service, between=create_one, limit=3)
    assert len(created_between) == 3
    assert len(seen) == len(set(seen)) == 11
    assert set(seen) == set(ids)
    # newest activity first, the id breaking ties, and the new games on a fresh first page
    first = service.list_games(limit=3)
    assert [row.id for row in first.games] == created_between[::-1]
    rows = service.list_games(limit=200).games
    keys = [(row.updated_at, row.id) for row in rows]
    assert keys == sorted(keys, reverse=True)


def test_filters_and_counts(clocked, db):
    service, clock = clocked
    ids = []
    for _ in range(5):
        clock.now += timedelta(seconds=1)
        ids.append(new_game(service))
    finish(db, ids[:2])
    with Session(db) as session:  # one game of another title
        session.exec(update(Game).where(Game.id == ids[4]).values(engine="mercatores"))
        session.commit()

    page = service.list_games()
    assert page.counts == {"active": 3, "finished": 2} and page.total == 5
    assert page.next is None and len(page.games) == 5

    running = service.list_games(status="active")
    assert {row.id for row in running.games} == set(ids[2:])
    assert all(row.status == "active" for row in running.games) and running.total == 3
    finished = service.list_games(status="finished", limit=1)
    assert finished.total == 2 and len(finished.games) == 1 and finished.next
    assert walk(service, status="finished", limit=1) == [ids[1], ids[0]]

    pig = service.list_games(engine="pig")
    assert pig.counts == {"active": 2, "finished": 2}
    assert {row.id for row in pig.games} == set(ids[:4])
    other = service.list_games(status="active", engine="mercatores")
    assert [row.id for row in other.games] == [ids[4]] and other.total == 1
    assert service.list_games(status="finished", engine="mercatores").games == []


def test_a_move_brings_its_game_up_at_most_once_a_minute(clocked, db):
    """updated_at (the listings' order) moves when a move comes a minute or more after
    it; a move within the minute writes neither listing index."""
    service, clock = clocked
    first, second = new_game(service), None
    clock.now += timedelta(seconds=10)
    second = new_game(service)
    order = [row.id for row in service.list_games().games]
    assert order == [second, first]

    def move(game_id):
        head = service.head(game_id)
        seat = min(head.engine.to_move(head.state))
        service.submit_move(game_id, seat, {"type": "roll"}, head.seq)

    clock.now += timedelta(seconds=40)  # 50 s after the first game began: same minute
    move(first)
    assert service.game(first).updated_at == START
    assert [row.id for row in service.list_games().games] == order
    clock.now += timedelta(seconds=10)  # a minute after: the game comes up
    move(first)
    assert service.game(first).updated_at == START + timedelta(minutes=1)
    assert [row.id for row in service.list_games().games] == [first, second]
    clock.now += timedelta(seconds=59)
    move(first)
    assert service.game(first).updated_at == START + timedelta(minutes=1)


@pytest.mark.parametrize(
    "filters",
    [
        {"status": "paused"},
        {"status": "active'; DROP TABLE games; --"},
        {"engine": "chess"},
        {"after": "not a cursor"},
        {"after": "x" * 500},
        {"after": make_cursor(START.replace(tzinfo=None), "../../etc")},
        {"after": "bm90IGEgZGF0ZXxhYmNk"},  # "not a date|abcd"
        {"limit": 0},
        {"limit": 201},
        {"limit": "10"},
    ],
)
def test_bad_listing_values_are_refused_by_name(service, filters):
    new_game(service)
    with pytest.raises(BadInput):
        service.list_games(**filters)
    assert len(service.list_games().games) == 1


def test_a_listing_never_reads_head_state(service, db):
    for _ in range(3):
        new_game(service)
    statements = []

    def capture(_conn, _cursor, statement, *_args):
        statements.append(statement)

    event.listen(db, "before_cursor_execute", capture)
    try:
        first = service.list_games().games[0]
        cursor = make_cursor(first.updated_at, first.id)
        service.list_games(status="active", engine="pig", after=cursor, limit=1)
    finally:
        event.remove(db, "before_cursor_execute", capture)
    selects = [statement for statement in statements if "games" in statement]
    assert len(selects) == 4
    assert not any("head_state" in statement for statement in statements)
    assert all("LIMIT" in s for s in selects if "count" not in s)


def by_kind(db, sql: str) -> dict[tuple[str, str, bool], int]:
    """Rows of (engine, status, private, number) as a dict."""
    with db.connect() as connection:
        rows = connection.execute(text(sql)).all()
    return {(engine, status, bool(private)): n for engine, status, private, n in rows}


def recount(db) -> dict[tuple[str, str, bool], int]:
    return by_kind(db, "SELECT engine, status, private, count(*) FROM games GROUP BY 1, 2, 3")


def kept(db) -> dict[tuple[str, str, bool], int]:
    return by_kind(db, "SELECT engine, status, private, games FROM game_counts WHERE games > 0")


def ended_events(db) -> tuple[dict, dict]:
    """The events of the games that are not running, kept by the triggers and counted
    again from the games."""
    kept = by_kind(db, "SELECT engine, status, private, events FROM game_counts WHERE games > 0")
    again = by_kind(
        db,
        "SELECT engine, status, private, sum(CASE WHEN status = 'active' THEN 0 "
        "ELSE head_seq + 1 END) FROM games GROUP BY 1, 2, 3",
    )
    return kept, again


def test_the_counts_follow_the_games_whatever_writes_them(service, db):
    """game_counts is kept by triggers: games made by the service, finished by play,
    changed and deleted behind its back, all counted; a move touches no count."""
    ids = [new_game(service) for _ in range(4)]
    assert kept(db) == recount(db) == {("pig", "active", False): 4}
    with db.begin() as connection:
        before = connection.execute(text("SELECT * FROM game_counts")).all()
    head = service.head(ids[0])
    service.submit_move(ids[0], min(head.engine.to_move(head.state)), {"type": "roll"}, head.seq)
    with db.begin() as connection:
        assert connection.execute(text("SELECT * FROM game_counts")).all() == before
    bots = [SeatSpec("Bot 1", is_bot=True), SeatSpec("Bot 2", is_bot=True)]
    played = service.create_game("pig", bots, {"target": 20}).game_id
    service.play_bots(played)
    assert service.game(played).status == "finished"
    assert kept(db) == recount(db)
    with db.begin() as connection:
        connection.execute(text("DELETE FROM games WHERE id = :id"), {"id": played})
    finish(db, ids[:2])
    with Session(db) as session:
        session.exec(update(Game).where(Game.id == ids[2]).values(private=True))
        session.exec(update(Game).where(Game.id == ids[3]).values(engine="mercatores"))
        session.commit()
    assert kept(db) == recount(db)
    assert service.list_games().counts == {"active": 1, "finished": 2}
    kept_events, counted = ended_events(db)
    assert kept_events == counted and kept_events[("pig", "finished", False)] > 2
    with db.begin() as connection:  # an event after the end (an import, a repair...)
        connection.execute(
            text("UPDATE games SET head_seq = head_seq + 5 WHERE id = :id"), {"id": ids[0]}
        )
    kept_events, counted = ended_events(db)
    assert kept_events == counted
    assert service.list_games(engine="mercatores").counts == {"active": 1, "finished": 0}
    with db.begin() as connection:
        connection.execute(text("DELETE FROM games WHERE id = :id"), {"id": ids[0]})
    assert kept(db) == recount(db)
    assert service.list_games().counts == {"active": 1, "finished": 1}
    assert ended_events(db)[0] == ended_events(db)[1]
