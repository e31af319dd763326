"""The pbem command: games from the shell, export, import, and offline verification."""

from __future__ import annotations

import json

import pytest
from sqlmodel import Session, delete

from pbem.cli import main
from pbem.models import Event


def pbem(database, *args):
    return main(["--database", database, *args])


def game_id_from(output: str) -> str:
    return output.split("Game ", 1)[1].split(" ", 1)[0]


def finished_game(database, capsys, target=15):
    assert (
        pbem(
            database,
            "new",
            "pig",
            "--seat",
            "Ann:ann@example.org",
            "--seat",
            "bot",
            "--options",
            json.dumps({"target": target}),
        )
        == 0
    )
    game_id = game_id_from(capsys.readouterr().out)
    for _ in range(400):
        if pbem(database, "show", game_id) != 0:
            break
        view = json.loads(capsys.readouterr().out)
        if view["finished"]:
            break
        move = '{"type": "stop"}' if view["pot"] >= 8 else '{"type": "roll"}'
        assert pbem(database, "move", game_id, "0", move) == 0
        capsys.readouterr()
    return game_id


def test_new_prints_a_link_per_human_seat(database, capsys):
    assert pbem(database, "new", "pig", "--seat", "Ann:ann@example.org", "--seat", "bot") == 0
    out = capsys.readouterr().out
    assert "/play/" in out and "(bot)" in out
    assert pbem(database, "games") == 0
    assert game_id_from(out) in capsys.readouterr().out


def test_finished_game_exports_and_verifies(database, capsys, tmp_path):
    game_id = finished_game(database, capsys)
    path = tmp_path / "game.json"
    assert pbem(database, "export", game_id, "-o", str(path)) == 0
    assert pbem(database, "verify", str(path)) == 0
    out = capsys.readouterr().out
    assert "events verified" in out and "draws re-derived from the seed" in out


