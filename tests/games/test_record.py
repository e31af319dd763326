"""The readable record of a game (:mod:`pbem.games.record`): each title's record reads
back into exactly the export it was written from, so it verifies and imports as the
JSON does; a changed line is named; an unfinished game's record is one seat's and
holds nothing that seat may not know; the pages and the command offer it."""

from __future__ import annotations

import json
import re

import pytest

from engines import REGISTRY
from pbem.cli import main
from pbem.errors import Rejected
from pbem.eventlog.log import MOVE_KINDS
from pbem.eventlog.verify import verify_export
from pbem.games.portable import export_game, export_record, import_full
from pbem.games.record import RecordError, read_record, verify_record
from pbem.games.service import SeatSpec
from pbem.runtime import build_runtime
from pbem.web import create_app
from tests.databases import sqlite_engine
from tests.web.conftest import overrides

TITLES = sorted(slug for slug in REGISTRY if slug != "pig")
SERVER = "http://localhost"  # the test configuration's base_url


def make_runtime(path):
    return build_runtime(
        overrides(path), db=sqlite_engine(path / "db.sqlite3"), create_schema=False
    )


def bot_game(runtime, slug: str, *, moves: int = 20_000) -> str:
    """A short seeded game of easy bots (two turns where the title has a turn limit)."""
    engine = REGISTRY[slug]
    seats = [SeatSpec(f"Bot {i + 1}", is_bot=True, bot_level="easy") for i in range(3)]
    seats = seats[: max(engine.min_seats, min(3, engine.max_seats))]
    options = {"turn_limit": 2} if any(o.name == "turn_limit" for o in engine.options) else {}
    game_id = runtime.service.create_game(slug, seats, options).game_id
    runtime.service.play_bots(game_id, max_moves=moves)
    return game_id


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    """One finished game of every title, with its export and its record."""
    path = tmp_path_factory.mktemp("record")
    runtime = make_runtime(path)
    games = {}
    for slug in TITLES:
        game_id = bot_game(runtime, slug)
        assert runtime.service.game(game_id).status == "finished"
        data = export_game(runtime.service, game_id)
        games[slug] = (game_id, data, export_record(runtime.service, game_id, server=SERVER))
    return runtime, games


def event_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if re.match(r"\d+  ", line)]


def line_number(text: str, starts: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith(starts))


@pytest.mark.parametrize("slug", TITLES)
def test_each_titles_record_round_trips_through_verify_and_import(slug, finished, tmp_path):
    runtime, games = finished
    game_id, data, text = games[slug]
    assert text.startswith('[Format "pbem-record/1"]\n[Server "http://localhost"]')
    assert f'[Seed "{data["events"][-1]["payload"]["seed"]}"]' in text
    # Every move stands in the title's notation alone: no move line needs its JSON.
    lines = event_lines(text)
    assert len(lines) == len(data["events"])
    moves = [
        line for line, row in zip(lines, data["events"], strict=True) if row["kind"] in MOVE_KINDS
    ]
    assert moves and not [line for line in moves if "{" in line]
    drawn = [row for row in data["events"] if row["chance"] and row["kind"] in MOVE_KINDS]
    for row in drawn[:3]:
        value, bound = row["chance"][0][1], row["chance"][0][0]
        assert f"[draws: {value}/{bound}" in lines[row["seq"]]
    # Read back, it is the export itself, byte for byte.
    back = read_record(text)
    assert json.dumps(back, sort_keys=True) == json.dumps(data, sort_keys=True)
    report = verify_record(text)
    assert report.ok and report.summary() == verify_export(data).summary()
    # Imported elsewhere, the game's log is the one stored here, hashes and all.
    elsewhere = make_runtime(tmp_path)
    import_full(elsewhere.service, back, mail=False)
    assert elsewhere.service.events(game_id) == runtime.service.events(game_id)
    assert export_record(elsewhere.service, game_id, server=SERVER) == text


