"""Open games: a creator leaves seats open, strangers join with a name and an address and
confirm by mail, and the game starts when its seats are full (or with bots, when the
creator says so). Attacks too: joining twice, confirming for someone else, flooding an
address, joining a game that started or is full. On SQLite and PostgreSQL."""

from __future__ import annotations

import re

import pytest
from sqlmodel import select

from pbem.errors import BadInput, Gone, NotFound, Rejected, TooMany
from pbem.games import open_games
from pbem.games.service import SeatSpec
from pbem.scheduler import dispatch
from tests.mail.conftest import part

CONFIRM = re.compile(r"/open/confirm/([A-Za-z0-9_-]{20,100})")
MANAGE = re.compile(r"/open/manage/([A-Za-z0-9_-]{20,100})")
PLAY = re.compile(r"/play/([A-Za-z0-9_-]{20,100})")


def make_open(runtime, open_seats: int = 2, bots: int = 0, **kwargs) -> open_games.OpenCreated:
    seats = [SeatSpec("Anna", "anna@example.org", timezone="Europe/Berlin")]
    seats += [SeatSpec(f"Robo {n}", is_bot=True) for n in range(bots)]
    seats += [None] * open_seats
    return open_games.create_open(
        runtime, "pig", seats, {"target": 20}, title="Pig night", **kwargs
    )


def link(mailbox, address: str, pattern=CONFIRM) -> str:
    return pattern.search(part(mailbox.to(address)[-1], "plain")).group(1)


def test_strangers_join_confirm_by_mail_and_the_game_starts_when_full(runtime, mailbox):
    created = make_open(runtime)
    dispatch(runtime)
    assert link(mailbox, "anna@example.org", MANAGE) == created.token
    listed = open_games.list_open(runtime)
    assert [game.id for game in listed] == [created.game_id]
    assert listed[0].seats_left == 2 and listed[0].engine_title
    joined = open_games.join(runtime, created.game_id, "Ben", "ben@example.net")
    assert "ben@example.net" in joined.message and joined.token not in joined.message
    assert open_games.open_game(runtime, created.game_id).seats_left == 1
    dispatch(runtime)
    token = link(mailbox, "ben@example.net")
    assert token == joined.token
    confirmed = open_games.confirm(runtime, token)
    assert not confirmed.started
    dispatch(runtime)
    told = part(mailbox.to("anna@example.org")[-1], "plain")
    assert "Ben took a seat" in told and "ben@example.net" not in told
    open_games.join(runtime, created.game_id, "Cleo", "cleo@example.net")
    dispatch(runtime)
    assert open_games.confirm(runtime, link(mailbox, "cleo@example.net")).started
    dispatch(runtime)
    # Every person at the table got their own link to the running game.
    seats = runtime.service.seats(created.game_id)
    assert [seat.name for seat in seats] == ["Anna", "Ben", "Cleo"]
    for address, number in [
        ("anna@example.org", 0),
        ("ben@example.net", 1),
        ("cleo@example.net", 2),
    ]:
        play = link(mailbox, address, PLAY)
        assert runtime.service.seat_for_token(play).seat == number
    assert open_games.list_open(runtime) == []
    with pytest.raises(Gone, match="started"):
        open_games.join(runtime, created.game_id, "Dan", "dan@example.net")


def test_the_creator_starts_with_bots_in_the_seats_still_open(runtime, mailbox):
    created = make_open(runtime, open_seats=2)
    open_games.join(runtime, created.game_id, "Ben", "ben@example.net")
    dispatch(runtime)
    open_games.confirm(runtime, link(mailbox, "ben@example.net"))
    pending = open_games.join(runtime, created.game_id, "Cleo", "cleo@example.net")
    assert open_games.start_with_bots(runtime, created.token)
    seats = runtime.service.seats(created.game_id)
    assert [(seat.name, seat.is_bot) for seat in seats] == [
        ("Anna", False),
        ("Ben", False),
        ("Bot 3", True),
    ]
    with pytest.raises(NotFound):
        open_games.confirm(runtime, pending.token)
    with pytest.raises(Gone):
        open_games.start_with_bots(runtime, created.token)
    with pytest.raises(NotFound):
        open_games.start_with_bots(runtime, "x" * 43)


