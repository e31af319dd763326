"""Configuration: ``config/default.toml``, an optional overlay file, then environment.

Order of precedence (last wins): the embedded defaults in ``config/default.toml``; the
file named by ``PBEM_CONFIG`` (e.g. a copy of ``config/production.example.toml``);
environment variables ``PBEM_<SECTION>_<KEY>`` (``PBEM_MAIL_HOST``), and
``PBEM_DATABASE_URL`` for the database. A secret key is generated into ``var/`` on
first run when none is configured.
"""

from __future__ import annotations

import os
import secrets
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FILE = ROOT / "config" / "default.toml"


def _coerce(value: str, like: Any) -> Any:
    if isinstance(like, bool):
        return value.strip().lower() in ("1", "true", "yes", "on")
    if isinstance(like, int):
        return int(value)
    if isinstance(like, float):
        return float(value)
    return value


def _merge(base: dict, extra: Mapping) -> dict:
    merged = {key: dict(value) if isinstance(value, dict) else value for key, value in base.items()}
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def load_config(
    overrides: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None
) -> dict[str, dict[str, Any]]:
    """The merged configuration as ``{section: {key: value}}``."""
    environ = os.environ if environ is None else environ
    config = tomllib.loads(DEFAULT_FILE.read_text())
    extra_file = environ.get("PBEM_CONFIG")
    if extra_file:
        config = _merge(config, tomllib.loads(Path(extra_file).read_text()))
    for section, values in config.items():
        for key, default in values.items():
            name = f"PBEM_{section}_{key}".upper()
            if name in environ:
                values[key] = _coerce(environ[name], default)
    if environ.get("PBEM_DATABASE_URL"):
        config["database"]["url"] = environ["PBEM_DATABASE_URL"]
    if overrides:
        config = _merge(config, overrides)
    var = Path(config["paths"]["var"])
    if not var.is_absolute():
        var = ROOT / var
    config["paths"]["var"] = str(var)
    url = config["database"]["url"]
    if url.startswith("sqlite:///") and not url.startswith("sqlite:////"):
        relative = url[len("sqlite:///") :]
        if relative and relative != ":memory:":
            if relative.startswith("var/"):
                path = var / relative[len("var/") :]
            else:
                path = ROOT / relative
            config["database"]["url"] = f"sqlite:///{path}"
    return config


def make_var(config: Mapping[str, Mapping[str, Any]]) -> Path:
    """The ``var/`` folder, created readable by the server's user only (0700), and the
    process's umask set so every file the server writes there is 0600."""
    var = Path(config["paths"]["var"])
    os.umask(0o077)
    var.mkdir(mode=0o700, parents=True, exist_ok=True)
    if var.stat().st_uid == os.geteuid() and var.stat().st_mode & 0o077:
        var.chmod(0o700)  # made by an earlier version, open to other users
    return var


def secret_key(config: Mapping[str, Mapping[str, Any]]) -> str:
    """The configured secret key, or one generated once into ``var/secret_key``."""
    configured = config["security"].get("secret_key")
    if configured:
        return configured
    path = Path(config["paths"]["var"]) / "secret_key"
    if path.exists():
        return path.read_text().strip()
    make_var(config)
    # Written aside and linked into place: web workers starting together on a first run
    # all end up with the one key that landed first, never with a half-written file.
    draft = path.with_name(f".secret_key.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(secrets.token_hex(32) + "\n")
    try:
        os.link(draft, path)
    except FileExistsError:
        pass
    finally:
        draft.unlink()
    return path.read_text().strip()
