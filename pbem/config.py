"""Configuration: ``config/default.toml``, an optional overlay file, then environment.

Order of precedence (last wins): the embedded defaults in ``config/default.toml`` (shipped
inside the package); one configuration file: the one ``pbem --config FILE`` names, else
the one ``PBEM_CONFIG`` names, else ``/etc/pbem/pbem.toml`` when it exists (e.g. a copy of
``config/production.example.toml``); environment variables ``PBEM_<SECTION>_<KEY>``
(``PBEM_MAIL_HOST``), ``PBEM_DATABASE_URL`` among them. A secret key is generated into
``var/`` on first run when none is configured.

Every file and variable is checked against the defaults: an unknown section or key, or a
value of the wrong type, raises :class:`ConfigError` naming the file (or variable) and
the key, and the server does not start on it.
"""

from __future__ import annotations

import os
import secrets
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pbem.errors import PbemError
from pbem.locations import CHECKOUT, base_dir, data_dir

ROOT = CHECKOUT
DEFAULT_FILE = data_dir("config") / "default.toml"
# Read when neither ``--config`` nor ``PBEM_CONFIG`` names a file.
SYSTEM_FILE = Path("/etc/pbem/pbem.toml")
# ``PBEM_*`` variables that are not ``PBEM_<SECTION>_<KEY>``: the configuration file, and
# those the tests and benchmarks read.
OTHER_VARIABLES = {
    "PBEM_CONFIG",
    "PBEM_SOAK",
    "PBEM_SCHEMATHESIS_CASES",
    "PBEM_UPDATE_GOLDEN",
    "PBEM_SCREENSHOTS",
}
OTHER_PREFIXES = ("PBEM_TEST_",)
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off", "")


class ConfigError(PbemError):
    """A configuration file or variable the server cannot run on (``pbem`` exits 78)."""


def _kind(like: Any) -> str:
    if isinstance(like, bool):
        return "true or false"
    if isinstance(like, int):
        return "a whole number"
    if isinstance(like, float):
        return "a number"
    if isinstance(like, list):
        return "a list"
    return "text"


def _fits(value: Any, like: Any) -> bool:
    if isinstance(like, bool):
        return isinstance(value, bool)
    if isinstance(like, int):
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(like, float):
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, type(like))


def _coerce(name: str, value: str, like: Any) -> Any:
    """The value of environment variable ``name`` as the type of its default."""
    text = value.strip()
    try:
        if isinstance(like, bool):
            if text.lower() in _TRUE:
                return True
            if text.lower() in _FALSE:
                return False
            raise ValueError(text)
        if isinstance(like, int):
            return int(text)
        if isinstance(like, float):
            return float(text)
    except ValueError:
        raise ConfigError(
            f"The environment variable {name} must be {_kind(like)}, not {value!r}."
        ) from None
    if isinstance(like, list):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


def _check_file(path: Path, data: Mapping[str, Any], defaults: Mapping[str, Any]) -> None:
    """Raises :class:`ConfigError` at the first unknown section, unknown key or value of
    the wrong type in the configuration file ``path``."""
    for section, values in data.items():
        if section not in defaults or not isinstance(values, Mapping):
            known = ", ".join(f"[{name}]" for name in defaults)
            raise ConfigError(
                f"The configuration file {path} has an unknown section [{section}] "
                f"(known sections: {known})."
            )
        for key, value in values.items():
            if key not in defaults[section]:
                raise ConfigError(
                    f"The configuration file {path} has an unknown key {key!r} in "
                    f"[{section}] (known keys: {', '.join(defaults[section])})."
                )
            like = defaults[section][key]
            if not _fits(value, like):
                raise ConfigError(
                    f"In the configuration file {path}, [{section}] {key} must be "
                    f"{_kind(like)}, not {value!r}."
                )


def _read_file(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"The configuration file {path} does not exist.") from None
    except OSError as error:
        raise ConfigError(f"The configuration file {path} cannot be read: {error}.") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"The configuration file {path} is not valid TOML: {error}.") from None


def config_file(environ: Mapping[str, str]) -> Path | None:
    """The configuration file to read over the defaults, if any."""
    named = environ.get("PBEM_CONFIG")
    if named:
        return Path(named)
    return SYSTEM_FILE if SYSTEM_FILE.is_file() else None


def _merge(base: dict, extra: Mapping) -> dict:
    merged = {key: dict(value) if isinstance(value, dict) else value for key, value in base.items()}
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def _from_environment(config: dict, environ: Mapping[str, str]) -> None:
    """Applies ``PBEM_<SECTION>_<KEY>`` variables; refuses a ``PBEM_*`` variable that
    names no setting (a typo would otherwise be ignored)."""
    names = {
        f"PBEM_{section}_{key}".upper(): (section, key)
        for section, values in config.items()
        for key in values
    }
    for name in sorted(environ):
        if not name.startswith("PBEM_"):
            continue
        if name in names:
            section, key = names[name]
            config[section][key] = _coerce(name, environ[name], config[section][key])
        elif name not in OTHER_VARIABLES and not name.startswith(OTHER_PREFIXES):
            raise ConfigError(
                f"The environment variable {name} names no setting "
                f"(settings are PBEM_<SECTION>_<KEY>, e.g. PBEM_MAIL_HOST)."
            )


def load_config(
    overrides: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None
) -> dict[str, dict[str, Any]]:
    """The merged configuration as ``{section: {key: value}}``; raises
    :class:`ConfigError` on an unknown or mistyped setting."""
    environ = os.environ if environ is None else environ
    config = tomllib.loads(DEFAULT_FILE.read_text())
    extra_file = config_file(environ)
    if extra_file is not None:
        extra = _read_file(extra_file)
        _check_file(extra_file, extra, config)
        config = _merge(config, extra)
    _from_environment(config, environ)
    if overrides:
        config = _merge(config, overrides)
    base = base_dir()
    var = Path(config["paths"]["var"])
    if not var.is_absolute():
        var = base / var
    config["paths"]["var"] = str(var)
    url = config["database"]["url"]
    if url.startswith("sqlite:///") and not url.startswith("sqlite:////"):
        relative = url[len("sqlite:///") :]
        if relative and relative != ":memory:":
            if relative.startswith("var/"):
                path = var / relative[len("var/") :]
            else:
                path = base / relative
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
    write_once(path, (secrets.token_hex(32) + "\n").encode())
    return path.read_text().strip()


def write_once(path: Path, content: bytes) -> None:
    """``content`` into ``path`` (0600) unless a file is there already. Written aside and
    linked into place: processes starting together on a first run all end up with the one
    file that landed first, never with a half-written one."""
    draft = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(content)
    try:
        os.link(draft, path)
    except FileExistsError:
        pass
    finally:
        draft.unlink()