def test_nobody_joins_twice_nor_learns_who_is_at_the_table(runtime, mailbox):
    created = make_open(runtime, open_seats=2)
    first = open_games.join(runtime, created.game_id, "Ben", "ben@example.net")
    again = open_games.join(runtime, created.game_id, "Benjamin", "BEN+x@example.net")
    creator = open_games.join(runtime, created.game_id, "Mallory", "anna@example.org")
    # The same answer as anybody's, no link, no second seat held.
    assert again.token is None and creator.token is None
    assert again.message.replace("BEN+x@example.net", "X") == first.message.replace(
        "ben@example.net", "X"
    )
    assert open_games.open_game(runtime, created.game_id).seats_left == 1
    dispatch(runtime)
    assert len(mailbox.to("ben@example.net")) == 1
    assert mailbox.to("BEN+x@example.net") == []
    with pytest.raises(BadInput, match="name"):
        open_games.join(runtime, created.game_id, "anna", "other@example.net")


def test_a_link_confirms_only_its_own_hold_and_lapses(runtime, clock, mailbox):
    created = make_open(runtime, open_seats=1)
    joined = open_games.join(runtime, created.game_id, "Ben", "ben@example.net")
    for forged in ["", "short", joined.token[:-2] + "xx", created.token]:
        with pytest.raises(NotFound):
            open_games.confirm(runtime, forged)
    with pytest.raises(Rejected, match="held for someone"):
        open_games.join(runtime, created.game_id, "Cleo", "cleo@example.net")
    clock.advance(hours=25)
    with pytest.raises(Gone, match="lapsed"):
        open_games.confirm(runtime, joined.token)
    # The lapsed hold freed the seat: the next one takes it, and the old link is dead.
    cleo = open_games.join(runtime, created.game_id, "Cleo", "cleo@example.net")
    with pytest.raises(NotFound):
        open_games.confirm(runtime, joined.token)
    assert open_games.confirm(runtime, cleo.token).started
    with pytest.raises(Gone):
        open_games.join(runtime, created.game_id, "Dan", "dan@example.net")


def test_a_full_game_says_so(runtime):
    created = make_open(runtime, open_seats=1)
    ben = open_games.join(runtime, created.game_id, "Ben", "ben@example.net")
    with runtime.service.session() as session:  # confirmed but not yet started
        from pbem.models import OpenSeat

        hold = session.get(OpenSeat, (created.game_id, 1))
        hold.confirmed_at = runtime.clock()
        session.add(hold)
        session.commit()
    assert ben.token
    with pytest.raises(Rejected, match="full"):
        open_games.join(runtime, created.game_id, "Cleo", "cleo@example.net")


def test_one_address_gets_a_small_budget_of_mail_a_day(runtime, clock, mailbox):
    games = [make_open(runtime, open_seats=3).game_id for _ in range(2)]
    games.append(
        open_games.create_open(
            runtime,
            "pig",
            [SeatSpec("Zed", "zed@example.org"), None, None],
            {"target": 20},
        ).game_id
    )
    # At most 2 pending holds at once per person, whatever the case and +tags.
    first = open_games.join(runtime, games[0], "V", "victim@example.net")
    open_games.join(runtime, games[1], "V", "Victim+a@example.net")
    with pytest.raises(TooMany, match="waits to confirm"):
        open_games.join(runtime, games[2], "V", "victim+b@example.net")
    open_games.confirm(runtime, first.token)  # one less pending; the day's count goes on
    clock.advance(hours=1)
    open_games.join(runtime, games[2], "V", "victim@example.net")
    with pytest.raises(TooMany, match="at most 3"):
        open_games.join(runtime, games[0], "W", "victim+c@example.net")
    dispatch(runtime)
    assert len([m for m in mailbox.messages if "victim" in m["To"].lower()]) == 3


