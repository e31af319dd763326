"""A whole table's life, moved to another server halfway: three people and a bot, a
custom deadline policy, a vacation, a digest reader, players in other time zones, a
replacement (invited, then taken) and a vote still open; ``pbem export --all``, a fresh
database, ``pbem import``; then everything is back, the game goes on mailing over real
SMTP, history names the right holder at every event, and the finished log verifies."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from sqlmodel import Session, select

from pbem.cli import main
from pbem.db import make_engine
from pbem.games import invitations, rescue, vacations
from pbem.games.service import SeatSpec
from pbem.mail.models import Mail
from pbem.migrations import migrate
from pbem.models import Seat
from pbem.scheduler import dispatch, sweep
from pbem.web import create_app
from tests.conftest import POSTGRES_URL, _postgres_schema_url
from tests.games.test_full_export import events, people
from tests.mail.conftest import Clock, make_runtime, part, take_turn

POLICY = {
    "reminder_after_hours": 6,
    "reminder_every_hours": 12,
    "deadline_after_days": 2,
    "at_deadline": "wait",
}
NEW_BASE = "http://new.pbem.test"
LINK = re.compile(r"/play/([A-Za-z0-9_-]{20,})")


def players_shown(page: str) -> list[tuple[str, bool]]:
    """The history page's list of seats: each holder's name and whether a bot plays it."""
    block = page.split('<ul class="players">', 1)[1].split("</ul>", 1)[0]
    return [
        (name.split(" · ")[0].strip(), ">bot" in rest)
        for name, rest in re.findall(r'<span class="chip"[^>]*>.</span>([^<]*)(.*?)</li>', block)
    ]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def servers(request, tmp_path):
    """Two databases by URL (the command line opens them): the old server's and the
    new, empty one (on PostgreSQL each in a schema of its own, dropped afterwards)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'old.sqlite3'}", f"sqlite:///{tmp_path / 'new.sqlite3'}"
        return
    made = [_postgres_schema_url() for _ in range(2)]
    yield tuple(f"{POSTGRES_URL}?options=-csearch_path%3D{schema}" for _, schema in made)
    for admin, schema in made:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP SCHEMA "{schema}" CASCADE')
        admin.dispose()


