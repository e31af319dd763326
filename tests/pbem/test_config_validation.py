"""Configuration typos are refused, ``pbem`` exits 78 on them, and logging is one setup."""

from __future__ import annotations

import io
import json
import logging
import os
import urllib.request

import pytest

from pbem import cli, config, logs
from pbem.config import ConfigError, load_config
from pbem.web import create_app

TOKEN = "Zq3vK8pLmN2xR7tYwB4cD9eF1gH5jA6sU0iO3kL7mPq"


def _file(tmp_path, text: str):
    path = tmp_path / "site.toml"
    path.write_text(text)
    return {"PBEM_CONFIG": str(path)}, path


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[mail]\nquiet_minuts = 5\n", ["unknown key 'quiet_minuts'", "[mail]"]),
        ('[mial]\nhost = "smtp.example.org"\n', ["unknown section [mial]"]),
        ('[server]\nport = "eighty"\n', ["[server] port must be a whole number", "'eighty'"]),
        ("[server]\nproduction = 1\n", ["[server] production must be true or false"]),
        ("[mail]\nhost = 25\n", ["[mail] host must be text"]),
        ("debug = true\n[server]\nport = 80\n", ["unknown section [debug]"]),
        ("[server\nport = 80\n", ["is not valid TOML"]),
    ],
)
def test_a_bad_file_is_refused_naming_the_file_and_the_key(tmp_path, text, words):
    environ, path = _file(tmp_path, text)
    with pytest.raises(ConfigError) as refused:
        load_config(environ=environ)
    assert str(path) in refused.value.message
    for word in words:
        assert word in refused.value.message


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("PBEM_MIAL_HOST", "smtp.example.org", "PBEM_MIAL_HOST names no setting"),
        ("PBEM_MAIL_QUIET_MINUTS", "5", "PBEM_MAIL_QUIET_MINUTS names no setting"),
        ("PBEM_SERVER_PORT", "eighty", "PBEM_SERVER_PORT must be a whole number"),
        ("PBEM_SERVER_DEMO", "maybe", "PBEM_SERVER_DEMO must be true or false"),
    ],
)
def test_a_bad_environment_variable_is_refused_by_name(name, value, words):
    with pytest.raises(ConfigError) as refused:
        load_config(environ={name: value})
    assert words in refused.value.message


def test_a_good_file_and_the_documented_variables_load(tmp_path):
    environ, _ = _file(
        tmp_path,
        '[server]\nport = 8000\nproduction = true\n[database]\nurl = "sqlite:///x.db"\n'
        '[mail]\nquiet_minutes = 0\n[logging]\nformat = "json"\n',
    )
    environ.update(
        {
            "PBEM_TEST_POSTGRES_URL": "postgresql://x",
            "PBEM_SOAK": "1",
            "PBEM_SCHEMATHESIS_CASES": "3",
            "PBEM_PATHS_VAR": str(tmp_path / "var"),
            "PBEM_MAIL_PORT": "25",
        }
    )
    loaded = load_config(environ=environ)
    assert loaded["server"]["port"] == 8000 and loaded["server"]["production"] is True
    assert loaded["mail"]["quiet_minutes"] == 0 and loaded["mail"]["port"] == 25
    assert loaded["logging"]["format"] == "json"
    assert loaded["paths"]["var"] == str(tmp_path / "var")


def test_the_example_production_file_is_valid(monkeypatch):
    example = config.DEFAULT_FILE.with_name("production.example.toml")
    loaded = load_config(environ={"PBEM_CONFIG": str(example)})
    assert loaded["server"]["production"] is True


def test_the_system_file_is_read_when_nothing_names_one(tmp_path, monkeypatch):
    system = tmp_path / "pbem.toml"
    system.write_text("[server]\nport = 8181\n")
    monkeypatch.setattr(config, "SYSTEM_FILE", system)
    assert load_config(environ={})["server"]["port"] == 8181
    other = tmp_path / "other.toml"
    other.write_text("[server]\nport = 8282\n")
    assert load_config(environ={"PBEM_CONFIG": str(other)})["server"]["port"] == 8282


def test_the_command_exits_78_with_one_sentence(tmp_path, monkeypatch, capsys):
    environ, path = _file(tmp_path, "[mail]\nquiet_minuts = 5\n")
    monkeypatch.delenv("PBEM_CONFIG", raising=False)
    assert cli.main(["--config", str(path), "games"]) == cli.EX_CONFIG == 78
    err = capsys.readouterr().err
    assert "unknown key 'quiet_minuts'" in err and str(path) in err
    assert "Traceback" not in err
    os.environ.pop("PBEM_CONFIG")  # set by --config; the first delenv restores its absence
    monkeypatch.setenv("PBEM_SERVER_PORT", "eighty")
    assert cli.main(["games"]) == 78
    assert "PBEM_SERVER_PORT" in capsys.readouterr().err