def test_joins_per_client_and_creations_per_address_are_limited(runtime):
    games = [
        open_games.create_open(
            runtime, "pig", [SeatSpec("Zed", f"zed{n}@example.org"), None, None, None], {}
        ).game_id
        for n in range(4)
    ]
    for number in range(10):
        open_games.join(
            runtime, games[number // 3], f"P{number}", f"p{number}@example.net", client="1.2.3.4"
        )
    with pytest.raises(TooMany, match="network address"):
        open_games.join(runtime, games[3], "Q", "q@example.net", client="1.2.3.4")
    open_games.join(runtime, games[3], "Q", "q@example.net", client="5.6.7.8")
    for _ in range(3):
        make_open(runtime)
    with pytest.raises(TooMany, match="open games"):
        make_open(runtime)


def test_bad_creations_are_refused_and_change_nothing(runtime):
    cases = [
        ("nope", [SeatSpec("Anna", "anna@example.org"), None], "Choose"),
        ("pig", [None, SeatSpec("Anna", "anna@example.org")], "first seat"),
        ("pig", [SeatSpec("Anna", "anna@example.org"), SeatSpec("B", "b@example.org")], "open"),
        ("pig", [SeatSpec("Anna", "anna@example.org")] + [None] * 9, "players"),
        (
            "pig",
            [SeatSpec("Anna", "anna@example.org"), SeatSpec("anna", is_bot=True), None],
            "name",
        ),
    ]
    for slug, seats, words in cases:
        with pytest.raises(BadInput, match=words):
            open_games.create_open(runtime, slug, seats, {"target": 20})
    with pytest.raises(BadInput):
        open_games.create_open(
            runtime,
            "pig",
            [SeatSpec("Anna", "anna@example.org"), None],
            {"target": 20},
            policy={"deadline_after_days": -1},
        )
    assert open_games.list_open(runtime) == []


def test_filters(runtime, clock):
    slow = make_open(runtime, open_seats=1, policy={"deadline_after_days": 0})
    clock.advance(minutes=1)
    fast = open_games.create_open(
        runtime,
        "pig",
        [SeatSpec("Zed", "zed@example.org"), None, None],
        {"target": 20},
        policy={"deadline_after_days": 1},
    )
    ids = lambda **filters: [game.id for game in open_games.list_open(runtime, **filters)]  # noqa: E731
    assert ids() == [fast.game_id, slow.game_id]
    assert ids(seats_left="2") == [fast.game_id]
    assert ids(pace="1") == [fast.game_id]
    assert ids(pace="none") == [slow.game_id]
    assert ids(engine="pig") == [fast.game_id, slow.game_id]
    for bad in [{"engine": "chess"}, {"seats_left": "x"}, {"seats_left": "0"}, {"pace": "2"}]:
        with pytest.raises(BadInput):
            open_games.list_open(runtime, **bad)


def test_confirmations_and_a_start_at_once_make_one_game_with_every_confirmed_seat(runtime):
    import threading

    created = make_open(runtime, open_seats=2)
    tokens = [
        open_games.join(runtime, created.game_id, name, f"{name.lower()}@example.net").token
        for name in ("Ben", "Cleo")
    ]
    errors: list[Exception] = []
    barrier = threading.Barrier(3)

    def run(call, *args) -> None:
        barrier.wait()
        try:
            call(runtime, *args)
        except (Gone, NotFound):
            # Lost the race fairly: the game started first (or filled first), and the
            # start dropped the hold the link named, which then says so.
            pass
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=run, args=(open_games.confirm, t)) for t in tokens]
    threads.append(threading.Thread(target=run, args=(open_games.start_with_bots, created.token)))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors, errors
    (game,) = runtime.service.games()
    seats = runtime.service.seats(game.id)
    with runtime.service.reading() as session:
        from pbem.models import OpenSeat

        confirmed = {hold.name for hold in session.exec(select(OpenSeat)) if hold.confirmed_at}
    # Whoever won the race: every confirmed seat is its person's, every other open one a bot's.
    assert {seat.name for seat in seats if not seat.is_bot} == {"Anna", *confirmed}
    assert len(seats) == 3