def other_legal_notation(slug: str, data: dict) -> tuple[int, str, str]:
    """A move event whose player had another legal move: (seq, its notation, another)."""
    from pbem.eventlog.verify import verify_rows
    from pbem.games.record import move_text

    report = verify_rows(slug, data["events"])
    names = data["game"]["seat_names"]
    for row in data["events"][1:]:
        if row["kind"] not in MOVE_KINDS:
            continue
        engine, before = report.engines[row["seq"]], report.states[row["seq"] - 1]
        mine = move_text(engine, row["payload"]["move"], names)
        others = {move_text(engine, m, names) for m in engine.legal_moves(before, row["seat"])}
        others.discard(mine)
        if others:
            return row["seq"], mine, sorted(others)[0]
    raise AssertionError("no move with a choice")


def changed(text: str, starts: str, old: str, new: str) -> str:
    lines = text.splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith(starts))
    assert old in lines[index]
    lines[index] = lines[index].replace(old, new, 1)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "tamper",
    ["another_move", "no_move", "draw", "time", "player", "seed", "seat_name", "result"],
)
def test_a_changed_record_is_refused_naming_its_line(tamper, finished):
    _, games = finished
    slug = "mercatores"
    _, data, text = games[slug]
    rows = data["events"]
    if tamper in ("another_move", "no_move"):
        seq, mine, other = other_legal_notation(slug, data)
        new = other if tamper == "another_move" else "trade nothing"
        bad, where = changed(text, f"{seq}  ", f"  {mine}  ", f"  {new}  "), f"{seq}  "
    elif tamper == "draw":
        row = next(row for row in rows[1:] if row["chance"])
        bound, value = row["chance"][0]
        old, new = f"[draws: {value}/{bound}", f"[draws: {(value + 1) % bound}/{bound}"
        bad, where = changed(text, f"{row['seq']}  ", old, new), f"{row['seq']}  "
    elif tamper == "time":
        old = rows[5]["created_at"]
        bad, where = changed(text, "5  ", old, old.replace("T", "T0", 1)[:-2] + "Z"), "5  "
    elif tamper == "player":
        bad, where = changed(text, "7  ", " (", "x ("), "7  "
    elif tamper == "seed":
        seed = rows[-1]["payload"]["seed"]
        bad, where = changed(text, "[Seed", seed, seed[::-1]), "[Seed"
    elif tamper == "seat_name":
        bad, where = changed(text, "[Seat2", "Bot 2", "Bot Two"), "[Seat2"
    else:
        bad, where = changed(text, "[Result", "Scores", "Points"), "[Result"
    report = verify_record(bad)
    assert not report.ok
    assert report.message.startswith(f"line {line_number(bad, where)}: "), report.message
    with pytest.raises(RecordError):
        read_record(bad)


def test_an_unfinished_games_record_is_one_seats_and_hides_the_others_choices(tmp_path):
    """Mare Nostrum's offers are laid out face down: a seat's record names its own
    offer in notation and shows the others' only as that seat saw them."""
    runtime = make_runtime(tmp_path)
    service = runtime.service
    game_id = bot_game(runtime, "mare_nostrum", moves=5)
    with pytest.raises(Rejected):
        export_record(service, game_id)
    text = export_record(service, game_id, seat=0)
    assert '[Scope "seat"]' in text and '[Seed "not revealed"]' in text
    assert '[Result "*"]' in text and "[draws:" not in text
    engine = REGISTRY["mare_nostrum"]
    rows = service.events(game_id)
    offers = [row for row in rows if row["kind"] in MOVE_KINDS and "offer" in str(row["payload"])]
    assert {row["seat"] for row in offers} >= {0, 1}
    lines = event_lines(text)
    for row in offers:
        move = row["payload"]["move"]
        written = engine.notation(move)
        if row["seat"] == 0:
            assert written in lines[row["seq"]]
        else:
            assert written not in lines[row["seq"]] and "cards" not in lines[row["seq"]]
            assert "face down" in lines[row["seq"]]
    report = verify_record(text)
    assert report.ok and "receipts" in report.message
    seat_export = export_game(service, game_id, seat=0)
    back = read_record(text)
    assert back["events"] == [entry for entry in seat_export["events"] if "seq" in entry]
    assert back["game"] == seat_export["game"]


