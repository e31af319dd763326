"""The command line's edges, as an attacker or a careless operator meets them:
traversal ids in backups and imports, crafted files for verify, receipts, production."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlmodel import Session, select

from pbem.cli import main
from pbem.eventlog.verify import verify_export
from pbem.models import Game
from tests.pbem.test_cli import finished_game, game_id_from, pbem


@pytest.fixture
def finished_export(database, capsys, tmp_path) -> dict:
    game_id = finished_game(database, capsys)
    path = tmp_path / "game.json"
    assert pbem(database, "export", game_id, "-o", str(path)) == 0
    capsys.readouterr()
    return json.loads(path.read_text())


def running_export(database, capsys, tmp_path) -> dict:
    assert pbem(database, "new", "pig", "--seat", "Ann:ann@example.org", "--seat", "bot") == 0
    game_id = game_id_from(capsys.readouterr().out)
    path = tmp_path / "running.json"
    assert pbem(database, "export", game_id, "--full", "-o", str(path)) == 0
    capsys.readouterr()
    return json.loads(path.read_text())


# Backups and imports ---------------------------------------------------------------

TRAVERSAL_IDS = ["../../escaped", "/tmp/pbem-absolute-escape", "a/b", "..", "UPPER-case", "x"]


def test_export_all_never_writes_outside_its_folder(database, capsys, tmp_path):
    from pbem.runtime import build_runtime

    good = finished_game(database, capsys)
    runtime = build_runtime({"database": {"url": database}})
    with Session(runtime.db) as session:
        template = session.get(Game, good)
        for bad in TRAVERSAL_IDS:
            fields = template.model_dump()
            fields["id"] = bad
            session.add(Game(**fields))
        session.commit()
    runtime.db.dispose()
    folder = tmp_path / "deep" / "backup"
    before = set(Path("/tmp").iterdir())
    assert pbem(database, "export", "--all", "-o", str(folder)) == 1
    captured = capsys.readouterr()
    assert sorted(path.name for path in folder.iterdir()) == [f"{good}.json"]
    assert not (tmp_path / "escaped.json").exists() and not (tmp_path / "deep" / "a").exists()
    assert set(Path("/tmp").iterdir()) == before
    for bad in TRAVERSAL_IDS:
        assert repr(bad) in captured.err
    assert "Traceback" not in captured.err


@pytest.mark.parametrize("bad", TRAVERSAL_IDS + [None, 7, ["a"], "a" * 40])
def test_import_refuses_a_game_id_not_of_the_servers_form(
    database, capsys, tmp_path, finished_export, bad
):
    data = copy.deepcopy(finished_export)
    data["game"]["id"] = bad
    for row in data["events"]:
        row["game_id"] = bad
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(data))
    before = {game.id for game in _games(database)}
    assert pbem(database, "import", str(path)) == 1
    assert "not a game id of this server" in capsys.readouterr().err
    assert {game.id for game in _games(database)} == before


def _games(database):
    from pbem.runtime import build_runtime

    runtime = build_runtime({"database": {"url": database}})
    with Session(runtime.db) as session:
        games = list(session.exec(select(Game)))
    runtime.db.dispose()
    return games


# Verify on crafted files -----------------------------------------------------------


def crafted(export: dict) -> dict[str, dict | list | str]:
    """Crafted variants of a good export, each with a problem verify must name."""
    variants: dict[str, object] = {}

    def variant(name, change):
        data = copy.deepcopy(export)
        change(data)
        variants[name] = data

    variant("payload a list", lambda d: d["events"][0].__setitem__("payload", [1, 2]))
    variant("options null", lambda d: d["events"][0]["payload"].__setitem__("options", None))
    variant("seq true", lambda d: d["events"][0].__setitem__("seq", True))
    variant("seq 1.0", lambda d: d["events"][1].__setitem__("seq", 1.0))
    variant("seq huge", lambda d: d["events"][1].__setitem__("seq", 2**70))
    variant("no hash", lambda d: d["events"][2].pop("hash"))
    variant("no kind", lambda d: d["events"][1].pop("kind"))
    variant("seat text", lambda d: d["events"][1].__setitem__("seat", "0"))
    variant("chance junk", lambda d: d["events"][1].__setitem__("chance", [[2**300, 1]]))
    variant("chance dict", lambda d: d["events"][1].__setitem__("chance", {"a": 1}))
    variant("events a dict", lambda d: d.__setitem__("events", {"0": 1}))
    variant("header a list", lambda d: d.__setitem__("game", []))
    variant("no head_seq", lambda d: d["game"].pop("head_seq"))
    variant("head_seq wrong", lambda d: d["game"].__setitem__("head_seq", len(d["events"])))
    variant("head_seq true", lambda d: d["game"].__setitem__("head_seq", True))
    variant("status odd", lambda d: d["game"].__setitem__("status", "paused"))
    variant("engine a list", lambda d: d["game"].__setitem__("engine", ["pig"]))
    variant("commitment other", lambda d: d["game"].__setitem__("commitment", "00" * 32))
    variant("says running", lambda d: d["game"].__setitem__("status", "active"))
    variant("seed a list", lambda d: d.__setitem__("seed", [1]))
    # The same, with every hash recomputed, as an attacker who knows the format would.
    for name in ("seat text", "chance junk", "no kind"):
        variants[f"{name}, rehashed"] = rehash(variants[name])
    variants["options null, rehashed"] = rehash(
        _set(copy.deepcopy(export), ("events", 0, "payload", "options"), None)
    )
    variants["payload a list, rehashed"] = rehash(
        _set(copy.deepcopy(export), ("events", 1, "payload"), [{"move": {"type": "roll"}}])
    )
    variants["seq true, rehashed"] = rehash(_set(copy.deepcopy(export), ("events", 1, "seq"), True))
    deep: object = "x"
    for _ in range(5000):
        deep = [deep]
    variant("deep nesting", lambda d: d["events"][1]["payload"].__setitem__("deep", deep))
    variants["a list"] = [export]
    variants["a number"] = 5
    variants["recorded junk"] = {"format": "pbem-recorded-game/1", "engine": ["x"]}
    variants["recorded huge bound"] = {
        "format": "pbem-recorded-game/1",
        "engine": export["game"]["engine"],
        "seed": "00",
        "game_id": "g",
        "commitment": __import__("hashlib").sha256(b"\x00").hexdigest(),
        "engine_version": export["game"]["engine_version"],
        "setup_chance": [[2**300, 5]],
        "moves": [],
    }
    return variants


def _set(data, path, value):
    parent = data
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = value
    return data


def rehash(data: dict) -> dict:
    """The chain recomputed after a change, and the header's head hash with it."""
    from pbem.eventlog.log import GENESIS_HASH, row_hash

    data = copy.deepcopy(data)
    prev = GENESIS_HASH
    for row in data["events"]:
        row["prev_hash"] = prev
        try:
            row["hash"] = prev = row_hash(row)
        except (KeyError, TypeError, ValueError):
            return data
    data["game"]["head_hash"] = prev
    return data


