"""The server's VAPID key pair for web push (RFC 8292), generated once into
``var/vapid_private.pem`` (0600, like ``var/secret_key``) and kept: every browser's
subscription is bound to its public key, so a new key would silence them all.

:func:`public_key` is what a page hands ``pushManager.subscribe`` (the uncompressed
P-256 point, base64url); :func:`authorization` signs the JWT a push service checks
(audience: the push service's origin, an expiry within a day, ``sub``: the operator's
contact).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from py_vapid import Vapid02
from py_vapid.utils import b64urlencode

from pbem.config import write_once

FILE = "vapid_private.pem"
LIFETIME = 12 * 3600


def _path(config: dict) -> Path:
    return Path(config["paths"]["var"]) / FILE


def keys(config: dict) -> Vapid02:
    """The server's key pair, generated into ``var/`` on first use. Processes starting
    together all end up with the one key written first."""
    path = _path(config)
    if not path.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fresh = Vapid02()
        fresh.generate_keys()
        write_once(path, fresh.private_pem())
    return Vapid02.from_file(str(path))


def cached_keys(runtime: Any) -> Vapid02:
    if "vapid" not in runtime.extras:
        runtime.extras["vapid"] = keys(runtime.config)
    return runtime.extras["vapid"]


def public_key(runtime: Any) -> str:
    """The public key as ``applicationServerKey`` wants it (base64url, no padding)."""
    point = cached_keys(runtime).public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64urlencode(point)


def subject(config: dict) -> str:
    named = str(config.get("notices", {}).get("vapid_subject", "") or "").strip()
    if named:
        return named
    sender = config["mail"]["sender"]
    address = sender.rpartition("<")[2].rstrip(">").strip() or "pbem@localhost"
    return f"mailto:{address}"


def authorization(runtime: Any, endpoint: str) -> str:
    """The ``Authorization`` header for a push to ``endpoint``: ``vapid t=JWT,k=KEY``."""
    parts = urlsplit(endpoint)
    claims = {
        "aud": f"{parts.scheme}://{parts.netloc}",
        "exp": int(time.time()) + LIFETIME,
        "sub": subject(runtime.config),
    }
    return cached_keys(runtime).sign(claims)["Authorization"]