def test_receive_asks_the_mta_to_keep_the_mail(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PBEM_MAIL_QUIET_MINUTS", "5")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"Subject: x\n\nroll\n")))
    assert cli.main(["receive", "play@example.org"]) == 75
    assert "PBEM_MAIL_QUIET_MINUTS names no setting" in capsys.readouterr().err


# Logging ------------------------------------------------------------------------------


@pytest.fixture
def restore_logging():
    """The root logger as it was, and no request id left behind in this thread by an
    earlier test's answer that was never closed (a WSGI server closes every answer)."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    outside = logs.REQUEST_ID.set(None)
    yield
    logs.REQUEST_ID.reset(outside)
    root.handlers[:] = handlers
    root.setLevel(level)


def _log_line(settings: dict) -> str:
    stream = io.StringIO()
    logs.configure({"logging": settings}, stream=stream)
    logging.getLogger("pbem.test").info("GET /play/%s 200", TOKEN)
    return stream.getvalue()


def test_plain_lines_mask_tokens(restore_logging):
    line = _log_line({"format": "plain", "level": "INFO"})
    assert "INFO pbem.test: GET /play/<masked> 200" in line
    assert TOKEN not in line


def test_json_lines_mask_tokens(restore_logging):
    record = json.loads(_log_line({"format": "json", "level": "INFO"}))
    assert record["level"] == "INFO" and record["logger"] == "pbem.test"
    assert record["message"] == "GET /play/<masked> 200"


def test_a_bad_logging_format_is_a_config_error(restore_logging, tmp_path):
    environ, _ = _file(tmp_path, '[logging]\nformat = "xml"\n')
    with pytest.raises(ConfigError, match="logging.format"):
        logs.configure(load_config(environ=environ))


def test_each_request_has_an_id_on_its_lines_and_in_its_answer(restore_logging, tmp_path):
    app = create_app(
        {
            "TESTING": True,
            "database": {"url": f"sqlite:///{tmp_path / 'pbem.sqlite3'}"},
            "paths": {"var": str(tmp_path / "var")},
            "security": {"secret_key": "test-key"},
            "server": {"demo": False},
            "logging": {"format": "json"},
        }
    )
    stream = io.StringIO()
    logs.configure({"logging": {"format": "json"}}, stream=stream)

    @app.get("/test-log")
    def test_log():
        logging.getLogger("pbem.test").warning("looked at /play/%s", TOKEN)
        return "ok"

    client = app.test_client()
    # A WSGI server closes each answer once sent; that ends the request's id.
    with client.get("/test-log") as first, client.get("/test-log") as second:
        pass
    ids = [first.headers["X-Request-Id"], second.headers["X-Request-Id"]]
    assert ids[0] != ids[1] and all(len(found) == 16 for found in ids)
    records = [json.loads(line) for line in stream.getvalue().splitlines()]
    mine = [record for record in records if record["logger"] == "pbem.test"]
    assert [record["request_id"] for record in mine] == ids
    assert all(TOKEN not in line for line in stream.getvalue().splitlines())
    logging.getLogger("pbem.test").warning("outside a request")
    assert "request_id" not in json.loads(stream.getvalue().splitlines()[-1])


def test_the_servers_request_line_carries_the_request_id(restore_logging, sqlite_db, tmp_path):
    from pbem.runtime import build_runtime
    from tests.web.conftest import overrides, pig_game, serving

    runtime = build_runtime(overrides(tmp_path), db=sqlite_db)
    token = pig_game(runtime).tokens[0]
    stream = io.StringIO()
    with serving(runtime) as base:
        logs.configure({"logging": {"format": "json"}}, stream=stream)
        with urllib.request.urlopen(f"{base}/play/{token}", timeout=10) as answer:
            request_id = answer.headers["X-Request-Id"]
            assert answer.status == 200
    records = [json.loads(line) for line in stream.getvalue().splitlines()]
    lines = [record for record in records if record["logger"] == "werkzeug"]
    assert [record.get("request_id") for record in lines] == [request_id]
    assert "/play/<masked>" in lines[0]["message"] and token not in stream.getvalue()


def test_lines_go_to_the_standard_error_of_the_moment(restore_logging, monkeypatch):
    logs.configure({"logging": {"format": "plain"}})
    later = io.StringIO()
    monkeypatch.setattr("sys.stderr", later)
    logging.getLogger("pbem.test").warning("after stderr was replaced")
    assert "WARNING pbem.test: after stderr was replaced" in later.getvalue()
