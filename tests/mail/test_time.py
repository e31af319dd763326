"""Time: each player's zone and preferred hour (the settings page, the lobby), reminders
at that hour and never in the last 12 hours before a deadline, digests once per local
day at the player's hour and not during a vacation, vacations ended early, the one-click
unsubscribe of RFC 8058, and the deadline on the turn page in the reader's zone."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from sqlmodel import Session, select

from pbem import zones
from pbem.errors import BadInput, NotAllowed, Rejected
from pbem.games.tables import SeatClock
from pbem.games.vacations import end_vacation, start_vacation
from pbem.mail import outbox, render
from pbem.mail.models import Mail
from pbem.models import Seat
from pbem.scheduler import digest_day, dispatch, sweep
from tests.mail.conftest import new_game, part


def settings_path(runtime, game_id: str, seat: int) -> str:
    with Session(runtime.db) as session:
        token_hash = session.get(Seat, (game_id, seat)).token_hash
    signature = render.settings_signature(outbox.secret(runtime), game_id, seat, token_hash)
    return f"/mail/settings/{game_id}/{seat}/{signature}"


def csrf_of(client, path: str) -> str:
    page = client.get(path)
    assert page.status_code == 200
    return re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)


def set_seat(runtime, game_id: str, seat: int, **values) -> None:
    with Session(runtime.db) as session:
        row = session.get(Seat, (game_id, seat))
        for name, value in values.items():
            setattr(row, name, value)
        session.add(row)
        session.commit()


def seat_row(runtime, game_id: str, seat: int) -> Seat:
    with Session(runtime.db) as session:
        return session.get(Seat, (game_id, seat))


def clock_of(runtime, game_id: str, seat: int) -> SeatClock:
    with Session(runtime.db) as session:
        return session.get(SeatClock, (game_id, seat))


def outbox_rows(runtime, kind: str, recipient: str | None = None) -> list[Mail]:
    with Session(runtime.db) as session:
        query = select(Mail).where(Mail.kind == kind)
        if recipient:
            query = query.where(Mail.recipient == recipient)
        return list(session.exec(query.order_by(Mail.id)))


def aware(moment: datetime | None) -> datetime | None:
    return moment if moment is None or moment.tzinfo else moment.replace(tzinfo=UTC)


# Zones and hours ---------------------------------------------------------------------


def test_zone_and_hour_checks_are_strict():
    assert zones.clean_zone("Europe/Berlin") == "Europe/Berlin"
    assert zones.zone_names()[0] == "UTC" and "localtime" not in zones.zone_names()
    for bad in ("europe/berlin", "Mars/Olympus", "", "../../etc/passwd", "localtime", None, 5):
        with pytest.raises(BadInput):
            zones.clean_zone(bad)
    assert zones.clean_hour("none") is None and zones.clean_hour("") is None
    assert zones.clean_hour("7") == 7 and zones.clean_hour("23") == 23
    for bad in ("24", "-1", "7.5", "seven", True, "007"):
        with pytest.raises(BadInput):
            zones.clean_hour(bad)


def test_next_local_hour_across_the_spring_gap():
    # Europe/Berlin skips 02:00-03:00 on 29 March 2026: 02:00 is next found on the 30th.
    before = datetime(2026, 3, 28, 23, 0, tzinfo=UTC)  # 00:00 on the 29th in Berlin
    assert zones.next_hour(before, 2, "Europe/Berlin") == datetime(2026, 3, 30, 0, 0, tzinfo=UTC)
    assert zones.next_hour(before, 9, "Europe/Berlin") == datetime(2026, 3, 29, 7, 0, tzinfo=UTC)
    assert zones.in_hour(datetime(2026, 3, 29, 7, 30, tzinfo=UTC), 9, "Europe/Berlin")


# Reminders ---------------------------------------------------------------------------


def test_a_reminder_moves_to_the_players_hour(runtime, mailbox, clock):
    # Anna (Europe/Berlin, UTC+1 in early March) wants her mail at 18:00.
    policy = {"reminder_after_hours": 2, "reminder_every_hours": 24, "deadline_after_days": 5}
    created = new_game(runtime, seats=2, policy=policy)
    game = created.game_id
    set_seat(runtime, game, 0, mail_hour=18)
    clock.advance(hours=2)  # 11:00 UTC, 12:00 in Berlin: due, but not her hour
    assert sweep(runtime).reminders == 0
    assert aware(clock_of(runtime, game, 0).remind_at) == datetime(2026, 3, 2, 17, tzinfo=UTC)
    clock.now = datetime(2026, 3, 2, 16, 59, tzinfo=UTC)
    assert sweep(runtime).reminders == 0
    clock.now = datetime(2026, 3, 2, 17, 0, 30, tzinfo=UTC)
    assert sweep(runtime).reminders == 1
    assert aware(clock_of(runtime, game, 0).remind_at) == datetime(2026, 3, 3, 17, tzinfo=UTC)
    dispatch(runtime)
    reminders = mailbox.to("anna@example.org", "reminder")
    assert len(reminders) == 1
    # Without an hour, a reminder goes out when it falls due.
    set_seat(runtime, game, 0, mail_hour=None)
    clock.now = datetime(2026, 3, 3, 17, 0, 1, tzinfo=UTC)
    assert sweep(runtime).reminders == 1


def test_no_reminder_in_the_last_12_hours_before_the_deadline(runtime, mailbox, clock):
    policy = {"reminder_after_hours": 6, "reminder_every_hours": 6, "deadline_after_days": 1}
    created = new_game(runtime, seats=2, policy=policy)
    sent = []
    for _ in range(4):  # 15:00, 21:00, 03:00 and 09:00 (the deadline itself)
        clock.advance(hours=6)
        report = sweep(runtime)
        sent.append(report.reminders)
        if clock.now == datetime(2026, 3, 3, 9, tzinfo=UTC):
            assert report.deadlines == 1
    assert sent == [1, 0, 0, 0]
    dispatch(runtime)
    reminders = mailbox.to("anna@example.org", "reminder")
    assert len(reminders) == 1 and len(mailbox.to("anna@example.org", "deadline")) == 1
    assert reminders[0]["Date"] and "Mon, 02 Mar 2026 15:00" in reminders[0]["Date"]
    # The game waits past its deadline: there is none left, so the reminders go on.
    clock.advance(hours=6)
    assert sweep(runtime).reminders == 1
    assert runtime.service.game(created.game_id).status == "active"


# Digests -----------------------------------------------------------------------------


def test_the_digest_comes_once_a_local_day_at_the_players_hour(runtime, mailbox, clock):
    created = new_game(runtime, seats=4)
    game = created.game_id
    # Anna's turn: she reads a digest, in Tokyo, at 07:00 (22:00 UTC the day before).
    set_seat(runtime, game, 0, notify="digest", timezone="Asia/Tokyo", mail_hour=7)
    clock.now = datetime(2026, 3, 2, 21, 59, tzinfo=UTC)
    assert sweep(runtime).digests == 0
    clock.now = datetime(2026, 3, 2, 22, 0, tzinfo=UTC)
    assert sweep(runtime).digests == 1
    clock.now = datetime(2026, 3, 2, 23, 30, tzinfo=UTC)
    assert sweep(runtime).digests == 0  # the same local day
    keys = [row.key for row in outbox_rows(runtime, "digest")]
    assert keys == ["digest:anna@example.org:2026-03-03"]
    clock.now = datetime(2026, 3, 3, 12, 0, tzinfo=UTC)  # 21:00 in Tokyo: not her hour
    assert sweep(runtime).digests == 0
    clock.now = datetime(2026, 3, 3, 22, 10, tzinfo=UTC)
    assert sweep(runtime).digests == 1
    dispatch(runtime)
    assert len(mailbox.to("anna@example.org", "waiting for you")) == 2
    # Without an hour the digest comes at 08:00 in the player's zone.
    set_seat(runtime, game, 0, mail_hour=None)
    clock.now = datetime(2026, 3, 4, 22, 30, tzinfo=UTC)  # 07:30 in Tokyo
    assert sweep(runtime).digests == 0
    clock.now = datetime(2026, 3, 4, 23, 0, tzinfo=UTC)  # 08:00 in Tokyo
    assert sweep(runtime).digests == 1


def test_the_digest_pauses_during_a_vacation(runtime, mailbox, clock):
    created = new_game(runtime, seats=2)
    game = created.game_id
    set_seat(runtime, game, 0, notify="digest", mail_hour=9)  # Europe/Berlin
    assert start_vacation(runtime, game, 0, 2).done
    for day in (2, 3):
        clock.now = datetime(2026, 3, day, 8, 30, tzinfo=UTC)  # 09:30 in Berlin
        assert sweep(runtime).digests == 0
    clock.now = datetime(2026, 3, 4, 9, 30, tzinfo=UTC)  # the vacation ended at 09:00 UTC
    assert sweep(runtime).digests == 1
    assert [row.key for row in outbox_rows(runtime, "digest")] == [
        "digest:anna@example.org:2026-03-04"
    ]


def test_an_address_with_several_seats_follows_its_newest_seat(runtime, mailbox, clock):
    older = new_game(runtime, seats=2).game_id
    clock.advance(minutes=5)
    newer = new_game(runtime, seats=2).game_id
    set_seat(runtime, older, 0, notify="digest", timezone="America/New_York", mail_hour=6)
    set_seat(runtime, newer, 0, notify="digest", timezone="Asia/Tokyo", mail_hour=21)
    assert digest_day(seat_row(runtime, newer, 0), datetime(2026, 3, 3, 12, tzinfo=UTC)) == (
        "2026-03-03"
    )
    assert digest_day(seat_row(runtime, newer, 0), datetime(2026, 3, 3, 11, tzinfo=UTC)) is None
    clock.now = datetime(2026, 3, 3, 11, 0, tzinfo=UTC)  # 06:00 in New York: the older's
    assert sweep(runtime).digests == 0
    clock.now = datetime(2026, 3, 3, 12, 5, tzinfo=UTC)  # 21:05 in Tokyo: the newer's
    assert sweep(runtime).digests == 1
    dispatch(runtime)
    digest = mailbox.to("anna@example.org", "waiting for you")
    assert len(digest) == 1 and "(2)" in digest[0]["Subject"]


# Vacations end early -----------------------------------------------------------------


def test_a_vacation_ends_early_with_its_days_given_back(runtime, mailbox, clock):
    policy = {"reminder_after_hours": 24, "reminder_every_hours": 24, "deadline_after_days": 3}
    created = new_game(runtime, seats=3, policy=policy)
    game = created.game_id
    clock.advance(days=1)  # Anna has 2 days left when her vacation begins
    assert start_vacation(runtime, game, 0, 5).done
    assert aware(clock_of(runtime, game, 0).deadline_at) == datetime(2026, 3, 10, 9, tzinfo=UTC)
    clock.advance(days=1, hours=3)
    outcome = end_vacation(runtime, game, 0)
    assert outcome.done and "back from vacation" in outcome.message
    clock_row = clock_of(runtime, game, 0)
    assert clock_row.paused_until is None
    assert aware(clock_row.deadline_at) == clock.now + timedelta(days=2)
    assert aware(clock_row.remind_at) == clock.now + timedelta(hours=24)
    assert clock_row.vacation_days_used == pytest.approx(1.125)  # 1 day 3 hours used
    event = runtime.service.events(game)[-1]
    assert event["kind"] == "vacation_ended" and event["seat"] == 0
    dispatch(runtime)
    for address in ("ben@example.org", "cleo@example.org"):
        told = mailbox.to(address, "back from vacation")
        assert len(told) == 1
        assert "Anna is back from vacation early" in part(told[0], "plain")
    assert not mailbox.to("anna@example.org", "back from vacation")
    # Not on vacation any more: refused, nothing changes.
    head = runtime.service.head(game).seq
    with pytest.raises(Rejected, match="not on vacation"):
        end_vacation(runtime, game, 0)
    assert runtime.service.head(game).seq == head
    # Another player cannot end Anna's vacation.
    assert start_vacation(runtime, game, 0, 1).done
    with pytest.raises(NotAllowed):
        end_vacation(runtime, game, 0, by=1)
    assert clock_of(runtime, game, 0).paused_until is not None


@pytest.mark.parametrize(
    "away, charged",
    [
        (timedelta(seconds=20), 0),
        (timedelta(minutes=29), 0),
        (timedelta(minutes=40), 1),
        (timedelta(hours=5, minutes=10), 5),
        (timedelta(days=2, hours=23, minutes=50), 72),
    ],
)
def test_ending_a_vacation_charges_the_hours_used_not_whole_days(runtime, clock, away, charged):
    created = new_game(runtime, seats=2)
    game = created.game_id
    assert start_vacation(runtime, game, 0, 3).done
    clock.advance(seconds=away.total_seconds())
    assert end_vacation(runtime, game, 0).done
    used = clock_of(runtime, game, 0).vacation_days_used
    assert round(used * 24, 6) == charged


def test_what_is_left_of_the_allowance_reads_in_days_and_hours(runtime, app, clock):
    created = new_game(runtime, seats=2)
    game, token = created.game_id, created.tokens[0]
    cap = int(float(runtime.config["scheduler"]["max_vacation_days"]))
    assert start_vacation(runtime, game, 0, 3).done
    clock.advance(hours=3)
    assert end_vacation(runtime, game, 0).done
    page = app.test_client().get(f"/rescue/{token}").text
    assert f"{cap - 1} days and 21 hours left in this game" in page
    with pytest.raises(Rejected, match=f"{cap - 1} days and 21 hours left"):
        start_vacation(runtime, game, 0, cap)


# The settings page -------------------------------------------------------------------


def test_the_settings_page_sets_zone_and_hour_for_that_seat_only(runtime, app):
    created = new_game(runtime, seats=2)
    game = created.game_id
    client = app.test_client()
    path = settings_path(runtime, game, 0)
    page = client.get(path)
    assert '<select name="timezone">' in page.text and "<option selected>Europe/Berlin" in page.text
    assert page.text.count("<option") > 400 and "End my vacation now" not in page.text
    token = csrf_of(client, path)
    form = {"csrf_token": token, "notify": "digest", "timezone": "Asia/Tokyo", "mail_hour": "7"}
    assert client.post(path, data=form).status_code == 302
    mine, other = seat_row(runtime, game, 0), seat_row(runtime, game, 1)
    assert (mine.notify, mine.timezone, mine.mail_hour) == ("digest", "Asia/Tokyo", 7)
    assert (other.notify, other.timezone, other.mail_hour) == (
        "every_turn",
        "America/New_York",
        None,
    )
    for bad in ({"timezone": "Mars/Olympus"}, {"mail_hour": "24"}, {"notify": "often"}):
        answer = client.post(path, data={**form, "notify": "none", **bad})
        assert answer.status_code == 400
    mine = seat_row(runtime, game, 0)
    assert (mine.notify, mine.timezone, mine.mail_hour) == ("digest", "Asia/Tokyo", 7)
    assert client.post(path, data={**form, "mail_hour": "none"}).status_code == 302
    assert seat_row(runtime, game, 0).mail_hour is None
    # Without the token nothing is saved.
    assert client.post(path, data={**form, "csrf_token": "forged"}).status_code == 400


def test_one_click_unsubscribe_needs_no_token_but_the_signature(runtime, app):
    created = new_game(runtime, seats=2)
    game = created.game_id
    path = settings_path(runtime, game, 0)
    fresh = app.test_client()  # a mail provider: no cookie, no token
    forged = path[: -len("abcd")] + "abcd"
    answer = fresh.post(forged, data={"List-Unsubscribe": "One-Click"})
    assert answer.status_code == 404 and seat_row(runtime, game, 0).notify == "every_turn"
    # Anything but exactly the one field is an ordinary form and needs the token.
    for data in ({"List-Unsubscribe": "One-Click", "notify": "none"}, {"notify": "none"}):
        assert fresh.post(path, data=data).status_code == 400
    assert fresh.post(path, data={"List-Unsubscribe": "Other"}).status_code == 400
    assert seat_row(runtime, game, 0).notify == "every_turn"
    answer = fresh.post(
        path,
        data="List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )
    assert answer.status_code == 200 and "No more turn mails" in answer.text
    assert seat_row(runtime, game, 0).notify == "none"
    assert seat_row(runtime, game, 1).notify == "every_turn"
    # multipart/form-data, as RFC 8058 also allows.
    other = settings_path(runtime, game, 1)
    assert fresh.post(other, data={"List-Unsubscribe": "One-Click"}).status_code == 200
    assert seat_row(runtime, game, 1).notify == "none"


def test_end_my_vacation_now_from_the_settings_page(runtime, app, clock):
    created = new_game(runtime, seats=2)
    game = created.game_id
    assert start_vacation(runtime, game, 1, 3).done
    client = app.test_client()
    path = settings_path(runtime, game, 1)
    page = client.get(path)
    assert "End my vacation now" in page.text and "America/New_York" in page.text
    token = csrf_of(client, path)
    clock.advance(hours=1)
    answer = client.post(path, data={"csrf_token": token, "action": "end_vacation"})
    assert answer.status_code == 303
    assert clock_of(runtime, game, 1).paused_until is None
    assert runtime.service.events(game)[-1]["kind"] == "vacation_ended"
    assert "Your vacation has ended" in client.get(answer.headers["Location"]).text
    again = client.post(path, data={"csrf_token": token, "action": "end_vacation"})
    assert again.status_code == 422
    assert "not on vacation" in again.text


def test_end_my_vacation_now_from_the_seats_page(runtime, app, clock):
    created = new_game(runtime, seats=2)
    game, token = created.game_id, created.tokens[0]
    client = app.test_client()
    assert "End my vacation now" not in client.get(f"/rescue/{token}").text
    assert start_vacation(runtime, game, 0, 2).done
    page = client.get(f"/rescue/{token}").text
    assert "End my vacation now" in page
    assert "Your deadlines pause until Wed 04 Mar 2026, 10:00 Europe/Berlin." in page
    csrf = csrf_of(client, f"/rescue/{token}")
    answer = client.post(f"/rescue/{token}", data={"csrf_token": csrf, "action": "end_vacation"})
    assert answer.status_code == 302
    assert runtime.service.events(game)[-1]["kind"] == "vacation_ended"
    assert "End my vacation now" not in client.get(f"/rescue/{token}").text


# The lobby ---------------------------------------------------------------------------


def lobby_form(token: str, **fields: str) -> dict:
    return {
        "csrf_token": token,
        "game": "pig",
        "let_server_draw": "on",
        "option_pig_target": "30",
        "seat_name_0": "Anna",
        "seat_email_0": "anna@example.org",
        "seat_name_1": "Ben",
        "seat_email_1": "ben@example.org",
        "seat_name_2": "Cleo",
        "seat_email_2": "cleo@example.org",
        "timezone": "UTC",
        **fields,
    }


def test_the_lobby_sets_each_players_zone(runtime, app):
    client = app.test_client()
    page = client.get("/")
    assert 'src="/static/timezone.js?v=' in page.text and "data-detect-zone" in page.text
    assert 'name="timezone" list="zones"' in page.text and 'value="UTC"' in page.text
    assert "<script>" not in page.text  # no inline script: the CSP allows only 'self'
    script = client.get("/static/timezone.js")
    assert script.status_code == 200 and b"resolvedOptions().timeZone" in script.data
    token = csrf_of(client, "/")
    form = lobby_form(token, timezone="Europe/Lisbon", seat_timezone_2="Asia/Tokyo")
    answer = client.post("/games", data=form)
    assert answer.status_code == 303
    play = answer.headers["Location"].split("/play/")[1].split("?")[0]
    game = runtime.service.seat_for_token(play).game_id
    assert [seat.timezone for seat in runtime.service.seats(game)] == [
        "Europe/Lisbon",
        "Europe/Lisbon",
        "Asia/Tokyo",
    ]


def test_the_lobby_keeps_what_was_typed_after_a_bad_zone(runtime, app):
    client = app.test_client()
    token = csrf_of(client, "/")
    before = len(runtime.service.games())
    for fields, message in (
        ({"timezone": "Mars/Olympus"}, "Your time zone: Choose a time zone"),
        ({"seat_timezone_1": "Berlin"}, "Seat 2: Choose a time zone"),
    ):
        form = lobby_form(token, seat_timezone_2="Asia/Tokyo", deadline_after_days="3", **fields)
        answer = client.post("/games", data=form)
        assert answer.status_code == 400 and message in answer.text
        for typed in (*fields.values(), "Asia/Tokyo", "cleo@example.org"):
            assert f'value="{typed}"' in answer.text
        assert 'name="deadline_after_days" type="number" min="0" step="any" value="3"' in (
            answer.text
        )
        assert "data-detect-zone" not in answer.text  # what was typed is not overwritten
    assert len(runtime.service.games()) == before


# The turn page -----------------------------------------------------------------------


def test_the_turn_page_shows_the_deadline_in_the_seats_zone(runtime, app, clock):
    created = new_game(runtime, seats=2, policy={"deadline_after_days": 2})
    client = app.test_client()
    clock.advance(hours=3)
    page = client.get(f"/play/{created.tokens[0]}").text
    # 2 March 09:00 UTC + 2 days = 4 March 10:00 in Berlin; 45 hours left.
    assert "It is your turn." in page
    assert "Deadline: Wed 4 Mar 2026, 10:00 CET (09:00 UTC), in 1 day 21 hours." in page
    set_seat(runtime, created.game_id, 0, timezone="Asia/Tokyo")
    clock.advance(hours=1)
    page = client.get(f"/play/{created.tokens[0]}").text  # the cached page, filled afresh
    assert "Deadline: Wed 4 Mar 2026, 18:00 JST (09:00 UTC), in 1 day 20 hours." in page
    clock.advance(days=2)
    page = client.get(f"/play/{created.tokens[0]}").text
    assert "Deadline: Wed 4 Mar 2026, 18:00 JST (09:00 UTC) (passed)." in page
    waiting = client.get(f"/play/{created.tokens[1]}").text
    assert "Deadline:" not in waiting and "Waiting for Anna" in waiting