def test_a_whole_table_moves_to_another_server_and_plays_to_its_end(
    servers, tmp_path, smtp, monkeypatch, capsys
):
    mailbox, port = smtp
    # The command line runs on the real clock: the game's clock starts there too.
    clock = Clock(datetime.now(UTC).replace(microsecond=0))
    old_url, new_url = servers
    old_db = make_engine(old_url)
    migrate(old_db)
    old = make_runtime(old_db, tmp_path / "old", clock, port)
    game = old.service.create_game(
        "pig",
        [
            SeatSpec("Anna", "anna@example.org", timezone="Europe/Berlin"),
            SeatSpec("Ben", "ben@example.org", timezone="America/New_York"),
            SeatSpec("Cleo", "cleo@example.org", timezone="Asia/Tokyo"),
            SeatSpec("Robo", is_bot=True, bot_level="easy"),
        ],
        {"target": 60},
        title="Friday table",
        policy=POLICY,
        creator_seat=0,
    ).game_id
    with Session(old_db) as session:  # Cleo reads one digest a day, at 07:00 her time
        cleo = session.get(Seat, (game, 2))
        cleo.notify, cleo.mail_hour = "digest", 7
        session.add(cleo)
        session.commit()
    assert vacations.start_vacation(old, game, 0, 3).done  # Anna: three days away
    assert take_turn(old, game) == 0
    invited = invitations.invite_replacement(old, game, 1, "Zoe", "zoe@example.org", by=None)
    assert invitations.take_seat(old, invited.token).done  # Zoe takes over Ben's seat
    taken = old.service.head(game).seq
    assert take_turn(old, game) == 1
    assert old.service.game(game).to_move == [2]
    clock.advance(days=3)  # Cleo's deadline passes; Anna votes to hand her seat to a bot
    vote = rescue.hand_to_bot(old, game, 2, by=0)
    assert (vote.done, vote.votes, vote.needed) == (False, 1, 2)
    dispatch(old)
    before, log = people(old_db, game), events(old_db, game)
    assert before["votes"] and before["formers"] and before["clocks"][0]["paused_until"]

    # export --all, a fresh database, import: all through the command line.
    for name, value in {
        "PBEM_PATHS_VAR": str(tmp_path / "cli-var"),
        "PBEM_SECURITY_SECRET_KEY": "test-key",
        "PBEM_MAIL_HOST": "127.0.0.1",
        "PBEM_MAIL_PORT": str(port),
        "PBEM_MAIL_SECURITY": "none",
        "PBEM_SERVER_DEMO": "false",
    }.items():
        monkeypatch.setenv(name, value)
    folder = tmp_path / "export"
    assert main(["--database", old_url, "export", "--all", "-o", str(folder)]) == 0
    assert (folder / f"{game}.json").exists()
    monkeypatch.setenv("PBEM_SERVER_BASE_URL", NEW_BASE)
    monkeypatch.setenv("PBEM_SECURITY_SECRET_KEY", "another-server-key")
    capsys.readouterr()
    assert main(["--database", new_url, "import", str(folder)]) == 0
    assert f"Imported game {game}" in capsys.readouterr().out
    new_db = make_engine(new_url)
    new = make_runtime(
        new_db,
        tmp_path / "new",
        clock,
        port,
        server={"base_url": NEW_BASE, "demo": False},
        security={"secret_key": "another-server-key"},
    )

    # Everything is back, and the log is exactly the one exported.
    assert events(new_db, game) == log
    assert people(new_db, game) == before
    game_row = new.service.game(game)
    assert (game_row.title, game_row.policy, game_row.creator_seat) == ("Friday table", POLICY, 0)

    # Each person holding a seat is mailed a fresh link on the new server.
    sent = len(mailbox.messages)
    dispatch(new)
    moved = {
        message["To"]: part(message, "plain")
        for message in mailbox.messages[sent:]
        if "now lives at" in part(message, "plain")
    }
    assert sorted(moved) == ["anna@example.org", "cleo@example.org", "zoe@example.org"]
    for address, seat in (("anna@example.org", 0), ("zoe@example.org", 1), ("cleo@example.org", 2)):
        assert f"now lives at {NEW_BASE}" in moved[address]
        assert new.service.seat_for_token(LINK.search(moved[address]).group(1)).seat == seat
    # Each opens the new link (a seat never taken on this server gets little mail).
    client = create_app({"TESTING": True}, runtime=new).test_client()
    for address in moved:
        assert client.get(f"/play/{LINK.search(moved[address]).group(1)}").status_code == 200

    # The digest reader who is due gets her digest from the new server, at her hour
    # (07:00 in Tokyo).
    tokyo = clock.now.astimezone(ZoneInfo("Asia/Tokyo"))
    digest_time = tokyo.replace(hour=7, minute=30, second=0)
    if digest_time <= tokyo:
        digest_time += timedelta(days=1)
    clock.now = digest_time.astimezone(UTC)
    sent = len(mailbox.messages)
    sweep(new)
    dispatch(new)
    assert [m["To"] for m in mailbox.messages[sent:] if "waiting for you" in m["Subject"]] == [
        "cleo@example.org"
    ]

    # The open vote is back: Zoe's vote completes it, and Cleo is told.
    done = rescue.hand_to_bot(new, game, 2, by=1)
    assert done.done
    sent = len(mailbox.messages)
    dispatch(new)
    (notice,) = [m for m in mailbox.messages[sent:] if m["To"] == "cleo@example.org"]
    assert "by a vote of the other players" in " ".join(part(notice, "plain").split())

    # The bots move, and it is Anna's turn: a your-turn mail over SMTP, with her new link.
    assert new.service.game(game).to_move == [0]
    (turn,) = [m for m in mailbox.messages[sent:] if "your turn" in m["Subject"]]
    assert turn["To"] == "anna@example.org"
    token = LINK.search(part(turn, "plain")).group(1)
    assert f"{NEW_BASE}/play/{token}" in part(turn, "plain")
    assert new.service.seat_for_token(token).seat == 0
    # ... and the restored policy reminds her six hours on.
    clock.advance(hours=7)
    sent = len(mailbox.messages)
    sweep(new)
    dispatch(new)
    assert [m["To"] for m in mailbox.messages[sent:] if "reminder" in m["Subject"]] == [
        "anna@example.org"
    ]

    # Bots play the game to its end; every person who held a seat hears how it ended.
    rescue.hand_to_bot(new, game, 0, by=0)
    rescue.hand_to_bot(new, game, 1, by=1)
    for _ in range(10):
        if new.service.game(game).status == "finished":
            break
        new.service.play_bots(game)
    assert new.service.game(game).status == "finished"
    dispatch(new)
    with Session(new_db) as session:
        over = session.exec(select(Mail).where(Mail.game_id == game, Mail.kind == "game_over"))
        assert sorted(mail.recipient for mail in over) == [
            "anna@example.org",
            "ben@example.org",
            "cleo@example.org",
            "zoe@example.org",
        ]

    # The finished log verifies offline.
    final = tmp_path / "final.json"
    assert main(["--database", new_url, "export", game, "-o", str(final)]) == 0
    capsys.readouterr()
    assert main(["verify", str(final)]) == 0
    assert "events verified" in capsys.readouterr().out
    old_db.dispose()

    # History names the holder of each seat as of each event (the roster in the log).
    rows = new.service.events(game)
    voted = next(row["seq"] for row in rows if row["kind"] == "seat_to_bot" and row["seat"] == 2)
    wrong = []
    for row in rows:
        seq = row["seq"]
        expected = [
            ("Anna", False),
            ("Ben" if seq < taken else "Zoe", False),
            ("Cleo", seq >= voted),
            ("Robo", True),
        ]
        shown = players_shown(client.get(f"/games/{game}/history?at={seq}").get_data(as_text=True))
        # The last events hand the remaining seats to bots; only names and Cleo's seat
        # are followed here.
        shown = [
            (name, bot if number == 2 or number == 3 else False)
            for number, (name, bot) in enumerate(shown)
        ]
        if shown != expected:
            wrong.append((seq, row["kind"], shown))
    new_db.dispose()
    assert "roster" in rows[0]["payload"]
    assert wrong == []
