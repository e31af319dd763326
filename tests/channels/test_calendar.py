"""An address's calendar of deadlines: a link on "my games", one event per running
deadline in the player's zone, nothing but titles, times and public pages in it, and a
new link revokes the old."""

from __future__ import annotations

import re
from datetime import timedelta
from zoneinfo import ZoneInfo

from icalendar import Calendar
from sqlmodel import Session

from pbem.games.service import SeatSpec
from pbem.games.tables import SeatClock
from pbem.mail.games_link import address_link
from tests.mail.conftest import START, take_turn
from tests.web.conftest import csrf_of

ICS = re.compile(r'value="(http://pbem\.test/calendar/[^"]+\.ics)"')


def my_games(client, runtime, address: str) -> str:
    with Session(runtime.db) as session:
        link = address_link(runtime, session, address)
    return link.removeprefix("http://pbem.test")


def games(runtime):
    """Three games of Rosa's: her turn in two (Tokyo and Berlin zones), Ben's in one."""
    made = []
    for zone, first in (("Asia/Tokyo", True), ("Europe/Berlin", True), ("UTC", False)):
        rosa = SeatSpec("Rosa", "rosa@example.org", timezone=zone)
        ben = SeatSpec("Ben", "ben@example.org")
        specs = [rosa, ben] if first else [ben, rosa]
        made.append(
            runtime.service.create_game(
                "pig", specs, {"target": 30}, policy={"deadline_after_days": 2}
            )
        )
    return made


def test_the_calendar_has_one_event_per_running_deadline_in_the_players_zone(client, runtime):
    tokyo, berlin, other = games(runtime)
    page = client.get(my_games(client, runtime, "rosa@example.org"))
    assert page.status_code == 200
    link = ICS.search(page.text).group(1)
    answer = client.get(link.removeprefix("http://pbem.test"))
    assert answer.status_code == 200 and answer.mimetype == "text/calendar"
    assert answer.headers["Cache-Control"] == "no-store"
    calendar = Calendar.from_ical(answer.data)
    events = calendar.walk("VEVENT")
    assert len(events) == 2, "Rosa is due in two games; Ben's turn is not hers"
    starts = {str(event["url"]): event.decoded("dtstart") for event in events}
    deadline = START + timedelta(days=2)
    tokyo_start = starts[f"http://pbem.test/games/{tokyo.game_id}"]
    assert tokyo_start.tzinfo.key == "Asia/Tokyo"
    assert tokyo_start == deadline.astimezone(ZoneInfo("Asia/Tokyo"))
    berlin_start = starts[f"http://pbem.test/games/{berlin.game_id}"]
    assert berlin_start.tzinfo.key == "Europe/Berlin"
    assert berlin_start == deadline
    assert len({str(event["uid"]) for event in events}) == 2
    text = answer.data.decode()
    assert "@example.org" not in text and "/play/" not in text and "/my-games/" not in text
    for created in (tokyo, berlin, other):
        assert all(token not in text for token in created.tokens)


def test_a_deadline_that_passes_by_a_move_leaves_the_calendar(client, runtime):
    tokyo, _, _ = games(runtime)
    page = client.get(my_games(client, runtime, "rosa@example.org"))
    path = ICS.search(page.text).group(1).removeprefix("http://pbem.test")
    take_turn(runtime, tokyo.game_id)  # Rosa moves in the Tokyo game
    events = Calendar.from_ical(client.get(path).data).walk("VEVENT")
    assert len(events) == 1
    with Session(runtime.db) as session:
        assert session.get(SeatClock, (tokyo.game_id, 0)).deadline_at is None


def test_a_new_calendar_link_revokes_the_old_one(client, runtime):
    games(runtime)
    address = my_games(client, runtime, "rosa@example.org")
    page = client.get(address)
    old = ICS.search(page.text).group(1).removeprefix("http://pbem.test")
    assert client.get(address).text.count(old) == 1, "the link stays the same"
    answer = client.post(
        f"{address}/calendar", data={"csrf_token": csrf_of(page.text)}, follow_redirects=True
    )
    assert "The calendar has a new link" in answer.text
    new = ICS.search(answer.text).group(1).removeprefix("http://pbem.test")
    assert new != old
    assert client.get(old).status_code == 404
    assert client.get(new).status_code == 200


def test_forged_calendar_links_are_404(client, runtime):
    games(runtime)
    client.get(my_games(client, runtime, "rosa@example.org"))
    for token in ("A" * 32, "x", "y" * 70, "../../etc/passwd"):
        assert client.get(f"/calendar/{token}.ics").status_code == 404
