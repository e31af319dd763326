"""Configuration: embedded defaults, an overlay file, environment overrides, secret key."""

from __future__ import annotations

from pbem.config import load_config, secret_key


def test_defaults_put_sqlite_under_var(tmp_path):
    config = load_config(environ={"PBEM_PATHS_VAR": str(tmp_path)})
    assert config["database"]["url"] == f"sqlite:///{tmp_path / 'pbem.sqlite3'}"
    assert config["server"]["production"] is False
    assert config["mail"]["host"] == ""


def test_environment_overrides_each_value_with_its_type(tmp_path):
    environ = {
        "PBEM_SERVER_PORT": "8123",
        "PBEM_SERVER_PRODUCTION": "true",
        "PBEM_MAIL_HOST": "smtp.example.org",
        "PBEM_DATABASE_URL": "postgresql+psycopg://pbem@db/pbem",
    }
    config = load_config(environ=environ)
    assert config["server"]["port"] == 8123
    assert config["server"]["production"] is True
    assert config["mail"]["host"] == "smtp.example.org"
    assert config["database"]["url"] == "postgresql+psycopg://pbem@db/pbem"


def test_overlay_file_from_pbem_config(tmp_path):
    overlay = tmp_path / "site.toml"
    overlay.write_text('[server]\nbase_url = "https://games.example.org"\n')
    config = load_config(environ={"PBEM_CONFIG": str(overlay), "PBEM_SERVER_PORT": "9"})
    assert config["server"]["base_url"] == "https://games.example.org"
    assert config["server"]["port"] == 9
    assert config["server"]["host"] == "127.0.0.1"


def test_secret_key_is_generated_once_into_var(tmp_path):
    config = load_config(environ={"PBEM_PATHS_VAR": str(tmp_path)})
    first = secret_key(config)
    assert len(first) == 64 and (tmp_path / "secret_key").exists()
    assert secret_key(config) == first
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0


def test_configured_secret_key_wins(tmp_path):
    config = load_config(
        environ={"PBEM_PATHS_VAR": str(tmp_path), "PBEM_SECURITY_SECRET_KEY": "s3cret"}
    )
    assert secret_key(config) == "s3cret"
    assert not (tmp_path / "secret_key").exists()


def test_workers_starting_together_agree_on_one_generated_key(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    config = load_config({"paths": {"var": str(tmp_path / "var")}}, environ={})
    with ThreadPoolExecutor(8) as pool:
        keys = set(pool.map(lambda _: secret_key(config), range(32)))
    assert len(keys) == 1 and len(keys.pop()) == 64
    assert [path.name for path in (tmp_path / "var").iterdir()] == ["secret_key"]
    assert (tmp_path / "var").stat().st_mode & 0o077 == 0