def test_one_changed_byte_in_an_export_names_the_first_bad_event(database, capsys, tmp_path):
    game_id = finished_game(database, capsys)
    path = tmp_path / "game.json"
    pbem(database, "export", game_id, "-o", str(path))
    data = json.loads(path.read_text())
    for seq in (1, len(data["events"]) // 2, len(data["events"]) - 2):
        tampered = json.loads(path.read_text())
        stamp = tampered["events"][seq]["created_at"]
        changed = stamp[:-2] + ("1" if stamp[-2] != "1" else "2") + stamp[-1]
        tampered["events"][seq]["created_at"] = changed
        bad = tmp_path / f"bad{seq}.json"
        bad.write_text(json.dumps(tampered))
        capsys.readouterr()
        assert pbem(database, "verify", str(bad)) == 1
        assert f"event {seq}:" in capsys.readouterr().out


def test_a_changed_draw_with_a_recomputed_chain_still_fails(database, capsys, tmp_path):
    """A forger who rehashes the whole chain is caught by the revealed seed."""
    from pbem.eventlog.log import row_hash

    game_id = finished_game(database, capsys)
    path = tmp_path / "game.json"
    pbem(database, "export", game_id, "-o", str(path))
    data = json.loads(path.read_text())
    target = next(e["seq"] for e in data["events"] if e["kind"] != "created" and e["chance"])
    event = data["events"][target]
    bound, value = event["chance"][0]
    event["chance"][0] = [bound, (value + 1) % bound]
    prev = data["events"][target - 1]["hash"]
    for row in data["events"][target:]:
        row["prev_hash"] = prev
        row["hash"] = prev = row_hash(row)
    data["game"]["head_hash"] = prev
    path.write_text(json.dumps(data))
    capsys.readouterr()
    assert pbem(database, "verify", str(path)) == 1
    assert f"event {target}:" in capsys.readouterr().out


@pytest.mark.parametrize("tamper", ["change", "delete", "reorder"])
def test_tampering_with_the_database_is_caught_by_verify(database, capsys, tmp_path, tamper):
    from pbem.db import make_engine

    game_id = finished_game(database, capsys)
    db = make_engine(database)
    with Session(db) as session:
        if tamper == "change":
            event = session.get(Event, (game_id, 3))
            event.actor = "mallory"
            session.add(event)
        elif tamper == "delete":
            session.exec(delete(Event).where(Event.game_id == game_id, Event.seq == 3))
        else:
            third, fourth = session.get(Event, (game_id, 3)), session.get(Event, (game_id, 4))
            fields = (
                "kind",
                "seat",
                "payload",
                "chance",
                "state_hash",
                "prev_hash",
                "hash",
                "actor",
                "created_at",
            )
            swapped = [{name: getattr(row, name) for name in fields} for row in (fourth, third)]
            for row, values in zip((third, fourth), swapped, strict=True):
                for name, value in values.items():
                    setattr(row, name, value)
            session.add_all([third, fourth])
        session.commit()
    db.dispose()
    path = tmp_path / "tampered.json"
    assert pbem(database, "export", game_id, "-o", str(path)) == 0
    capsys.readouterr()
    assert pbem(database, "verify", str(path)) == 1
    assert "event 3:" in capsys.readouterr().out


def test_export_import_carries_on_in_another_database(database, capsys, tmp_path):
    assert pbem(database, "new", "pig", "--seat", "A:a@x.org", "--seat", "B:b@x.org") == 0
    game_id = game_id_from(capsys.readouterr().out)
    pbem(database, "move", game_id, "0", '{"type": "roll"}')
    path = tmp_path / "running.json"
    assert pbem(database, "export", game_id, "--full", "-o", str(path)) == 0
    other = f"sqlite:///{tmp_path / 'other.sqlite3'}"
    capsys.readouterr()
    assert pbem(other, "import", str(path)) == 0
    out = capsys.readouterr().out
    assert "seat 0 A: http" in out and "seat 1 B: http" in out
    token = out.split("seat 1 B: ", 1)[1].split("/play/", 1)[1].split()[0]
    from pbem.db import make_engine
    from pbem.games.service import GameService

    imported = GameService(make_engine(other))
    assert imported.seat_for_token(token).seat == 1
    assert pbem(other, "show", game_id) == 0
    capsys.readouterr()
    assert pbem(other, "import", str(path)) == 1
    assert "exists here already" in capsys.readouterr().err


@pytest.mark.parametrize(
    "content", ["not json at all", "{}", '{"format": "pbem-export/1", "game": {}, "events": []}']
)
def test_malformed_files_are_refused_clearly(database, capsys, tmp_path, content):
    path = tmp_path / "bad.json"
    path.write_text(content)
    assert pbem(database, "import", str(path)) == 1
    assert pbem(database, "verify", str(path)) == 1
    assert pbem(database, "games") == 0
    assert "No games yet." in capsys.readouterr().out


def test_bad_move_from_the_shell_is_refused(database, capsys):
    pbem(database, "new", "pig", "--seat", "A:a@x.org", "--seat", "B:b@x.org")
    game_id = game_id_from(capsys.readouterr().out)
    assert pbem(database, "move", game_id, "1", '{"type": "roll"}') == 1
    assert "not your turn" in capsys.readouterr().err
    assert pbem(database, "move", game_id, "0", "{oops") == 2
    assert pbem(database, "move", "nosuchgame", "0", '{"type": "roll"}') == 1


def test_check_engines_lists_games_whose_replay_diverges(database, capsys, monkeypatch):
    from engines import REGISTRY
    from tests.fixture_engine import Pig
    from tests.pbem.test_engine_versions import PigTwo

    pbem(database, "new", "pig", "--seat", "A:a@x.org", "--seat", "B:b@x.org")
    game_id = game_id_from(capsys.readouterr().out)
    assert pbem(database, "move", game_id, "0", '{"type": "roll", "dice": 2}') == 0
    capsys.readouterr()
    assert pbem(database, "check-engines") == 0
    assert "replays identically" in capsys.readouterr().out

    # version 2 ships and keeps version 1: the game replays on its own version
    monkeypatch.setitem(REGISTRY, "pig", PigTwo())
    assert pbem(database, "check-engines") == 0
    out = capsys.readouterr().out
    assert "on v1 (created with v1), newest v2: replays identically" in out

    class PigChanged(Pig):
        """Version 1's rules altered by mistake."""

        def apply(self, state, seat, move, chance):
            after = super().apply(state, seat, move, chance)
            return {**after, "rolls": after["rolls"] + 100}

    monkeypatch.setitem(REGISTRY, "pig", PigChanged())
    assert pbem(database, "check-engines") == 1
    out = capsys.readouterr().out
    assert "DIVERGES" in out and "event 1" in out

    class PigOnlyTwo(Pig):
        version = 2
        versions = (2,)

    monkeypatch.setitem(REGISTRY, "pig", PigOnlyTwo())
    assert pbem(database, "move", game_id, "0", '{"type": "roll"}') == 1
    assert "version 1" in capsys.readouterr().err


def test_upgrade_engine_from_the_shell(database, capsys, monkeypatch):
    from engines import REGISTRY
    from tests.pbem.test_engine_versions import PigTwo

    pbem(database, "new", "pig", "--seat", "A:a@x.org", "--seat", "B:b@x.org")
    kept = game_id_from(capsys.readouterr().out)
    pbem(database, "new", "pig", "--seat", "A:a@x.org", "--seat", "bot:easy")
    diverging = game_id_from(capsys.readouterr().out)
    assert pbem(database, "move", kept, "0", '{"type": "roll", "dice": 2}') == 0
    assert pbem(database, "move", diverging, "0", '{"type": "stop"}') == 0
    capsys.readouterr()
    assert pbem(database, "upgrade-engine", kept) == 1  # nothing newer yet
    assert "only move to a newer one" in capsys.readouterr().err
    monkeypatch.setitem(REGISTRY, "pig", PigTwo())
    assert pbem(database, "upgrade-engine", diverging, "--to", "2") == 1
    err = capsys.readouterr().err
    assert "stays on version 1" in err and "event 1" in err
    assert pbem(database, "upgrade-engine", kept) == 0
    assert "now plays version 2" in capsys.readouterr().out
    assert pbem(database, "check-engines") == 0
    out = capsys.readouterr().out
    assert f"{kept}  pig            on v2 (created with v1)" in out
    assert pbem(database, "upgrade-engine", "nosuchgame") == 1


def test_new_game_bot_levels_from_the_shell(database, capsys):
    from pbem.runtime import build_runtime

    args = ["new", "pig", "--seat", "A:a@x.org", "--seat", "bot:easy", "--seat", "bot"]
    assert pbem(database, *args) == 0
    game_id = game_id_from(capsys.readouterr().out)
    runtime = build_runtime({"database": {"url": database}})
    levels = [seat.bot_level for seat in runtime.service.seats(game_id) if seat.is_bot]
    assert levels == ["easy", "normal"]
    assert pbem(database, "new", "pig", "--seat", "A:a@x.org", "--seat", "bot:hard") == 1
    assert "at one of these levels: easy, normal." in capsys.readouterr().err
    assert pbem(database, "new", "pig", "--seat", "A:a@x.org", "--seat", "bot:wild") == 1
    assert "bot:easy, bot:normal, bot:hard" in capsys.readouterr().err
    assert len(runtime.service.games()) == 1


def test_the_operator_hands_a_seat_to_a_bot_gives_it_back_and_invites_a_newcomer(database, capsys):
    from sqlmodel import Session, select

    from pbem.mail.models import Mail
    from pbem.runtime import build_runtime

    options = ["--options", '{"target": 1000000}']
    assert (
        pbem(database, "new", "pig", "--seat", "Ann:ann@example.org", "--seat", "bot", *options)
        == 0
    )
    game_id = game_id_from(capsys.readouterr().out)
    runtime = build_runtime({"database": {"url": database}})

    def kinds() -> list[str]:
        return [row["kind"] for row in runtime.service.events(game_id)]

    assert pbem(database, "seat", "bot", game_id, "0", "--level", "easy") == 0
    assert "seat_to_bot" in kinds()
    ann = runtime.service.seats(game_id)[0]
    assert ann.is_bot and ann.bot_level == "easy"
    assert pbem(database, "seat", "reclaim", game_id, "0") == 0
    assert "seat_reclaimed" in kinds() and not runtime.service.seats(game_id)[0].is_bot
    capsys.readouterr()
    assert pbem(database, "seat", "invite", game_id, "0") == 1
    assert "NAME:EMAIL" in capsys.readouterr().err
    assert pbem(database, "seat", "invite", game_id, "0", "--newcomer", "Bo:bo@x.org") == 0
    with Session(runtime.db) as session:
        invited = session.exec(select(Mail).where(Mail.recipient == "bo@x.org")).all()
        told = session.exec(select(Mail).where(Mail.recipient == "ann@example.org")).all()
    assert invited, "the newcomer is invited by mail"
    assert len(told) >= 3, "Ann is told of each change to her seat"
    assert pbem(database, "seat", "bot", game_id, "7") == 1
