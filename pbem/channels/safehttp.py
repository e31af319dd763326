"""Posting to an address someone else chose (a webhook, a push service), safely.

The address is checked before anything is sent (:func:`check_url`): https only (plain
http too, and only to the loopback address, when ``notices.allow_loopback`` is on for
tests), no user name or password in it, at most 2,000 characters. Its host name is then
resolved and *every* address it resolves to must be public: a private, loopback,
link-local, multicast, reserved or unspecified one refuses the whole request (the
server must not be made to reach into its own network). The request goes to the
address that was checked, never to a second resolution of the name (a name that
changes its answer between the check and the connection reaches nothing new); TLS
still checks the certificate against the name. Redirects are not followed, each
request has a timeout, the body sent is capped, and at most ``max_response_bytes`` of
the answer are read.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

from pbem.errors import BadInput

MAX_URL = 2000


class Unsafe(BadInput):
    """An address this server will not post to."""


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str
    port: int
    path: str


@dataclass(frozen=True)
class Answer:
    status: int
    body: bytes


def check_url(url: str, *, allow_loopback: bool = False) -> Target:
    """The parts of ``url`` to post to, or :class:`Unsafe` saying why not (without
    resolving the name: see :func:`resolve`)."""
    if not isinstance(url, str) or not url.strip():
        raise Unsafe("Give the address to post to.")
    url = url.strip()
    if len(url) > MAX_URL or any(ord(char) < 33 or ord(char) == 127 for char in url):
        raise Unsafe("That address is too long or has spaces or control characters in it.")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise Unsafe("That is not a valid web address.") from None
    if parts.scheme not in ("https", "http"):
        raise Unsafe("Only https addresses are allowed.")
    if parts.username is not None or parts.password is not None:
        raise Unsafe("The address must not hold a user name or password.")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise Unsafe("That address names no host.")
    if parts.scheme == "http" and not (allow_loopback and _is_loopback_name(host)):
        raise Unsafe("Only https addresses are allowed.")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(parts.scheme, host, port or (443 if parts.scheme == "https" else 80), path)


def _is_loopback_name(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _public(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_global and not (
        address.is_multicast
        or address.is_private
        or address.is_loopback
        or address.is_link_local
        or address.is_reserved
        or address.is_unspecified
    )


def resolve(target: Target, *, allow_loopback: bool = False) -> str:
    """The one checked address to connect to (:class:`Unsafe` when any address the
    name resolves to is not public, or the name does not resolve)."""
    try:
        found = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise Unsafe(f"The host {target.host} cannot be found.") from None
    addresses = []
    for *_, sockaddr in found:
        address = ipaddress.ip_address(sockaddr[0].split("%")[0])
        if not (_public(address) or (allow_loopback and address.is_loopback)):
            raise Unsafe(f"The host {target.host} is not on the public internet.")
        addresses.append(str(address))
    if not addresses:
        raise Unsafe(f"The host {target.host} cannot be found.")
    return addresses[0]


class _Pinned(http.client.HTTPConnection):
    """An HTTP connection to one checked address, whatever the name resolves to now."""

    def __init__(self, address: str, target: Target, timeout: float):
        super().__init__(target.host, target.port, timeout=timeout)
        self._address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedTLS(http.client.HTTPSConnection):
    """An HTTPS connection to one checked address; the certificate is checked against
    the name."""

    def __init__(self, address: str, target: Target, timeout: float):
        super().__init__(
            target.host, target.port, timeout=timeout, context=ssl.create_default_context()
        )
        self._address = address

    def connect(self) -> None:
        raw = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(raw, server_hostname=self.host)  # type: ignore[attr-defined]


def post(
    url: str,
    body: bytes,
    headers: dict[str, str],
    *,
    allow_loopback: bool,
    timeout: float,
    max_body: int,
    max_answer: int,
) -> Answer:
    """Posts ``body`` to ``url`` (checked and resolved first); the answer's status and
    at most ``max_answer`` bytes of its body. :class:`Unsafe` for an address refused,
    ``OSError`` (timeouts among them) when the host cannot be reached."""
    if len(body) > max_body:
        raise Unsafe(f"The notice is larger than {max_body} bytes.")
    target = check_url(url, allow_loopback=allow_loopback)
    address = resolve(target, allow_loopback=allow_loopback)
    kind = _PinnedTLS if target.scheme == "https" else _Pinned
    connection = kind(address, target, timeout)
    try:
        connection.request(
            "POST",
            target.path,
            body=body,
            headers={"User-Agent": "pbem-notices", **headers, "Content-Length": str(len(body))},
        )
        response = connection.getresponse()
        return Answer(response.status, response.read(max_answer))
    except http.client.HTTPException as error:
        raise OSError(f"bad answer: {error}") from None
    finally:
        connection.close()