def test_the_same_link_confirmed_twice_counts_once(runtime):
    created = make_open(runtime, open_seats=2)
    ben = open_games.join(runtime, created.game_id, "Ben", "ben@example.net")
    assert not open_games.confirm(runtime, ben.token).started
    assert not open_games.confirm(runtime, ben.token).started
    cleo = open_games.join(runtime, created.game_id, "Cleo", "cleo@example.net")
    assert open_games.open_game(runtime, created.game_id).status == "open"
    assert open_games.confirm(runtime, cleo.token).started


def test_the_creator_calls_the_game_off_and_holders_are_told(runtime, mailbox):
    created = make_open(runtime, open_seats=2)
    ben = open_games.join(runtime, created.game_id, "Ben", "ben@example.net")
    open_games.confirm(runtime, ben.token)
    open_games.join(runtime, created.game_id, "Cleo", "cleo@example.net")
    with pytest.raises(NotFound):
        open_games.cancel(runtime, "y" * 43)
    open_games.cancel(runtime, created.token)
    assert open_games.list_open(runtime) == []
    assert open_games.open_game(runtime, created.game_id).status == "cancelled"
    with pytest.raises(Gone):
        open_games.join(runtime, created.game_id, "Dan", "dan@example.net")
    with pytest.raises(Gone):
        open_games.start_with_bots(runtime, created.token)
    with pytest.raises(Gone):
        open_games.cancel(runtime, created.token)
    with pytest.raises(NotFound):
        open_games.confirm(runtime, ben.token)
    dispatch(runtime)
    for address in ("ben@example.net", "cleo@example.net"):
        assert "called off" in mailbox.to(address)[-1]["Subject"]
    assert runtime.service.games() == []


def test_the_creators_and_every_joiners_contributions_cover_the_set_up(runtime, mailbox):
    from pbem.eventlog import contributions

    pending, commitment = runtime.service.begin_game()
    mine = contributions.record(0, "creator", "browser", "Anna's words")
    created = make_open(runtime, open_seats=2, pending=pending, contribution=mine)
    assert created.game_id == pending
    open_games.join(runtime, created.game_id, "Ben", "ben@example.net")
    open_games.join(runtime, created.game_id, "Cleo", "cleo@example.net")
    dispatch(runtime)
    open_games.confirm(runtime, link(mailbox, "ben@example.net"), "Ben's words", "browser")
    with pytest.raises(BadInput, match="contribution"):
        open_games.confirm(runtime, link(mailbox, "cleo@example.net"), "x" * 500)
    assert open_games.confirm(runtime, link(mailbox, "cleo@example.net"), "").started
    game = runtime.service.game(created.game_id)
    assert game.commitment == commitment  # the seed committed to when it was listed
    given = runtime.service.events(game.id)[0]["payload"]["contributions"]
    assert [(entry["seat"], entry["role"], entry["by"]) for entry in given] == [
        (0, "creator", "browser"),
        (1, "player", "browser"),
        (2, "player", "server"),  # Cleo left it empty: drawn by the server
    ]
    assert given[1]["contribution"] == "Ben's words"
    assert not any(runtime.service.needs_contribution(game.id, seat) for seat in range(3))


def test_an_open_game_called_off_forgets_its_seed(runtime, mailbox):
    from pbem.models import PendingGame

    created = make_open(runtime)
    with runtime.service.reading() as session:
        assert session.get(PendingGame, created.game_id) is not None
    open_games.cancel(runtime, created.token)
    with runtime.service.reading() as session:
        assert session.get(PendingGame, created.game_id) is None