def pbem(database, *args):
    return main(["--database", database, *args])


def test_the_command_writes_verifies_and_imports_a_record(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("PBEM_PATHS_VAR", str(tmp_path / "var"))
    here, there = (f"sqlite:///{tmp_path / name}.sqlite3" for name in ("here", "there"))
    assert pbem(here, "new", "mercatores", "--seat", "bot", "--seat", "bot") == 0
    game_id = capsys.readouterr().out.split("Game ", 1)[1].split(" ", 1)[0]
    path = tmp_path / "game.txt"
    assert pbem(here, "export", game_id, "--format", "record", "--full", "-o", str(path)) == 1
    assert "--full" in capsys.readouterr().err
    assert pbem(here, "export", game_id, "--format", "record", "--seat", "0", "-o", str(path)) == 0
    assert pbem(here, "verify", str(path)) == 0
    assert "receipts" in capsys.readouterr().out
    from pbem.db import make_engine
    from pbem.games.service import GameService

    GameService(make_engine(here)).play_bots(game_id, max_moves=20_000)
    assert pbem(here, "export", game_id, "--format", "record", "-o", str(path)) == 0
    assert pbem(here, "verify", str(path)) == 0
    assert "every state hash matches" in capsys.readouterr().out
    assert pbem(there, "import", str(path), "--no-mail") == 0
    assert f"Imported game {game_id}" in capsys.readouterr().out
    assert GameService(make_engine(there)).events(game_id) == GameService(make_engine(here)).events(
        game_id
    )
    text = path.read_text()
    seed = text.split('[Seed "', 1)[1][:64]
    path.write_text(text.replace(f'[Seed "{seed}"]', f'[Seed "{seed[::-1]}"]'))
    assert pbem(here, "verify", str(path)) == 1
    assert f"line {line_number(path.read_text(), '[Seed')}:" in capsys.readouterr().out
    third = f"sqlite:///{tmp_path / 'third'}.sqlite3"
    assert pbem(third, "import", str(path)) == 1
    assert f"game.txt, line {line_number(path.read_text(), '[Seed')}:" in capsys.readouterr().err


def test_the_audit_page_offers_a_finished_games_record(finished):
    runtime, games = finished
    game_id, _, text = games["mare_balticum"]
    client = create_app(runtime=runtime).test_client()
    page = client.get(f"/games/{game_id}/audit")
    assert f'href="/games/{game_id}/record.txt"' in page.text
    got = client.get(f"/games/{game_id}/record.txt")
    assert got.status_code == 200 and got.mimetype == "text/plain"
    assert f'filename="{game_id}-record.txt"' in got.headers["Content-Disposition"]
    assert got.text == text
    running = bot_game(runtime, "mercatores", moves=3)
    refused = client.get(f"/games/{running}/record.txt")
    assert refused.status_code == client.get(f"/games/{running}/export.json").status_code == 422
    assert "published when the game ends" in refused.text
    assert "record.txt" not in client.get(f"/games/{running}/audit").text


def test_a_seat_downloads_its_own_record_from_its_page(finished):
    runtime, _ = finished
    seats = [SeatSpec("Ann", "ann@example.org"), SeatSpec("Bot", is_bot=True)]
    created = runtime.service.create_game("mercatores", seats, {})
    token = created.tokens[0]
    client = create_app(runtime=runtime).test_client()
    assert f'href="/play/{token}/record.txt"' in client.get(f"/play/{token}").text
    got = client.get(f"/play/{token}/record.txt")
    assert got.status_code == 200 and got.mimetype == "text/plain"
    assert f'filename="{created.game_id}-seat1-record.txt"' in got.headers["Content-Disposition"]
    assert '[Viewer "Ann (1)"]' in got.text and verify_record(got.text).ok


def test_a_title_without_a_notation_records_each_move_as_its_json(tmp_path):
    runtime = make_runtime(tmp_path)
    seats = [SeatSpec("Bot 1", is_bot=True), SeatSpec("Bot 2", is_bot=True)]
    game_id = runtime.service.create_game("pig", seats, {"target": 12}).game_id
    runtime.service.play_bots(game_id, max_moves=2_000)
    data = export_game(runtime.service, game_id)
    text = export_record(runtime.service, game_id)
    moves = [line for line in event_lines(text) if "(1, bot)" in line or "(2, bot)" in line]
    assert moves and all(line.endswith('"}}') and '{"move":' in line for line in moves)
    assert read_record(text) == data and verify_record(text).ok


@pytest.mark.parametrize(
    "mangle",
    [
        lambda text: text.replace("Bot 1 (1, bot)", "Bot 1 (0, bot)", 1),
        lambda text: text.replace("Bot 1 (1, bot)", "Bot 1 (1, by magic)", 1),
        lambda text: text.replace("  #", "  ", 3),
        lambda text: text.replace('{"actor"', '{"actor":' + "[" * 400 + "]" * 400 + ',"x"', 1),
        lambda text: text.replace('"kind":"created"', '"kind":7', 1),
        lambda text: re.sub(r"(\n0  .*?\[draws: )", r"\1x", text, count=1),
        lambda text: text.replace('[Engine "mercatores"]', '[Engine "chess"]'),
        lambda text: "\n".join(text.splitlines()[:30]),
        lambda text: text.split("\n\n", 1)[0],
        lambda text: text.replace('"]\n', "\n", 1),
    ],
)
def test_any_mangled_record_gets_an_answer_never_a_traceback(mangle, finished):
    _, games = finished
    text = games["mercatores"][2]
    bad = mangle(text)
    assert bad != text
    report = verify_record(bad)
    assert not report.ok and report.message
    with pytest.raises(RecordError):
        read_record(bad)


def test_events_of_every_kind_round_trip_as_readable_lines_with_their_json(tmp_path):
    """Talk (public and private), a vacation, a take-back and a seat handed to a bot:
    each a line of its own with its exact JSON, and the record still reads back whole."""
    from pbem.games import rescue, talk, vacations
    from pbem.games.takeback import take_back

    runtime = make_runtime(tmp_path)
    service = runtime.service
    seats = [SeatSpec("Ann", "ann@example.org"), SeatSpec("Bob", "bob@example.org")]
    game_id = service.create_game("mercatores", seats, {}).game_id
    talk.post(runtime, game_id, 0, None, "Good luck!")
    talk.post(runtime, game_id, 0, 1, "Between us: I want the coffee.")
    assert vacations.start_vacation(runtime, game_id, 1, 2).done
    head = service.head(game_id)
    seat = sorted(head.engine.to_move(head.state))[0]
    trade = next(m for m in head.engine.legal_moves(head.state, seat) if m["type"] == "trade")
    service.submit_move(game_id, seat, trade, head.seq)
    take_back(service, game_id, seat, service.head(game_id).seq)
    assert rescue.hand_to_bot(runtime, game_id, 0, level="easy").done
    assert rescue.hand_to_bot(runtime, game_id, 1, level="easy").done
    service.play_bots(game_id, max_moves=20_000)
    assert service.game(game_id).status == "finished"
    kinds = {row["kind"] for row in service.events(game_id)}
    assert {"talk", "take_back", "seat_to_bot"} <= kinds and len(kinds) >= 7
    data = export_game(service, game_id)
    text = export_record(service, game_id)
    lines = event_lines(text)
    for row in data["events"]:
        if row["kind"] not in MOVE_KINDS:
            assert f'"kind":"{row["kind"]}"' in lines[row["seq"]]
    assert "Good luck!" in text and "I want the coffee" not in text  # private talk sealed
    assert "Ann (1) takes a move back" in text and "a bot (easy) plays for Ann (1)" in text
    assert "Bob (2) is on vacation for 2 days" in text and "Ann (1) says: Good luck!" in text
    assert read_record(text) == data and verify_record(text).ok
    elsewhere = make_runtime(tmp_path / "elsewhere")
    import_full(elsewhere.service, read_record(text), mail=False)
    assert export_game(elsewhere.service, game_id) == data