def test_every_crafted_file_gets_its_problem_by_name(finished_export):
    assert verify_export(finished_export).ok
    for name, data in crafted(finished_export).items():
        report = verify_export(data)
        assert not report.ok, name
        assert report.summary().startswith("FAILED") and len(report.message) > 10, name


def test_verify_from_the_shell_never_ends_in_a_traceback(
    database, capsys, tmp_path, finished_export
):
    variants = crafted(finished_export)
    variants.pop("deep nesting")
    files = {name: json.dumps(data) for name, data in variants.items()}
    files["deep payload"] = json.dumps(finished_export).replace(
        '"payload": {', '"payload": {"deep": ' + "[" * 5000 + "]" * 5000 + ", ", 1
    )
    files["deep but readable"] = json.dumps(finished_export).replace(
        '"payload": {', '"payload": {"deep": ' + "[" * 500 + "]" * 500 + ", ", 1
    )
    files["deep raw"] = "[" * 100_000 + "]" * 100_000
    files["nan"] = json.dumps(finished_export).replace('"seq": 1,', '"seq": NaN,', 1)
    files["binary"] = "\udcff"
    files["nul"] = json.dumps({"format": "pbem-export/1\u0000"})
    for name, text in files.items():
        path = tmp_path / "crafted.json"
        path.write_bytes(text.encode("utf-8", "surrogateescape"))
        assert pbem(database, "verify", str(path)) == 1, name
        captured = capsys.readouterr()
        assert "Traceback" not in captured.err and (captured.out + captured.err).strip(), name
    assert pbem(database, "verify", str(tmp_path / "missing.json")) == 1


def test_the_header_is_checked_against_the_log(database, capsys, tmp_path, finished_export):
    data = copy.deepcopy(finished_export)
    data["game"]["head_seq"] = data["game"]["head_seq"] - 1
    assert "head_seq" in verify_export(data).message
    data = copy.deepcopy(finished_export)
    data["game"]["commitment"] = "ab" * 32
    assert "commitment" in verify_export(data).message
    running = running_export(database, capsys, tmp_path)
    assert verify_export(running).ok
    running["game"]["status"] = "finished"
    report = verify_export(running)
    assert not report.ok and "no seed is revealed" in report.message


def test_a_receipt_from_a_mail_is_checked_against_the_log(
    database, capsys, tmp_path, finished_export
):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(finished_export))
    rows = finished_export["events"]
    assert pbem(database, "verify", str(path), "--head", rows[-1]["hash"]) == 0
    assert "last event" in capsys.readouterr().out
    assert pbem(database, "verify", str(path), "--head", rows[2]["hash"]) == 0
    assert f"event {rows[2]['seq']}" in capsys.readouterr().out
    assert pbem(database, "verify", str(path), "--head", "ab" * 32) == 1
    assert "no event in this log has the hash" in capsys.readouterr().out


MUTANTS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=5),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


def _paths(data, prefix=()):
    if isinstance(data, dict):
        for key, value in data.items():
            yield (*prefix, key)
            yield from _paths(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data[:6]):
            yield (*prefix, index)
            yield from _paths(value, (*prefix, index))


@pytest.fixture(scope="module")
def small_export(tmp_path_factory):
    from pbem.games.service import SeatSpec
    from pbem.runtime import build_runtime

    where = tmp_path_factory.mktemp("fuzz")
    runtime = build_runtime(
        {
            "database": {"url": f"sqlite:///{where / 'f.sqlite3'}"},
            "paths": {"var": str(where / "var")},
        }
    )
    created = runtime.service.create_game(
        "pig", [SeatSpec("A", "a@example.org"), SeatSpec("Bot", is_bot=True)], {"target": 12}
    )
    for _ in range(60):
        head = runtime.service.head(created.game_id)
        if head.game.status == "finished":
            break
        move = {"type": "stop"} if head.engine.view(head.state, 0)["pot"] >= 6 else {"type": "roll"}
        runtime.service.submit_move(created.game_id, 0, move, head.seq)
        runtime.service.play_bots(created.game_id)
    data = runtime.service.export_game(created.game_id)
    runtime.db.dispose()
    return data


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzzed_exports_are_answered_never_raised(small_export, data):
    assert verify_export(small_export).ok
    mutated = copy.deepcopy(small_export)
    paths = list(_paths(mutated))
    for _ in range(data.draw(st.integers(min_value=1, max_value=3))):
        path = data.draw(st.sampled_from(paths))
        parent = mutated
        try:
            for step in path[:-1]:
                parent = parent[step]
            if data.draw(st.booleans()) and isinstance(parent, dict):
                parent.pop(path[-1], None)
            else:
                parent[path[-1]] = data.draw(MUTANTS)
        except (KeyError, IndexError, TypeError):
            continue
    report = verify_export(mutated)
    assert isinstance(report.ok, bool) and report.summary()
    events_changed = json.dumps(mutated.get("events"), sort_keys=True) != json.dumps(
        small_export["events"], sort_keys=True
    )
    if events_changed:
        assert not report.ok, report.message


# Production ------------------------------------------------------------------------


def test_serve_production_alone_means_production_everywhere(database, capsys, monkeypatch):
    import pbem.cli as cli

    monkeypatch.setenv("PBEM_SERVER_PRODUCTION", "false")
    monkeypatch.setenv("PBEM_DATABASE_URL", database)
    monkeypatch.setenv("PBEM_SECURITY_SECRET_KEY", "k" * 64)
    assert pbem(database, "migrate") == 0
    seen = {}

    def fake_serve(runtime, host, port, workers):
        seen["production"] = runtime.production
        return 0

    monkeypatch.setattr(cli, "serve_production", fake_serve)
    assert main(["serve", "--production"]) == 0
    assert seen["production"] is True
    assert os.environ["PBEM_SERVER_PRODUCTION"] == "true"
    from pbem.web import create_app

    app = create_app()  # as a gunicorn worker builds it, from the inherited environment
    assert app.extensions["pbem"].production
    client = app.test_client()
    assert client.get("/dev/mail").status_code == 404
    assert client.get("/dev/mail/1").status_code == 404
    app.extensions["pbem"].db.dispose()


def test_serve_production_runs_gunicorn_with_the_masking_logger(monkeypatch, capsys, tmp_path):
    import pbem.cli as cli
    from pbem.runtime import build_runtime

    runtime = build_runtime(
        {
            "server": {"workers": 3},
            "paths": {"var": str(tmp_path)},
            "database": {"url": f"sqlite:///{tmp_path / 'x.sqlite3'}"},
        },
        create_schema=False,
    )
    object.__setattr__(runtime, "config", {**runtime.config})
    runtime.config["database"] = {**runtime.config["database"], "url": "postgresql+psycopg://x/y"}
    calls = []
    monkeypatch.setattr(cli.os, "execv", lambda path, argv: calls.append(argv))
    assert cli.serve_production(runtime, "127.0.0.1", 8000, None) == 0
    argv = calls[0]
    assert argv[argv.index("--logger-class") + 1] == "pbem.web.accesslog.MaskingLogger"
    assert argv[argv.index("--workers") + 1] == "3"
    runtime.db.dispose()


@pytest.mark.parametrize(
    "path, value",
    [
        (("events", 0, "payload", "title"), "T" * 500),
        (("game", "title"), "Evil\r\nBcc: all@example.org"),
        (("game", "seat_names"), ["Ann", "N" * 500]),
        (("game", "seat_names"), ["Ann\x00", "Bob"]),
    ],
)
def test_import_refuses_unbounded_text(database, capsys, tmp_path, path, value):
    data = running_export(database, capsys, tmp_path)
    data["game"]["id"] = "imported-game"
    _set(data, path, value)
    file = tmp_path / "long.json"
    file.write_text(json.dumps(data))
    before = {game.id for game in _games(database)}
    assert pbem(database, "import", str(file)) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err and captured.err.strip()
    assert {game.id for game in _games(database)} == before


def test_a_database_that_fails_is_a_sentence_not_a_traceback(tmp_path, capsys):
    assert main(["--database", "postgresql+psycopg://nobody@127.0.0.1:9/none", "games"]) == 1
    assert "The database failed" in capsys.readouterr().err
